"""The GUI side of the simulation: pulls the worker's buffer at display rate into the run history,
keeps the time cursor (live, scrubbed or replayed) and the previous branch, and tells the views.

Views never touch the worker; they read `controller.recorder` (GUI thread only) and the column cache.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from nsgui.runtime.history import Recorder
from nsgui.views import frame_budget
from nsgui.runtime.envelope import Envelope
from nsgui.runtime.feet import derived_column, foot_signal_members
from nsgui.runtime.signal_info import contact_members, contact_total
from nsgui.runtime.worker import SimRunner

DISPLAY_HZ = 30


def default_simulator_factory(model):
    from nsgui.engine import Simulator
    return Simulator(model)


class ColumnCache:
    """Growable copies of the columns some view watches, extended incrementally each tick, and
    their min/max envelopes (for drawing long histories), brought up to date when a view asks for
    one (a plot redraws less often than rows arrive, and not at all while scrolled out of view).
    A column may also be a contact's total over its points (`signal_info.contact_members`), or a
    walker's derived signal (`derived`: name -> the signals it is made of, runtime/feet.py)."""

    def __init__(self):
        self._data: dict[str, np.ndarray] = {}
        self._envelopes: dict[str, Envelope] = {}
        self._members: dict[str, list] = {}
        self.derived: dict[str, list] = {}  # set per model (SimulationController._set_derived)
        self._n = 0

    def _read(self, recorder, name, start=0, stop=None):
        """Rows start..stop of a recorded column, of a contact total, or NaN (no such signal)."""
        stop = len(recorder) if stop is None else stop
        if name in recorder._index:
            return recorder.column(name, start, stop)
        if name in self.derived:
            return derived_column(name, self.derived[name], lambda m: self._read(recorder, m, start, stop))
        members = self._members.get(name)
        if members is None:
            members = self._members[name] = contact_members(recorder.names, name)
        if members:
            return contact_total(name, [recorder.column(m, start, stop) for m in members])
        return np.full(stop - start, np.nan)

    def get(self, recorder, name):
        if recorder is None:
            return np.empty(0)
        if name not in self._data:
            col = self._read(recorder, name)
            buf = np.empty(max(1024, 2 * len(col)))
            buf[: len(col)] = col
            self._data[name] = buf
        return self._data[name][: len(recorder)]

    def envelope(self, recorder, name):
        env = self._envelopes.get(name)
        if env is None:
            env = self._envelopes[name] = Envelope()
        env.extend(self.get(recorder, name))
        return env

    GROW_PER_TICK = 4

    def extend(self, recorder, start):
        n = len(recorder)
        early = self.GROW_PER_TICK
        for name, buf in list(self._data.items()):
            # Columns are grown ahead of need, a few per tick: all of them reaching their capacity
            # in the same tick would copy every column at once (tens of ms on long runs).
            if n > len(buf) or (early and 2 * n > len(buf)):
                early -= n <= len(buf)
                grown = np.empty(max(2 * len(buf), 2 * n))
                grown[:start] = buf[:start]
                buf = self._data[name] = grown
            buf[start:n] = self._read(recorder, name, start, n)

    def clear(self):
        self._data.clear()
        self._envelopes.clear()
        self._members.clear()


class SimulationController(QObject):
    runningChanged = Signal(bool)
    historyReset = Signal()  # a new history (new run, reset, branch)
    historyAppended = Signal()  # rows were added this tick
    cursorChanged = Signal(int)  # the displayed row
    eventsAdded = Signal(list)
    statsChanged = Signal(dict)
    message = Signal(str, str)  # level ("info", "warning", "error"), text
    branchChanged = Signal()

    def __init__(self, simulator_factory=None, parent=None, memory_cap=None):
        super().__init__(parent)
        if simulator_factory is None:  # the real engine: in its own process (no GIL contention)
            from nsgui.runtime.process import ProcessRunner
            self.runner = ProcessRunner()
        else:
            self.runner = SimRunner(simulator_factory)
        self.model = None
        self._models = []  # (from time t, model): which model computed the history from t on
        self.recorder: Recorder | None = None
        self.previous: Recorder | None = None  # the old branch, kept until discarded
        self.columns = ColumnCache()
        self.previous_columns = ColumnCache()
        self._memory_cap = memory_cap
        self._cursor = None  # None = follow the newest row
        self._pending_branch = None
        self._running = False
        self._replay = None  # (wall time, sim time) anchor while replaying
        self.replay_speed = 1.0
        self.stats = {"sps": 0.0, "rtf": 0.0}
        self._timer = QTimer(self)
        self._timer.setInterval(int(1000 / DISPLAY_HZ))
        self._timer.timeout.connect(self.tick)
        self._timer.start()
        self._appended = False  # rows taken in that the views have not been told about
        self._notify_timer = QTimer(self, singleShot=True)
        self._notify_timer.timeout.connect(self._deferred_notify)
        self._closed = False

    # ------------------------------------------------------------------ state
    @property
    def running(self) -> bool:
        return self._running

    @property
    def flat_out(self) -> bool:
        """Running as fast as possible: the views pace their redraws to leave the CPU to the run."""
        return self._running and self._replay is None and self.runner.speed is None

    @property
    def replaying(self) -> bool:
        return self._replay is not None

    @property
    def cursor(self) -> int:
        """The displayed row (the newest row unless scrubbed back)."""
        if self.recorder is None or not len(self.recorder):
            return 0
        if self._cursor is None:
            return len(self.recorder) - 1
        return min(self._cursor, len(self.recorder) - 1)

    @property
    def following(self) -> bool:
        return self._cursor is None

    @property
    def cursor_time(self) -> float:
        if self.recorder is None or not len(self.recorder):
            return 0.0
        return float(self.recorder.time[self.cursor])

    def column(self, name):
        return self.columns.get(self.recorder, name)

    def envelope(self, name):
        return self.columns.envelope(self.recorder, name)

    # ------------------------------------------------------------------ commands
    def load_model(self, model, running=False):
        """Start a fresh run of `model` (reset, another scene). A previous branch belongs to the
        run it was resumed in: it is dropped, so no dashed curve of an old run is drawn here."""
        if self.previous is not None:
            self.discard_previous()
        self.model = model
        self._models = [(float("-inf"), model)]
        self._pending_branch = None
        self._cursor = None
        self._replay = None
        self.recorder = None
        self.columns.clear()
        self._set_derived(model)
        self.runner.load(model, running=running)
        self._set_running(running)
        self.historyReset.emit()

    def _set_derived(self, model):
        """The walker's derived signals (feet forces, support phase) of this model's history."""
        members = foot_signal_members(model, set(model.signal_names)) if hasattr(model, "signal_names") else {}
        self.columns.derived = members
        self.previous_columns.derived = members

    def has_signal(self, name):
        """Whether the history records `name` or derives it (a walker's feet)."""
        return self.recorder is not None and (name in self.recorder._index or name in self.columns.derived)

    # ------------------------------------------------------------------ mouse perturbation
    def perturb(self, body, point, target):
        """Pull `point` (in `body`'s frame) toward `target` (world) while the run goes (recorded as
        perturb.*, engine/perturbation.py)."""
        self.runner.perturb(body, tuple(map(float, point)), tuple(map(float, target)))

    def release_perturbation(self):
        self.runner.release_perturbation()

    def play(self):
        if self.model is None:
            return
        self._replay = None
        self._cursor = None  # a run continues from the newest row
        self.runner.play()
        self._set_running(True)
        self.cursorChanged.emit(self.cursor)

    def pause(self):
        self._replay = None
        self.runner.pause()
        self._set_running(False)

    def run_until(self, t):
        self._cursor = None
        self.runner.run_until(t)
        self._set_running(True)

    def step_forward(self):
        if self.model is None:
            return
        self._replay = None
        if self._running:
            self.pause()
            return
        if self._cursor is not None and self._cursor < len(self.recorder) - 1:
            self.seek_row(self._cursor + 1)
        else:
            self._cursor = None
            self.runner.step(1)

    def step_back(self):
        if self.recorder is None:
            return
        if self._running:
            self.pause()
        self._replay = None
        self.seek_row(max(0, self.cursor - 1))

    def seek_row(self, row):
        if self.recorder is None or not len(self.recorder):
            return
        row = int(max(0, min(row, len(self.recorder) - 1)))
        if self._running:
            self.pause()
        self._cursor = row
        self.cursorChanged.emit(row)

    def seek_time(self, t):
        if self.recorder is not None and len(self.recorder):
            self.seek_row(self.recorder.row_at_time(t))

    def set_speed(self, factor):
        self.runner.set_speed(factor)
        self.replay_speed = factor if factor is not None else 100.0

    def replay(self):
        """Play the recorded history back from the cursor at the chosen speed (no simulation)."""
        if self.recorder is None or len(self.recorder) < 2:
            return
        if self._running:
            self.pause()
        if self._cursor is None or self._cursor >= len(self.recorder) - 1:
            self._cursor = 0
        self._replay = (time.perf_counter(), self.cursor_time)

    def resume_from(self, model, t=None):
        """Continue from the snapshot at or before t (default: the cursor) with `model`, an edited
        scene: the state is carried over by name (engine/branching.py), the history up to there is
        kept (new signals blank before), the history after it becomes the previous branch.
        Returns an error message, or None; on an error nothing has changed."""
        from nsgui.engine.branching import StateMapError, map_state
        from nsgui.runtime.branching import branch_history
        if self.recorder is None or self.model is None:
            return "nothing has been simulated yet"
        t = self.cursor_time if t is None else t
        snap = self.recorder.snapshot_at_or_before(t)
        if snap is None:
            return "no saved state at or before this time"
        source = self._model_at(snap.t)
        try:
            state = map_state(snap.state, source, model)
        except StateMapError as exc:
            return str(exc)
        self.pause()
        old = self.recorder
        # the snapshot's own row is recorded again by the new run
        branch = branch_history(old, snap.t - 0.5 * float(source.dt), self.model, model)
        if old.t_end > snap.t + 1e-12:
            self.previous = old
            self.previous_columns.clear()
        self._pending_branch = branch
        self._models = [m for m in self._models if m[0] < snap.t] + [(snap.t, model)]
        self.model = model
        self._set_derived(model)
        self._cursor = None
        self.runner.load(model, state=state, running=False)
        self.branchChanged.emit()
        return None

    def _model_at(self, t):
        """The model that computed the current history at time t (resumes with edits change it)."""
        return next((m for t0, m in reversed(self._models) if t0 <= t + 1e-12), self.model)

    def discard_previous(self):
        if self.previous is not None:
            self.previous.close()
        self.previous = None
        self.previous_columns.clear()
        self.branchChanged.emit()

    def set_display_interval(self, seconds):
        """Ticks (pull + redraw) at most every `seconds`, never faster than DISPLAY_HZ."""
        ms = int(1000 * max(seconds, 1.0 / DISPLAY_HZ))
        if abs(ms - self._timer.interval()) > 3:
            self._timer.setInterval(ms)

    def shutdown(self):
        if self._closed:
            return
        self._closed = True
        self._timer.stop()
        self.runner.quit()
        # the history goes with the window: its spill folder (can be GBs) is removed now
        for rec in {id(r): r for r in (self.recorder, self.previous, self._pending_branch)
                    if r is not None}.values():
            rec.close()

    def flush(self, timeout=10.0):
        """Wait until the worker is idle and everything it produced is in the history (tests,
        screenshots, exports)."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            self._tick()
            if not self.runner.busy:
                self._tick()
                return True
            time.sleep(0.005)
        return False

    # ------------------------------------------------------------------ tick
    def _set_running(self, running):
        if running != self._running:
            self._running = running
            self.runningChanged.emit(running)

    def tick(self):
        """A display tick: pull what the worker produced into the history; the views are told in
        a later pass of the event loop (`_notify`), so neither job makes the loop wait long.
        Skipped (the next tick does it) right after another heavy job ended in this pass."""
        if frame_budget.wait_before_job() > 0:
            return
        try:
            self._intake()
        finally:
            frame_budget.job_done()
        if not self._notify_timer.isActive():
            self._notify_timer.start(int(1000 * frame_budget.GAP) + 1)

    def _deferred_notify(self):
        wait = frame_budget.wait_before_job()
        if wait > 0:
            self._notify_timer.start(int(1000 * wait) + 1)
            return
        try:
            self._notify()
        finally:
            frame_budget.job_done()

    def _tick(self):
        """Intake and notification at once (flush, tests)."""
        self._intake()
        self._notify()

    def _intake(self):
        d = self.runner.drain()
        if d.new_run:
            self._start_history(d.names)
        if self.recorder is not None and len(d.rows):
            if d.rows.shape[1] != self.recorder.ncols:
                self.message.emit("error", "internal: row width changed; history reset")
                self._start_history(d.names)
            start = len(self.recorder)
            self.recorder.append(d.rows)
            snaps = d.snapshots  # paused: the last row's state is the exact resume point
            self.recorder.add_snapshots(snaps, start, force_last=not d.running and len(snaps) > 0
                                        and snaps.rows[-1] == len(d.rows) - 1)
            self.columns.extend(self.recorder, start)
            self._appended = True
        if d.events and self.recorder is not None:
            self.recorder.add_events(d.events)
            self.eventsAdded.emit(list(d.events))
        for err in d.errors:
            self.message.emit("error", err)
        self._set_running(d.running)
        self.stats = {"sps": d.steps_per_second, "rtf": d.realtime_factor}

    def _notify(self):
        if self._replay is not None and self.recorder is not None:
            wall0, t0 = self._replay
            t = t0 + self.replay_speed * (time.perf_counter() - wall0)
            row = self.recorder.row_at_time(t)
            self._cursor = row
            if row >= len(self.recorder) - 1:
                self._replay = None
            self.cursorChanged.emit(row)
        if self._appended:
            self._appended = False
            self.historyAppended.emit()
            if self._cursor is None:
                self.cursorChanged.emit(self.cursor)
        self.statsChanged.emit(self.stats)

    def _start_history(self, names):
        kwargs = {"snapshot_interval": self.runner.snapshot_interval}
        if self._memory_cap:
            kwargs["memory_cap"] = self._memory_cap
        if self._pending_branch is not None and self._pending_branch.names == list(names):
            self.recorder = self._pending_branch
        else:
            self.recorder = Recorder(names, **kwargs)
        self._pending_branch = None
        self.columns.clear()
        self.historyReset.emit()
