"""The engine's Python API: snapshots, resume after edits, failures that keep the data, purity."""

import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nsgui.scene import load_scene, scene_from_dict
from nsgui.engine import SimulationError, codes, Simulator, compile_scene, simulate

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "resources" / "scenes"


def pendulum_scene(kp=0.0, target=0.0, duration=1.0, kd=0.0, implicit=True):
    return scene_from_dict({
        "format": "nsgui-scene", "version": 1, "name": "pendulum",
        "bodies": [{"name": "bob", "mass": 1.0, "inertia": 0.01,
                    "shapes": [{"name": "disk", "type": "disk", "radius": 0.05}]}],
        "joints": [{"name": "swing", "type": "revolute", "child": "bob", "anchor_child": [0.0, 1.0]}],
        "obstacles": [{"name": "wall", "type": "wall", "point": [-0.3, 0.0], "normal": [1.0, 0.0]}],
        "contacts": [{"name": "bob_wall", "a": {"body": "bob", "shape": "disk"}, "b": {"obstacle": "wall"},
                      "restitution": 0.5}],
        "actuators": [{"name": "motor", "joint": "swing",
                       "controller": {"type": "pd", "kp": kp, "kd": kd, "target": target,
                                      "implicit": implicit}}],
        "initial": {"q": {"swing": 0.5}},
        "settings": {"dt": 1e-3, "duration": duration, "projection": False},
    })


def test_snapshot_restores_exactly():
    sim = Simulator(compile_scene(load_scene(SCENES / "falling_rod.json")))
    sim.run(300)
    snap = sim.get_state()
    a = sim.run(400)
    sim.set_state(snap)
    b = sim.run(400)
    np.testing.assert_array_equal(a, b)
    assert sim.step_count == 700


def test_resume_from_a_past_state_with_an_edited_restitution():
    scene = load_scene(SCENES / "bouncing_ball.json")
    scene.settings.projection = False
    sim = Simulator(compile_scene(scene))
    steps_to_first_impact = int(np.ceil(np.sqrt(2 * 0.9 / 9.81) / scene.settings.dt)) + 2
    sim.run(steps_to_first_impact - 10)  # just before the first impact
    snap = sim.get_state()
    edited = copy.deepcopy(scene)
    edited.contacts[0].restitution = 0.3
    branch = Simulator(compile_scene(edited))
    branch.set_state(snap)
    rows = branch.run(20)
    vy = rows[:, branch.signal_names.index("v.ball.y")]
    k = np.nonzero(rows[:, branch.signal_names.index("contact.ball_ground.status")] == codes.IMPACT)[0][0]
    before = vy[k - 1] if k > 0 else snap.v[1]
    # the edited law acts from the resume point: v+ = -0.3 v- (linear relation, standard scheme)
    assert vy[k] == pytest.approx(-0.3 * before, rel=1e-12)


def test_numerical_blow_up_names_the_time_and_keeps_the_data():
    scene = pendulum_scene(kp=1e12, target=1.0, implicit=False)  # the implicit law stays stable
    sim = Simulator(compile_scene(scene))
    with pytest.raises(SimulationError) as err:
        sim.run(1000)
    e = err.value
    assert e.t is not None and 0 < e.t < 0.2
    # named where it starts: the PD gain flings the bob past the runaway bound in the first step
    assert str(e).startswith("t = 0.001 s: runaway motion: v.swing")
    assert e.signal == "v.swing" and e.body == "bob" and "body 'bob', joint 'swing'" in str(e)
    assert np.all(np.isfinite(sim.q))  # the last good state is kept
    assert len(e.rows) == sim.step_count
    result = simulate(scene)
    assert result.summary["failure"] is not None
    assert len(result.t) == result.summary["steps"] + 1


def test_pd_actuator_holds_its_target():
    result = simulate(pendulum_scene(kp=200.0, kd=20.0, target=0.2, duration=3.0), projection=False)
    q, v = result["q.swing"], result["v.swing"]
    # the PD settles where its torque balances gravity's: kp (target - q) = m g l sin q
    qbar = q[-1]
    assert abs(v[-1]) < 1e-6
    assert 200.0 * (0.2 - qbar) == pytest.approx(9.81 * np.sin(qbar), rel=1e-6)
    u = result["u.motor"]
    # implicit PD at θ = ½: the input the step applies is the law at the step's midpoint,
    # kp (target - (q_k + q_k+1)/2) - kd (v_k + v_k+1)/2 (what u.motor records)
    qm, vm = (q[:-1] + q[1:]) / 2, (v[:-1] + v[1:]) / 2
    np.testing.assert_allclose(u[1:], 200.0 * (0.2 - qm) - 20.0 * vm, rtol=1e-9, atol=1e-9)


def test_model_geometry_queries():
    model = compile_scene(load_scene(SCENES / "double_pendulum_wall.json"))
    q = np.array([0.3, -0.2])
    poses = model.body_poses(q)
    # masses hang 1 below their pivots, absolute angles 0.3 and 0.1
    np.testing.assert_allclose(poses[0, :2], [np.sin(0.3), -np.cos(0.3)], atol=1e-14)
    np.testing.assert_allclose(poses[1, :2], poses[0, :2] + [np.sin(0.1), -np.cos(0.1)], atol=1e-14)
    gap, points, normals = model.contact_frames(q)
    np.testing.assert_allclose(gap, [poses[0, 0], poses[1, 0]], atol=1e-14)
    np.testing.assert_allclose(normals, [[1, 0], [1, 0]], atol=1e-14)
    HN, HT = model.contact_jacobians(q)
    eps = 1e-7
    for j in range(2):
        dq = np.zeros(2)
        dq[j] = eps
        fd = (model.contact_frames(q + dq)[0] - model.contact_frames(q - dq)[0]) / (2 * eps)
        np.testing.assert_allclose(HN[:, j], fd, atol=1e-7)


def test_engine_never_imports_qt():
    code = ("import sys, nsgui.engine, nsgui.engine.export, nsgui.engine.simulate, nsgui.cli;"
            "bad=[m for m in sys.modules if m.split('.')[0] in ('PySide6','PyQt5','PyQt6','pyqtgraph','vispy')"
            " or m.startswith('nsgui.views')]; print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    for path in (ROOT / "nsgui" / "engine").rglob("*.py"):
        text = path.read_text()
        for word in ("PySide6", "pyqtgraph", "vispy", "nsgui.views", "PyQt"):
            assert f"import {word}" not in text and f"from {word}" not in text, f"{path} imports {word}"


def test_python_controller_uses_the_model_and_its_sampling_period():
    """Computed torque written in Python from M(q), c(q, v), g(q) tracks a trajectory; a sampled law is
    held constant between samples."""
    scene = load_scene(SCENES / "two_link_arm.json")
    scene.contacts = []  # free motion: tracking is exact up to the time discretization
    scene.settings.projection = False
    model = compile_scene(scene)
    sim = Simulator(model)
    q0 = model.q0.copy()
    amp, w = 0.3, 2.0

    def desired(t):
        return q0 + amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w * w * np.sin(w * t)

    def torque(t, q, v, m):
        qd, vd, ad = desired(t)
        a = ad + 20.0 * (vd - v) + 100.0 * (qd - q)
        return m.mass_matrix(q) @ a + m.bias(q, v) - m.gravity_force(q)

    sim.set_controller("shoulder_motor", lambda t, q, v, m: torque(t, q, v, m)[0])
    sim.set_controller("elbow_motor", lambda t, q, v, m: torque(t, q, v, m)[1])
    rows = sim.run(2000)
    t = rows[:, 0]
    q = rows[:, [sim.signal_names.index(f"q.{c}") for c in model.coord_names]]
    err = np.abs(q - np.array([desired(x)[0] for x in t]))[t > 1.0].max()  # after the start transient
    assert err < 1e-3
    # a sampled law: u holds between samples
    sim2 = Simulator(model)
    sim2.set_controller("shoulder_motor", lambda t, q, v, m: torque(t, q, v, m)[0], period=0.01)
    u = sim2.run(100)[:, sim2.signal_names.index("u.shoulder_motor")]
    assert len(np.unique(u)) == 10
    assert np.all(u[:10] == u[0]) and u[10] != u[9]


def test_solver_that_cannot_converge_stops_the_run_naming_time_and_contact():
    scene = load_scene(SCENES / "sliding_box.json")
    scene.settings.solver = "nsgs"
    scene.settings.max_iterations = 1
    scene.settings.tolerance = 1e-14
    result = simulate(scene, duration=0.05)
    failure = result.summary["failure"]
    assert failure.startswith("t = 0.001 s") and "box_ground[" in failure
    assert any(e.kind == "solver_warning" for e in result.events)
    assert len(result.t) == 1  # the initial state, kept
    # with a sane cap the same problem converges and the run completes
    scene.settings.max_iterations = 1000
    assert simulate(scene, duration=0.05).summary["failure"] is None


def slider_scene(stiffness=100.0, damping=0.0, limits=None, v0=0.0, q0=0.1, duration=2.0):
    joint = {"name": "x", "type": "prismatic", "child": "m", "axis": [1.0, 0.0]}
    if limits:
        joint["limits"] = limits
    return scene_from_dict({
        "format": "nsgui-scene", "version": 1, "gravity": [0.0, -9.81],
        "bodies": [{"name": "m", "mass": 2.0, "inertia": 0.1,
                    "shapes": [{"name": "b", "type": "box", "width": 0.1, "height": 0.1}]}],
        "joints": [joint],
        "forces": [{"name": "s", "type": "spring", "a": {"body": "world", "point": [-1.0, 0.0]},
                    "b": {"body": "m", "point": [0.0, 0.0]}, "stiffness": stiffness, "damping": damping,
                    "rest_length": 1.0}],
        "initial": {"q": {"x": q0}, "v": {"x": v0}},
        "settings": {"dt": 1e-3, "duration": duration, "projection": False},
    })


def test_spring_oscillates_at_its_frequency_and_keeps_its_energy():
    result = simulate(slider_scene())
    t, x = result.t, result["q.x"]
    w = np.sqrt(100.0 / 2.0)
    # θ = 1/2 is the trapezoidal rule: period error O(h²), quadratic energy kept to round-off
    np.testing.assert_allclose(x, 0.1 * np.cos(w * t), atol=2e-4)
    E = result["energy.total"]
    assert np.ptp(E) < 1e-12 * E[0]
    assert E[0] == pytest.approx(0.5 * 100.0 * 0.1 ** 2, rel=1e-12)


def test_damper_loss_is_booked():
    result = simulate(slider_scene(damping=4.0))
    E, D = result["energy.total"], result["energy.damping"]
    assert E[-1] < 0.05 * E[0]  # ζ = c / (2 sqrt(k m)) = 0.14: decays
    np.testing.assert_allclose(E + D, E[0], atol=1e-12 * E[0])  # exact for linear dampers, θ = 1/2
    assert np.all(np.diff(D) >= 0)


def test_joint_limit_is_a_unilateral_constraint_with_restitution():
    result = simulate(slider_scene(stiffness=0.0, v0=1.0, q0=0.0, duration=0.5,
                                   limits={"lower": -0.2, "upper": 0.2, "restitution": 0.5}))
    x, v = result["q.x"], result["v.x"]
    status = result["contact.x.upper.status"]
    k = np.nonzero(status == codes.IMPACT)[0][0]
    assert v[k] == pytest.approx(-0.5 * v[k - 1], rel=1e-12)  # Newton's law on the limit
    assert x.max() <= 0.2 + 1e-3 * 1.0  # up to h |v|
    assert result["contact.x.upper.pn"][k] == pytest.approx(2.0 * 1.5 * v[k - 1], rel=1e-12)


def test_python_controller_keeps_sampling_after_the_state_is_rewound():
    """A snapshot carries the Python controllers' next sample times: rewinding from t = 1.0 to 0.1
    and running 200 steps (0.2 s) samples a law of period 0.01 s 20 times, as the first pass did."""
    sim = Simulator(compile_scene(pendulum_scene(duration=2.0)))
    calls = []
    sim.set_controller("motor", lambda t, q, v, m: calls.append(t) or 0.0, period=0.01)
    sim.run(100)
    snap = sim.get_state()
    first = len(calls)
    sim.run(200)
    assert len(calls) - first == 20
    sim.run(700)
    assert sim.t == pytest.approx(1.0)
    sim.set_state(snap)
    calls.clear()
    sim.run(200)
    assert len(calls) == 20
    np.testing.assert_allclose(calls, 0.1 + 0.01 * np.arange(20), atol=1e-9)
    # a snapshot taken before the controller existed: the law is sampled at once on resuming
    bare = Simulator(compile_scene(pendulum_scene(duration=2.0)))
    bare.run(50)
    sim.set_state(bare.get_state())
    calls.clear()
    sim.run(10)
    assert calls and calls[0] == pytest.approx(0.05)


def test_snapshots_taken_inside_a_long_run_equal_get_state_at_their_steps():
    """`snapshot_every` keeps, inside one `run(n)`, the states get_state() gives after the same steps
    (the first step ending 20 ms after the start, then 20 ms after each kept one), and they survive
    pickling (the window sends them to another process)."""
    import pickle
    model = compile_scene(load_scene(SCENES / "default.json"))
    sim = Simulator(model)
    sim.snapshot_every(0.02)
    sim.run(300)
    got = pickle.loads(pickle.dumps(sim.pop_snapshots()))
    ref, expect, last = Simulator(model), [], 0.0
    for _ in range(300):
        ref.step()
        if ref.t >= last + 0.02 - 1e-12:
            expect.append(ref.get_state())
            last = ref.t
    assert len(got) == len(expect) == 15
    for a, b in zip(got, expect):
        for name in ("t", "q", "v", "energy", "lamN", "lamT", "status", "u", "ctrl", "stats", "warm",
                     "step_count", "row"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert sim.pop_snapshots() == []


def test_the_stepping_kernels_run_without_the_gil():
    """The window's simulation process steps in one thread and sends rows through the pipe in
    another: a kernel holding the GIL for its whole batch made every pipe write wait for the batch
    to end. Both entry kernels are compiled nogil (the gain itself is measured in
    benchmarks/window_throughput.py)."""
    from nsgui.engine import stepper
    from nsgui.engine.event_driven import loop
    assert stepper.run_steps.targetoptions.get("nogil") is True
    assert loop.run_rows.targetoptions.get("nogil") is True
