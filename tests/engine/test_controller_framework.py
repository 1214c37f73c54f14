"""The controller framework: implicit PD in the iteration matrix, sampling with zero-order hold, the
measurement-to-actuation delay, controller state in snapshots, declared signals, trajectories and
computed torque — each against a closed form or a value computed here from the recorded run."""

import numpy as np
import pytest

from nsgui.engine import SimulationError, Simulator, compile_scene
from nsgui.engine.control.trajectories import trajectory_py, pack_trajectory
from nsgui.scene import SceneBuilder, Trajectory

I_LINK = 0.0035  # the link: a point inertia on a revolute joint


def _link(controller, *, dt=1e-3, v0=1.0, blocks=None):
    """One body on a revolute joint, no gravity, centre of mass on the axis: M = I_LINK."""
    b = SceneBuilder("link", gravity=(0.0, 0.0))
    link = b.body("link", mass=1.0, inertia=I_LINK, com=(0.0, 0.0))
    link.capsule(0.2, 0.01, offset=(0.1, 0.0))
    j = b.revolute("pin", child=link, v0=v0)
    motor = b.actuator(j, controller=controller, name="motor")
    for blk in blocks or []:
        b.controller(blk.pop("type"), [motor], **blk)
    b.settings(dt=dt, duration=1.0)
    return compile_scene(b.build())


def _col(model, name):
    return model.signal_names.index(name)


def test_implicit_damping_is_stable_where_explicit_blows_up():
    """I v' = -kd v with h kd / I = 2.86: the θ = ½ scheme with kd in Ŵ gives v_k+1 = r v_k,
    r = (1 - a/2)/(1 + a/2); the explicit input gives v_k+1 = (1 - a) v_k, |1 - a| = 1.86 (1 -> 2.4e5
    in 20 steps, the issue's report)."""
    a = 1e-3 * 10.0 / I_LINK
    implicit = Simulator(_link({"type": "pd", "kd": 10.0}))
    rows = implicit.run(20)
    v = rows[:, _col(implicit.model, "v.pin")]
    r = (1 - a / 2) / (1 + a / 2)
    np.testing.assert_allclose(v, r ** np.arange(1, 21), rtol=1e-9, atol=1e-15)

    explicit = Simulator(_link({"type": "pd", "kd": 10.0, "implicit": False}))
    v = explicit.run(20)[:, _col(explicit.model, "v.pin")]
    np.testing.assert_allclose(v, (1 - a) ** np.arange(1, 21), rtol=1e-9)
    assert abs(v[-1]) > 2e5


def test_implicit_pd_follows_the_trapezoidal_recurrence_and_books_the_actuator_work():
    """I q'' = -kp q - kd q' stepped by θ = ½ with both gains in Ŵ is the trapezoidal rule on the
    linear system: x_k+1 = (1 - h/2 A)⁻¹ (1 + h/2 A) x_k. With kd = 0 the energy K + ½ kp q² is kept
    exactly, so the actuator work booked equals minus the spring energy's change."""
    h, kp, kd = 1e-3, 400.0, 0.5
    sim = Simulator(_link({"type": "pd", "kp": kp, "kd": kd, "target": 0.0}, v0=1.0))
    rows = sim.run(500)
    A = np.array([[0.0, 1.0], [-kp / I_LINK, -kd / I_LINK]])
    step = np.linalg.solve(np.eye(2) - h / 2 * A, np.eye(2) + h / 2 * A)
    x = np.array([0.0, 1.0])
    ref = []
    for _ in range(500):
        x = step @ x
        ref.append(x.copy())
    ref = np.array(ref)
    m = sim.model
    np.testing.assert_allclose(rows[:, _col(m, "q.pin")], ref[:, 0], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(rows[:, _col(m, "v.pin")], ref[:, 1], rtol=1e-8, atol=1e-10)

    sim = Simulator(_link({"type": "pd", "kp": kp, "kd": 0.0, "target": 0.0}, v0=1.0))
    rows = sim.run(2000)
    q, v = rows[:, _col(m, "q.pin")], rows[:, _col(m, "v.pin")]
    work = rows[:, _col(m, "energy.actuators")]
    kin = rows[:, _col(m, "energy.kinetic")]
    np.testing.assert_allclose(kin + 0.5 * kp * q ** 2, 0.5 * I_LINK, rtol=1e-10)
    np.testing.assert_allclose(work, -0.5 * kp * q ** 2, atol=1e-12)
    # the recorded input is the force the step applied, u + θ du/dq h v_θ..., not the held one
    assert abs(rows[-1, _col(m, "u.motor")] - (-kp * q[-1])) < kp * np.abs(np.diff(q)).max()
    assert abs(rows[-1, _col(m, "energy.residual")]) < 1e-12
    assert np.all(np.isfinite(v))


def test_a_sampled_pd_holds_its_input_between_samples():
    h, period = 1e-3, 0.01
    sim = Simulator(_link({"type": "pd", "kp": 0.5, "kd": 0.01, "target": 1.0, "period": period}))
    rows = sim.run(100)
    m = sim.model
    u = rows[:, _col(m, "u.motor")]
    q, v, t = rows[:, _col(m, "q.pin")], rows[:, _col(m, "v.pin")], rows[:, 0]
    # the input of step k (recorded at its end) was computed from the state at the last sample
    for k in range(100):
        ts = np.floor((t[k] - h) / period + 1e-9) * period  # sample time at the start of step k
        j = int(round(ts / h)) - 1                           # row holding the state at ts
        qs, vs = (0.0, 1.0) if j < 0 else (q[j], v[j])
        assert u[k] == pytest.approx(0.5 * (1.0 - qs) + 0.01 * (0.0 - vs), rel=1e-12, abs=1e-15)
    assert len(np.unique(u)) == 10


def test_delay_applies_each_sample_later_and_survives_snapshots():
    """delay 5 h: the input acting in step k is the law at the state of step k - 5 (0 before)."""
    h, delay = 1e-3, 5e-3
    block = [{"name": "slow", "type": "computed_torque", "delay": delay,
              "kp": 30.0, "kd": 2.0, "targets": [{"type": "sine", "amplitude": 0.5, "frequency": 2.0}]}]
    m = _link({"type": "none"}, blocks=block)
    sim = Simulator(m)
    rows = sim.run(60)
    u, q, v, t = rows[:, _col(m, "u.motor")], rows[:, _col(m, "q.pin")], rows[:, _col(m, "v.pin")], rows[:, 0]
    assert np.all(u[:5] == 0.0)
    np.testing.assert_allclose(t, h * np.arange(1, 61), rtol=1e-12)  # row k is the end of step k
    packed = pack_trajectory(Trajectory(type="sine", amplitude=0.5, frequency=2.0))
    for k in range(5, 60):
        j = k - 5                      # the law sampled at the start of step j
        ts = j * h
        qs, vs = (0.0, 1.0) if j == 0 else (q[j - 1], v[j - 1])
        qd, vd, ad = trajectory_py(packed, ts)
        assert u[k] == pytest.approx(I_LINK * (ad + 2.0 * (vd - vs) + 30.0 * (qd - qs)), rel=1e-10, abs=1e-14)
    # the queue is part of the state: a resumed run repeats the reference exactly
    sim = Simulator(m)
    sim.run(23)
    snap = sim.get_state()
    ref = sim.run(30)
    sim.run(11)
    sim.set_state(snap)
    np.testing.assert_array_equal(sim.run(30), ref)


def test_controller_signals_are_declared_recorded_and_named():
    m = _link({"type": "pd", "kp": 2.0, "kd": 0.1,
               "trajectory": {"type": "cubic", "start": 0.0, "end": 1.0, "t0": 0.0, "t1": 0.5}})
    # the controller's signals follow the actuator inputs (the mouse perturbation's come last)
    k = m.signal_names.index("u.motor")
    assert m.signal_names[k + 1:k + 3] == ["controller.motor.target", "controller.motor.error"]
    assert m.signal_units["controller.motor.target"] == "rad"
    rows = Simulator(m).run(1000)
    t, target, err, q = rows[:, 0], rows[:, k + 1], rows[:, k + 2], rows[:, _col(m, "q.pin")]
    ts = t - 1e-3  # sampled at the start of each step
    s = np.clip(ts / 0.5, 0, 1)
    np.testing.assert_allclose(target, s * s * (3 - 2 * s), atol=1e-12)
    # error = q_d - q at the sample, i.e. against the previous row's q
    np.testing.assert_allclose(err[1:], target[1:] - q[:-1], atol=1e-12)


@pytest.mark.parametrize("traj", [
    {"type": "sine", "offset": 0.2, "amplitude": 0.7, "frequency": 1.3, "phase": 0.4},
    {"type": "ramp", "start": 0.5, "rate": -2.0, "t0": 0.1, "t1": 0.6},
    {"type": "cubic", "start": 1.0, "end": -1.0, "t0": 0.2, "t1": 0.9},
    {"type": "spline", "times": [0.0, 0.3, 0.5, 1.0], "values": [0.0, 1.0, -0.5, 0.25]},
])
def test_trajectory_velocity_and_acceleration_are_the_derivatives(traj):
    packed = pack_trajectory(Trajectory(**traj))
    eps = 1e-6
    for t in np.linspace(0.013, 1.2, 37):
        q, v, a = trajectory_py(packed, t)
        qp, vp, _ = trajectory_py(packed, t + eps)
        qm, vm, _ = trajectory_py(packed, t - eps)
        assert v == pytest.approx((qp - qm) / (2 * eps), abs=1e-5)
        assert a == pytest.approx((vp - vm) / (2 * eps), abs=1e-4)
    if traj["type"] == "spline":
        for tk, vk in zip(traj["times"], traj["values"]):
            assert trajectory_py(packed, tk)[0] == pytest.approx(vk, abs=1e-12)
        assert trajectory_py(packed, 5.0)[:2] == pytest.approx((0.25, 0.0))


def _two_link(controllers, gravity=(0.0, -9.81), dt=1e-3):
    b = SceneBuilder("arm", gravity=gravity)
    l1 = b.body("l1", mass=1.0, inertia=0.1, com=(0.25, 0.0))
    l1.capsule(0.5, 0.02, offset=(0.25, 0.0))
    l2 = b.body("l2", mass=0.7, inertia=0.05, com=(0.25, 0.0))
    l2.capsule(0.5, 0.02, offset=(0.25, 0.0))
    s = b.revolute("shoulder", child=l1, q0=0.3)
    e = b.revolute("elbow", parent=l1, child=l2, anchor_parent=(0.5, 0.0), q0=-0.8)
    b.actuator(s, name="shoulder_motor")
    b.actuator(e, name="elbow_motor")
    b.settings(dt=dt, duration=2.0)
    d = b.build()
    from nsgui.scene import scene_from_dict, scene_to_dict
    d = scene_to_dict(d)
    d["controllers"] = controllers
    return compile_scene(scene_from_dict(d))


def test_computed_torque_gives_the_linear_error_dynamics():
    """Fully actuated, no contact: ë + kd ė + kp e = 0 for each joint; kp = 100, kd = 20 is
    critically damped, e(t) = (e0 + (10 e0 + ė0) t) exp(-10 t), to O(h)."""
    targets = [{"type": "constant", "value": 0.8}, {"type": "sine", "offset": -0.5, "amplitude": 0.2}]
    m = _two_link([{"name": "ct", "type": "computed_torque", "actuators": ["shoulder_motor", "elbow_motor"],
                    "kp": 100.0, "kd": 20.0, "targets": targets}], dt=1e-4)
    rows = Simulator(m).run(10000)
    t = rows[:, 0]
    e1 = rows[:, _col(m, "controller.ct.error.shoulder_motor")]
    e0, de0 = 0.8 - 0.3, 0.0
    ref = (e0 + (10 * e0 + de0) * t) * np.exp(-10 * t)
    assert np.abs(e1 - ref).max() < 2e-3 * e0
    e2 = rows[:, _col(m, "controller.ct.error.elbow_motor")]
    e0, de0 = -0.5 - (-0.8), 0.2 * 2 * np.pi
    ref = (e0 + (10 * e0 + de0) * t) * np.exp(-10 * t)
    assert np.abs(e2 - ref).max() < 3e-3 * abs(e0)


def test_block_validation_names_the_field():
    from nsgui.scene import SceneError
    with pytest.raises(SceneError) as err:
        _two_link([{"name": "ct", "type": "computed_torque", "actuators": ["shoulder_motor", "wrist"]},
                   {"name": "shoulder_motor", "type": "computed_torque", "actuators": ["shoulder_motor"]}])
    text = str(err.value)
    assert "controllers[0].actuators[1]: no actuator named 'wrist'" in text
    assert "controllers[1].name" in text and "controllers[1].actuators[0]" in text


def test_runaway_of_an_explicit_law_is_reported_with_its_coordinate():
    sim = Simulator(_link({"type": "pd", "kd": 10.0, "implicit": False}))
    with pytest.raises(SimulationError) as err:
        sim.run(200)
    assert "pin" in str(err.value)
