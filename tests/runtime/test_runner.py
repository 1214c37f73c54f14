"""The simulation worker thread, tested against a stand-in simulator (no Qt needed)."""

import os
import time

import numpy as np
import pytest

from nsgui.runtime.worker import SimRunner
from .fake_sim import FakeModel, FakeSimulator


def collect(runner, until, timeout=10.0):
    out = []
    end = time.time() + timeout
    while time.time() < end:
        d = runner.drain()
        if d.new_run:
            out = []
        if len(d.rows):
            out.append(d.rows)
        if until(out, d):
            break
        time.sleep(0.01)
    return np.concatenate(out) if out else np.empty((0, 4))


def test_steps_flow_without_loss_and_match_a_direct_run():
    r = SimRunner(FakeSimulator, buffer_rows=500)
    r.set_speed(None)
    r.load(FakeModel(), running=False)
    r.run_until(2.0)
    got = collect(r, lambda out, d: not d.running and sum(map(len, out)) >= 2001)
    assert r.quit()
    ref = FakeSimulator(FakeModel())
    expect = [ref.signal_vector()]
    for _ in range(2000):
        ref.step()
        expect.append(ref.signal_vector())
    np.testing.assert_allclose(got, np.array(expect), rtol=0, atol=0)


def wait_idle(runner, timeout=60.0):
    """Drains until the worker has nothing more to deliver; returns the drains."""
    out = []
    end = time.time() + timeout
    while time.time() < end:
        out.append(runner.drain())
        if not runner.busy:
            out.append(runner.drain())
            return out
        time.sleep(0.005)
    raise AssertionError("the worker did not become idle")


def test_single_steps_pause_and_reset_discard_old_rows():
    r = SimRunner(FakeSimulator)
    r.load(FakeModel(), running=False)
    r.step(5)
    got = collect(r, lambda out, d: sum(map(len, out)) >= 6 and not d.running)
    assert len(got) == 6 and got[-1, 0] == np.float64(0.005) or abs(got[-1, 0] - 0.005) < 1e-12
    r.set_speed(None)
    r.play()
    collect(r, lambda out, d: sum(map(len, out)) > 100)  # it is running
    r.load(FakeModel(e=0.9), running=False)  # reset while running
    drains = wait_idle(r)
    rows = [d.rows for d in drains if len(d.rows)]
    assert [d.new_run for d in drains].count(True) == 1
    assert rows and rows[0][0, 0] == 0.0 and sum(map(len, rows)) == 1  # the new run's first row only
    assert r.quit()


class WaitedClock:
    """Stands in for the worker's `time` module: its clock advances only by what the worker sleeps,
    so pacing is checked against the time the worker waited, whatever the machine's load."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds
        time.sleep(0.0002)  # really let the other threads run


def test_realtime_pacing(monkeypatch):
    """Simulated time advances at `speed` times the (waited) clock time: it never runs ahead, and
    trails by less than one wait (5 ms of clock) and a few steps; also when the speed changes while
    running, or right after a pause (a slower speed used to be paced from the old start, which
    froze the run for minutes)."""
    import nsgui.runtime.worker as runner_module
    clock = WaitedClock()
    monkeypatch.setattr(runner_module, "time", clock)
    dt = FakeModel().dt
    r = SimRunner(FakeSimulator)
    rows = []

    def run_for(clock_span):
        end = time.time() + 60
        c0 = clock.now
        while clock.now - c0 < clock_span and time.time() < end:
            rows.extend(d.rows for d in [r.drain()] if len(d.rows))
            time.sleep(0.001)

    def check(speed, t0, c0):
        r.pause()
        rows.extend(d.rows for d in wait_idle(r) if len(d.rows))
        paced, advanced = speed * (clock.now - c0), rows[-1][-1, 0] - t0
        assert paced - speed * 0.005 - 3 * dt <= advanced <= paced + 1e-9, (speed, advanced, paced)
        return rows[-1][-1, 0]

    r.set_speed(1.0)
    c0 = clock.now  # the worker is idle: its clock stands still
    r.load(FakeModel(), running=True)
    run_for(0.5)
    t = check(1.0, 0.0, c0)
    for speed, span in ((10.0, 0.3), (0.1, 0.5)):  # new speed right after a pause
        r.set_speed(speed)
        c0 = clock.now
        r.play()
        run_for(span)
        t = check(speed, t, c0)
    for before, speed in ((10.0, 0.1), (0.1, 2.0)):  # new speed while running
        r.set_speed(before)
        r.play()
        run_for(0.2)
        r.set_speed(speed)  # the steps made at the old speed meanwhile are counted at the old one
        t1, c1 = rows[-1][-1, 0] if rows else t, clock.now
        run_for(0.3)
        r.pause()
        rows.extend(d.rows for d in wait_idle(r) if len(d.rows))
        paced = speed * (clock.now - c1)
        advanced = rows[-1][-1, 0] - t1
        assert paced - speed * 0.005 - 3 * dt <= advanced <= paced + before * 0.005 + 3 * dt, \
            (before, speed, advanced, paced)
        t = rows[-1][-1, 0]
    assert r.quit()


def test_snapshots_resume_exactly():
    r = SimRunner(FakeSimulator, snapshot_interval=0.1)
    r.set_speed(None)
    r.load(FakeModel(), running=False)
    r.run_until(1.0)
    rows, snaps = [], []
    end = time.time() + 60  # a deadline for a stuck worker, never a speed figure
    n = 0
    while time.time() < end:
        d = r.drain()
        snaps += [(n + i, t, s) for i, t, s in d.snapshots]
        n += len(d.rows)
        if len(d.rows):
            rows.append(d.rows)
        if not d.running and n >= 1001:
            break
        time.sleep(0.01)
    rows = np.concatenate(rows)
    row, t, state = [s for s in snaps if abs(s[1] - 0.5) < 1e-9][0]
    assert rows[row, 0] == t
    r.load(FakeModel(), state=state, running=False)
    r.step(10)
    again = collect(r, lambda out, d: sum(map(len, out)) >= 11 and not d.running)
    np.testing.assert_allclose(again, rows[row:row + 11])
    assert r.quit()


def test_simulation_error_is_reported_not_raised():
    class Broken(FakeSimulator):
        def step(self):
            if self.t > 0.01:
                raise RuntimeError("solver failed")
            super().step()

    r = SimRunner(Broken)
    r.set_speed(None)
    r.load(FakeModel(), running=True)
    errors = []
    end = time.time() + 60  # a deadline for a stuck worker, never a speed figure
    while time.time() < end and not errors:
        errors += r.drain().errors
        time.sleep(0.01)
    assert errors and "solver failed" in errors[0]
    assert not r.running
    assert r.quit()


# ---------------------------------------------------------------- the real engine through the worker
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _model(name):
    from nsgui.engine import compile_scene
    from nsgui.scene import load_scene
    return compile_scene(load_scene(os.path.join(ROOT, "resources", "scenes", name + ".json")))


def _drain_run(runner, nrows, timeout=60.0):
    """Rows, snapshots (absolute row index, t, state), events and errors of one run, until the
    worker has stopped with at least `nrows` rows or reported an error."""
    rows, snaps, events, errors, n = [], [], [], [], 0
    end = time.time() + timeout
    while time.time() < end:
        d = runner.drain()
        snaps += [(n + i, t, s) for i, t, s in d.snapshots]
        n += len(d.rows)
        if len(d.rows):
            rows.append(d.rows)
        events += d.events
        errors += d.errors
        if (n >= nrows or errors) and not runner.busy:
            d = runner.drain()  # anything added meanwhile
            snaps += [(n + i, t, s) for i, t, s in d.snapshots]
            rows += [d.rows] if len(d.rows) else []
            events += d.events
            break
        time.sleep(0.005)
    return np.concatenate(rows), snaps, events, errors


def _per_step_snapshots(model, nsteps, interval):
    """Snapshots as the worker took them before batching: after each step, once t >= the previous
    snapshot's time + interval."""
    from nsgui.engine import Simulator
    sim = Simulator(model)
    out, last = [(0, sim.t, sim.get_state())], sim.t
    for i in range(1, nsteps + 1):
        sim.step()
        if sim.t >= last + interval - 1e-12:
            out.append((i, sim.t, sim.get_state()))
            last = sim.t
    return out


def _assert_same_state(a, b):
    for name in ("t", "q", "v", "energy", "lamN", "lamT", "status", "u", "ctrl", "stats",
                 "step_count", "row"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("scene", ["default", "two_link_arm"])
def test_worker_rows_equal_simulator_run_bit_for_bit(scene):
    """Flat out, through a small buffer (back-pressure), up to run_until: the rows are those of one
    `Simulator.run`, the run stops at the exact step, the snapshots land where the per-step worker
    put them (same rows, same states) and the events are the engine's."""
    from nsgui.engine import Simulator
    model = _model(scene)
    nsteps = 1500
    t_end = nsteps * model.dt
    r = SimRunner(Simulator, buffer_rows=400, snapshot_interval=0.02)
    r.set_speed(None)
    r.load(model, running=False)
    r.run_until(t_end)
    rows, snaps, events, errors = _drain_run(r, nsteps + 1)
    assert r.quit()
    assert not errors
    ref = Simulator(model)
    expect = np.vstack([ref.signal_vector()[None, :], ref.run(nsteps)])
    ref_events = ref.pop_events()
    assert rows.shape == expect.shape  # stopped exactly at the requested step, not one later
    np.testing.assert_array_equal(rows, expect)
    assert rows[-1, 0] == expect[-1, 0]
    assert [(e.t, e.kind, e.name) for e in events] == [(e.t, e.kind, e.name) for e in ref_events]
    assert ref_events  # the scenes have impacts: events were compared, not two empty lists
    before = _per_step_snapshots(model, nsteps, 0.02)
    got = snaps[:-1] if snaps[-1][0] == snaps[-2][0] else snaps  # the pause adds the exact end state
    assert [(i, t) for i, t, _ in got[:len(before)]] == [(i, t) for i, t, _ in before]
    for (_, _, a), (_, _, b) in zip(got, before):
        _assert_same_state(a, b)
    assert snaps[-1][0] == nsteps and snaps[-1][1] == expect[-1, 0]  # paused: the resume point


def test_run_until_stops_at_the_exact_step_when_paced():
    from nsgui.engine import Simulator
    model = _model("bouncing_ball")
    r = SimRunner(Simulator)
    r.set_speed(1.0)
    r.load(model, running=False)
    r.run_until(60 * model.dt)
    rows, _, _, errors = _drain_run(r, 61)
    assert r.quit()
    assert not errors and len(rows) == 61
    ref = Simulator(model)
    np.testing.assert_array_equal(rows[1:], ref.run(60))


def test_python_controller_runs_in_batches_and_a_failing_law_keeps_the_rows():
    """A Python law sampled every 10 ms drives the arm in the worker as in `Simulator.run`; when the
    law raises at t > 0.305 s, the rows up to that step are delivered with the error."""
    from nsgui.engine import Simulator
    model = _model("two_link_arm")

    def make(model, fail_after=None):
        sim = Simulator(model)

        def law(t, q, v, m):
            if fail_after is not None and t > fail_after:
                raise ValueError("the law gave up")
            return 5.0 * np.sin(7.0 * t) - 3.0 * v[0]
        sim.set_controller("shoulder_motor", law, period=0.01)
        return sim

    r = SimRunner(make)
    r.set_speed(None)
    r.load(model, running=False)
    r.run_until(600 * model.dt)
    rows, _, _, errors = _drain_run(r, 601)
    assert not errors
    ref = make(model)
    np.testing.assert_array_equal(rows[1:], ref.run(600))

    r2 = SimRunner(lambda m: make(m, fail_after=0.305))
    r2.set_speed(None)
    r2.load(model, running=True)
    rows2, _, _, errors2 = _drain_run(r2, 10**9)
    assert r.quit() and r2.quit()
    assert len(errors2) == 1 and "the law gave up" in errors2[0]
    assert not r2.running
    # the law is sampled at 0.30 (fine) and 0.31 (raises): every step before 0.31 s is kept
    n_ok = len(rows2) - 1
    assert abs(rows2[-1, 0] - 0.31) < 0.5 * model.dt
    np.testing.assert_array_equal(rows2[1:], rows[1:n_ok + 1])


def test_simulation_error_of_the_engine_keeps_the_rows_before_it():
    """The engine fails inside a batch (a law returns NaN from t = 0.2 s: the state stops being
    finite): the worker delivers exactly the rows the engine kept, and the engine's message."""
    from nsgui.engine import Simulator, SimulationError
    model = _model("two_link_arm")

    def make(model):
        sim = Simulator(model)
        sim.set_controller("shoulder_motor", lambda t, q, v, m: float("nan") if t > 0.2 else 1.0)
        return sim

    ref = make(model)
    with pytest.raises(SimulationError) as info:
        ref.run(2000)
    kept = info.value.rows
    r = SimRunner(make)
    r.set_speed(None)
    r.load(model, running=True)
    rows, _, _, errors = _drain_run(r, 10**9)
    assert r.quit()
    assert len(errors) == 1 and str(info.value) in errors[0]
    np.testing.assert_array_equal(rows[1:], kept)


def test_worker_steps_in_batches_not_one_kernel_call_per_step(monkeypatch):
    """Flat out, the worker hands whole batches to the engine: with batches allowed to be long, a
    1500-step run takes a handful of `Simulator.run` calls (it took 1500 when the worker stepped
    one step at a time), and snapshots still come every 20 ms."""
    import nsgui.runtime.worker as runner_module
    from nsgui.engine import Simulator
    monkeypatch.setattr(runner_module, "BATCH_SECONDS", 1000.0)
    calls = []

    class Counting(Simulator):
        def run(self, nsteps, record=True):
            calls.append(nsteps)
            return super().run(nsteps, record)

    model = _model("default")
    r = SimRunner(Counting, snapshot_interval=0.02)
    r.set_speed(None)
    r.load(model, running=False)
    r.run_until(1500 * model.dt)
    rows, snaps, _, errors = _drain_run(r, 1501)
    assert r.quit()
    assert not errors and len(rows) == 1501
    assert sum(calls) == 1500 and len(calls) <= 3, calls
    assert len(snaps) >= 1500 * model.dt / 0.02


def test_window_process_rows_and_snapshots_equal_the_engine():
    """The window's path (the worker in a child process, rows and snapshots through a pipe) gives
    the rows of `Simulator.run` bit for bit, and snapshots equal to get_state() at the same steps."""
    from nsgui.engine import Simulator
    from nsgui.runtime.process import ProcessRunner
    model = _model("default")
    nsteps = 700
    r = ProcessRunner(snapshot_interval=0.02)
    try:
        r.set_speed(None)
        r.load(model, running=False)
        r.run_until(nsteps * model.dt)
        rows, snaps, _, errors = _drain_run(r, nsteps + 1, timeout=120)
    finally:
        assert r.quit()
    assert not errors
    ref = Simulator(model)
    np.testing.assert_array_equal(rows, np.vstack([ref.signal_vector()[None, :], ref.run(nsteps)]))
    before = _per_step_snapshots(model, nsteps, 0.02)
    assert [(i, t) for i, t, _ in snaps[:len(before)]] == [(i, t) for i, t, _ in before]
    for (_, _, a), (_, _, b) in zip(snaps, before):
        _assert_same_state(a, b)


PARENT_DIES = """
import os, signal, sys, time
from nsgui.engine import compile_scene
from nsgui.scene import load_scene
from nsgui.runtime.process import ProcessRunner
if __name__ == "__main__":
    ProcessRunner._read_loop = lambda self: None  # this window reads nothing
    r = ProcessRunner()
    r.set_speed(1.0)  # small messages: they all fit in the pipe, and the simulation process,
    r.load(compile_scene(load_scene(sys.argv[1])), running=True)  # unacknowledged, waits for acks
    print(r._proc.pid, flush=True)
    r._conn.poll(200)
    time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)
"""


def test_simulation_process_leaves_quietly_when_the_window_dies(tmp_path):
    """The window is terminated while a message of the simulation process waits unread in the pipe
    (the simulation process then reads ECONNRESET, which printed a traceback): it exits quietly."""
    import signal
    import subprocess
    import sys
    script = tmp_path / "parent.py"
    script.write_text(PARENT_DIES)
    proc = subprocess.run([sys.executable, str(script), os.path.join(ROOT, "resources", "scenes", "default.json")],
                          capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    # run() returned once both processes closed the pipes: the simulation process has left too
    assert proc.returncode == -signal.SIGTERM, proc.stderr
    assert proc.stdout.split()[0].isdigit()
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr


def test_window_process_is_busy_until_the_last_row_of_a_pause_arrived():
    """Rows pile up in the simulation process while the window does not read (a long redraw), then
    the run is paused: the window is told 'idle' only once every row up to the pause point has
    arrived (a drain sent in parts said 'idle' with its first part, and an export taken then missed
    the rest of the run)."""
    from nsgui.runtime.process import ProcessRunner
    model = _model("bouncing_ball")
    r = ProcessRunner()
    try:
        r.set_speed(None)
        r.load(model, running=True)
        snaps, n = [], 0
        end = time.time() + 120
        while n < 100 and time.time() < end:  # it runs
            d = r.drain()
            snaps += [(n + i, s) for i, _, s in d.snapshots]
            n += len(d.rows)
            time.sleep(0.01)
        time.sleep(1.5)  # not reading: the rows wait in the simulation process (how many: no matter)
        r.pause()
        while time.time() < end:
            d = r.drain()
            snaps += [(n + i, s) for i, _, s in d.snapshots]
            n += len(d.rows)
            if not r.busy:
                break
        d = r.drain()  # what SimulationController.flush takes after 'idle'
        snaps += [(n + i, s) for i, _, s in d.snapshots]
        n += len(d.rows)
    finally:
        assert r.quit()
    last_row, state = snaps[-1]  # the pause point: the exact state after the last row
    assert n > 2 * 2000  # several messages' worth
    assert last_row == n - 1 and state.step_count == n - 1
