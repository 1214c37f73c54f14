"""Plane geometry for the editor: body poses at the start, shape outlines, hit tests, overlaps.

Pure numpy on the Scene's attributes (no Qt, no physics). Poses follow the joint kinematics of
docs/scene-format.md so the editor draws exactly what the engine will start from.
"""

from __future__ import annotations

import math

import numpy as np

WORLD = "world"
CIRCLE_SEGMENTS = 32


def rot(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


def to_world(pose, p) -> np.ndarray:
    """Point `p` of a body frame with pose (x, y, angle) in world coordinates."""
    x, y, th = pose
    return np.array([x, y]) + rot(th) @ np.asarray(p, float)


def to_body(pose, w) -> np.ndarray:
    """World point `w` expressed in the frame of a body with pose (x, y, angle)."""
    x, y, th = pose
    return rot(-th) @ (np.asarray(w, float) - np.array([x, y]))


def vec(v, default=(0.0, 0.0)) -> np.ndarray:
    return np.asarray(default if v is None else v, float)


def joint_coords(joint) -> list[str]:
    """Coordinate names of one joint, as in the format doc."""
    if joint.type == "free":
        return [f"{joint.name}.x", f"{joint.name}.y", f"{joint.name}.theta"]
    if joint.type == "fixed":
        return []
    return [joint.name]


def joint_of(scene, body_name: str):
    """The joint whose child is `body_name` (None if there is none)."""
    for j in scene.joints:
        if j.child == body_name:
            return j
    return None


def child_pose(joint, parent_pose, q: dict) -> tuple[float, float, float]:
    """World pose of the child of `joint` given the parent's pose and coordinate values `q`."""
    px, py, pth = parent_pose
    pp = np.array([px, py])
    if joint.type == "free":
        x = q.get(f"{joint.name}.x", 0.0)
        y = q.get(f"{joint.name}.y", 0.0)
        th = q.get(f"{joint.name}.theta", 0.0)
        p = pp + rot(pth) @ np.array([x, y])
        return float(p[0]), float(p[1]), pth + th
    qv = q.get(joint.name, 0.0) if joint.type in ("revolute", "prismatic") else 0.0
    ap, ac = vec(joint.anchor_parent), vec(joint.anchor_child)
    angle = float(joint.angle or 0.0)
    if joint.type == "prismatic":
        axis = vec(joint.axis, (1.0, 0.0))
        n = np.linalg.norm(axis)
        axis = axis / n if n > 0 else np.array([1.0, 0.0])
        th = pth + angle
        p = pp + rot(pth) @ (ap + qv * axis) - rot(th) @ ac
    else:  # revolute / fixed
        th = pth + angle + qv
        p = pp + rot(pth) @ ap - rot(th) @ ac
    return float(p[0]), float(p[1]), float(th)


def body_poses(scene, q: dict | None = None) -> dict[str, tuple[float, float, float]]:
    """World pose (x, y, angle) of every body at the initial coordinates (or `q`).

    Bodies whose joint chain cannot be resolved (no joint, unknown parent, a loop) get (0, 0, 0)
    so that a scene being edited can always be drawn."""
    q = dict(scene.initial.q) if q is None else q
    poses: dict[str, tuple[float, float, float]] = {WORLD: (0.0, 0.0, 0.0)}
    pending = list(scene.joints)
    progress = True
    while pending and progress:
        progress = False
        rest = []
        for j in pending:
            parent = j.parent or WORLD
            if parent in poses and j.child not in poses:
                poses[j.child] = child_pose(j, poses[parent], q)
                progress = True
            elif j.child not in poses:
                rest.append(j)
        pending = rest
    out = {}
    for b in scene.bodies:
        out[b.name] = poses.get(b.name, (0.0, 0.0, 0.0))
    return out


# -- shapes as swept convex polygons -----------------------------------------------------------
def shape_core(shape) -> tuple[np.ndarray, float]:
    """(vertices in the body frame, sweep radius): a disk is a point swept by its radius, a
    capsule a segment swept by its radius, a box or polygon a convex polygon with radius 0."""
    off = vec(shape.offset)
    R = rot(float(shape.angle or 0.0))
    t = shape.type
    if t == "disk":
        return off[None, :], float(shape.radius)
    if t == "point":
        return off[None, :], 0.0
    if t == "capsule":
        h = 0.5 * float(shape.length)
        pts = np.array([[-h, 0.0], [h, 0.0]])
        return off + pts @ R.T, float(shape.radius or 0.0)
    if t == "box":
        w, h = 0.5 * float(shape.width), 0.5 * float(shape.height)
        pts = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
        return off + pts @ R.T, 0.0
    if t == "polygon":
        pts = np.asarray(shape.vertices, float)
        return off + pts @ R.T, 0.0
    raise ValueError(f"unknown shape type {t!r}")


def shape_outline(shape, segments: int = CIRCLE_SEGMENTS) -> np.ndarray:
    """Closed outline (body frame) for drawing: polygon vertices, counter-clockwise."""
    core, r = shape_core(shape)
    if r <= 0:
        return core
    angles = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    circle = r * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    pts = (core[:, None, :] + circle[None, :, :]).reshape(-1, 2)
    return convex_hull(pts)


def convex_hull(pts: np.ndarray) -> np.ndarray:
    """Monotone chain convex hull, counter-clockwise."""
    p = sorted(map(tuple, np.asarray(pts, float)))
    if len(p) <= 2:
        return np.array(p)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for q in p:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    for q in reversed(p):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return np.array(lower[:-1] + upper[:-1])


def world_core(shape, pose) -> tuple[np.ndarray, float]:
    core, r = shape_core(shape)
    x, y, th = pose
    return np.array([x, y]) + core @ rot(th).T, r


def _seg_point_dist(a, b, p) -> float:
    ab = b - a
    L2 = float(ab @ ab)
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, float((p - a) @ ab) / L2))
    return float(np.linalg.norm(a + t * ab - p))


def _edges(poly: np.ndarray):
    n = len(poly)
    if n == 1:
        return [(poly[0], poly[0])]
    if n == 2:
        return [(poly[0], poly[1])]
    return [(poly[i], poly[(i + 1) % n]) for i in range(n)]


def _point_in_convex(p, poly) -> bool:
    if len(poly) < 3:
        return False
    sign = 0
    for a, b in _edges(poly):
        c = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        if abs(c) < 1e-15:
            continue
        s = 1 if c > 0 else -1
        if sign == 0:
            sign = s
        elif s != sign:
            return False
    return True


def _seg_seg_dist(a, b, c, d) -> float:
    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return 0.0
    return min(_seg_point_dist(a, b, c), _seg_point_dist(a, b, d),
               _seg_point_dist(c, d, a), _seg_point_dist(c, d, b))


def convex_distance(P: np.ndarray, Q: np.ndarray) -> float:
    """Distance between two convex point sets given by their vertices (0 if they intersect)."""
    if any(_point_in_convex(p, Q) for p in P) or any(_point_in_convex(q, P) for q in Q):
        return 0.0
    return min(_seg_seg_dist(a, b, c, d) for a, b in _edges(P) for c, d in _edges(Q))


def shape_gap(shape_a, pose_a, shape_b, pose_b) -> float:
    """Signed clearance between two shapes (< 0 when they overlap; depth is approximate for
    polygons, exact for disks and capsules that do not overlap their cores)."""
    Pa, ra = world_core(shape_a, pose_a)
    Pb, rb = world_core(shape_b, pose_b)
    d = convex_distance(Pa, Pb)
    if d > 0:
        return d - ra - rb
    return -(ra + rb) - _penetration(Pa, Pb)


def _penetration(P, Q) -> float:
    """Minimum translation distance of two intersecting convex polygons (SAT)."""
    best = math.inf
    for poly in (P, Q):
        if len(poly) < 2:
            continue
        for a, b in _edges(poly):
            e = b - a
            n = np.array([-e[1], e[0]])
            L = np.linalg.norm(n)
            if L == 0:
                continue
            n /= L
            pa, pb = P @ n, Q @ n
            overlap = min(pa.max(), pb.max()) - max(pa.min(), pb.min())
            best = min(best, max(0.0, overlap))
    return 0.0 if best is math.inf else best


def obstacle_gap(shape, pose, obstacle) -> float:
    """Signed clearance between a shape and an obstacle (< 0 when the shape is inside it)."""
    P, r = world_core(shape, pose)
    if obstacle.type in ("ground", "wall"):
        n = vec(obstacle.normal, (0.0, 1.0))
        n = n / (np.linalg.norm(n) or 1.0)
        return float(((P - vec(obstacle.point)) @ n).min()) - r
    a, b = vec(obstacle.a), vec(obstacle.b)
    return min(_seg_seg_dist(a, b, p, q) for p, q in _edges(P)) - r \
        if not _segment_crosses(P, a, b) else -r


def _segment_crosses(P, a, b) -> bool:
    if len(P) >= 3 and (_point_in_convex(a, P) or _point_in_convex(b, P)):
        return True
    return any(_seg_seg_dist(a, b, p, q) == 0.0 for p, q in _edges(P))


def point_in_shape(shape, pose, w, tol: float = 0.0) -> bool:
    P, r = world_core(shape, pose)
    w = np.asarray(w, float)
    if len(P) >= 3 and _point_in_convex(w, P):
        return True
    d = min(_seg_point_dist(a, b, w) for a, b in _edges(P))
    return d <= r + tol


def shape_extent(shape, about=(0.0, 0.0)) -> float:
    """Largest distance from the body-frame point `about` to any point of the shape."""
    core, r = shape_core(shape)
    return float(np.linalg.norm(core - np.asarray(about, float), axis=1).max()) + r


def body_extent(body, about=(0.0, 0.0)) -> float:
    return max((shape_extent(s, about) for s in body.shapes), default=0.0)


def half_plane_distance(point, obstacle) -> float:
    n = vec(obstacle.normal, (0.0, 1.0))
    n = n / (np.linalg.norm(n) or 1.0)
    return float((np.asarray(point, float) - vec(obstacle.point)) @ n)
