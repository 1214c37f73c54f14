"""contact_geometry.polygon_side (the inside test first, the closest point only for a point outside) and
polygon_edges (each vertex put in the world frame once) against an independent reference: the signed
distance of a point from a convex polygon is minus its distance to the boundary inside and its distance to
the polygon outside, with the normal of the nearest edge inside and the direction from the closest point
outside. Also rectangle_side (a box centred on its body, in its frame) against polygon_side, and
compile.py's one vertex block per body's polygon against candidate_geometry's own edges."""
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


def _box_points(hx, hy, rng, n):
    """Body-frame points about the box |x| <= hx, |y| <= hy: anywhere around it, near its faces (inside and
    outside, 1e-12 .. 1e-2 from them), near its corners, and on the lines of its faces."""
    pts = [rng.uniform(-1.6, 1.6, (n, 2)) * (hx, hy)]
    for sign in (-1.0, 1.0):
        depth = sign * 10.0 ** rng.uniform(-12, -2, n)
        along = rng.uniform(-1.0, 1.0, n)
        pts.append(np.column_stack((hx + depth, along * hy)))
        pts.append(np.column_stack((along * hx, -hy - depth)))
        pts.append(np.column_stack((np.sign(along) * hx + 10.0 ** rng.uniform(-12, -3, n) * sign,
                                    hy + 10.0 ** rng.uniform(-12, -3, n) * rng.choice((-1.0, 1.0), n))))
    pts.append(np.column_stack((np.full(n, -hx), rng.uniform(-2.0, 2.0, n) * hy)))
    return np.vstack(pts)


def test_rectangle_side_is_polygon_side_to_round_off():
    """A box centred on its body (compile.py flags it: CF_HX, CF_HY) is computed by rectangle_side, in its
    body's frame without world edges: the same signed distance as polygon_side's edges to round-off, the same
    face's normal (or, at a tie of two faces inside, a face at that distance), the same rule outside (the
    face's normal when the closest point is on one face, the direction from the corner beyond it), and the
    definition's distance."""
    rng = np.random.default_rng(19)
    kinds = {"inside": 0, "face": 0, "corner": 0}
    worst_sd = worst_n = 0.0
    for trial in range(60):
        hx, hy = rng.uniform(0.02, 0.5, 2)
        verts = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
        bx, by = rng.uniform(-2, 2, 2)
        th = 0.0 if trial % 6 == 0 else (rng.uniform(-1e-9, 1e-9) if trial % 6 == 1 else rng.uniform(-4, 4))
        c, s = math.cos(th), math.sin(th)
        world = np.array([bx, by]) + verts @ np.array([[c, s], [-s, c]])
        # polygon_side's edge normals are world vertex differences over the edge's length: their round-off
        # (a few ulps of the coordinates, over the side) is what the two normals may differ by
        tol_n = 1e-15 + 1e-15 * (abs(bx) + abs(by) + hx + hy) / min(hx, hy)
        for lx, ly in _box_points(hx, hy, rng, 40):
            p = (bx + c * lx - s * ly, by + s * lx + c * ly)
            fast = feature_geometry(POLYGON, p[0], p[1], 0.0, 0.0, 0.0, hx, hy, 0.0, True, bx, by, c, s, verts, 0, 4)
            slow = feature_geometry(POLYGON, p[0], p[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, bx, by, c, s, verts, 0, 4)
            sd, nx, ny = fast[:3]
            ref, n = _reference(np.array(p), world)
            assert abs(sd - ref) < 1e-13, (sd, ref)
            assert abs(sd - slow[0]) < 2e-15, (sd, slow[0])   # round-off of coordinates up to ~2.5 m
            worst_sd = max(worst_sd, abs(sd - slow[0]))
            assert abs(math.hypot(nx, ny) - 1.0) < 1e-15
            # the world points: centre, on A (radius 0: the centre), on B: the centre moved back by sd
            assert fast[3] == p[0] and fast[4] == p[1]
            assert abs(fast[5] - (p[0] - sd * nx)) < 1e-15 and abs(fast[6] - (p[1] - sd * ny)) < 1e-15
            dn = math.hypot(nx - slow[1], ny - slow[2])
            if sd <= 0.0:
                kinds["inside"] += 1
                if dn > 1e-12:   # two faces at the same depth to round-off: either is the answer
                    assert abs(_reference(np.array(p) - sd * np.array([nx, ny]), world)[0]) < 1e-13
                    continue
                assert dn < tol_n, (dn, lx, ly)
            elif abs(lx) < hx or abs(ly) < hy:
                kinds["face"] += 1   # the closest point on a face: its normal (the rotation's column)
                # polygon_side's edges may find the corner nearer by round-off when the point is within
                # `off` of the corner's line: then its direction, tilted by off / sd
                off = hy - abs(ly) if abs(ly) < hy else hx - abs(lx)
                assert dn < tol_n or dn * sd < 2.0 * off + 2e-15, (dn, lx, ly, sd)
            else:
                kinds["corner"] += 1   # the direction from the corner: round-off over the distance
                assert dn * sd < 2e-15, (dn, sd)
                if n is not None and sd > 1e-9:
                    assert abs(nx - n[0]) < 1e-6 and abs(ny - n[1]) < 1e-6
            worst_n = max(worst_n, dn * min(sd, 1.0) if sd > 0 else dn)
    assert min(kinds.values()) > 1000, kinds
    assert worst_sd > 0.0 or worst_n > 0.0   # (the two paths do round differently: the test compares them)


def _pyramid(rectangles, monkeypatch, rows=4):
    import nsgui.engine.compile as compile_module
    from nsgui.engine import compile_scene
    from tests.engine.test_heaps import HEAPS
    monkeypatch.setattr(compile_module, "RECTANGLES", rectangles)
    return compile_scene(HEAPS["box_pyramid"](rows))


def _random_poses(model, rng, spread):
    """The pyramid's configuration with each box moved by up to `spread` m and turned by up to 0.2 rad."""
    q = np.array(model.q0, float)
    q[0::3] += rng.uniform(-spread, spread, q[0::3].shape)
    q[1::3] += rng.uniform(-spread, spread, q[1::3].shape)
    q[2::3] += rng.uniform(-0.2, 0.2, q[2::3].shape)
    return q


def _stepping_geometry(model, q):
    """The stepping loop's geometry of every candidate (evaluation.evaluate_geometry) at q."""
    from nsgui.engine import Simulator
    from nsgui.engine.evaluation import evaluate_geometry
    sim = Simulator(model)
    sim._data.q[:] = q
    evaluate_geometry(*sim._args)
    d = sim._data
    return d.gap.copy(), d.nrm.copy(), d.pa.copy(), d.pb.copy()


def test_one_edge_block_per_body_polygon(monkeypatch):
    """compile.py keeps one vertex block per body's polygon, shared by every contact against it: the stepping
    loop computes its world edges once and every candidate reads them. Each candidate's block is its B
    body's box, and the loop's geometry is candidate_geometry's (which computes its own edges for each
    candidate) bit for bit, at random poses of a 10-box pyramid (general path: no rectangle flags)."""
    from nsgui.engine.codes import CF_B1, CF_B2, CI_BBODY, CI_BTYPE, CI_VCOUNT, CI_VSTART
    model = _pyramid(False, monkeypatch)
    a = model.arrays
    poly = np.nonzero(a.ci[:, CI_BTYPE] == POLYGON)[0]
    assert len(poly) > 60 and np.all(a.cf[poly, CF_B1] == 0.0) and np.all(a.cf[poly, CF_B2] == 0.0)
    starts = {}
    for c in poly:
        b, v0, nv = a.ci[c, CI_BBODY], a.ci[c, CI_VSTART], a.ci[c, CI_VCOUNT]
        assert starts.setdefault(b, v0) == v0   # every candidate against body b: one block
        assert nv == 4 and np.array_equal(a.verts[v0:v0 + 4], [(-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)])
    assert a.verts.shape[0] == 4 * len(starts) == 4 * model.nbodies
    rng = np.random.default_rng(7)
    for _ in range(20):
        q = _random_poses(model, rng, 0.05)
        gap, nrm, pa, pb = _stepping_geometry(model, q)
        ref = model._geometry(q, model._kin(q))
        for got, want in zip((gap, nrm, pa, pb), ref):
            assert np.array_equal(got, want)


def test_rectangle_flags_and_the_general_path_agree(monkeypatch):
    """The same pyramid with its boxes flagged as rectangles: the stepping loop's geometry (rectangle_side)
    is the general path's to round-off at random poses, and the queries' (candidate_geometry) bit for bit."""
    from nsgui.engine.codes import CF_B1, CF_B2, CI_BTYPE
    general = _pyramid(False, monkeypatch)
    fast = _pyramid(True, monkeypatch)
    a = fast.arrays
    poly = a.ci[:, CI_BTYPE] == POLYGON
    assert np.all(a.cf[poly, CF_B1] == 0.1) and np.all(a.cf[poly, CF_B2] == 0.1)
    assert np.array_equal(a.verts, general.arrays.verts) and np.array_equal(a.ci, general.arrays.ci)
    rng = np.random.default_rng(11)
    for _ in range(20):
        q = _random_poses(fast, rng, 0.05)
        got = _stepping_geometry(fast, q)
        for x, y in zip(got, fast._geometry(q, fast._kin(q))):
            assert np.array_equal(x, y)
        want = _stepping_geometry(general, q)
        assert np.allclose(got[0], want[0], rtol=0, atol=2e-15)
        corner = np.abs(got[1] - want[1]).max(axis=1) > 1e-15   # outside beyond a corner: round-off / distance
        assert np.all(np.abs(got[1] - want[1]).max(axis=1) * np.maximum(got[0], 1e-300) < 2e-15)
        assert np.all(got[0][corner] > 0.0)
        assert np.allclose(got[2], want[2], rtol=0, atol=4e-16) and np.allclose(got[3], want[3], rtol=0, atol=4e-15)
