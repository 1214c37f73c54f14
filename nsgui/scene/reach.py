"""Which shapes can ever touch which: a purely geometric, conservative test.

A body hanging from the world by pins (revolute/fixed joints, possibly through other pinned
bodies) can only move inside a disk around the root pivot; a body with a free or prismatic joint
somewhere up its chain can go anywhere. Two shapes "can touch" when their disks meet; a shape can
touch an obstacle when its disk reaches the obstacle. No dynamics involved.
"""

from __future__ import annotations

import numpy as np

from .geometry import WORLD, joint_of, shape_extent, vec


def _pivot_reach(scene, body_name, memo, depth=0):
    """(centre, radius, pivot) such that any body-frame point p lies within
    radius + |p - pivot| of centre; None when the body is not bounded."""
    if body_name in memo:
        return memo[body_name]
    memo[body_name] = None  # guards against joint loops
    j = joint_of(scene, body_name)
    if j is None or j.type not in ("revolute", "fixed") or depth > 100:
        return None
    ap, ac = vec(j.anchor_parent), vec(j.anchor_child)
    parent = j.parent or WORLD
    if parent == WORLD:
        out = (ap, 0.0, ac)
    else:
        pr = _pivot_reach(scene, parent, memo, depth + 1)
        if pr is None:
            return None
        c, R, pv = pr
        out = (c, R + float(np.linalg.norm(ap - pv)), ac)
    memo[body_name] = out
    return out


def shape_reach(scene, body, shape, memo=None):
    """(centre, radius) of a disk containing every position of `shape`, or None if unbounded."""
    memo = {} if memo is None else memo
    pr = _pivot_reach(scene, body.name, memo)
    if pr is None:
        return None
    c, R, pv = pr
    return c, R + shape_extent(shape, pv)


def _seg_dist(a, b, p):
    ab = b - a
    L2 = float(ab @ ab)
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, float((p - a) @ ab) / L2))
    return float(np.linalg.norm(a + t * ab - p))


def reach_meets_obstacle(reach, obstacle) -> bool:
    if reach is None:
        return True
    c, r = reach
    if obstacle.type in ("ground", "wall"):
        n = vec(obstacle.normal, (0.0, 1.0))
        n = n / (np.linalg.norm(n) or 1.0)
        return float((c - vec(obstacle.point)) @ n) <= r + 1e-9
    return _seg_dist(vec(obstacle.a), vec(obstacle.b), c) <= r + 1e-9


def reaches_meet(ra, rb) -> bool:
    if ra is None or rb is None:
        return True
    return float(np.linalg.norm(ra[0] - rb[0])) <= ra[1] + rb[1] + 1e-9


def directly_joined(scene, a: str, b: str) -> bool:
    """Joined by a joint of the tree or by a loop joint (joined bodies do not collide)."""
    return (any({j.parent, j.child} == {a, b} for j in scene.joints)
            or any({lj.a.body, lj.b.body} == {a, b} for lj in getattr(scene, "loops", ())))


# A contact pair is identified by ((body, shape), ("obstacle", name) | (body, shape)).
def pair_key(contact) -> tuple:
    a = (contact.a.body, contact.a.shape)
    if getattr(contact.b, "obstacle", None):
        b = ("obstacle", contact.b.obstacle)
    else:
        b = (contact.b.body, contact.b.shape)
    return a, b


def same_pair(k1, k2) -> bool:
    return k1 == k2 or (k1[1][0] != "obstacle" and (k1[1], k1[0]) == k2)


def candidate_pairs(scene) -> list[tuple]:
    """Every pair that can touch: each shape vs each obstacle it can reach, and each pair of
    shapes on different bodies not joined directly whose reach disks meet. A point shape is always
    the first of its pair; two points never pair."""
    memo: dict = {}
    reach = {}
    for b in scene.bodies:
        for s in b.shapes:
            reach[(b.name, s.name)] = shape_reach(scene, b, s, memo)
    pairs = []
    for b in scene.bodies:
        for s in b.shapes:
            for o in scene.obstacles:
                if reach_meets_obstacle(reach[(b.name, s.name)], o):
                    pairs.append(((b.name, s.name), ("obstacle", o.name)))
    bodies = list(scene.bodies)
    for i, b1 in enumerate(bodies):
        for b2 in bodies[i + 1:]:
            if directly_joined(scene, b1.name, b2.name):
                continue
            for s1 in b1.shapes:
                for s2 in b2.shapes:
                    if s1.type == "point" and s2.type == "point":
                        continue
                    if not reaches_meet(reach[(b1.name, s1.name)], reach[(b2.name, s2.name)]):
                        continue
                    k1, k2 = (b1.name, s1.name), (b2.name, s2.name)
                    pairs.append((k2, k1) if s2.type == "point" else (k1, k2))
    return pairs


def can_touch(scene, key) -> bool:
    """Whether the contact pair `key` can ever touch (geometry only)."""
    (ab, as_), (bk, bs) = key
    body = {b.name: b for b in scene.bodies}
    if ab not in body:
        return False
    sa = next((s for s in body[ab].shapes if s.name == as_), None)
    if sa is None:
        return False
    ra = shape_reach(scene, body[ab], sa)
    if bk == "obstacle":
        o = next((o for o in scene.obstacles if o.name == bs), None)
        return o is not None and reach_meets_obstacle(ra, o)
    if bk not in body or bk == ab or directly_joined(scene, ab, bk):
        return False
    sb = next((s for s in body[bk].shapes if s.name == bs), None)
    return sb is not None and reaches_meet(ra, shape_reach(scene, body[bk], sb))
