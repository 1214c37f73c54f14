"""Solver-warning events are stamped with the time of the step whose problem stopped at the iteration
cap, so a run's events are the same however it is cut into kernel calls (simulate's timed chunks,
Simulator.run's pieces, a full warning log)."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene, simulate
from tests.helpers import example


def capped_box():
    """The sliding box with NSGS stopped after three sweeps short of a tolerance it cannot reach: a
    warning at most steps of its slide, the run going on (the error stays small)."""
    scene = example("sliding_box")
    scene.settings.solver = "nsgs"
    scene.settings.max_iterations = 3
    scene.settings.tolerance = 1e-15
    return scene


def key(events):
    return [(e.t, e.kind, e.name, e.detail) for e in events]


def pieces(sim, sizes, **kw):
    rows = [sim.run(k, **kw) for k in sizes]
    return np.vstack(rows), sim.pop_events()


@pytest.fixture(scope="module")
def model():
    return compile_scene(capped_box())


@pytest.fixture(scope="module")
def whole(model):
    sim = Simulator(model)
    rows = sim.run(300)
    return rows, sim.pop_events(), sim.stats


def test_each_warning_is_an_event_at_its_steps_time(whole):
    rows, events, stats = whole
    warnings = [e for e in events if e.kind == "solver_warning"]
    assert len(warnings) == stats["solver_warnings"] > 5  # one per capped step (each step solves once)
    t = rows[:, 0]
    assert all(np.any(t == e.t) for e in warnings)   # the time of a step's row, bit for bit
    assert len({e.t for e in warnings}) == len(warnings)
    assert all(a.t <= b.t for a, b in zip(events, events[1:]))   # every event in the order of its step


@pytest.mark.parametrize("sizes", [(1, 7, 13, 279), (100, 100, 100), (299, 1)])
def test_the_events_do_not_depend_on_how_the_run_is_cut(model, whole, sizes):
    rows, events, _ = whole
    cut_rows, cut_events = pieces(Simulator(model), sizes)
    np.testing.assert_array_equal(cut_rows, rows)
    assert key(cut_events) == key(events)


def test_a_selection_of_signals_gives_the_same_events(model, whole):
    _, events, _ = whole
    _, cut_events = pieces(Simulator(model), (50, 250), signals=["t", "q.box.x"])
    assert key(cut_events) == key(events)


def test_a_full_warning_log_continues_the_call_with_the_same_rows_events_and_snapshots(model, whole, monkeypatch):
    rows, events, _ = whole
    ref = Simulator(model)
    ref.snapshot_every(0.05)
    ref.run(300)
    monkeypatch.setattr(Simulator, "WARNING_LOG_ROWS", 3)   # a call stops after every third warning
    sim = Simulator(model)
    sim.snapshot_every(0.05)
    np.testing.assert_array_equal(sim.run(300), rows)
    assert key(sim.pop_events()) == key(events)
    got, want = sim.pop_snapshots(), ref.pop_snapshots()
    assert [s.step_count for s in got] == [s.step_count for s in want] and len(got) == 6
    for a, b in zip(got, want):
        assert a.t == b.t
        np.testing.assert_array_equal(a.q, b.q)
        np.testing.assert_array_equal(a.row, b.row)


def test_simulate_chunks_give_the_same_events():
    scene = capped_box()
    runs = [simulate(scene, duration=0.3, chunk=k) for k in (7, 100_000)]
    assert key(runs[0].events) == key(runs[1].events)
    assert runs[0].summary["solver_warnings"] == runs[1].summary["solver_warnings"] > 5
