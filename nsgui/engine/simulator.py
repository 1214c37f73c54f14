"""The simulator: the changing state of a run (MuJoCo's mjData) stepped by the compiled kernel."""

from dataclasses import dataclass, field

import numpy as np

from . import dynamics as dyn
from . import stepper as st
from .compile import Model
from .controllers import EXTERNAL, ExternalController, steps_until_next_sample

STATUS_NAMES = {st.OPEN: "open", st.STICK: "stick", st.SLIP: "slip", st.IMPACT: "impact"}


class SimulationError(RuntimeError):
    """A numerical failure: the message names the time and the contact, or for a blow-up the signal
    (`q.<coord>`, `v.<coord>`...) and its body; the state before it is kept."""

    def __init__(self, message, t=None, contact=None, signal=None, body=None):
        super().__init__(message)
        self.t = t
        self.contact = contact
        self.signal = signal
        self.body = body


@dataclass
class Event:
    t: float
    kind: str       # impact, stick, slip, open, solver_warning
    name: str       # contact name ("" for solver warnings)
    detail: str = ""


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
    next_sample: np.ndarray
    stats: np.ndarray
    step_count: int
    row: np.ndarray = field(default=None)
    # next sample time of each Python controller, by actuator name (they live outside the kernel)
    external_next: dict = field(default_factory=dict)

    def copy(self):
        return SimState(self.t, self.q.copy(), self.v.copy(), self.energy.copy(), self.lamN.copy(),
                        self.lamT.copy(), self.status.copy(), self.u.copy(), self.next_sample.copy(),
                        self.stats.copy(), self.step_count, None if self.row is None else self.row.copy(),
                        dict(self.external_next))


class Simulator:
    """Steps a compiled Model from its initial state (scene.initial)."""

    def __init__(self, model: Model):
        self.model = model
        self.signal_names = list(model.signal_names)
        self._events = []
        self._ai = model.ai.copy()  # actuator kinds: a Python controller switches its row to EXTERNAL
        self._external = []
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self):
        m = self.model
        nc, na = m.ncontacts, len(m.actuator_names)
        self._t = np.zeros(1)
        self._q = m.q0.copy()
        self._v = m.v0.copy()
        self._energy = np.zeros(6)
        self._lamN = np.zeros(nc)
        self._lamT = np.zeros(nc)
        self._status = np.zeros(nc)
        self._u = np.zeros(na)
        self._next = np.zeros(na)
        self._stats = np.zeros(st.N_STATS)
        self._stats[st.ST_MINGAP] = np.inf
        self.step_count = 0
        self._row = np.zeros(len(self.signal_names))
        E0 = st.initial_row(self._q, self._v, 0.0, self._energy, self._lamN, self._lamT, self._status, self._u,
                            self._row, *m.kernel_args()[:14], m.fs)
        self._energy[st.ACC_E0] = E0
        st.initial_row(self._q, self._v, 0.0, self._energy, self._lamN, self._lamT, self._status, self._u,
                       self._row, *m.kernel_args()[:14], m.fs)
        gap = self._row[self._gap_columns()] if nc else np.zeros(0)
        self._stats[st.ST_MINGAP] = min(0.0, gap.min()) if nc else 0.0
        self._events.clear()
        for c in self._external:
            c.next_sample = 0.0

    def _gap_columns(self):
        k = 1 + 2 * self.model.nq + st.N_ENERGY
        return k + st.N_CONTACT_SIGNALS * np.arange(self.model.ncontacts)

    @property
    def t(self):
        return float(self._t[0])

    @property
    def q(self):
        return self._q.copy()

    @property
    def v(self):
        return self._v.copy()

    def get_state(self) -> SimState:
        return SimState(self.t, self._q.copy(), self._v.copy(), self._energy.copy(), self._lamN.copy(),
                        self._lamT.copy(), self._status.copy(), self._u.copy(), self._next.copy(),
                        self._stats.copy(), self.step_count, self._row.copy(),
                        {self.model.actuator_names[c.index]: c.next_sample for c in self._external})

    def set_state(self, state: SimState):
        """Continue from a snapshot (possibly taken from a simulator of an edited scene)."""
        if state.q.shape != self._q.shape or state.lamN.shape != self._lamN.shape:
            raise ValueError("the snapshot does not fit this model (coordinates or contacts changed)")
        self._t[0] = state.t
        self._q[:] = state.q
        self._v[:] = state.v
        self._energy[:] = state.energy
        self._lamN[:] = state.lamN
        self._lamT[:] = state.lamT
        self._status[:] = state.status
        if state.u.shape == self._u.shape:
            self._u[:] = state.u
            self._next[:] = state.next_sample
        self._stats[:len(state.stats)] = state.stats
        self.step_count = state.step_count
        for c in self._external:  # a controller the snapshot does not know is sampled at once
            c.next_sample = state.external_next.get(self.model.actuator_names[c.index], state.t)
        m = self.model
        st.initial_row(self._q, self._v, self.t, self._energy, self._lamN, self._lamT, self._status, self._u,
                       self._row, *m.kernel_args()[:14], m.fs)

    # ------------------------------------------------------------------ controllers
    def set_controller(self, actuator, law, period=None):
        """Drive an actuator by a Python law(t, q, v, model) -> float, sampled every `period` seconds
        (None: every step) and held in between."""
        i = self.model.actuator_names.index(actuator)
        self._external = [c for c in self._external if c.index != i]
        self._external.append(ExternalController(i, law, period, self.t))
        self._ai[i, 1] = EXTERNAL

    def _sample_controllers(self):
        t = self.t
        for c in self._external:
            if t >= c.next_sample - 1e-9 * self.model.dt:
                u = float(c.law(t, self._q.copy(), self._v.copy(), self.model))
                if not np.isfinite(u):
                    name = self.model.actuator_names[c.index]
                    raise SimulationError(f"t = {t:.6g} s: the Python controller of actuator '{name}' "
                                          f"returned {u}", t)
                lim = self.model.af[c.index, 6]
                self._u[c.index] = min(max(u, -lim), lim)
                c.next_sample = t + (c.period if c.period else self.model.dt)

    # ------------------------------------------------------------------ stepping
    def step(self):
        """One time step; returns the new signal row."""
        return self.run(1)[-1]

    def run(self, nsteps, record=True):
        """Advances nsteps steps; returns the signal rows (nsteps x nsignals) or an empty array.

        On a numerical failure raises SimulationError; the rows computed before it are in
        `err.rows` and the simulator holds the last good state.
        """
        if not self._external:
            return self._run(nsteps, record)
        chunks, done = [], 0
        while done < nsteps:
            try:
                self._sample_controllers()
                k = min(nsteps - done, steps_until_next_sample(self._external, self.t, self.model.dt))
                chunks.append(self._run(k, record))
            except SimulationError as e:
                tail = getattr(e, "rows", np.empty((0, len(self.signal_names))))
                e.rows = np.vstack(chunks + [tail]) if record else tail
                raise
            done += k
        return np.vstack(chunks) if record else np.empty((0, len(self.signal_names)))

    def _run(self, nsteps, record=True):
        """Advances nsteps steps; returns the signal rows (nsteps x nsignals) or an empty array.

        On a numerical failure raises SimulationError; the rows computed before it are in
        `err.rows` and the simulator holds the last good state.
        """
        m = self.model
        nsteps = int(nsteps)
        rows = np.empty((nsteps if record else 0, len(self.signal_names)))
        prev_status = self._status.copy()
        prev_warnings = self._stats[st.ST_WARNINGS]
        code, done, cand = st.run_steps(nsteps, rows, self._q, self._v, self._t, self._energy, self._lamN,
                                        self._lamT, self._status, self._u, self._next, self._stats,
                                        *m.kernel_args()[:14], self._ai, m.af, m.fs, m.isets,
                                        m.M_const, m.Minv_const,
                                        m.ccols, m.ccn)
        self.step_count += done
        new_warnings = int(self._stats[st.ST_WARNINGS] - prev_warnings)
        if new_warnings:
            self._events.append(Event(self.t, "solver_warning", "",
                                      f"{new_warnings} step problem(s) stopped at the iteration cap "
                                      f"(last error {self._stats[st.ST_LASTERR]:.1e})"))
        if record and done:
            self._row[:] = rows[done - 1]
            self._collect_events(rows[:done], prev_status)
        elif done:
            st.initial_row(self._q, self._v, self.t, self._energy, self._lamN, self._lamT, self._status,
                           self._u, self._row, *m.kernel_args()[:14], m.fs)
        if code != st.OK:
            err = self._failure(code, cand)
            err.rows = rows[:done]
            raise err
        return rows

    def _failure(self, code, cand):
        """The SimulationError of a kernel return code (see stepper.run_steps)."""
        m = self.model
        t = self.t + m.dt
        if code in (st.NOT_FINITE, st.RUNAWAY):
            signal = self.signal_names[cand] if 0 <= cand < len(self.signal_names) else None
            value = self._stats[st.ST_BADVALUE]
            body = joint = None
            if signal and 1 <= cand <= 2 * m.nq:
                body, joint = self._coordinate_owner((cand - 1) % m.nq)
            if signal is None:
                what = "the state became NaN/inf"
            elif code == st.RUNAWAY:
                what = f"runaway motion: {signal} = {value:.3g}, beyond ±{st.RUNAWAY_BOUND:g}"
            else:
                what = f"{signal} became {value}"
            where = f" (body '{body}', joint '{joint}')" if body else ""
            return SimulationError(f"t = {t:.6g} s: {what}{where}", t, signal=signal, body=body)
        name = m.contact_names[cand] if 0 <= cand < len(m.contact_names) else None
        what = {st.SOLVER_FAILED: "the step problem solver failed",
                st.SINGULAR: "the iteration matrix M - hθ dF/dv - h²θ² dF/dq is singular"}.get(
            code, "the state became NaN/inf")
        where = f" at contact '{name}'" if name else ""
        return SimulationError(f"t = {t:.6g} s: {what}{where}", t, name)

    def _coordinate_owner(self, j):
        """(body, joint) whose joint carries coordinate j."""
        m = self.model
        for b, body in enumerate(m.body_names):
            first, kind = m.bi[b, 2], m.bi[b, 1]
            count = 3 if kind == dyn.FREE else 1
            if kind != dyn.FIXED and first <= j < first + count:
                joint = next((J.name for J in m.joints_sorted if J.child == body), None)
                return body, joint
        return None, None

    def _collect_events(self, rows, prev_status):
        m = self.model
        if not m.ncontacts:
            return
        cols = self._gap_columns() + st.CONTACT_SIGNALS.index("status")
        S = np.vstack([prev_status[None, :], rows[:, cols]])
        t = rows[:, 0]
        changed = np.nonzero((S[1:] != S[:-1]) | (S[1:] == st.IMPACT))
        for k, c in zip(*changed):
            s = int(S[k + 1, c])
            if s == st.OPEN and S[k, c] == st.IMPACT:
                kind = "open"
            else:
                kind = STATUS_NAMES[s]
            self._events.append(Event(float(t[k]), kind, m.contact_names[c]))
        if len(self._events) > 200000:  # bounded: the oldest are the least useful in a live view
            del self._events[:100000]

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
        s = self._stats
        return {"impacts": int(s[st.ST_IMPACTS]), "max_penetration": float(max(0.0, -s[st.ST_MINGAP])),
                "solver_warnings": int(s[st.ST_WARNINGS]), "max_solver_iterations": int(s[st.ST_MAXITER]),
                "steps": self.step_count}
