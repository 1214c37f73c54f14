"""Snapshots on their way from the engine to the history stay packed (one StateBlock), and the state a
resume reads from them is the one get_state() gave at that step."""

import os
import pickle
import time

import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import simulator as simulator_module
from nsgui.engine.state_block import StateBlock
from nsgui.runtime.history import Recorder
from nsgui.runtime.snapshots import Snapshots
from nsgui.runtime.worker import SimRunner
from nsgui.scene import load_scene

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIELDS = ("t", "q", "v", "energy", "lamN", "lamT", "status", "u", "ctrl", "stats", "step_count", "row",
          "external_next", "user_state", "ed")


def _model(name):
    return compile_scene(load_scene(os.path.join(ROOT, "resources", "scenes", name + ".json")))


def _assert_same_state(a, b):
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=name)
        else:
            assert x == y, name


def _states(model, steps):
    """get_state() after each of `steps` (a run from the start)."""
    sim, out, done = Simulator(model), [], 0
    for k in steps:
        sim.run(k - done)
        done = k
        out.append(sim.get_state())
    return out


def test_state_block_round_trip_take_and_join():
    states = _states(_model("default"), [3, 7, 20, 21, 50])
    block = StateBlock.from_states(states)
    assert block.data.shape[0] == 5 and block.data.ndim == 2  # one array for all of them
    back = pickle.loads(pickle.dumps(block)).states()
    for a, b in zip(back, states):
        _assert_same_state(a, b)
    for a, b in zip(block.take(np.array([False, True, False, True, True])).states(), states[1::2] + states[4:]):
        _assert_same_state(a, b)
    joined = StateBlock.join([block.take(slice(0, 2)), block.take(slice(2, 5))])
    np.testing.assert_array_equal(joined.data, block.data)
    # a block of another layout (no rows recorded): joined through the fields they share
    no_row = StateBlock.from_states([s.copy() for s in states[:1]])
    no_row.names, no_row.sizes = no_row.names[:-1], no_row.sizes[:-1]
    no_row.data = no_row.data[:, :-len(states[0].row)]
    mixed = StateBlock.join([no_row, block]).states()
    assert len(mixed) == 6 and all(s.row is None for s in mixed)
    np.testing.assert_array_equal(mixed[3].q, states[2].q)


def test_snapshots_split_and_joined_keep_rows_and_states():
    """What the simulation process does to a drain's snapshots (cut into messages, numbered again
    in the window): the same (row, t, state) come out."""
    states = _states(_model("two_link_arm"), [20, 40, 60, 80, 100])
    rows = np.array([19, 39, 59, 79, 99])
    snaps = Snapshots.of_block(rows, StateBlock.from_states(states))
    parts = [snaps.between(a, a + 30) for a in range(0, 120, 30)]
    again = Snapshots.join([p.shifted(a) for p, a in zip(parts, range(0, 120, 30))])
    assert isinstance(again.states, StateBlock)
    assert [(i, t) for i, t, _ in again] == [(int(i), s.t) for i, s in zip(rows, states)]
    for (_, _, a), b in zip(again, states):
        _assert_same_state(a, b)
    # a stand-in simulator's states (not SimStates) go as a list
    other = Snapshots.join([Snapshots.one(0, 0.0, ("a", 1)), Snapshots.one(5, 0.5, ("b", 2))])
    assert list(other) == [(0, 0.0, ("a", 1)), (5, 0.5, ("b", 2))]


def test_the_worker_and_the_history_make_no_state_per_snapshot(monkeypatch):
    """Flat out the engine keeps a state every 20 ms of simulated time (thousands a second): the
    worker hands them packed, the history keeps them packed, and a SimState is made only for the
    snapshot that is read, equal to get_state() at its step. (Each one used to be made as a SimState
    by the engine, packed and unpacked through the pipe: a fifth of the simulation process's time
    on the cheapest scenes.)"""
    made = []

    class Counted(simulator_module.SimState):
        def __init__(self, *args, **kwargs):
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(simulator_module, "SimState", Counted)
    model = _model("two_link_arm")
    nsteps = 2000
    r = SimRunner(Simulator, snapshot_interval=0.02)
    r.set_speed(None)
    r.load(model, running=False)
    r.run_until(nsteps * model.dt)
    rec, end = None, time.time() + 120  # a deadline for a stuck worker, never a speed figure
    while time.time() < end:
        d = r.drain()
        if d.new_run:
            rec = Recorder(d.names, snapshot_interval=0.02)
        if rec is None:  # the run has not started yet
            time.sleep(0.01)
            continue
        start = len(rec)
        rec.append(d.rows)
        rec.add_snapshots(d.snapshots, start, force_last=not d.running and len(d.snapshots) > 0
                          and d.snapshots.rows[-1] == len(d.rows) - 1)
        if len(rec) == nsteps + 1 and not r.busy:
            break
        time.sleep(0.01)
    assert r.quit()
    assert len(rec) == nsteps + 1
    assert len(rec.snapshots) == nsteps // 20 + 1
    assert len(made) <= 2  # get_state() at the start and at the pause, nothing per snapshot
    snap = rec.snapshot_at_or_before(1.2345)
    assert abs(snap.t - 1.22) < 1e-9 and snap.row == 1220
    ref = _states(model, [1220])[0]
    _assert_same_state(snap.state, ref)
    assert len(made) == 4  # the one read (and the reference)
    np.testing.assert_array_equal(rec.row(snap.row), snap.state.row)
