"""The 7-link biped walking under SIMBICON (nsgui/engine/control/simbicon.py, resources/scenes/biped.json):
at least 20 steps at a steady speed on flat ground, after a push, and on 2° slopes; the controller's
step count against the contact-based walker metrics; the push's velocity jump against its closed form;
the state machine restored with the simulator's state."""

from pathlib import Path

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.pushes import scene_pushes, velocity_jump
from nsgui.engine.simulate import simulate
from nsgui.scene import SceneError, load_scene, scene_from_dict, scene_to_dict
from nsgui.scene.planar_biped import walking_biped

SCENE = Path(__file__).resolve().parents[2] / "resources" / "scenes" / "biped.json"


def _walk(scene):
    r = simulate(scene)
    return r, r.signals


def _stride_speeds(sig, t0, t1=np.inf):
    """Forward speed of the torso over each stride (two steps) between t0 and t1, from the
    controller's strikes."""
    t, x = sig["t"], sig["q.base.x"]
    strikes = np.flatnonzero(np.diff(sig["controller.walk.steps"]) > 0) + 1
    strikes = strikes[(t[strikes] > t0) & (t[strikes] < t1)]
    a, b = strikes[:-2:2], strikes[2::2]
    return (x[b] - x[a]) / (t[b] - t[a])


def test_it_walks_twenty_steps_and_more_at_a_steady_speed_on_flat_ground():
    r, sig = _walk(walking_biped(push=(0.0, 0.0)))
    w = r.summary["walker"]
    assert w["steps"] >= 40 and not w["fallen"]
    # two independent counts of the steps: the controller's strikes, the feet's landings after a lift-off
    assert abs(sig["controller.walk.steps"][-1] - w["steps"]) <= 1
    speeds = _stride_speeds(sig, 5.0)
    assert len(speeds) >= 10
    assert speeds.min() > 0.5 and np.ptp(speeds) < 0.02 * speeds.mean()
    # both support phases occur, and single support alternates between the feet
    support = set(np.unique(sig["controller.walk.support"]).astype(int))
    assert {1, 2, 3} <= support
    assert w["distance"] == pytest.approx(sig["q.base.x"][-1] - sig["q.base.x"][0], abs=1e-9)
    assert w["mean_speed"] == pytest.approx(w["distance"] / 20.0, rel=1e-9)


def test_it_keeps_walking_after_the_push_of_the_scene():
    """biped.json: a 30 N·s forward push on the torso at t = 10 s; it stumbles and walks on at its
    speed, and the push's kinetic energy is booked (no jump of the energy residual)."""
    scene = load_scene(SCENE)
    assert [f.type for f in scene.forces] == ["impulse"]
    r, sig = _walk(scene)
    w = r.summary["walker"]
    assert not w["fallen"]
    t = sig["t"]
    steps = sig["controller.walk.steps"]
    assert steps[-1] - steps[np.searchsorted(t, 10.0)] >= 20
    before, after = _stride_speeds(sig, 6.0, 10.0), _stride_speeds(sig, 15.0)
    assert after.mean() == pytest.approx(before.mean(), rel=0.05)
    assert np.ptp(after) < 0.02 * after.mean()
    pushes = [e for e in r.events if e.kind == "push"]
    assert len(pushes) == 1 and pushes[0].t == pytest.approx(10.0)
    gain = -pushes[0].energy_lost
    assert gain > 1.0
    k = np.searchsorted(t, 10.0 + 1e-9)      # the row of the step the push began
    assert abs(sig["energy.residual"][k] - sig["energy.residual"][k - 1]) < 0.01 * gain


@pytest.mark.parametrize("slope", [2.0, -2.0])
def test_it_walks_up_and_down_a_two_degree_slope(slope):
    r, sig = _walk(walking_biped(slope_deg=slope, push=(0.0, 0.0)))
    w = r.summary["walker"]
    assert w["steps"] >= 20 and not w["fallen"]
    speeds = _stride_speeds(sig, 5.0)
    assert speeds.min() > 0.2 and np.ptp(speeds) < 0.05 * speeds.mean()
    # the torso climbs (or descends) the slope: its height above the ground line stays
    x, y = sig["q.base.x"], sig["q.base.y"]
    h = y - np.tan(np.radians(slope)) * x
    assert np.ptp(h[len(h) // 2:]) < 0.05


def test_a_push_changes_the_centre_of_mass_velocity_by_p_over_m():
    """M Δv = Jᵀ P: the centre of mass's velocity jumps by P / m_total whatever the posture, and the
    angular momentum about it by (p − G) × P (here checked through the CoM Jacobian by finite differences)."""
    m = compile_scene(load_scene(SCENE))
    push = scene_pushes(m)[0]
    rng = np.random.default_rng(3)
    masses = np.array([b.mass for b in m.scene.bodies])

    def com(q):
        return masses @ m.com_positions(q) / masses.sum()

    for _ in range(3):
        q = m.q0 + 0.2 * rng.normal(size=m.nq)
        dv = velocity_jump(m, q, push)
        eps = 1e-6
        JG = np.column_stack([(com(q + eps * e) - com(q - eps * e)) / (2 * eps) for e in np.eye(m.nq)])
        np.testing.assert_allclose(JG @ dv, np.array(push.impulse) / masses.sum(), atol=1e-8)


def test_the_state_machine_is_restored_with_the_simulator_state():
    """Resume and scrubbing: from a state taken mid-gait, the same rows again (the controller's
    state, start time and step count live in the simulator state)."""
    m = compile_scene(walking_biped(push=(0.0, 0.0)))
    sim = Simulator(m)
    sim.run(2100)
    state = sim.get_state()
    first = sim.run(400)
    sim.run(300)
    sim.set_state(state)
    again = sim.run(400)
    np.testing.assert_array_equal(first, again)
    col = m.signal_names.index("controller.walk.steps")
    assert first[-1, col] > first[0, col] > 0


def test_bad_simbicon_parameters_are_refused_with_a_reason():
    d = scene_to_dict(walking_biped())
    d["controllers"][0]["feet"] = ["foot_l", "shoe"]
    with pytest.raises(SceneError, match="shoe"):
        compile_scene(scene_from_dict(d))
    d = scene_to_dict(walking_biped())
    d["controllers"][0]["cd"] = [1.0]
    with pytest.raises(SceneError, match=r"cd: 1 values; give 2"):
        compile_scene(scene_from_dict(d))
    d = scene_to_dict(walking_biped())
    d["walker"]["torso"] = "trunk"
    with pytest.raises(SceneError, match=r"walker\.torso: no body named 'trunk'"):
        scene_from_dict(d)


def test_the_scene_file_is_the_builder_at_its_defaults():
    assert scene_to_dict(load_scene(SCENE)) == scene_to_dict(walking_biped())



def _law_output(m, q, v, state):
    """The simbicon block's inputs and Jacobians at (q, v) in the given state (no contact loaded)."""
    from nsgui.engine import codes
    from nsgui.engine.arrays import new_data, to_struct
    from nsgui.engine.control.simbicon import simbicon_law
    from nsgui.engine.evaluation import evaluate
    a = m.arrays
    ki = a.ki[0]
    P = a.kpar[ki[codes.KI_P0]:ki[codes.KI_P0] + ki[codes.KI_NP]]
    coords = a.kcoords[ki[codes.KI_ACT0]:ki[codes.KI_ACT0] + ki[codes.KI_NACT]]
    d = to_struct(new_data(a, q, v))
    evaluate(m.struct, d, True)
    n = len(coords)
    u, dq, dv = np.zeros(n), np.zeros((n, m.nq)), np.zeros((n, m.nq))
    S = np.array([float(state), 0.0, 0.0, 0.0])
    simbicon_law(m.struct, d, 0.01, P, S, u, dq, dv, np.zeros(6), coords)
    return u, dq, dv


@pytest.mark.parametrize("state", [0, 3])
def test_the_implicit_jacobians_are_the_laws_derivatives(state):
    """du/dq and du/dv that the law hands to the iteration matrix against central differences of its
    own output, at a random state (balance feedback off: its CoM terms are left out of them)."""
    m = compile_scene(walking_biped(cd=[0.0, 0.0], cv=[0.0, 0.0]))
    rng = np.random.default_rng(7)
    q = m.q0 + 0.1 * rng.normal(size=m.nq)
    v = rng.normal(size=m.nq)
    _u, dq, dv = _law_output(m, q, v, state)
    eps = 1e-6
    for j in range(m.nq):
        e = np.zeros(m.nq)
        e[j] = eps
        fd_q = (_law_output(m, q + e, v, state)[0] - _law_output(m, q - e, v, state)[0]) / (2 * eps)
        fd_v = (_law_output(m, q, v + e, state)[0] - _law_output(m, q, v - e, state)[0]) / (2 * eps)
        np.testing.assert_allclose(dq[:, j], fd_q, atol=1e-5 * (1 + np.abs(fd_q).max()))
        np.testing.assert_allclose(dv[:, j], fd_v, atol=1e-5 * (1 + np.abs(fd_v).max()))


def test_a_state_restored_before_the_push_meets_it_again_and_one_after_does_not():
    m = compile_scene(walking_biped(duration=12.0))
    sim = Simulator(m)
    sim.run(4900)                      # t = 9.8 s, the push is at 10 s
    before = sim.get_state()
    first = sim.run(300)
    after = sim.get_state()            # t = 10.4 s
    tail = sim.run(100)
    assert [e.kind for e in sim.pop_events()].count("push") == 1
    sim.set_state(before)
    np.testing.assert_array_equal(sim.run(300), first)
    sim.set_state(after)
    np.testing.assert_array_equal(sim.run(100), tail)
    assert [e.kind for e in sim.pop_events()].count("push") == 1
