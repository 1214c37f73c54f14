"""The simulation worker: a background thread stepping a Simulator, and the narrow channel to the GUI.

Everything the GUI asks (play, pause, step, reset, speed, load, quit, a mouse perturbation) is a flag set under one lock
and consumed by the worker between batches of steps. The worker pushes signal rows, state snapshots
and events into a bounded buffer; the GUI drains it at display rate. When the buffer is full the
worker waits (back-pressure): no row is ever dropped. Any request that changes the run (reset, load,
resume) bumps a generation number so rows computed for the old run are discarded, never mixed in.

No Qt here, so it is usable (and tested) without a display.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from .snapshots import Snapshots

BUFFER_ROWS = 200_000
BATCH_SECONDS = 0.01  # wall time of one batch of steps when running flat out
YIELD_SECONDS = 0.0  # pause after each batch so the GUI thread gets the GIL at once
# The GUI thread releases and re-takes the GIL around many Qt/OpenGL calls; with Python's default
# 5 ms switch interval each re-take can wait for the stepping thread, and a frame made of hundreds
# of such calls stalls for a second. A short interval keeps the event loop answering in time.
SWITCH_INTERVAL = 0.0005
SNAPSHOT_INTERVAL = 0.02  # simulated seconds between snapshots (resume points)
MIN_SPEED, MAX_SPEED = 0.01, 100.0


@dataclass
class Drained:
    """What the GUI takes from the buffer in one pull."""
    generation: int
    names: list
    rows: np.ndarray
    snapshots: Snapshots = field(default_factory=Snapshots)  # row index within `rows`, t, state
    events: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # messages
    running: bool = False
    steps_per_second: float = 0.0
    realtime_factor: float = 0.0
    new_run: bool = False  # the first rows of a new generation (after reset/load/resume)


class RunnerState:
    """What both runners (SimRunner's thread, ProcessRunner's child process) report alike."""

    @property
    def speed(self):
        return self._speed

    @property
    def running(self):
        return self._running

    @property
    def generation(self):
        return self._generation


class SimRunner(RunnerState):
    def __init__(self, simulator_factory, buffer_rows=BUFFER_ROWS, snapshot_interval=SNAPSHOT_INTERVAL):
        """`simulator_factory(model)` makes a Simulator (engine-api.md interface)."""
        self._factory = simulator_factory
        self._cond = threading.Condition()
        self._buffer_rows = buffer_rows
        self.snapshot_interval = snapshot_interval
        # requests (guarded by _cond)
        self._pending_model = None
        self._pending_state = None
        self._running = False
        self._steps_requested = 0
        self._speed = 1.0  # None = as fast as possible
        self._stop_at = None  # pause when t >= this
        self._quit = False
        self._generation = 0
        self._pace = 0  # bumped by every request that changes the pace: the worker re-anchors it
        self._perturb = None  # a mouse perturbation to set before the next batch: (args,) or ((None,),) to release
        # buffer (guarded by _cond)
        self._blocks: list[np.ndarray] = []
        self._nbuf = 0
        self._snaps: list[Snapshots] = []  # row indices in the buffer's numbering
        self._events: list = []
        self._errors: list = []
        self._names: list = []
        self._new_run = False
        # stats (written by the worker only)
        self._sps = 0.0
        self._rtf = 0.0
        self.sim = None  # owned by the worker thread
        self._last_snap_t = 0.0
        self._in_batch = False  # steps being computed outside the lock, not yet in the buffer
        self._end_snapshot_due = False  # rows were made since the last exact resume point
        if sys.getswitchinterval() > SWITCH_INTERVAL:
            sys.setswitchinterval(SWITCH_INTERVAL)
        self._thread = threading.Thread(target=self._loop, name="nsgui-simulation", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ requests (any thread)
    def load(self, model, state=None, running=None):
        """Start a new run of `model` (from `state` if given, else from the scene's initial state)."""
        with self._cond:
            self._generation += 1
            self._clear_buffer()
            self._pending_model = model
            self._pending_state = state
            self._perturb = None  # a drag belongs to the run it started in
            self._steps_requested = 0
            if running is not None:
                self._running = running
            self._cond.notify_all()
            return self._generation

    def play(self):
        with self._cond:
            self._running = True
            self._pace += 1
            self._cond.notify_all()

    def pause(self):
        with self._cond:
            self._running = False
            self._steps_requested = 0
            self._pace += 1
            self._cond.notify_all()

    def step(self, n=1):
        with self._cond:
            self._running = False
            self._steps_requested += int(n)
            self._cond.notify_all()

    def set_speed(self, factor):
        """Real-time factor in [0.01, 100], or None for as fast as possible."""
        with self._cond:
            self._speed = None if factor is None else float(min(max(factor, MIN_SPEED), MAX_SPEED))
            self._pace += 1
            self._cond.notify_all()

    def perturb(self, body, point, target):
        """Pull `point` (in `body`'s frame) toward `target` (world) from the next batch on
        (Simulator.perturb: recorded, so the run stays reproducible); body None releases."""
        with self._cond:
            self._perturb = (body, point, target)
            self._cond.notify_all()

    def release_perturbation(self):
        self.perturb(None, None, None)

    def run_until(self, t):
        """Run and pause by itself once simulated time reaches t."""
        with self._cond:
            self._stop_at = t
            self._running = True
            self._pace += 1
            self._cond.notify_all()

    @property
    def busy(self):
        """True while the worker has (or will have) rows to deliver."""
        with self._cond:
            return (self._running or self._steps_requested > 0 or self._pending_model is not None
                    or self._in_batch or self._end_snapshot_due)

    def quit(self, timeout=5.0):
        with self._cond:
            self._quit = True
            self._running = False
            self._cond.notify_all()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def drain(self) -> Drained:
        with self._cond:
            rows = np.concatenate(self._blocks) if len(self._blocks) > 1 else (
                self._blocks[0] if self._blocks else np.empty((0, len(self._names))))
            out = Drained(self._generation, self._names, rows, Snapshots.join(self._snaps), self._events,
                          self._errors, self._running or self._steps_requested > 0,
                          self._sps, self._rtf, self._new_run)
            self._clear_buffer()
            self._new_run = False
            self._cond.notify_all()
            return out

    def _clear_buffer(self):
        self._blocks = []
        self._nbuf = 0
        self._snaps = []
        self._events = []
        self._errors = []

    # ------------------------------------------------------------------ worker
    def _loop(self):
        """Never dies silently: an unexpected error pauses the run and is reported."""
        while True:
            try:
                self._loop_body()
                return
            except Exception as exc:
                with self._cond:
                    self._running = False
                    self._steps_requested = 0
                    self._pending_model = None
                    self._in_batch = False
                    self._end_snapshot_due = False
                    self._errors.append(f"internal error in the simulation thread: {exc!r}\n"
                                        + traceback.format_exc(limit=4))

    def _loop_body(self):
        batch = 16
        anchor = None  # (wall, sim t, pace request) for real-time pacing
        rate_t0, rate_steps, rate_sim = time.perf_counter(), 0, 0.0
        while True:
            with self._cond:
                if self._quit:
                    return
                if self._pending_model is not None:
                    self._start_run()
                    anchor = None
                    continue
                if self._perturb is not None:
                    self._apply_perturbation()
                if self.sim is None or not (self._running or self._steps_requested):
                    if self._end_snapshot_due and self.sim is not None:  # paused during back-pressure
                        self._snaps.append(Snapshots.one(self._nbuf - 1, self.sim.t, self.sim.get_state()))
                        self._end_snapshot_due = False
                    self._sps = self._rtf = 0.0
                    anchor = None
                    self._cond.wait(0.1)
                    continue
                if self._nbuf >= self._buffer_rows:  # back-pressure: wait for the GUI to drain
                    self._cond.wait(0.05)
                    anchor = None
                    continue
                gen = self._generation
                self._in_batch = True
                single = not self._running
                n = min(self._steps_requested, 1000) if single else batch
                speed = self._speed
                stop_at = self._stop_at
                pace = self._pace
            sim = self.sim
            dt = float(sim.model.dt)
            if not single and speed is not None:
                now = time.perf_counter()
                if anchor is None or anchor[2] != pace:  # new speed, or paused and played again
                    anchor = (now, sim.t, pace)
                target = anchor[1] + speed * (now - anchor[0])
                due = int((target - sim.t) / dt + 1e-9)
                if due <= 0:
                    with self._cond:
                        self._in_batch = False
                    time.sleep(min(0.005, (sim.t + dt - target) / speed))
                    continue
                n = min(due, max(batch, 1))
                if due > 5 * max(batch, 1):  # can't keep up: don't try to catch up later
                    anchor = (now, sim.t, pace)
            if stop_at is not None and not single:
                n = max(1, min(n, int(round((stop_at - sim.t) / dt))))
            t0 = time.perf_counter()
            rows, snaps, events, error = self._run_steps(sim, n)
            elapsed = time.perf_counter() - t0
            if not single and speed is None:  # size batches to about BATCH_SECONDS of work
                per = elapsed / max(len(rows), 1)
                batch = int(min(max(BATCH_SECONDS / max(per, 1e-7), 1), 20000))
            elif not single:
                batch = max(1, int(0.02 * speed / dt))
            if not single:
                time.sleep(YIELD_SECONDS)
            rate_steps += len(rows)
            rate_sim += len(rows) * dt
            with self._cond:
                self._in_batch = False
                if gen != self._generation:  # the run was replaced meanwhile: discard
                    continue
                if len(rows):
                    self._blocks.append(rows)
                    self._nbuf += len(rows)
                base = self._nbuf - len(rows)
                if len(snaps):
                    self._snaps.append(snaps.shifted(base))
                self._events.extend(events)
                if single:
                    self._steps_requested = max(0, self._steps_requested - len(rows))
                if error is not None:
                    self._errors.append(error)
                    self._running = False
                    self._steps_requested = 0
                if stop_at is not None and sim.t >= stop_at - 0.5 * dt:
                    self._running = False
                    self._stop_at = None
                if not (self._running or self._steps_requested):  # paused: exact resume point
                    self._snaps.append(Snapshots.one(self._nbuf - 1, sim.t, sim.get_state()))
                    self._end_snapshot_due = False
                elif len(rows):
                    self._end_snapshot_due = True
                now = time.perf_counter()
                if now - rate_t0 > 0.5:
                    self._sps = rate_steps / (now - rate_t0)
                    self._rtf = rate_sim / (now - rate_t0)
                    rate_t0, rate_steps, rate_sim = now, 0, 0.0

    def _start_run(self):
        """Called with the lock held: build the simulator for the pending model."""
        model, state = self._pending_model, self._pending_state
        self._pending_model = self._pending_state = None
        self._end_snapshot_due = False
        try:
            sim = self._factory(model)
            if state is not None:
                sim.set_state(state)
                if hasattr(sim, "release_perturbation"):  # resumed: the mouse that held it is up
                    sim.release_perturbation()
            self.sim = sim
            self._names = list(sim.signal_names)
            self._blocks = [np.asarray(sim.signal_vector(), dtype=float)[None, :].copy()]
            self._nbuf = 1
            self._snaps = [Snapshots.one(0, sim.t, sim.get_state())]
            self._new_run = True
            self._last_snap_t = sim.t
            if hasattr(sim, "snapshot_every"):  # the engine takes them inside its batch loop
                sim.snapshot_every(self.snapshot_interval)
        except Exception as exc:  # bad model: report, keep the worker alive
            self.sim = None
            self._running = False
            self._errors.append(f"cannot start the simulation: {exc}" + _user_traceback(exc))

    def _apply_perturbation(self):
        """Called with the lock held: the pending perturbation request into the simulator."""
        body, point, target = self._perturb
        self._perturb = None
        if self.sim is None or not hasattr(self.sim, "perturb"):
            return
        try:
            if body is None:
                self.sim.release_perturbation()
            else:
                self.sim.perturb(body, point, target)
        except ValueError as exc:  # a body that cannot move: said once, the run goes on
            self._errors.append(f"perturbation refused: {exc}")

    def _run_steps(self, sim, n):
        """Step n times outside the lock; returns rows, Snapshots (row index in rows, t, state),
        events and an error message (None when all went well)."""
        if hasattr(sim, "snapshot_every"):
            return self._run_batch(sim, n)
        return self._run_one_by_one(sim, n)

    def _run_batch(self, sim, n):
        """The engine's batch path: one kernel call for the whole batch, which also takes the
        snapshots at their interval, so a batch costs what `Simulator.run` costs."""
        s0 = sim.step_count
        error = None
        try:
            rows = sim.run(n)
        except Exception as exc:
            rows = getattr(exc, "rows", None)
            error = self._failure_message(sim, exc)
        if rows is None or not len(rows):
            rows = np.empty((0, len(self._names)))
        block = sim.pop_snapshot_block()  # packed: no SimState is made on the way to the history
        snaps = Snapshots() if block is None else Snapshots.of_block(block.step_counts - s0 - 1, block)
        return rows, snaps, self._pop_events(sim), error

    def _run_one_by_one(self, sim, n):
        """A simulator with only `step()` (a stand-in): a snapshot once t >= the previous one +
        the interval, the rule the engine's snapshots follow."""
        rows = []
        snaps = []  # (row index in rows, t, state)
        error = None
        interval = self.snapshot_interval
        for _ in range(n):
            try:
                sim.step()
            except Exception as exc:
                error = self._failure_message(sim, exc)
                break
            rows.append(sim.signal_vector())
            if sim.t >= self._last_snap_t + interval - 1e-12:
                snaps.append((len(rows) - 1, sim.t, sim.get_state()))
                self._last_snap_t = sim.t
        arr = np.asarray(rows, dtype=float) if rows else np.empty((0, len(self._names)))
        snaps = Snapshots([i for i, _, _ in snaps], [t for _, t, _ in snaps], [s for _, _, s in snaps])
        return arr, snaps, self._pop_events(sim), error

    @staticmethod
    def _pop_events(sim):
        try:
            return list(sim.pop_events())
        except Exception:
            return []

    @staticmethod
    def _failure_message(sim, exc):
        t = getattr(exc, "t", None)
        t = sim.t if t is None else t
        text = str(exc)
        if text.startswith(f"t = {t:.6g} s: "):  # the engine's messages begin with their time: say it once
            text = text[len(f"t = {t:.6g} s: "):]
        msg = f"simulation stopped at t = {t:.6g} s: {text}"
        if getattr(exc, "user_traceback", None):  # a user controller raised: its own frames
            msg += _user_traceback(exc)
        elif type(exc).__name__ not in ("SimulationError", "ControllerError"):
            msg += "\n" + traceback.format_exc(limit=3)
        return msg


def _user_traceback(exc):
    """The traceback of a user controller's code (ControllerError), on lines after the message."""
    tb = getattr(exc, "user_traceback", "")
    return "\n" + tb.rstrip("\n") if tb else ""
