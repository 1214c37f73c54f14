"""Event-driven integration (settings.integrator = "event_driven") against closed forms and an exact
reflection solution computed here: impact times, the accumulation time t*, a ball in a wedge and its
sensitivity to initial conditions, rows on the grid of dt, exact restore from snapshots."""

import numpy as np
import pytest

from nsgui.engine import compile_scene, simulate
from nsgui.engine.simulator import Simulator
from nsgui.scene import scene_from_dict

from tests.helpers import example_dict

G = 9.81
R_BALL = 0.1
H0 = 1.0 - R_BALL                   # bouncing_ball.json: centre at 1 m, radius 0.1 m
T1 = np.sqrt(2 * H0 / G)            # (T8.1)


def ball(e, dt=1e-3, duration=2.0):
    d = example_dict("bouncing_ball")
    d["settings"].update(integrator="event_driven", dt=dt, duration=duration)
    d["contacts"][0]["restitution"] = e
    return scene_from_dict(d)


def impact_time(k, e):
    """(T8.3)"""
    return T1 * (1 + 2 * e * (1 - e ** (k - 1)) / (1 - e))


def test_impact_times_and_accumulation_time_match_the_closed_form():
    e = 0.5
    res = simulate(ball(e))
    impacts = [ev for ev in res.events if ev.kind == "impact"]
    assert len(impacts) >= 10
    for k, ev in enumerate(impacts, start=1):
        assert abs(ev.t - impact_time(k, e)) < 1e-10, k
        v_pre = np.sqrt(2 * G * H0) * e ** (k - 1)
        assert ev.un_pre == pytest.approx(-v_pre, abs=1e-9)
    # the accumulation is bridged once: t* of (T8.4) (errata 000-4), then the ball rests
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    assert len(acc) == 1
    assert abs(acc[0].t_star - T1 * (1 + e) / (1 - e)) < 1e-9
    assert impacts[-1].un_post == 0.0
    late = res["t"] > acc[0].t_star + 0.01
    assert np.all(np.abs(res["v.ball.y"][late]) < 1e-12)
    assert np.all(np.abs(res["q.ball.y"][late] - R_BALL) < 1e-9)
    assert np.allclose(res["contact.ball_ground.fn"][late], G, rtol=1e-9)  # m g, as time stepping
    # energy: every loss is booked at the impacts
    lost = sum(ev.energy_lost for ev in res.events if ev.kind == "impact")
    assert lost == pytest.approx(G * H0, rel=1e-9)
    assert np.max(np.abs(res["energy.residual"])) < 1e-9


def test_rows_on_the_time_grid_of_time_stepping():
    ed = simulate(ball(0.9, dt=1e-3, duration=1.0))
    d = example_dict("bouncing_ball")
    d["settings"].update(dt=1e-3, duration=1.0)
    ts = simulate(scene_from_dict(d))
    assert ed.signals.keys() == ts.signals.keys()
    assert np.array_equal(ed["t"], ts["t"])


def test_elastic_ball_keeps_its_energy_and_period():
    res = simulate(ball(1.0, dt=5e-3, duration=10.0))
    assert np.max(np.abs(res["energy.total"] - res["energy.total"][0])) < 1e-9
    times = np.array([ev.t for ev in res.events if ev.kind == "impact"])
    k = np.arange(len(times))
    assert np.max(np.abs(times - T1 * (1 + 2 * k))) < 1e-10


def test_snapshot_restores_exactly_and_chunks_change_nothing():
    model = compile_scene(ball(0.7, dt=1e-3))
    a = Simulator(model)
    a.run(400)
    s = a.get_state()
    first = a.run(900)
    a.set_state(s)
    again = a.run(900)
    assert np.array_equal(first, again)
    b = Simulator(model)
    chunks = np.vstack([b.run(k) for k in (1, 7, 392, 250, 650)])
    whole = Simulator(model).run(1300)
    assert np.array_equal(chunks, whole)
    # kernel snapshots (what the window keeps) restore exactly too
    c = Simulator(model)
    c.snapshot_every(0.25)
    c.run(1300)
    snap = c.pop_snapshots()[2]
    c.set_state(snap)
    assert np.array_equal(c.run(100), whole[int(round(snap.t / 1e-3)):][:100])


# ------------------------------------------------------------------ a ball in a wedge
GAMMA = np.radians(35.0)          # inward wall normals at ±35° from the horizontal: a V of 110°
NORMALS = np.array([[np.cos(GAMMA), np.sin(GAMMA)], [-np.cos(GAMMA), np.sin(GAMMA)]])
P0 = np.array([0.35, 0.9])


def wedge(x0=P0[0], dt=1e-3, duration=10.0):
    d = example_dict("bouncing_ball")
    d["settings"].update(integrator="event_driven", dt=dt, duration=duration)
    d["obstacles"] = [dict(name=f"wall{i}", type="wall", point=[0.0, 0.0], normal=list(n))
                      for i, n in enumerate(NORMALS)]
    d["contacts"] = [dict(name=f"ball_wall{i}", a=dict(body="ball", shape="disk"), b=dict(obstacle=f"wall{i}"),
                          restitution=1.0, friction=0.0) for i in range(2)]
    d["initial"]["q"] = {"ball.x": x0, "ball.y": P0[1]}
    return scene_from_dict(d)


def wedge_reference(x0, times):
    """Exact piecewise-parabolic motion of the centre with elastic reflections on the walls (lines
    n·p = r): each next impact from the roots of a quadratic. Returns the centre at `times`."""
    p, v, t = np.array([x0, P0[1]]), np.zeros(2), 0.0
    g = np.array([0.0, -G])
    out = np.empty((len(times), 2))
    k, last = 0, -1
    while k < len(times):
        best, wall = np.inf, -1
        for i, n in enumerate(NORMALS):
            a, b, c = 0.5 * n @ g, n @ v, n @ p - R_BALL
            if i == last:
                tau = -b / a if b > 0 else np.inf  # the root other than 0
            else:
                disc = b * b - 4 * a * c
                q = -0.5 * (b + np.copysign(np.sqrt(disc), b))
                roots = [r for r in (q / a, c / q) if r > 0]
                tau = min(roots) if roots else np.inf
            if tau < best:
                best, wall = tau, i
        while k < len(times) and times[k] <= t + best:
            s = times[k] - t
            out[k] = p + v * s + 0.5 * g * s * s
            k += 1
        p = p + v * best + 0.5 * g * best * best
        v = v + g * best
        n = NORMALS[wall]
        v = v - 2 * (n @ v) * n
        t += best
        last = wall
    return out


def test_ball_in_a_wedge_follows_the_exact_reflections_for_10_s():
    res = simulate(wedge())
    t = res["t"]
    ref = wedge_reference(P0[0], t)
    err = np.hypot(res["q.ball.x"] - ref[:, 0], res["q.ball.y"] - ref[:, 1])
    assert np.max(err) < 1e-8
    assert sum(ev.kind == "impact" for ev in res.events) > 20


def test_ball_in_a_wedge_amplifies_a_small_perturbation_as_the_exact_solution_does():
    delta = 1e-9
    t = np.array([10.0])
    grow_exact = np.linalg.norm(wedge_reference(P0[0] + delta, t) - wedge_reference(P0[0], t)) / delta
    runs = [simulate(wedge(P0[0] + dx)) for dx in (0.0, delta)]
    end = [np.array([r["q.ball.x"][-1], r["q.ball.y"][-1]]) for r in runs]
    grow = np.linalg.norm(end[1] - end[0]) / delta
    assert grow_exact > 1e3            # sensitivity to initial conditions (thesis §4.5)
    assert grow == pytest.approx(grow_exact, rel=1e-2)


# ------------------------------------------------------------------ the event log (--events)
def test_events_csv_of_either_integrator(tmp_path):
    from nsgui.cli import run_main
    from nsgui.engine.event_log import read_events_csv
    e = 0.5
    for integrator in ("event_driven", "time_stepping"):
        out = tmp_path / f"{integrator}.csv"
        code = run_main(["bouncing_ball", "--duration", "1.2", "--quiet", "--no-projection", "--dt", "1e-4",
                         "--set", f"contacts[0].restitution={e}", "--set", f"settings.integrator={integrator}",
                         "--events", str(out)])
        assert code == 0
        impacts = [r for r in read_events_csv(out) if r["kind"] == "impact"]
        assert len(impacts) >= 4
        for k, r in enumerate(impacts[:4], start=1):
            v = np.sqrt(2 * G * H0) * e ** (k - 1)
            tol = 1e-10 if integrator == "event_driven" else 2e-3  # time stepping: O(h) timing
            assert r["contact"] == "ball_ground"
            assert r["time"] == pytest.approx(impact_time(k, e), abs=tol)
            assert r["un_pre"] == pytest.approx(-v, abs=1e-9 if integrator == "event_driven" else 1e-2)
            # Newton's law holds exactly in both (time stepping: per step, §3.3)
            assert r["un_post"] == pytest.approx(-e * r["un_pre"], rel=1e-12)
            # m = 1; a time step's percussion also takes the step's gravity, m g h
            gravity = 0.0 if integrator == "event_driven" else G * 1e-4
            assert r["percussion"] == pytest.approx((1 + e) * -r["un_pre"] + gravity, rel=1e-9)
            assert r["energy_lost"] == pytest.approx(0.5 * (1 - e * e) * r["un_pre"] ** 2,
                                                     rel=1e-12 if integrator == "event_driven" else 3e-3)


# ------------------------------------------------------------------ agreement with time stepping
@pytest.mark.parametrize("name, duration, edits, bound", [
    ("falling_rod", 2.0, {}, 1e-4),                               # Zeno on each end, then both closed
    ("double_pendulum_wall", 2.0, {}, 5e-5),                      # elastic and plastic wall impacts
    ("rocking_block", 1.0, {"contacts[0].friction": 0.0}, 5e-5),  # a box: corners, rocking accumulation
])
def test_time_stepping_converges_to_the_event_driven_solution(name, duration, edits, bound):
    from tests.helpers import example
    scene = example(name)
    if edits:
        scene = scene.with_values(edits)
    ed = simulate(scene.with_values({"settings.integrator": "event_driven"}), duration=duration)
    assert ed.summary["failure"] is None
    assert ed.summary["energy_residual"] < 1e-8
    coords = [n for n in ed.signals if n.startswith("q.")]
    errors = []
    for f in (10, 100):
        ts = simulate(scene, dt=scene.settings.dt / f, duration=duration, projection=False)
        errors.append(max(np.max(np.abs(ts[n][::f] - ed[n])) for n in coords))
    assert errors[1] < errors[0] / 5      # first order in h, the order of time stepping
    assert errors[1] < bound


def test_where_events_crowd_time_stepping_takes_over_for_a_while():
    """The default example made frictionless: the box slides off the end of the slope segment while
    its corners are closed (the contact's normal swings round the segment's end: the smooth phase
    has no solution the integrator can follow). Time stepping runs 0.05 s from the last row, then
    the event-driven integrator goes on; the run completes and says where."""
    from tests.helpers import example
    scene = example("default")
    edits = {f"contacts[{i}].friction": 0.0 for i in range(len(scene.contacts))}
    res = simulate(scene.with_values(edits | {"settings.integrator": "event_driven"}), duration=3.0)
    assert res.summary["failure"] is None
    crowded = [ev for ev in res.events if ev.kind == "time_stepping"]
    assert crowded and all(1.0 < ev.t < 2.5 for ev in crowded)  # the box leaving the slope
    assert res["t"][-1] == pytest.approx(3.0)
    assert np.all(np.diff(res["t"]) > 0)
    assert res.summary["energy_residual"] < 1e-5
    # the ball's bounces on the ground, far from the box, are still exact events
    assert sum(ev.kind == "impact" and ev.name == "ball_ground" for ev in res.events) >= 3


# ------------------------------------------------------------------ Coulomb friction
MU = 0.3


def test_sliding_box_stops_at_the_closed_form_time_and_place_then_sticks():
    from tests.helpers import example
    v0 = 2.0
    res = simulate(example("sliding_box").with_values({"settings.integrator": "event_driven"}), duration=1.5)
    t_stop = v0 / (MU * G)                                               # (T8.6)
    sticks = [ev for ev in res.events if ev.kind == "stick"]
    assert len(sticks) == 2 and all(abs(ev.t - t_stop) < 1e-9 for ev in sticks)
    assert res["q.box.x"][-1] == pytest.approx(v0 ** 2 / (2 * MU * G), abs=1e-9)
    assert abs(res["v.box.x"][-1]) < 1e-12
    sliding = (res["t"] > 0.01) & (res["t"] < t_stop - 0.01)
    assert np.allclose(res["v.box.x"][sliding], v0 - MU * G * res["t"][sliding], atol=1e-9)
    # the load moves to the front corner: N_f − N_b = μ (H/w) m g (T8.10), friction μ N on each
    fn = [res[f"contact.box_ground[{c}].fn"][sliding] for c in range(2)]
    ft = [res[f"contact.box_ground[{c}].ft"][sliding] for c in range(2)]
    assert np.allclose(np.abs(fn[1] - fn[0]), MU * (0.2 / 0.4) * G, atol=1e-8)
    assert np.allclose(fn[0] + fn[1], G, atol=1e-8)
    assert np.allclose(ft[0] + ft[1], -MU * G, atol=1e-8)
    assert res["energy.friction"][-1] == pytest.approx(0.5 * v0 ** 2, rel=1e-9)
    assert res.summary["energy_residual"] < 1e-8


@pytest.mark.parametrize("push", [2.0, 5.0])
def test_pushed_block_sticks_below_the_friction_limit_and_slides_above(push):
    from tests.helpers import example
    res = simulate(example(f"sliding_block_push{int(push)}").with_values({"settings.integrator": "event_driven"}),
                   duration=1.0)
    t, x = res["t"], res["q.block.x"]
    if push < MU * G:                                                    # (T8.7): stuck, r_T = −F
        assert np.max(np.abs(x)) < 1e-12
        assert np.allclose(res["contact.block_ground.ft"][1:], -push, atol=1e-9)
        assert not any(ev.kind == "slip" for ev in res.events)
    else:                                                                # slides at a = F/m − μ g
        assert np.allclose(x, 0.5 * (push - MU * G) * t ** 2, atol=1e-9)
        assert [ev.kind for ev in res.events][:2] == ["stick", "slip"] or res.events[0].kind == "slip"


def test_oblique_impact_with_friction_follows_the_one_step_law():
    """No gravity, so time stepping's impact step is the impact law itself (constant M and
    contact rows for a disk on flat ground): the event-driven impact gives the same velocities."""
    d = example_dict("bouncing_ball")
    d["gravity"] = [0.0, 0.0]
    d["contacts"][0].update(restitution=0.5, friction=0.4, tangential_restitution=0.3)
    d["initial"] = {"q": {"ball.y": 0.12}, "v": {"ball.x": 1.0, "ball.y": -2.0, "ball.theta": 30.0}}
    d["settings"].update(duration=0.05, dt=1e-4, projection=False)
    ts = simulate(scene_from_dict(d))
    d["settings"]["integrator"] = "event_driven"
    ed = simulate(scene_from_dict(d))
    for name in ("v.ball.x", "v.ball.y", "v.ball.theta"):
        assert ed[name][-1] == pytest.approx(ts[name][-1], abs=1e-12), name
    impact = [ev for ev in ed.events if ev.kind == "impact"]
    assert len(impact) == 1 and impact[0].t == pytest.approx(0.01, abs=1e-12)
    assert ed["energy.friction"][-1] > 0 and ed.summary["energy_residual"] < 1e-12


def test_frictional_run_in_chunks_is_the_run_in_one_call():
    from tests.helpers import example
    model = compile_scene(example("sliding_box").with_values({"settings.integrator": "event_driven"}))
    whole = Simulator(model).run(1200)
    b = Simulator(model)
    chunks = np.vstack([b.run(k) for k in (3, 677, 1, 519)])
    assert np.array_equal(chunks, whole)


def test_events_csv_gives_a_solver_warnings_text(tmp_path):
    """A solver warning's row carries its text (how many step problems stopped at the iteration cap, and
    the error) in the detail column; the other events' detail is blank."""
    from nsgui.engine.event_log import events_csv_text, read_events_csv
    from nsgui.engine.simulator import Event
    path = tmp_path / "ev.csv"
    path.write_text(events_csv_text([Event(0.25, "solver_warning", "", "a step problem stopped at the iteration "
                                                                        "cap (error 3.1e-07)"),
                                     Event(0.5, "impact", "c", un_pre=-1.0, un_post=0.5, percussion=1.5,
                                           energy_lost=0.375)]))
    warn, hit = read_events_csv(path)
    assert warn["kind"] == "solver_warning" and warn["detail"].endswith("(error 3.1e-07)")
    assert hit["detail"] == "" and hit["un_pre"] == -1.0 and hit["energy_lost"] == 0.375
