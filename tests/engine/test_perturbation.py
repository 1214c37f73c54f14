"""The mouse perturbation (engine/perturbation.py): the bounded spring-damper on a grabbed body point,
checked against an independent integration of the same force law, its recorded signals, its energy
booking, and the replay of a recorded run."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.perturbation import DAMPING_RATIO, MAX_ACCELERATION, STIFFNESS, PerturbationSchedule
from nsgui.scene import SceneBuilder, load_scene

MASS, INERTIA = 2.0, 0.05
POINT = np.array([0.2, 0.1])      # grabbed point in the body frame (the frame sits at the centre of mass)
TARGET = np.array([1.0, 0.5])


def puck(integrator="time_stepping", dt=1e-4, gravity=(0.0, 0.0)):
    b = SceneBuilder("puck", gravity=gravity)
    body = b.body("puck", mass=MASS, inertia=INERTIA)
    body.disk(0.05)
    b.free("base", child=body)
    b.settings(dt=dt, duration=1.0, integrator=integrator)
    return compile_scene(b.build())


def rigid_body_reference(t_end, t_eval):
    """x, y, θ of the free rigid body under the same law, by scipy (an independent integration)."""
    k, c, amax = STIFFNESS, 2 * DAMPING_RATIO * np.sqrt(STIFFNESS), MAX_ACCELERATION

    def rhs(_t, s):
        x, y, th, vx, vy, w = s
        cs, sn = np.cos(th), np.sin(th)
        r = np.array([cs * POINT[0] - sn * POINT[1], sn * POINT[0] + cs * POINT[1]])
        p = np.array([x, y]) + r
        vp = np.array([vx - w * r[1], vy + w * r[0]])
        F = MASS * (k * (TARGET - p) - c * vp)
        f = np.hypot(*F)
        if f > MASS * amax:
            F *= MASS * amax / f
        return [vx, vy, w, F[0] / MASS, F[1] / MASS, (r[0] * F[1] - r[1] * F[0]) / INERTIA]

    sol = solve_ivp(rhs, (0.0, t_end), np.zeros(6), t_eval=t_eval, rtol=1e-10, atol=1e-12, max_step=1e-3)
    return sol.y


@pytest.mark.parametrize("integrator", ["time_stepping", "event_driven"])
def test_trajectory_matches_an_independent_integration(integrator):
    model = puck(integrator)
    sim = Simulator(model)
    sim.perturb("puck", POINT, TARGET)
    rows = sim.run(8000)  # 0.8 s: saturated at first (the target is 1.1 m away), then the linear spring
    names = sim.signal_names
    col = {n: rows[:, names.index(n)] for n in names}
    ref = rigid_body_reference(0.8, col["t"])
    for k, q in enumerate(("q.base.x", "q.base.y", "q.base.theta")):
        assert np.max(np.abs(col[q] - ref[k])) < 2e-3, q
    # the point ends near the target (critically damped) and the force was bounded all along
    f = np.hypot(col["perturb.fx"], col["perturb.fy"])
    assert f.max() <= MASS * MAX_ACCELERATION * (1 + 1e-12)
    assert np.isclose(f[:100], MASS * MAX_ACCELERATION).all()  # saturated while far
    # the recorded input
    assert (col["perturb.body"] == 0).all()
    assert np.allclose(col["perturb.point_x"], POINT[0]) and np.allclose(col["perturb.target_y"], TARGET[1])
    # the mouse's work is booked: the energy balance still closes
    assert abs(col["energy.residual"]).max() < 1e-6 * col["energy.kinetic"].max()
    assert col["energy.actuators"][-1] > 0


def test_recorded_force_is_the_one_applied():
    """Time stepping: the recorded force of a step is the one the momentum change shows, m Δv = h F."""
    model = puck()
    sim = Simulator(model)
    sim.perturb("puck", POINT, TARGET)
    rows = sim.run(2000)
    n = sim.signal_names
    vx, fx = rows[:, n.index("v.base.x")], rows[:, n.index("perturb.fx")]
    assert np.allclose(MASS * np.diff(vx), model.dt * fx[1:], rtol=0, atol=1e-12)


def test_release_stops_the_force_and_is_recorded():
    sim = Simulator(puck())
    sim.perturb(0, (0.0, 0.0), (0.3, 0.0))
    sim.run(1000)
    sim.release_perturbation()
    assert sim.perturbation is None
    rows = sim.run(100)
    n = sim.signal_names
    assert (rows[:, n.index("perturb.body")] == -1).all() and (rows[:, n.index("perturb.fx")] == 0).all()
    v = rows[:, n.index("v.base.x")]
    assert np.all(v == v[0]) and v[0] > 0  # free flight at constant speed


def test_snapshot_carries_the_perturbation():
    model = puck()
    a = Simulator(model)
    a.perturb("puck", POINT, TARGET)
    a.run(500)
    state = a.get_state()
    ref = a.run(500)
    b = Simulator(model)
    b.set_state(state)
    assert b.perturbation == a.perturbation
    assert np.array_equal(b.run(500), ref)


def test_replay_of_a_recorded_run_reproduces_it():
    """A run perturbed twice and released, under gravity on a ground: its signals (as exported) give
    the schedule that reproduces every row bit for bit in a fresh simulator."""
    b = SceneBuilder("box on ground")
    ground = b.ground()
    box = b.body("box", mass=1.0, inertia=0.01)
    shape = box.box(0.2, 0.2)
    b.free("base", child=box, q0={"y": 0.1})
    b.contact(shape, ground, friction=0.5)
    b.settings(dt=1e-3, duration=1.0)
    model = compile_scene(b.build())
    sim = Simulator(model)
    rows = [sim.run(100)]
    sim.perturb("box", (0.1, 0.1), (1.0, 1.0))
    rows.append(sim.run(150))
    sim.perturb("box", (0.1, 0.1), (-0.5, 0.3))
    rows.append(sim.run(100))
    sim.release_perturbation()
    rows.append(sim.run(150))
    rows = np.vstack(rows)
    signals = dict(zip(sim.signal_names, rows.T))
    schedule = PerturbationSchedule.from_signals(signals)
    assert [c[1] for c in schedule.changes] == [0, 0, -1]
    assert np.allclose([c[0] for c in schedule.changes], [0.1, 0.25, 0.35])
    replay = Simulator(model)
    replay.replay_perturbations(schedule)
    assert np.array_equal(replay.run(len(rows)), rows)


def test_bad_input_is_named():
    sim = Simulator(puck())
    with pytest.raises(ValueError, match="no body named 'nope'"):
        sim.perturb("nope", (0, 0), (0, 0))
    with pytest.raises(ValueError, match="target must be two finite numbers"):
        sim.perturb("puck", (0, 0), (np.nan, 0))
    with pytest.raises(ValueError, match="no signal 'perturb.body'"):
        PerturbationSchedule.from_signals({"t": np.zeros(3)})


def test_cli_replays_an_exported_run(tmp_path):
    """`nsgui run SCENE --perturbations RUN.csv` gives the exported run's rows again, exactly."""
    from nsgui.engine.export import read_csv, write_csv
    from tests.helpers import scene_path
    from tests.test_cli import nsgui
    scene = load_scene(scene_path("bouncing_ball"))
    duration = 300 * scene.settings.dt
    model = compile_scene(scene.with_values({"settings.duration": duration}))
    sim = Simulator(model)
    body = model.body_names[0]
    rows = [sim.signal_vector()[None], sim.run(100)]
    sim.perturb(body, (0.0, 0.0), (0.5, 1.0))
    rows.append(sim.run(100))
    sim.release_perturbation()
    rows.append(sim.run(100))
    run = dict(zip(sim.signal_names, np.vstack(rows).T))
    write_csv(tmp_path / "run.csv", run)
    out = tmp_path / "replay.csv"
    r = nsgui("run", scene_path("bouncing_ball"), "--set", f"settings.duration={duration!r}", "--perturbations",
              str(tmp_path / "run.csv"), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    replay = read_csv(out)
    for name in ("q.ball.y", "v.ball.x", "perturb.fx", "perturb.body"):
        assert np.array_equal(replay[name], run[name]), name
    bad = nsgui("run", "bouncing_ball", "--perturbations", str(tmp_path / "missing.csv"))
    assert bad.returncode != 0 and "--perturbations" in bad.stderr and "Traceback" not in bad.stderr
