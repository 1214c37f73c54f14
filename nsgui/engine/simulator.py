"""The simulator: the changing state of a run (MuJoCo's mjData) stepped by the compiled kernel."""

import weakref
from dataclasses import dataclass, field

import numpy as np

from . import codes
from . import stepper as st
from .codes import STATUS_NAMES
from .arrays import new_data, to_struct
from .compile import Model
from .control.external import ExternalController, steps_until_next_sample
from .control.python_block import PythonBlock
from .pushes import scene_pushes, velocity_jump
from . import perturbation
from .event_driven import layout as ed_layout
from .state_block import STATE_ARRAYS, StateBlock


class SimulationError(RuntimeError):
    """A numerical failure: the message names the time and the contact, or for a blow-up the signal
    (`q.<coord>`, `v.<coord>`...) and its body; the state before it is kept."""

    def __init__(self, message, t=None, contact=None, signal=None, body=None):
        super().__init__(message)
        self.t = t
        self.contact = contact
        self.signal = signal
        self.body = body


class ControllerError(SimulationError):
    """User code (a `python` controller block) raised: the run stops there, its rows are kept, and
    `user_traceback` holds the traceback of the user's frames only (nsgui's left out)."""

    def __init__(self, message, t=None, user_traceback=""):
        super().__init__(message, t)
        self.user_traceback = user_traceback


@dataclass
class Event:
    t: float
    kind: str       # impact, stick, slip, open, accumulation (event-driven), solver_warning, push
    name: str       # contact name ("" for solver warnings)
    detail: str = ""
    # impacts (and accumulations): normal velocity before and after (m/s), normal percussion (N·s),
    # kinetic energy lost (J); accumulations: the estimated accumulation time t* (s)
    un_pre: float = float("nan")
    un_post: float = float("nan")
    percussion: float = float("nan")
    energy_lost: float = float("nan")
    t_star: float = float("nan")

    def describe(self) -> str:
        """The event's detail in words (the window's Events table): its own text, else an impact's
        normal velocity before and after, percussion and kinetic energy lost, an accumulation's
        estimated time t*; "" when it has none of them (a stick or slip)."""
        if self.detail:
            return self.detail
        parts = []
        if self.un_pre == self.un_pre and self.un_post == self.un_post:  # (not NaN)
            parts.append(f"uₙ {self.un_pre:+.4g} → {self.un_post:+.4g} m/s")
        if self.percussion == self.percussion:
            parts.append(f"percussion {self.percussion:.4g} N·s")
        if self.energy_lost == self.energy_lost:
            parts.append(f"energy lost {self.energy_lost:.4g} J")
        if self.t_star == self.t_star:
            parts.append(f"t* ≈ {self.t_star:.6g} s")
        return ", ".join(parts)


@dataclass
class SimState:
    """An independent snapshot of everything the next step depends on."""
    t: float
    q: np.ndarray
    v: np.ndarray
    energy: np.ndarray
    lamN: np.ndarray
    lamT: np.ndarray
    status: np.ndarray
    u: np.ndarray
    ctrl: np.ndarray           # controllers: applied inputs, impact counts, each block's state (Data.ctrl)
    stats: np.ndarray
    step_count: int
    row: np.ndarray = field(default=None)
    # next sample time of each Python controller, by actuator name (they live outside the kernel)
    external_next: dict = field(default_factory=dict)
    # each `python` block's state, by block name: (pickled attributes, events it has not seen yet)
    user_state: dict = field(default_factory=dict)
    # the event-driven integrator's own state (event_driven/layout.py); None for time stepping, or
    # to start it afresh from (t, q, v)
    ed: np.ndarray = field(default=None)
    # the warm start's memory (Data.warm: the percussions of the step before last and the gate of the warm
    # start from the last two answers, stepper._warm_gate); None: it starts afresh (plain warm starts)
    warm: np.ndarray = field(default=None)

    def copy(self):
        return SimState(self.t, self.q.copy(), self.v.copy(), self.energy.copy(), self.lamN.copy(),
                        self.lamT.copy(), self.status.copy(), self.u.copy(), self.ctrl.copy(),
                        self.stats.copy(), self.step_count, None if self.row is None else self.row.copy(),
                        dict(self.external_next), dict(self.user_state),
                        None if self.ed is None else self.ed.copy(),
                        None if self.warm is None else self.warm.copy())


def pack_states(states):
    """SimStates of one run as one StateBlock (one array to pickle)."""
    return StateBlock.from_states(states)


def unpack_states(block):
    """The SimStates of a StateBlock (each one's arrays view a copy of its row)."""
    return block.states()


class Selection:
    """What the kernel records for run(signals=...): the columns asked for (cols) and the ROW_* groups
    they need (parts). (The events need no column: the kernel logs them, impact_events.py.)"""

    def __init__(self, cols, parts):
        self.cols, self.parts = cols, parts

    @classmethod
    def of(cls, model, names, signals):
        index = {name: k for k, name in enumerate(names)}
        unknown = [s for s in signals if s not in index]
        if unknown:
            raise ValueError(f"run(signals=...): no signal named {unknown[0]!r} in this model "
                             f"(see Simulator.signal_names)")
        if not signals:
            raise ValueError("run(signals=...): the list of signals is empty (record=False records none)")
        cols = np.array([index[s] for s in signals], np.int64)
        return cls(cols, model.layout.parts_of(cols))


# run(signals=...)'s Selections per model and tuple of names, shared by its simulators: a new Simulator's first
# run would otherwise build one again (~20 µs: a benchmark's or a sweep's many short runs)
_SELECTIONS = weakref.WeakKeyDictionary()


class Simulator:
    """Steps a compiled Model from its initial state (scene.initial)."""

    def __init__(self, model: Model):
        self.model = model
        self.signal_names = list(model.signal_names)
        self._layout = model.layout
        self._events = []
        self._events_dropped = 0  # events trimmed from the front of _events (they stay bounded)
        self._external = []
        self._python = [PythonBlock(info, model) for info in model.controller_blocks if info.user is not None]
        self._pushes = scene_pushes(model)   # timed impulses (pushes.py), applied between kernel calls
        # snapshots taken by the kernel: [next due time, interval (0 = off), count in this call]
        self._snap_clock = np.array([np.inf, 0.0, 0.0])
        # the kernel's contact-event log (impact_events.py), made on a recording run's first call and
        # grown when a call fills it; a run that records nothing logs none (a header row alone)
        self._event_log = None
        self._no_events = np.zeros((1, codes.N_EL))
        self._snapshots = []
        # the event-driven integrator's own state (None: time stepping)
        self._event_driven = model.scene.settings.integrator == "event_driven"
        # where events crowd: time stepping for a while ("auto") or a SimulationError ("never")
        self._fallback = model.scene.settings.event_driven_fallback != "never"
        self._ed = None
        self._replay = None  # a perturbation.ScheduleSampler replaying recorded perturbations
        self._selections = _SELECTIONS.setdefault(model, {})  # run(signals=...): a Selection per tuple of names
        # the kernel's solver-warning log (codes.WL_*): one row per step with a warning, read after each call
        self._warning_log = np.empty((self.WARNING_LOG_ROWS, 3))
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self):
        m = self.model
        self._data = d = new_data(m.arrays, m.q0, m.v0)
        if self._event_driven:
            self._ed = np.zeros(ed_layout.size(m.nq, m.ncontacts))
        for c in self._external:
            d.external[c.index] = 1
            c.next_sample = 0.0
        self._args = (m.struct, to_struct(d))  # what the kernels take
        self.step_count = 0
        self._row_buf = np.zeros(len(self.signal_names))
        self._row_stale = False
        self._no_snaps = np.empty((0, 2 + sum(self._snapshot_sizes())))  # the buffer of a run taking none
        st.state_row(*self._args, self._row_buf, True)
        gap = self._row_buf[self._layout.contact_columns("gap")]
        d.stats[codes.ST_MINGAP] = min(0.0, gap.min()) if m.ncontacts else 0.0
        self._events.clear()
        self._restart_snapshot_clock()
        for b in self._python:  # a fresh instance of each user controller, started at t0
            b.start(self)

    @property
    def _row(self):
        """The signal row of the current state. A run that records some signals (or none) leaves it to
        be made here when it is read (a kernel call of its own: most such runs never read it)."""
        if self._row_stale:
            self._refresh_row()
        return self._row_buf

    def _refresh_row(self):
        st.state_row(*self._args, self._row_buf, False)
        self._row_stale = False

    @property
    def t(self):
        return float(self._data.t[0])

    @property
    def q(self):
        return self._data.q.copy()

    @property
    def v(self):
        return self._data.v.copy()

    def get_state(self) -> SimState:
        d = self._data
        return SimState(self.t, d.q.copy(), d.v.copy(), d.energy.copy(), d.lamN.copy(), d.lamT.copy(),
                        d.status.copy(), d.u.copy(), d.ctrl.copy(), d.stats.copy(), self.step_count,
                        self._row.copy(),
                        {self.model.actuator_names[c.index]: c.next_sample for c in self._external},
                        {b.name: b.state() for b in self._python},
                        None if self._ed is None else self._ed.copy(), d.warm.copy())

    def set_state(self, state: SimState):
        """Continue from a snapshot (possibly taken from a simulator of an edited scene)."""
        d = self._data
        if state.q.shape != d.q.shape or state.lamN.shape != d.lamN.shape:
            raise ValueError("the snapshot does not fit this model (coordinates or contacts changed)")
        d.t[0] = state.t
        d.q[:] = state.q
        d.v[:] = state.v
        d.energy[:] = state.energy
        d.lamN[:] = state.lamN
        d.lamT[:] = state.lamT
        d.status[:] = state.status
        if state.u.shape == d.u.shape and state.ctrl.shape == d.ctrl.shape:
            d.u[:] = state.u
            d.ctrl[:] = state.ctrl
        d.stats[:len(state.stats)] = state.stats
        # the resumed run is the run not interrupted, bit for bit; a state without the warm start's memory
        # (of an edited model) starts it afresh
        ok = state.warm is not None and state.warm.shape == d.warm.shape
        d.warm[:] = state.warm if ok else 0.0
        self.step_count = state.step_count
        for c in self._external:  # a controller the snapshot does not know is sampled at once
            c.next_sample = state.external_next.get(self.model.actuator_names[c.index], state.t)
        if self._ed is not None:  # without the integrator's state it starts afresh from (t, q, v)
            ok = state.ed is not None and state.ed.shape == self._ed.shape
            self._ed[:] = state.ed if ok else 0.0
        self._refresh_row()
        self._restart_snapshot_clock()
        for b in self._python:  # a block the snapshot does not know starts afresh
            b.restore(self, state.user_state.get(b.name))

    # ------------------------------------------------------------------ snapshots
    def snapshot_every(self, interval):
        """From now on keep the state (a SimState) after every step that ends at least `interval`
        seconds after the previous kept one (the first: `interval` after the current time), without
        leaving the compiled loop; `pop_snapshots()` hands them over (a state's `row` is None when
        the run did not record rows). None or 0 stops."""
        self._snap_clock[1] = float(interval) if interval else 0.0
        self._restart_snapshot_clock()

    def pop_snapshots(self):
        """The kept states, as SimStates."""
        block = self.pop_snapshot_block()
        return block.states() if block is not None else []

    def pop_snapshot_block(self):
        """The kept states as one StateBlock (None if there are none): no SimState is made."""
        blocks, self._snapshots = self._snapshots, []
        return StateBlock.join(blocks) if blocks else None

    def _restart_snapshot_clock(self):
        self._snap_clock[0] = self.t + self._snap_clock[1] - 1e-12
        self._snapshots = []

    def _snapshot_sizes(self):
        """Sizes of the state arrays in a kernel snapshot row, after its step index and time
        (the order of stepper.keep_snapshot and of SimState)."""
        d = self._data
        sizes = [len(a) for a in (d.q, d.v, d.energy, d.lamN, d.lamT, d.status, d.u, d.ctrl, d.stats, d.warm)]
        return sizes + ([len(self._ed)] if self._ed is not None else [])

    def _snapshot_buffer(self, nsteps):
        interval = self._snap_clock[1]
        if interval <= 0.0:
            return self._no_snaps
        width = 2 + sum(self._snapshot_sizes())
        spacing = max(1, int(interval / self.model.dt) - 1)  # fewest steps between two snapshots
        # zeros: a snapshot time stepping takes for the event-driven integrator has ed = 0 (afresh)
        return np.zeros((min(nsteps, nsteps // spacing + 2), width))

    def _keep_snapshots(self, buf, rows, step_count0):
        """The kernel's snapshot rows as a StateBlock (the values get_state() would have given: the
        Python controllers' next sample times do not change inside a kernel call)."""
        n = int(self._snap_clock[2])
        steps = buf[:n, 0].astype(np.int64)
        nstate = 1 + sum(self._snapshot_sizes()) - (len(self._ed) if self._ed is not None else 0)
        names, parts = STATE_ARRAYS, [buf[:n, 1:1 + nstate]]  # t, then the arrays before ed
        if len(rows) > steps.max():
            names += ("row",)
            parts.append(rows[steps])
        if self._ed is not None:
            names += ("ed",)
            parts.append(buf[:n, 1 + nstate:])
        sizes = tuple(self._snapshot_sizes()[:len(STATE_ARRAYS)]) + tuple(p.shape[1] for p in parts[1:])
        external_next = {self.model.actuator_names[c.index]: c.next_sample for c in self._external}
        # constant inside a kernel call too (run() adds the events each snapshot's time has seen)
        user = {b.name: b.state() for b in self._python}
        self._snapshots.append(StateBlock(names, sizes, np.hstack(parts), step_count0 + steps + 1,
                                          [dict(external_next) for _ in range(n)],
                                          [dict(user) for _ in range(n)]))

    # ------------------------------------------------------------------ controllers
    def set_controller(self, actuator, law, period=None):
        """Drive an actuator by a Python law(t, q, v, model) -> float, sampled every `period` seconds
        (None: every step) and held in between."""
        i = self.model.actuator_names.index(actuator)
        self._external = [c for c in self._external if c.index != i]
        self._external.append(ExternalController(i, law, period, self.t))
        self._data.external[i] = 1
        self._data.dudq[i] = 0.0  # a Python law has no Jacobian in the iteration matrix
        self._data.dudv[i] = 0.0

    def _sample_controllers(self):
        """The Python laws due write their actuator's input (the control seam: Data.u, held), the
        `python` blocks due their inputs, signals and next sample time."""
        t, d = self.t, self._data
        if self._replay is not None:
            self._replay.apply(t)
        for b in self._python:
            if b.due(t, d):
                b.sample(self)
        for c in self._external:
            if t >= c.next_sample - 1e-9 * self.model.dt:
                u = float(c.law(t, d.q.copy(), d.v.copy(), self.model))
                if not np.isfinite(u):
                    name = self.model.actuator_names[c.index]
                    raise SimulationError(f"t = {t:.6g} s: the Python controller of actuator '{name}' "
                                          f"returned {u}", t)
                lim = self.model.arrays.af[c.index, codes.AF_LIMIT]
                d.u[c.index] = min(max(u, -lim), lim)
                c.next_sample = t + (c.period if c.period else self.model.dt)

    def _apply_pushes(self):
        """The scene's timed impulses due at this step start: a velocity jump (pushes.py), its kinetic
        energy booked with the balance's origin, an event logged."""
        d, m = self._data, self.model
        for p in self._pushes:
            if not p.due(self.t, m.dt):
                continue
            M = m.mass_matrix(d.q)
            k0 = 0.5 * d.v @ M @ d.v
            d.v[:] += velocity_jump(m, d.q, p)
            gain = 0.5 * d.v @ M @ d.v - k0
            d.energy[codes.ACC_E0] += gain
            self._refresh_row()
            self._events.append(Event(self.t, "push", p.name, f"impulse ({p.impulse[0]:g}, {p.impulse[1]:g}) N·s "
                                      f"on {m.body_names[p.body]}: kinetic energy {gain:+.4g} J",
                                      energy_lost=-gain))

    def set_contact_enabled(self, contact, enabled):
        """Switch a scene contact with `"switch": {"when": "controller"}` on or off (every point of it);
        the flag is state (snapshots and resume keep it) and recorded as `contact.<name>.enabled`."""
        m = self.model
        cands = [k for k, owner in enumerate(m.contact_owner)
                 if owner >= 0 and m.scene.contacts[owner].name == contact]
        if not cands:
            raise KeyError(f"no contact named {contact!r}")
        if any(m.arrays.swi[k, codes.SWI_KIND] != codes.SW_CONTROLLER for k in cands):
            raise ValueError(f"contact {contact!r} is not switched by a controller "
                             "(its scene `switch` must be {\"when\": \"controller\"})")
        off = len(m.actuator_names) + m.ncontacts
        for k in cands:
            self._data.ctrl[off + k] = 1.0 if enabled else 0.0
        self._refresh_row()

    # ------------------------------------------------------------------ mouse perturbation
    def perturb(self, body, point, target, *, stiffness=perturbation.STIFFNESS,
                damping_ratio=perturbation.DAMPING_RATIO, max_acceleration=perturbation.MAX_ACCELERATION):
        """From the next step on, pull `point` (in the frame of `body`, a name or an index) toward
        `target` (world) with the bounded spring-damper of engine/perturbation.py, until
        `release_perturbation()` or another `perturb`. The input is state (snapshots carry it) and is
        recorded as perturb.* with the applied force. ValueError names a bad argument."""
        perturbation.set_input(self.model, self._data.ctrl, body, point, target, stiffness=stiffness,
                               damping_ratio=damping_ratio, max_acceleration=max_acceleration)

    def release_perturbation(self):
        perturbation.set_input(self.model, self._data.ctrl, None, None, None)

    @property
    def perturbation(self):
        """(body name, point in its frame, target) of the perturbation held, or None."""
        P = self._data.ctrl[-codes.N_PT:]
        b = int(P[codes.PT_BODY])
        if b < 0:
            return None
        return (self.model.body_names[b], (float(P[codes.PT_PX]), float(P[codes.PT_PY])),
                (float(P[codes.PT_TX]), float(P[codes.PT_TY])))

    def replay_perturbations(self, schedule):
        """Apply the inputs of a PerturbationSchedule (a recorded run's: `from_signals`) at their
        times from now on, as the recorded run did; None stops."""
        self._replay = None if schedule is None else perturbation.ScheduleSampler(schedule, self)

    # ------------------------------------------------------------------ stepping
    def step(self):
        """One time step; returns the new signal row."""
        return self.run(1)[-1]

    def run(self, nsteps, record=True, out=None, signals=None):
        """Advances nsteps steps; returns the signal rows (nsteps x nsignals) or an empty array.

        signals: names of the signals to record (see signal_names), in the order wanted: the rows
        then hold these columns only (nsteps x len(signals)), bit for bit the values the full rows
        would hold, and the groups of the row no name asks for are not computed (without an energy
        signal, no kinetic energy per step). Events, snapshots and signal_vector() are as with full
        rows (a snapshot's `row` is then None, as for an unrecorded run). None: every signal.
        out: a preallocated float64 array of at least nsteps rows of every recorded signal (C order)
        that the rows are written into (the result is then a view of its first rows): a caller that
        runs in many calls reuses one buffer instead of taking fresh memory, whose first writes cost
        more than the rows themselves (the page faults of a new array).
        On a numerical failure raises SimulationError; an exception in a `python` block's code,
        ControllerError (with the user's traceback). On any failure (a Python control law's
        exception too) the rows computed before it are in `err.rows` and the simulator holds the
        last good state.
        """
        nsteps = int(nsteps)
        sel = self._selection(signals) if record else None
        width = len(self.signal_names) if sel is None else len(sel.cols)
        if out is not None and record:
            self._check_out(out, nsteps, width)
        dt = self.model.dt
        if (not self._external and not self._python and self._replay is None
                and not any(p.pending(self.t, dt) for p in self._pushes)):
            return self._run(nsteps, record, None if out is None else out[:nsteps], sel)
        chunks, done = [], 0
        try:
            while done < nsteps:
                self._sample_controllers()
                self._apply_pushes()
                samplers = (self._python + self._external + [p for p in self._pushes if p.time > self.t + 0.5 * dt]
                            + ([self._replay] if self._replay is not None else []))
                k = nsteps - done if not samplers else \
                    min(nsteps - done, steps_until_next_sample(samplers, self.t, dt, self._data))
                part = None if out is None else out[done:done + k]
                if self._python:
                    chunks.append(self._run_seen(k, record, part, sel))
                else:
                    chunks.append(self._run(k, record, part, sel))
                done += k
        except Exception as e:  # a failing step or a failing Python law: keep the rows made before it
            tail = getattr(e, "rows", np.empty((0, width)))
            if out is not None and record:
                e.rows = out[:done + len(tail)]
            else:
                e.rows = np.vstack(chunks + [tail]) if record else tail
            raise
        if out is not None and record:
            return out[:nsteps]
        return np.vstack(chunks) if record and chunks else np.empty((0, width))

    def _selection(self, signals):
        """The kernel's recording of some signals (None: every signal), kept per tuple of names."""
        if signals is None:
            return None
        key = tuple(signals)
        sel = self._selections.get(key)
        if sel is None:
            sel = self._selections[key] = Selection.of(self.model, self.signal_names, key)
        return sel

    def _check_out(self, out, nsteps, n):
        if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.ndim == 2
                and out.flags.c_contiguous and out.flags.writeable and out.shape[1] == n and out.shape[0] >= nsteps):
            shape = getattr(out, "shape", None)
            raise ValueError(f"out must be a writeable C-ordered float64 array of at least ({nsteps}, {n}) "
                             f"(steps x signals), got {type(out).__name__} of shape {shape}")

    def _run_seen(self, nsteps, record, rows=None, sel=None):
        """_run, then the new events go to each `python` block's unseen events, and to the kept
        snapshots' copies of them (those up to each snapshot's time)."""
        n_events, n_snaps = len(self._events) + self._events_dropped, len(self._snapshots)
        try:
            return self._run(nsteps, record, rows, sel)
        finally:
            new = self._events[max(0, n_events - self._events_dropped):]
            for block in self._snapshots[n_snaps:]:
                for k, (t, user) in enumerate(zip(block.t, block.user)):
                    seen = tuple(e for e in new if e.t <= t)
                    block.user[k] = {name: (data, events + seen) for name, (data, events) in user.items()}
            for b in self._python:
                b.pending += new

    def _run(self, nsteps, record=True, rows=None, sel=None):
        """Advances nsteps steps; returns the signal rows (nsteps x nsignals, or the selection's
        columns; written into `rows` if given) or an empty array.

        On a numerical failure raises SimulationError; the rows computed before it are in
        `err.rows` and the simulator holds the last good state.
        """
        nsteps = int(nsteps)
        if sel is not None and record and self._ed is not None:
            return self._run_gathered(nsteps, rows, sel)
        stats = self._data.stats
        if rows is None or not record:
            width = len(self.signal_names) if sel is None else len(sel.cols)
            rows = np.empty((nsteps if record else 0, width))
        n_events = len(self._events) + self._events_dropped
        prev_warnings = stats[codes.ST_WARNINGS]
        snaps = self._snapshot_buffer(nsteps)
        self._snap_clock[2] = 0
        if self._ed is not None:
            code, done, cand = self._run_event_driven(nsteps, rows, snaps)
        else:
            code, done, cand = self._time_steps(nsteps, rows, snaps, sel if record else None, record)
        if self._snap_clock[2]:  # (a selection's rows are not whole rows: its snapshots carry none)
            self._keep_snapshots(snaps, rows if sel is None else rows[:0], self.step_count)
        self.step_count += done
        warned = stats[codes.ST_WARNINGS] != prev_warnings
        if record and done and sel is None:
            self._row_buf[:] = rows[done - 1]
            self._row_stale = False
        elif done:
            self._row_stale = True
        if warned:  # the call's events in the order of their steps, whatever the calls' lengths
            new = max(0, n_events - self._events_dropped)
            self._events[new:] = sorted(self._events[new:], key=lambda e: e.t)
        if code != codes.OK:
            err = self._failure(code, cand)
            err.rows = rows[:done]
            raise err
        return rows

    def _run_gathered(self, nsteps, rows, sel):
        """A selection of an event-driven run: its full rows, then the selected columns (the
        integrator writes whole rows)."""
        try:
            full = self._run(nsteps, True)
        except SimulationError as e:
            e.rows = e.rows[:, sel.cols]
            raise
        if rows is None:
            return full[:, sel.cols]
        rows[:] = full[:, sel.cols]
        return rows

    def _run_event_driven(self, nsteps, rows, snaps):
        """event_driven.loop.run_rows, its event log emptied into Events whenever it fills up. Where
        events crowd (the integrator stalls: a chattering contact, a closed contact whose geometry
        switches feature), time stepping runs the next CROWD_SECONDS from the last row, then the
        event-driven integrator starts afresh; an event 'time_stepping' says so."""
        from .event_driven import loop
        from .event_driven.events import log_events
        done = 0
        while True:
            log = np.empty((64 + 8 * self.model.ncontacts, ed_layout.EV_WIDTH))
            code, k, cand, nev = loop.run_rows(nsteps - done, rows[done:], *self._args, self._ed, log,
                                               snaps, self._snap_clock, done)
            self._events.extend(log_events(log[:nev], self.model.contact_names))
            done += k
            if code == ed_layout.STALLED and done < nsteps and self._fallback:
                code, k, cand = self._time_stepping_while_crowded(nsteps - done, rows, done, snaps, cand)
                done += k
                if code != codes.OK or done == nsteps:
                    return code, done, cand
            elif code != ed_layout.EVENTS_FULL:
                return code, done, cand

    CROWD_SECONDS = 0.05

    def _time_stepping_while_crowded(self, remaining, rows, done, snaps, cand):
        m, d = self.model, self._data
        name = m.contact_names[cand] if 0 <= cand < len(m.contact_names) else ""
        k = min(remaining, max(1, int(round(self.CROWD_SECONDS / m.dt))))
        self._events.append(Event(self.t, "time_stepping", name,
                                  f"events crowd{f' at {name}' if name else ''}: time stepping for "
                                  f"{k * m.dt:.3g} s, then event-driven again"))
        piece = rows[done:done + k] if len(rows) else rows
        code, k_done, cand = self._time_steps(k, piece, snaps, events=len(rows) > 0, first=done)
        self._ed[:] = 0.0  # the integrator starts afresh from the state time stepping reached
        return code, k_done, cand

    WARNING_LOG_ROWS = 64  # a kernel call stops after the step that fills the log, and is called again

    def _time_steps(self, nsteps, rows, snaps, sel=None, events=False, first=0):
        """stepper.run_steps (run_steps_selected with sel) over nsteps steps, called again after each
        step that fills the solver-warning log or the contact-event log: each logged step becomes a
        solver_warning event at that step's time, each event row an Event (with events: a recording
        run's), so a run's events are the same however it is cut into calls. Snapshot rows are
        numbered from `first` (the steps of the caller's call before). Returns (code, steps done,
        candidate) as run_steps."""
        stats, log, clock = self._data.stats, self._warning_log, self._snap_clock
        elog = self._event_log_of(events)
        done = 0
        while True:
            warnings, kept = stats[codes.ST_WARNINGS], int(clock[2])
            if sel is None:
                code, k, cand = st.run_steps(nsteps - done, rows[done:], *self._args, snaps, clock, log, elog)
            else:
                code, k, cand = st.run_steps_selected(nsteps - done, rows[done:], sel.cols, sel.parts,
                                                      *self._args, snaps, clock, log, elog)
            if clock[2] > kept and first + done:
                snaps[kept:int(clock[2]), 0] += first + done  # the kernel numbers its steps from its own call
            if stats[codes.ST_WARNINGS] != warnings:
                self._log_warnings(int(stats[codes.ST_WARNINGS] - warnings))
            if elog[0, codes.EL_T]:
                self._log_events(elog)
            done += k
            if code == codes.EVENTS_FULL:  # (a run whose events crowd: a longer log for its next calls)
                elog = self._event_log = np.empty((2 * len(elog), codes.N_EL))
            elif code != codes.WARNINGS_FULL:
                return code, done, cand

    EVENT_LOG_ROWS = 64  # a new event log: its count, two steps' events of every contact and this many

    def _event_log_of(self, events):
        """The kernel's event log for a call (a header row alone when it logs no event)."""
        if not events or not self.model.ncontacts:
            return self._no_events
        if self._event_log is None:
            self._event_log = np.empty((1 + 2 * self.model.ncontacts + self.EVENT_LOG_ROWS, codes.N_EL))
        return self._event_log

    def _log_events(self, elog):
        """Events of the rows of the kernel's event log (impact_events.py; their count in row 0)."""
        names, events = self.model.contact_names, self._events
        for t, c, s, _old, pre, post, p, lost in elog[1:1 + int(elog[0, codes.EL_T])].tolist():
            if s == codes.IMPACT:
                events.append(Event(t, "impact", names[int(c)], un_pre=pre, un_post=post, percussion=p,
                                    energy_lost=lost))
            else:
                events.append(Event(t, STATUS_NAMES[int(s)], names[int(c)]))
        if len(events) > 200000:  # bounded: the oldest are the least useful in a live view
            del events[:100000]
            self._events_dropped += 100000

    def _log_warnings(self, count):
        """Events of the first rows of the warning log holding `count` warnings."""
        for t, n, err in self._warning_log.tolist():
            n = int(n)
            what = "a step problem" if n == 1 else f"{n} step problems"
            self._events.append(Event(t, "solver_warning", "",
                                      f"{what} stopped at the iteration cap (error {err:.1e})"))
            count -= n
            if count <= 0:
                return

    def _failure(self, code, cand):
        """The SimulationError of a kernel return code (see stepper.run_steps)."""
        m = self.model
        t = self.t + m.dt
        if code == ed_layout.STALLED:
            name = m.contact_names[cand] if 0 <= cand < len(m.contact_names) else None
            where = f" at contact '{name}'" if name else ""
            return SimulationError(f"t = {t:.6g} s: events crowd{where}: the event-driven integrator "
                                   f"cannot resolve them (settings.event_driven_fallback is 'never': "
                                   f"set it to 'auto' or use time stepping)", t, name)
        if code in (codes.NOT_FINITE, codes.RUNAWAY):
            signal = self.signal_names[cand] if 0 <= cand < len(self.signal_names) else None
            value = self._data.stats[codes.ST_BADVALUE]
            body = joint = None
            if signal and self._layout.is_coordinate(cand):
                body, joint = self._coordinate_owner(self._layout.coordinate_of(cand))
            if signal is None:
                what = "the state became NaN/inf"
            elif code == codes.RUNAWAY:
                what = f"runaway motion: {signal} = {value:.3g}, beyond ±{codes.RUNAWAY_BOUND:g}"
            else:
                what = f"{signal} became {value}"
            where = f" (body '{body}', joint '{joint}')" if body else ""
            return SimulationError(f"t = {t:.6g} s: {what}{where}", t, signal=signal, body=body)
        name = m.contact_names[cand] if 0 <= cand < len(m.contact_names) else None
        what = {codes.SOLVER_FAILED: "the step problem solver failed",
                codes.SINGULAR: "the iteration matrix M - hθ dF/dv - h²θ² dF/dq is singular"}.get(
            code, "the state became NaN/inf")
        where = f" at contact '{name}'" if name else ""
        return SimulationError(f"t = {t:.6g} s: {what}{where}", t, name)

    def _coordinate_owner(self, j):
        """(body, joint) whose joint carries coordinate j."""
        m = self.model
        bi = m.arrays.bi
        for b, body in enumerate(m.body_names):
            first, kind = bi[b, codes.BI_COORD], bi[b, codes.BI_JTYPE]
            count = 3 if kind == codes.FREE else 1
            if kind != codes.FIXED and first <= j < first + count:
                joint = next((J.name for J in m.scene.joints if J.child == body), None)
                return body, joint
        return None, None

    def pop_events(self):
        ev, self._events = self._events, []
        return ev

    # ------------------------------------------------------------------ signals
    def signal_vector(self):
        return self._row.copy()

    def signals(self):
        return dict(zip(self.signal_names, self._row.tolist()))

    @property
    def stats(self):
        s = self._data.stats
        return {"impacts": int(s[codes.ST_IMPACTS]), "max_penetration": float(max(0.0, -s[codes.ST_MINGAP])),
                "solver_warnings": int(s[codes.ST_WARNINGS]), "max_solver_iterations": int(s[codes.ST_MAXITER]),
                "steps": self.step_count}
