"""The simulation worker thread, tested against a stand-in simulator (no Qt needed)."""

import time

import numpy as np

from nsgui.views.runner import SimRunner
from .fake_sim import FakeModel, FakeSimulator


def collect(runner, until, timeout=10.0):
    out, gen = [], None
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


def test_single_steps_pause_and_reset_discard_old_rows():
    r = SimRunner(FakeSimulator)
    r.load(FakeModel(), running=False)
    r.step(5)
    got = collect(r, lambda out, d: sum(map(len, out)) >= 6 and not d.running)
    assert len(got) == 6 and got[-1, 0] == np.float64(0.005) or abs(got[-1, 0] - 0.005) < 1e-12
    r.set_speed(None)
    r.play()
    time.sleep(0.1)
    r.load(FakeModel(e=0.9), running=False)  # reset while running
    d = r.drain()
    time.sleep(0.1)
    d2 = r.drain()
    rows = [x for x in (d.rows, d2.rows) if len(x)]
    assert rows and rows[0][0, 0] == 0.0 and sum(map(len, rows)) == 1
    assert r.quit()


def test_realtime_pacing():
    """Simulated time advances at `speed` times the wall-clock time between play and pause (the
    wall time is measured, not assumed from sleep(), so a loaded machine does not fail the test)."""
    r = SimRunner(FakeSimulator)
    r.set_speed(1.0)
    w0 = time.perf_counter()
    r.load(FakeModel(), running=True)
    time.sleep(0.5)
    r.pause()
    wall = time.perf_counter() - w0
    time.sleep(0.05)
    d = r.drain()
    t1 = d.rows[-1, 0]
    assert 0.7 * wall - 0.05 < t1 < wall + 0.05, (t1, wall)
    r.set_speed(10.0)
    w0 = time.perf_counter()
    r.play()
    time.sleep(0.3)
    r.pause()
    wall = time.perf_counter() - w0
    time.sleep(0.05)
    t = r.drain().rows[-1, 0]
    assert 0.7 * 10 * wall - 0.1 < t - t1 < 10 * wall + 0.1, (t - t1, wall)
    assert r.quit()


def test_snapshots_resume_exactly():
    r = SimRunner(FakeSimulator, snapshot_interval=0.1)
    r.set_speed(None)
    r.load(FakeModel(), running=False)
    r.run_until(1.0)
    rows, snaps = [], []
    end = time.time() + 5
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
    end = time.time() + 5
    while time.time() < end and not errors:
        errors += r.drain().errors
        time.sleep(0.01)
    assert errors and "solver failed" in errors[0]
    assert not r.running
    assert r.quit()
