"""The 7-link biped (nsgui/scene/planar_biped.py, resources/scenes/biped_standing.json) standing under
the thesis law (6.10): Winter's proportions, heel and toe contacts with friction, per-foot normal
forces against the static split of walking.md (W3.6), and the friction-cone monitor of the law's
desired forces (walking.md §4.2)."""

from pathlib import Path

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.scene import load_scene, scene_from_dict, scene_to_dict
from nsgui.scene.planar_biped import (
    SIDES,
    Body,
    desired_reactions,
    foot_centres,
    posture_points,
    standing_biped7,
    standing_posture,
    static_split,
)

SCENE = Path(__file__).resolve().parents[2] / "resources" / "scenes" / "biped_standing.json"
G = 9.81


def _run(scene, steps):
    m = compile_scene(scene)
    return m, Simulator(m).run(steps)


def _col(m, rows, name):
    return rows[:, m.signal_names.index(name)]


def _state(m, row):
    return np.array([row[m.signal_names.index(f"q.{c}")] for c in m.coord_names])


def _foot_forces(m, row):
    """Per foot: (normal force, its centre of pressure x) from the heel and toe contacts."""
    pts = m.contact_frames(_state(m, row))[1]
    out = []
    for s in SIDES:
        f = [row[m.signal_names.index(f"contact.{p}_{s}.fn")] for p in ("heel", "toe")]
        x = [pts[m.contact_names.index(f"{p}_{s}")][0] for p in ("heel", "toe")]
        out.append((f[0] + f[1], (f[0] * x[0] + f[1] * x[1]) / (f[0] + f[1])))
    return out


def _com_x(m, q):
    masses = np.array([b.mass for b in m.scene.bodies])
    return float(masses @ m.com_positions(q)[:, 0] / masses.sum())


def test_winter_proportions_and_a_posture_with_flat_feet():
    body = Body(70.0, 1.75)
    masses = [body.hat[0]] + 2 * [body.thigh[0], body.shank[0], body.foot[0]]
    assert sum(masses) == pytest.approx(70.0, rel=1e-12)   # Winter's fractions add up to the body
    q = standing_posture(body, 0.88, 0.15, 0.04)
    pts = posture_points(body, q)
    for s in SIDES:
        assert abs(pts[f"heel_{s}"][1]) < 1e-12 and abs(pts[f"toe_{s}"][1]) < 1e-12
    centres = foot_centres(pts)
    assert pts["com"][0] - 0.5 * sum(centres) == pytest.approx(0.04, abs=1e-12)
    assert centres[0] - centres[1] == pytest.approx(0.30, abs=1e-12)
    # the engine's own kinematics agree: contact points on the ground, the same centre of mass
    m = compile_scene(standing_biped7())
    gap = m.contact_frames(m.q0)[0]
    assert np.abs(gap).max() < 1e-12
    assert _com_x(m, m.q0) == pytest.approx(pts["com"][0], abs=1e-12)


def test_per_foot_normal_forces_are_the_static_split():
    """Started still at q_d, every foot carries the split (W3.6) of the weight between the feet's
    centres (computed here from the engine's CoM and contact points), heel and toe alike; the front
    foot, nearer the centre of mass, carries more."""
    d = scene_to_dict(standing_biped7())
    d["settings"]["projection"] = True   # a contact at round-off gap is in the problem from the first step
    m, rows = _run(scene_from_dict(d), 500)
    q0 = m.q0
    pts = m.contact_frames(q0)[1]
    centres = [0.5 * (pts[m.contact_names.index(f"heel_{s}")][0] + pts[m.contact_names.index(f"toe_{s}")][0])
               for s in SIDES]
    weight = sum(b.mass for b in m.scene.bodies) * G
    lam = static_split(_com_x(m, q0), centres, weight)
    assert lam[0] > 1.5 * lam[1] > 0
    for row in (rows[-1], rows[len(rows) // 2]):
        for (fn, cop), lam_s, x in zip(_foot_forces(m, row), lam, centres):
            assert fn == pytest.approx(lam_s, rel=1e-6)
            assert cop == pytest.approx(x, abs=1e-6)
    assert np.abs(_col(m, rows, "q.base.theta")).max() < 1e-9
    # the friction-cone monitor: the smallest desired normal force is the back heel's λ_r / 2
    assert _col(m, rows, "controller.stand.desired_normal_min")[-1] == pytest.approx(lam[1] / 2, rel=1e-9)
    assert np.all(_col(m, rows, "controller.stand.cone_demand")[1:] == 0)


def test_after_a_push_it_stands_and_each_foot_balances_the_split_at_its_centre_of_pressure():
    """The torso starts turning at 0.5 rad/s: the robot comes back to rest, and at rest the per-foot
    normal forces are the split (W3.6) of the weight between the feet's centres of pressure."""
    m, rows = _run(standing_biped7(spin=0.5), 3000)
    late = rows[:, 0] > 2.0
    assert np.abs(_col(m, rows, "q.base.theta")[late]).max() < 5e-3
    assert np.abs(_col(m, rows, "q.base.y")[late] - 0.88).max() < 2e-3
    v = rows[-50:, [m.signal_names.index(f"v.{c}") for c in m.coord_names]]
    assert np.abs(v).max() < 1e-4
    row = rows[-1]
    (f1, x1), (f2, x2) = _foot_forces(m, row)
    weight = sum(b.mass for b in m.scene.bodies) * G
    lam = static_split(_com_x(m, _state(m, row)), (x1, x2), weight)
    assert f1 == pytest.approx(lam[0], rel=1e-4) and f2 == pytest.approx(lam[1], rel=1e-4)


def test_the_cone_monitor_flags_a_demand_for_a_pulling_force():
    """The centre of mass 0.13 m ahead of the feet's midpoint, beyond the front foot's centre (0.1 m):
    the split (W3.6) asks the back foot for a negative force, which the desired reactions encode; the
    monitor reports it (2, pulling) with the back heel's share λ_r / 2 < 0."""
    body = Body()
    q = standing_posture(body, 0.88, 0.1, 0.13)
    pts = posture_points(body, q)
    lam = static_split(pts["com"][0], foot_centres(pts), 70.0 * G)
    assert lam[1] < 0
    forces, _r = desired_reactions(body, q)
    assert forces["heel_r"] == pytest.approx(lam[1] / 2)
    m, rows = _run(standing_biped7(stance=0.1, lead=0.13), 3)
    assert _col(m, rows, "controller.stand.cone_demand")[-1] == 2
    assert _col(m, rows, "controller.stand.desired_normal_min")[-1] == pytest.approx(lam[1] / 2, rel=1e-9)


def test_the_scene_file_is_the_builder_at_its_defaults():
    assert scene_to_dict(load_scene(SCENE)) == scene_to_dict(standing_biped7())


def test_the_cone_monitor_flags_desired_forces_that_need_more_friction():
    """Desired reactions made in the test from contact forces that squeeze the feet apart: the split
    (W3.6) normal forces plus equal and opposite tangential forces on the feet, 0.9 μ or 1.1 μ times
    the back foot's normal force (the robot's balance does not change). r'_μ1d = the actuated rows of
    H_Nᵀ λ_N + H_Tᵀ λ_T at q_d. The monitor finds the same normal forces, and flags the second (1)."""
    base = standing_biped7()
    m = compile_scene(base)
    HN, HT = m.contact_jacobians(m.q0)
    forces, _r = desired_reactions(Body(), {c: m.q0[i] for i, c in enumerate(m.coord_names)})
    lam_n = np.array([forces[c] for c in m.contact_names])
    mu = base.contacts[0].friction
    actuated = [m.coord_names.index(a.joint) for a in base.actuators]
    back = lam_n.min()              # each back contact's normal force (the back foot carries less)
    for share, flag in ((0.9, 0), (1.1, 1)):
        # equal and opposite totals on the two feet; the back foot's at share × μ × its normal force
        lam_t = np.array([share * mu * back * (1.0 if c.endswith("_l") else -1.0) for c in m.contact_names])
        r = (HN.T @ lam_n + HT.T @ lam_t)[actuated]
        d = scene_to_dict(base)
        d["controllers"][0]["desired_reaction"] = r.tolist()
        m2, rows = _run(scene_from_dict(d), 2)
        assert _col(m2, rows, "controller.stand.cone_demand")[-1] == flag
        assert _col(m2, rows, "controller.stand.desired_normal_min")[-1] == pytest.approx(lam_n.min(), rel=1e-9)
