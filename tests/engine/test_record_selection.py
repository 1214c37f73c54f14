"""Simulator.run(signals=...): the rows of some signals only, bit for bit the columns of the full rows,
with the same events, statistics and state after the run."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from tests.helpers import example


def _selections(names):
    """Subsets a user asks for: the positions (what the peers of benchmarks/peers.py record), the
    contacts' forces in reverse order, one energy with a velocity, and every other signal."""
    q = [n for n in names if n.startswith("q.")]
    forces = [n for n in names if n.endswith(".fn")][::-1]
    return {"positions": ["t"] + q,
            "forces": forces or q,
            "energy": ["energy.total", names[-1], [n for n in names if n.startswith("v.")][0]],
            "every other": names[::2]}


def _run(model, steps, signals=None, setup=None):
    sim = Simulator(model)
    if setup:
        setup(sim)
    rows = sim.run(steps, signals=signals)
    return sim, rows


# time stepping with contacts and friction, a wall, loop joints, controllers, a timed push
SCENES = {"bouncing_ball": 400, "sliding_box": 300, "double_pendulum_wall": 600, "four_bar": 200,
          "biped_point_feet": 200, "sliding_block_push2": 300, "newtons_cradle": 300}


@pytest.mark.parametrize("scene", SCENES)
def test_selected_columns_equal_the_full_rows_bit_for_bit(scene):
    model = compile_scene(example(scene))
    names = model.signal_names
    ref, full = _run(model, SCENES[scene])
    events = [(e.t, e.kind, e.name, e.detail) for e in ref.pop_events()]
    for what, signals in _selections(names).items():
        sim, rows = _run(model, SCENES[scene], signals)
        cols = [names.index(s) for s in signals]
        assert rows.shape == (SCENES[scene], len(signals)) and rows.flags.c_contiguous, what
        np.testing.assert_array_equal(rows, full[:, cols], err_msg=f"{scene}: {what}", strict=True)
        # the same run: state, last row, statistics and events (a selection without an energy signal
        # skips the energy bookkeeping: its accumulators are those of the start, the residual kept)
        last, want = sim.signal_vector(), ref.signal_vector()
        if any(s.startswith("energy.") for s in signals):
            np.testing.assert_array_equal(last, want, err_msg=what)
        else:
            _assert_unbooked_row(model, last, want, Simulator(model).signal_vector(), what)
        assert sim.stats == ref.stats
        assert [(e.t, e.kind, e.name, e.detail) for e in sim.pop_events()] == events


def _assert_unbooked_row(model, last, want, start, what=""):
    """The last row of a run that skipped the energy bookkeeping (last) against the same run's with it
    (want), from the state of `start`: every signal but the booked energies bit for bit, those as at
    the start, the residual within round-off of its start."""
    names = model.signal_names
    booked = {f"energy.{e}" for e in ("dissipated", "impact", "friction", "damping", "actuators", "residual")}
    for k, name in enumerate(names):
        if name == "energy.residual":
            assert abs(last[k] - start[k]) <= 1e-12 * max(1.0, abs(want[names.index("energy.total")])), what
        elif name in booked:
            assert last[k] == start[k], (what, name)
        else:
            assert last[k] == want[k] or (np.isnan(last[k]) and np.isnan(want[k])), (what, name)


@pytest.mark.parametrize("scene", ["sliding_box", "bouncing_ball", "two_link_arm"])
def test_a_run_without_energy_signals_skips_the_bookkeeping_and_keeps_the_balance(scene):
    """Friction, impacts and actuators do work in these runs: recording positions only, none of it is
    booked (the accumulators stay where they were) and the residual stays what it was; a later run that
    records energies books its own work from there, its residual still within round-off of zero."""
    model = compile_scene(example(scene))
    positions = ["t"] + [n for n in model.signal_names if n.startswith("q.")]
    names = model.signal_names
    ref = Simulator(model)
    ref_rows = ref.run(150)
    sim = Simulator(model)
    start = sim.signal_vector()
    sim.run(100, signals=positions)
    sim.run(50, signals=positions)
    want = ref.signal_vector()
    work = abs(want[names.index("energy.dissipated")]) + abs(want[names.index("energy.actuators")])
    assert work > 1e-6
    _assert_unbooked_row(model, sim.signal_vector(), want, start)
    # the residual of the booked runs: what the scheme leaves, about as large with a skipped stretch
    rows = sim.run(100, signals=["energy.residual", "energy.dissipated"])
    full = np.vstack([ref_rows, ref.run(100)])
    np.testing.assert_array_equal(sim.q, ref.q)  # the motion itself is the same
    res = full[:, names.index("energy.residual")]
    scale = max(1.0, np.abs(full[:, names.index("energy.total")]).max())
    assert np.abs(rows[:, 0]).max() <= 2 * np.abs(res).max() + 1e-12 * scale


def test_impact_events_keep_their_velocities_and_percussion():
    model = compile_scene(example("bouncing_ball"))
    ref, _ = _run(model, 400)
    sim, _ = _run(model, 400, ["q.ball.y"])
    full, some = ref.pop_events(), sim.pop_events()
    impacts = [e for e in some if e.kind == "impact"]
    assert impacts and len(some) == len(full)
    for a, b in zip(full, some):
        for field in ("un_pre", "un_post", "percussion", "energy_lost"):
            assert getattr(a, field) == getattr(b, field) or (np.isnan(getattr(a, field)) and np.isnan(getattr(b, field)))


def test_selection_in_pieces_into_a_buffer_continues_the_same_run():
    model = compile_scene(example("sliding_box"))
    names = model.signal_names
    _, full = _run(model, 300)
    signals = ["q.box.x", "contact.box_ground.0.pn"] if "contact.box_ground.0.pn" in names else ["q.box.x"]
    sim = Simulator(model)
    buf = np.full((200, len(signals)), np.nan)
    first = sim.run(200, out=buf, signals=signals)
    assert np.shares_memory(first, buf)
    np.testing.assert_array_equal(first, full[:200, [names.index(s) for s in signals]])
    second = sim.run(100, signals=signals)
    np.testing.assert_array_equal(second, full[200:, [names.index(s) for s in signals]])


def test_snapshots_of_a_selected_run_are_the_full_runs_states_without_rows():
    model = compile_scene(example("bouncing_ball"))
    sims = [Simulator(model), Simulator(model)]
    for s in sims:
        s.snapshot_every(0.1)
    sims[0].run(300)
    sims[1].run(300, signals=["q.ball.y"])
    a, b = sims[0].pop_snapshots(), sims[1].pop_snapshots()
    assert len(a) == len(b) > 0
    for x, y in zip(a, b):
        assert x.t == y.t and y.row is None
        np.testing.assert_array_equal(x.q, y.q)
        np.testing.assert_array_equal(x.energy, y.energy)


def test_python_controller_and_event_driven_runs_select_the_same_columns():
    model = compile_scene(example("two_link_arm"))
    name = model.actuator_names[0]

    def law(sim):
        sim.set_controller(name, lambda t, q, v, model: 0.5 * np.sin(3 * t), period=0.01)
    _, full = _run(model, 120, setup=law)
    signals = [model.signal_names[k] for k in (3, 1, 0)]
    _, rows = _run(model, 120, signals, setup=law)
    np.testing.assert_array_equal(rows, full[:, [3, 1, 0]])
    wheel = compile_scene(example("rimless_wheel"))
    _, full = _run(wheel, 100)
    _, rows = _run(wheel, 100, ["t", wheel.signal_names[2]])
    np.testing.assert_array_equal(rows, full[:, [0, 2]])


def test_an_unknown_signal_is_named_and_nothing_runs():
    sim = Simulator(compile_scene(example("bouncing_ball")))
    with pytest.raises(ValueError, match="no signal named 'q.bal.y'"):
        sim.run(10, signals=["t", "q.bal.y"])
    with pytest.raises(ValueError, match=r"out must be .* at least \(10, 2\)"):
        sim.run(10, signals=["t", "q.ball.y"], out=np.empty((10, 3)))
    assert sim.step_count == 0


def test_simulators_of_one_model_share_its_selections_and_record_the_same_columns():
    """A Selection is built once per model and tuple of names (Simulator's first run reuses it); a reversed
    order is another selection, and another model (the same scene compiled again) builds its own."""
    model = compile_scene(example("sliding_box"))
    names = ["t"] + [n for n in model.signal_names if n.startswith("q.")]
    a, b = Simulator(model), Simulator(model)
    ra, rb = a.run(50, signals=names), b.run(50, signals=names[::-1])
    assert a._selection(names) is b._selection(names)
    assert a._selection(names[::-1]) is not a._selection(names)
    np.testing.assert_array_equal(rb, ra[:, ::-1], strict=True)
    other = compile_scene(example("sliding_box"))
    assert Simulator(other)._selection(names) is not a._selection(names)
