"""A blow-up is stopped at the step where it starts, names the coordinate and its body, and never
leaves a non-finite row (issue 8: a tiny body's velocity grew to 1e199 and was blamed on an unrelated
contact, with NaN rows kept)."""

import numpy as np
import pytest

from nsgui.scene import scene_from_dict, dumps_scene
from nsgui.engine import SimulationError, Simulator, compile_scene, simulate
from nsgui.engine.stepper import RUNAWAY_BOUND

KP, MASS, H = 10.0, 1e-6, 1e-3


def speck_scene(kp=KP):
    """A block resting on the ground (contact block_ground, with friction) and, far from it, a speck
    of 1 µg on a slider pushed by an explicit PD law (implicit: false) whose gain is far too high for its mass."""
    return scene_from_dict({
        "format": "nsgui-scene", "version": 1, "name": "speck",
        "bodies": [{"name": "block", "mass": 1.0,
                    "shapes": [{"name": "b", "type": "box", "width": 0.4, "height": 0.2}]},
                   {"name": "speck", "mass": MASS, "inertia": 1e-12,
                    "shapes": [{"name": "d", "type": "disk", "radius": 0.001}]}],
        "joints": [{"name": "block", "type": "free", "child": "block"},
                   {"name": "slider", "type": "prismatic", "child": "speck", "anchor_parent": [2.0, 1.0],
                    "axis": [1.0, 0.0]}],
        "obstacles": [{"name": "ground", "type": "ground", "point": [0.0, 0.0], "normal": [0.0, 1.0]}],
        "contacts": [{"name": "block_ground", "a": {"body": "block", "shape": "b"},
                      "b": {"obstacle": "ground"}, "friction": 0.5}],
        "actuators": [{"name": "push", "joint": "slider",
                       "controller": {"type": "pd", "kp": kp, "kd": 0.0, "target": 1.0,
                                      "implicit": False}}],
        "initial": {"q": {"block.y": 0.1}},
        "settings": {"dt": H, "duration": 1.0, "theta": 0.5},
    })


def first_runaway_step():
    """The speck alone, stepped by hand: v+ = v + h kp (1 - q) / m, q+ = q + h (v + v+) / 2 (θ = ½).
    Returns the first step whose velocity leaves ±RUNAWAY_BOUND."""
    q = v = 0.0
    for k in range(1, 1000):
        v_new = v + H * KP * (1.0 - q) / MASS
        if abs(v_new) > RUNAWAY_BOUND:
            return k
        q, v = q + H * 0.5 * (v + v_new), v_new
    raise AssertionError("no blow-up")


def test_blow_up_is_named_where_it_starts_and_no_row_is_non_finite():
    k = first_runaway_step()
    assert k > 5  # the velocity grows over several steps, as in the issue
    result = simulate(speck_scene())
    failure = result.summary["failure"]
    assert failure.startswith(f"t = {k * H:.6g} s: runaway motion: v.slider")
    assert "body 'speck', joint 'slider'" in failure and "block_ground" not in failure
    assert result.summary["steps"] == k - 1 and len(result.t) == k
    for name, x in result.signals.items():
        assert np.all(np.isfinite(x)), name
    assert np.abs(result["v.slider"]).max() <= RUNAWAY_BOUND


def test_simulator_keeps_the_last_good_state_and_reports_the_signal():
    sim = Simulator(compile_scene(speck_scene()))
    with pytest.raises(SimulationError) as err:
        sim.run(1000)
    e = err.value
    assert (e.signal, e.body, e.contact) == ("v.slider", "speck", None)
    assert e.t == pytest.approx(first_runaway_step() * H)
    assert np.all(np.isfinite(e.rows)) and len(e.rows) == sim.step_count
    assert np.all(np.abs(sim.v) <= RUNAWAY_BOUND)


def test_python_controller_returning_nan_is_named():
    sim = Simulator(compile_scene(speck_scene(kp=0.0)))
    sim.set_controller("push", lambda t, q, v, m: 1e-9 if t < 0.0105 else float("nan"), period=0.005)
    with pytest.raises(SimulationError) as err:
        sim.run(100)
    assert str(err.value) == "t = 0.015 s: the Python controller of actuator 'push' returned nan"
    assert len(err.value.rows) == sim.step_count == 15 and np.all(np.isfinite(err.value.rows))


def test_cli_prints_one_line_and_keeps_only_finite_rows(tmp_path):
    from tests.test_cli import nsgui_run
    from nsgui.engine.export import read_csv
    scene = tmp_path / "speck.json"
    scene.write_text(dumps_scene(speck_scene()))
    out = tmp_path / "speck.csv"
    p = nsgui_run(str(scene), "--quiet", "--out", str(out))
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert "runaway motion: v.slider" in lines[0] and "'speck'" in lines[0] and str(out) in lines[0]
    data = read_csv(out)
    assert len(data["t"]) == first_runaway_step()
    assert all(np.all(np.isfinite(x)) for x in data.values())


def test_update_positions_names_the_first_bad_entry_as_check_state():
    """stepper.update_positions' test written out (v_new, then q_new) gives check_state's code, column and
    kept value: bad entries (NaN, inf, beyond RUNAWAY_BOUND) put at random places of either."""
    from nsgui.engine import stepper as st
    sim = Simulator(compile_scene(speck_scene()))
    m, d = sim._args
    dat = sim._data
    rng = np.random.default_rng(5)
    n = dat.q.shape[0]
    codes = set()
    for trial in range(300):
        dat.q[:] = rng.normal(size=n)
        dat.v[:] = rng.normal(size=n)
        dat.v_new[:] = rng.normal(size=n)
        for _ in range(rng.integers(0, 3)):
            which = dat.v_new if rng.random() < 0.5 else dat.v
            which[rng.integers(n)] = rng.choice([np.nan, np.inf, -np.inf, 2.0 * RUNAWAY_BOUND, -2.0 * RUNAWAY_BOUND])
        stats = dat.stats.copy()
        code, col = st.update_positions(m, d)
        got_stats = dat.stats.copy()
        dat.stats[:] = stats
        want = st.check_state(dat.v_new, sim.model.layout.v, dat.stats)
        if want[0] == st.OK:
            want = st.check_state(dat.q_new, sim.model.layout.q, dat.stats)
        assert (code, col) == want, trial
        assert np.array_equal(got_stats, dat.stats, equal_nan=True)
        codes.add(code)
    assert {st.OK, st.RUNAWAY, st.NOT_FINITE} <= codes
