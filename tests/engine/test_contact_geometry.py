"""Gap functions and contact Jacobians for every supported shape pair.

Oracles: the distance between the two shapes' boundaries found by dense sampling (separated shapes),
and finite differences of the gap for the Jacobian rows (H = dφ/dq, T = tangential velocity map).
"""

import itertools
import zlib

import numpy as np
import pytest
from scipy.spatial import Delaunay

from nsgui.scene import scene_from_dict
from nsgui.engine import compile_scene

SHAPES = {
    "disk": {"type": "disk", "radius": 0.3},
    "box": {"type": "box", "width": 0.6, "height": 0.4, "angle": 0.2, "offset": [0.05, 0.0]},
    "capsule": {"type": "capsule", "length": 0.8, "radius": 0.1},
    "polygon": {"type": "polygon", "vertices": [[-0.3, -0.2], [0.35, -0.25], [0.3, 0.2], [-0.1, 0.35]]},
    "point": {"type": "point", "offset": [0.1, 0.0]},
}
OBSTACLES = {
    "ground": {"type": "ground", "point": [0.0, -1.0], "normal": [-0.2588190451, 0.9659258263]},
    "segment": {"type": "segment", "a": [-1.0, -1.0], "b": [1.2, -0.6]},
}


def rot(a):
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def boundary(shape, pose, n=3000):
    """Dense boundary samples of a shape placed at pose (x, y, angle); points for a point shape."""
    off = np.asarray(shape.get("offset", [0.0, 0.0]))
    R = rot(shape.get("angle", 0.0))
    t = np.linspace(0, 1, n, endpoint=False)
    kind = shape["type"]
    if kind == "disk":
        local = off + shape["radius"] * np.column_stack([np.cos(2 * np.pi * t), np.sin(2 * np.pi * t)])
    elif kind == "point":
        local = off[None, :]
    elif kind == "capsule":
        L, r = shape["length"], shape["radius"]
        core = np.column_stack([np.linspace(-L / 2, L / 2, n // 4), np.zeros(n // 4)])
        ang = 2 * np.pi * t
        rim = np.vstack([c + r * np.column_stack([np.cos(ang), np.sin(ang)]) for c in (core[0], core[-1])])
        local = off + (R @ np.vstack([core + [0, r], core - [0, r], rim]).T).T
    else:
        if kind == "box":
            w, h = shape["width"] / 2, shape["height"] / 2
            v = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
        else:
            v = np.asarray(shape["vertices"], float)
        k = len(v)
        local = np.vstack([v[i] + np.outer(np.linspace(0, 1, n // k, endpoint=False), v[(i + 1) % k] - v[i])
                           for i in range(k)])
        local = off + (R @ local.T).T
    x, y, a = pose
    return (rot(a) @ local.T).T + [x, y]


def obstacle_boundary(ob, n=20000):
    if ob["type"] == "segment":
        a, b = np.asarray(ob["a"]), np.asarray(ob["b"])
        return a + np.outer(np.linspace(0, 1, n), b - a)
    p, nn = np.asarray(ob["point"]), np.asarray(ob["normal"])
    tvec = np.array([nn[1], -nn[0]])
    return p + np.outer(np.linspace(-5, 5, n), tvec)


def make_scene(a_kind, b_kind):
    bodies = [{"name": "A", "mass": 1.0, "inertia": 0.1, "shapes": [dict(SHAPES[a_kind], name="s")]}]
    joints = [{"name": "a", "type": "free", "child": "A"}]
    obstacles = []
    if b_kind in OBSTACLES:
        obstacles.append(dict(OBSTACLES[b_kind], name="ob"))
        b_ref = {"obstacle": "ob"}
    else:
        bodies.append({"name": "B", "mass": 2.0, "inertia": 0.2, "shapes": [dict(SHAPES[b_kind], name="s")]})
        joints.append({"name": "b", "type": "free", "child": "B"})
        b_ref = {"body": "B", "shape": "s"}
    return scene_from_dict({
        "format": "nsgui-scene", "version": 1, "bodies": bodies, "joints": joints, "obstacles": obstacles,
        "contacts": [{"name": "c", "a": {"body": "A", "shape": "s"}, "b": b_ref, "friction": 0.5}],
    })


PAIRS = [(a, b) for a, b in itertools.product(["disk", "box", "capsule", "polygon", "point"],
                                              ["ground", "segment", "disk", "box", "capsule", "polygon"])]


def overlap(pa, pb):
    """True when a sample of one convex shape lies inside the other (hull test; a point has no hull)."""
    for inner, outer in ((pa, pb), (pb, pa)):
        if len(outer) >= 3 and (Delaunay(outer).find_simplex(inner) >= 0).any():
            return True
    return False


def separated_poses(a_kind, b_kind, rng, count):
    """Random poses with the shapes apart (distance between 0.05 and 0.6)."""
    out = []
    ya = (-0.55, -0.1) if b_kind in OBSTACLES else (-0.3, 0.3)
    for _ in range(200):
        if len(out) == count:
            break
        qa = np.array([rng.uniform(-0.4, 0.4), rng.uniform(*ya), rng.uniform(-np.pi, np.pi)])
        qb = np.array([rng.uniform(-0.4, 0.4), rng.uniform(-1.0, -0.6), rng.uniform(-np.pi, np.pi)])
        pa = boundary(SHAPES[a_kind], qa, 800)
        pb = (obstacle_boundary(OBSTACLES[b_kind], 4000) if b_kind in OBSTACLES
              else boundary(SHAPES[b_kind], qb, 800))
        d = np.sqrt(((pa[:, None, :] - pb[None, :, :]) ** 2).sum(-1)).min()
        if b_kind not in OBSTACLES and overlap(pa, pb):
            continue  # the sampled distance is unsigned: a point or shape inside the other is not apart
        if b_kind == "ground":  # half-plane: signed distance of the lowest point
            nn = np.asarray(OBSTACLES["ground"]["normal"])
            d = ((pa - OBSTACLES["ground"]["point"]) @ nn).min()
        if 0.02 < d < 0.8:
            out.append((qa, qb, d))
    assert len(out) == count, "could not draw separated poses"
    return out


@pytest.mark.parametrize("a_kind,b_kind", PAIRS)
def test_gap_is_the_distance_between_separated_shapes(a_kind, b_kind):
    if a_kind == "point" and b_kind == "point":
        pytest.skip("point-point has no contact")
    model = compile_scene(make_scene(a_kind, b_kind))
    # crc32, not hash(): str hashes change per process (PYTHONHASHSEED), and so would the poses
    rng = np.random.default_rng(zlib.crc32(f"{a_kind}/{b_kind}".encode()))
    for qa, qb, d in separated_poses(a_kind, b_kind, rng, 3):
        q = np.concatenate([qa, qb]) if model.nq == 6 else qa
        gap, points, normals = model.contact_frames(q)
        assert gap.min() == pytest.approx(d, abs=4e-3), (a_kind, b_kind, q)
        np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("a_kind,b_kind", PAIRS)
def test_jacobian_rows_are_gap_derivatives(a_kind, b_kind):
    model = compile_scene(make_scene(a_kind, b_kind))
    rng = np.random.default_rng(7)
    for qa, qb, _ in separated_poses(a_kind, b_kind, rng, 2):
        q = np.concatenate([qa, qb]) if model.nq == 6 else qa
        HN, HT = model.contact_jacobians(q)
        gap0, _, normals = model.contact_frames(q)
        eps = 1e-6
        for j in range(model.nq):
            dq = np.zeros(model.nq)
            dq[j] = eps
            fd = (model.contact_frames(q + dq)[0] - model.contact_frames(q - dq)[0]) / (2 * eps)
            np.testing.assert_allclose(HN[:, j], fd, atol=2e-6, err_msg=f"{a_kind}/{b_kind} column {j}")
        # the tangent row is the normal row rotated: t = (n_y, -n_x) applied to the same point Jacobians
        assert np.all(np.isfinite(HT))


def test_penetration_is_negative_and_exact_for_a_disk_in_the_ground():
    model = compile_scene(make_scene("disk", "ground"))
    nn = np.asarray(OBSTACLES["ground"]["normal"])
    for depth in (0.0, 0.01, 0.1):
        centre = np.asarray(OBSTACLES["ground"]["point"]) + (0.3 - depth) * nn / np.linalg.norm(nn)
        gap, point, normal = model.contact_frames(np.array([centre[0], centre[1], 0.4]))
        assert gap[0] == pytest.approx(-depth, abs=1e-9)
        np.testing.assert_allclose(normal[0], nn / np.linalg.norm(nn), atol=1e-9)


def test_box_corner_inside_a_box_reports_the_nearest_face():
    model = compile_scene(make_scene("point", "box"))
    # B's box: 0.6 x 0.4 rotated 0.2 about offset (0.05, 0); put A's point 0.03 inside the top face
    R = rot(0.2)
    inside = np.array([0.05, 0.0]) + R @ np.array([0.1, 0.2 - 0.03]) - R @ np.array([0.0, 0.0])
    qa = np.array([inside[0] - 0.1, inside[1], 0.0])  # the point shape sits at offset (0.1, 0)
    q = np.concatenate([qa, [0.0, 0.0, 0.0]])
    gap, _, normal = model.contact_frames(q)
    assert gap[0] == pytest.approx(-0.03, abs=1e-12)
    np.testing.assert_allclose(normal[0], R @ [0.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("a_kind,b_kind", PAIRS)
def test_a_whole_evaluation_gives_each_candidates_own_geometry_and_rows(a_kind, b_kind):
    """evaluate (one loop over the candidates, each body's rotation computed once) and the step's rows
    (active_contact_rows, one call for all) give exactly the numbers of the per-candidate kernels
    (candidate_geometry, relative_velocity, contact_rows: Model.contact_frames and contact_jacobians),
    also at zero angles (cos_sin's shortcut)."""
    from nsgui.engine import Simulator
    from nsgui.engine.arrays import to_struct
    from nsgui.engine.contact_rows import active_contact_rows
    from nsgui.engine.evaluation import evaluate, relative_velocity
    model = compile_scene(make_scene(a_kind, b_kind))
    sim = Simulator(model)
    m, d = sim._args
    data, nc = sim._data, model.ncontacts
    rng = np.random.default_rng(zlib.crc32(f"whole/{a_kind}/{b_kind}".encode()))
    for trial in range(4):
        q = rng.uniform(-0.5, 0.5, model.nq)
        if trial == 0:
            q[2::3] = 0.0  # upright bodies
        data.q[:] = q
        data.v[:] = rng.uniform(-1.0, 1.0, model.nq)
        evaluate(m, d, True)
        gap, points, normals = model.contact_frames(q)
        assert np.array_equal(data.gap, gap) and np.array_equal(data.pa, points)
        assert np.array_equal(data.nrm, normals)
        k = data.kin
        for c in range(nc):
            un, _ut = relative_velocity(c, model.arrays.ci, data.v, k.pos, k.vel, k.omg, *data.nrm[c], *data.pa[c],
                                        *data.pb[c])
            assert data.un[c] == un
        width = model.arrays.ccols.shape[1]
        HN, HT = np.zeros((nc, width)), np.zeros((nc, width))
        active_contact_rows(m, to_struct(k), np.arange(nc), nc, data.nrm, data.pa, data.pb, HN, HT)
        HN1, HT1 = model.contact_jacobians(q)
        for c in range(nc):
            cols = model.arrays.ccols[c, :model.arrays.ccn[c]]
            assert np.array_equal(HN[c, :len(cols)], HN1[c, cols]) and np.array_equal(HT[c, :len(cols)], HT1[c, cols])


def test_evaluation_shares_each_polygons_edges_only_among_its_own_points():
    """evaluate computes a polygon's world edges once, for the first candidate point against it, and
    reads them for the others: on a pyramid of tilted, shifted boxes (every box in several contacts, as
    A and as B) its gaps, normals and points are those of the per-candidate kernel bit for bit."""
    import runpy
    from pathlib import Path
    from nsgui.engine import Simulator
    from nsgui.engine.evaluation import evaluate
    heaps = runpy.run_path(str(Path(__file__).resolve().parents[2] / "resources" / "scenes" / "make_heaps.py"))
    model = compile_scene(heaps["box_pyramid"](3))
    sim = Simulator(model)
    m, d = sim._args
    data = sim._data
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = model.q0 + rng.uniform(-0.05, 0.05, model.nq)
        data.q[:] = q
        evaluate(m, d, True)
        gap, points, normals = model.contact_frames(q)
        assert np.array_equal(data.gap, gap) and np.array_equal(data.pa, points)
        assert np.array_equal(data.nrm, normals)
        assert (gap < 0).any() and (gap > 0).any()   # points inside and outside the polygons
