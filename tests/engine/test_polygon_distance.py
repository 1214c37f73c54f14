"""contact_geometry.polygon_side (the inside test first, the closest point only for a point outside) and
polygon_edges (each vertex put in the world frame once) against an independent reference: the signed
distance of a point from a convex polygon is minus its distance to the boundary inside and its distance to
the polygon outside, with the normal of the nearest edge inside and the direction from the closest point
outside."""
import math

import numpy as np

from nsgui.engine.codes import POLYGON
from nsgui.engine.contact_geometry import N_EDGE, feature_geometry, polygon_edges


def _regular(n, r, rng):
    """A convex polygon, counter-clockwise: n vertices at radius r, jittered angles."""
    a = np.sort(rng.uniform(0.0, 2 * math.pi, n)) if n > 4 else np.arange(n) * 2 * math.pi / n + rng.uniform(0, 1)
    return np.column_stack((r * np.cos(a), r * np.sin(a)))


def _reference(p, world):
    """(signed distance, normal) by the definition, edge by edge."""
    n = world.shape[0]
    best_d, foot, inside = np.inf, None, True
    for k in range(n):
        a, b = world[k], world[(k + 1) % n]
        e = b - a
        if not np.dot(e, e) > 0.0:  # (two jittered angles drawn equal: no edge between them)
            continue
        s = min(max(np.dot(p - a, e) / np.dot(e, e), 0.0), 1.0)
        f = a + s * e
        d = np.hypot(*(p - f))
        if d < best_d:
            best_d, foot = d, f
        if e[1] * (p - a)[0] - e[0] * (p - a)[1] > 0.0:  # right of a CCW edge: outside
            inside = False
    if inside:
        return -best_d, None
    return best_d, ((p - foot) / best_d if best_d > 0.0 else None)


def test_signed_distance_and_normal_of_points_inside_and_outside_convex_polygons():
    rng = np.random.default_rng(18)
    counts = {True: 0, False: 0}
    for _ in range(300):
        nv = int(rng.integers(3, 8))
        r = rng.uniform(0.05, 0.5)
        verts = _regular(nv, r, rng)
        bx, by, th = rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-math.pi, math.pi)
        c, s = math.cos(th), math.sin(th)
        world = np.array([bx, by]) + verts @ np.array([[c, s], [-s, c]])
        for _ in range(10):
            p = np.array([bx, by]) + r * rng.uniform(-1.5, 1.5, 2)
            sd, nx, ny = feature_geometry(POLYGON, p[0], p[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, bx, by, c, s,
                                          verts, 0, nv)[:3]
            ref, n = _reference(p, world)
            counts[ref <= 0.0] += 1
            assert abs(sd - ref) < 1e-13, (sd, ref)
            assert abs(math.hypot(nx, ny) - 1.0) < 1e-14
            if n is not None and ref > 1e-9:
                assert abs(nx - n[0]) < 1e-9 and abs(ny - n[1]) < 1e-9
            elif n is None:
                # inside: the outward normal of the nearest edge, along which the point is -sd from it
                q = p - sd * np.array([nx, ny])
                assert abs(_reference(q, world)[0]) < 1e-12
    assert counts[True] > 400 and counts[False] > 400


def test_edges_are_the_rotated_polygon():
    rng = np.random.default_rng(5)
    verts = _regular(5, 0.3, rng)
    bx, by, th = 0.7, -1.2, 0.4
    c, s = math.cos(th), math.sin(th)
    out = np.zeros((5, N_EDGE))
    polygon_edges(verts, 0, 5, True, bx, by, c, s, out, 0)
    world = np.column_stack((bx + c * verts[:, 0] - s * verts[:, 1], by + s * verts[:, 0] + c * verts[:, 1]))
    e = np.roll(world, -1, axis=0) - world
    assert np.array_equal(out[:, 0:2], world)              # each vertex: the same expression, the same numbers
    assert np.array_equal(out[:, 2:4], e)
    assert np.allclose(out[:, 4], (e ** 2).sum(1), rtol=1e-15, atol=0)
    normal = np.column_stack((e[:, 1], -e[:, 0])) / np.hypot(e[:, 0], e[:, 1])[:, None]
    assert np.allclose(out[:, 5:7], normal, rtol=0, atol=1e-15)
    assert np.all(np.einsum("ij,ij->i", normal, world.mean(0) - world) < 0)   # outward of a CCW polygon
