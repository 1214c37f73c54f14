"""Drawing geometry for the 3D view (numpy only): planar shape outlines, extruded solids,
obstacle slabs, force arrows and friction-cone wedges. Pure functions, testable without OpenGL."""

from __future__ import annotations

import math

import numpy as np

from nsgui.scene.geometry import rot

ARC_SEGMENTS = 40


def shape_outline(shape, point_radius=0.01) -> np.ndarray:
    """Counter-clockwise outline (n, 2) of a shape in its body frame."""
    kind = shape.type
    off = np.asarray(getattr(shape, "offset", None) or (0.0, 0.0), dtype=float)
    ang = float(getattr(shape, "angle", 0.0) or 0.0)
    if kind == "disk":
        a = np.linspace(0, 2 * np.pi, ARC_SEGMENTS, endpoint=False)
        local = shape.radius * np.column_stack([np.cos(a), np.sin(a)])
    elif kind == "point":
        a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
        local = point_radius * np.column_stack([np.cos(a), np.sin(a)])
    elif kind == "box":
        w, h = shape.width / 2, shape.height / 2
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    elif kind == "capsule":
        half, r = shape.length / 2, max(float(shape.radius), 0.0)
        if r <= 0:
            r = max(0.01 * shape.length, 1e-4)  # a thin bar still needs a visible width
        k = ARC_SEGMENTS // 2
        right = np.linspace(-np.pi / 2, np.pi / 2, k)
        left = np.linspace(np.pi / 2, 3 * np.pi / 2, k)
        local = np.vstack([np.column_stack([half + r * np.cos(right), r * np.sin(right)]),
                           np.column_stack([-half + r * np.cos(left), r * np.sin(left)])])
    elif kind == "polygon":
        local = np.asarray(shape.vertices, dtype=float)
    else:
        raise ValueError(f"unknown shape type {kind!r}")
    return local @ rot(ang).T + off


def extrude(outline, z0, z1):
    """A closed prism over a convex CCW outline: (vertices (2n+2, 3), faces (m, 3))."""
    n = len(outline)
    c = outline.mean(axis=0)
    bottom = np.column_stack([outline, np.full(n, z0)])
    top = np.column_stack([outline, np.full(n, z1)])
    verts = np.vstack([bottom, top, [[c[0], c[1], z0], [c[0], c[1], z1]]])
    cb, ct = 2 * n, 2 * n + 1
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j))
        faces.append((i, n + j, n + i))
        faces.append((cb, j, i))
        faces.append((ct, n + i, n + j))
    return verts, np.array(faces, dtype=np.uint32)


def merge_meshes(parts):
    verts, faces, off = [], [], 0
    for v, f in parts:
        verts.append(v)
        faces.append(f + off)
        off += len(v)
    if not verts:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.uint32)
    return np.vstack(verts), np.vstack(faces).astype(np.uint32)


def body_mesh(body, z0, z1, point_radius):
    return merge_meshes([extrude(shape_outline(s, point_radius), z0, z1) for s in body.shapes])


def clip_line_to_box(p, t, lo, hi):
    """The part of the line p + s t inside the box [lo, hi] as two points (None if it misses)."""
    s0, s1 = -np.inf, np.inf
    for k in range(2):
        if abs(t[k]) < 1e-12:
            if not lo[k] <= p[k] <= hi[k]:
                return None
            continue
        a, b = (lo[k] - p[k]) / t[k], (hi[k] - p[k]) / t[k]
        s0, s1 = max(s0, min(a, b)), min(s1, max(a, b))
    if s0 >= s1:
        return None
    return p + s0 * t, p + s1 * t


def obstacle_mesh(obstacle, extent, z0, z1, box=None, solid=None):
    """A slab on the solid side of a ground/wall boundary (clipped to `box` = (lo, hi); `solid`
    thick, by default 3 % of `extent`) or under a segment. Returns None when the boundary is
    outside the box."""
    thick = 0.03 * extent if solid is None else float(solid)
    if obstacle.type in ("ground", "wall"):
        n = np.asarray(obstacle.normal, dtype=float)
        n = n / (np.linalg.norm(n) or 1.0)
        t = np.array([n[1], -n[0]])
        p = np.asarray(obstacle.point, dtype=float)
        if box is None:
            a, b = p + extent * t, p - extent * t
        else:
            ends = clip_line_to_box(p, t, *box)
            if ends is None:
                return None
            a, b = ends
    else:
        a, b = np.asarray(obstacle.a, dtype=float), np.asarray(obstacle.b, dtype=float)
        d = b - a
        n = np.array([-d[1], d[0]]) / (np.linalg.norm(d) or 1.0)
        thick = 0.015 * extent
    quad = np.array([a, b, b - thick * n, a - thick * n])
    d1, d2 = quad[1] - quad[0], quad[2] - quad[0]
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:
        quad = quad[::-1]
    return extrude(quad, z0, z1)


def scene_bounds(scene, poses=None, body_names=None):
    """Lower-left and upper-right corners of the scene's shapes, obstacle points and pivots."""
    pts = []
    where = dict(zip(body_names or [], poses if poses is not None else []))
    for b in scene.bodies:
        for s in b.shapes:
            try:
                outline = shape_outline(s)
            except Exception:
                continue
            pts.append(transform_points(outline, where[b.name]) if b.name in where else outline)
    for o in scene.obstacles:
        if o.type == "segment":
            pts.append(np.array([o.a, o.b], dtype=float))
        else:
            pts.append(np.array([o.point], dtype=float))
    for j in scene.joints:
        if j.parent == "world":
            pts.append(np.array([j.anchor_parent], dtype=float))
    if not pts:
        return np.full(2, -0.5), np.full(2, 0.5)
    allp = np.vstack(pts)
    return allp.min(axis=0), allp.max(axis=0)


def transform_points(local, pose):
    x, y, a = pose
    return np.asarray(local) @ rot(a).T + (x, y)


def points_along_poses(poses, bodies, local):
    """World positions (m, k, 2) of m body-frame points `local` (m, 2) on the bodies with indices
    `bodies` (m,), over k pose rows `poses` (k, nbodies, 3): x + R(theta) p for every row at once."""
    poses = np.asarray(poses, dtype=float)
    local = np.asarray(local, dtype=float).reshape(-1, 2)
    p = poses[:, np.asarray(bodies, dtype=int)]  # (k, m, 3)
    c, s = np.cos(p[..., 2]), np.sin(p[..., 2])
    x = p[..., 0] + c * local[:, 0] - s * local[:, 1]
    y = p[..., 1] + s * local[:, 0] + c * local[:, 1]
    return np.stack([x, y], axis=-1).transpose(1, 0, 2)


def arrow_segments(points, directions, lengths):
    """Line segments (2n, 2) from each point along its direction by its length."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    d = np.asarray(directions, dtype=float).reshape(-1, 2)
    seg = np.empty((2 * len(p), 2))
    seg[0::2] = p
    seg[1::2] = p + d * np.asarray(lengths, dtype=float)[:, None]
    return seg


def cone_wedges(points, normals, mus, length):
    """Triangles (3n, 2) of friction-cone wedges: apex at the contact point, half-angle atan(mu)
    around the normal."""
    out = []
    for p, n, mu in zip(points, normals, mus):
        n = np.asarray(n, float)
        t = np.array([-n[1], n[0]])
        a = math.atan(mu)
        out += [p, p + length * (math.cos(a) * n + math.sin(a) * t),
                p + length * (math.cos(a) * n - math.sin(a) * t)]
    return np.array(out).reshape(-1, 2)
