"""The mouse perturbation (issue 12 §4): a bounded spring-damper pulling a point of a body toward a
target point, as the viewers of MuJoCo (mjv_applyPerturbForce) and Webots do.

The input — the grabbed body, the grabbed point in its frame, the target in the world — is state, held
in the last `N_PT` entries of Data.ctrl (so snapshots carry it) and recorded as `perturb.body`,
`perturb.point_x/y`, `perturb.target_x/y` with the force the step applied, `perturb.fx/fy` (N, world).
The law, evaluated with the actuators' forces at the start of each step (time stepping) or at each
stage (event-driven):

    F = m_s (k (target − p) − c ṗ),   |F| ≤ m_s a_max

with m_s the mass of the grabbed body and of everything it carries (its subtree, as MuJoCo scales its
perturbation), so a light foot and a whole robot feel the same stiffness. Its work is booked with the
actuators' (energy.actuators). Who sets the input: `Simulator.perturb` / `release_perturbation`, the
window through the runner; `PerturbationSchedule` replays the inputs of a recorded run.
"""

import numpy as np
from numba import njit

from .codes import (N_PERTURB_SIGNALS, N_PT, PT_AMAX, PT_BODY, PT_C, PT_FX, PT_FY, PT_K, PT_MASS, PT_PX,
                    PT_PY, PT_TX, PT_TY)
from .dynamics import point_jacobian_add, point_velocity, point_world

STIFFNESS = 100.0   # k, 1/s²: per unit mass (MuJoCo's default visual stiffness)
DAMPING_RATIO = 1.0  # c = 2 ζ √k: critically damped, the point settles on the target without ringing
MAX_ACCELERATION = 20.0  # a_max, m/s² (about 2 g): a push, not a teleport


@njit(cache=True)
def perturbation_force(m, d):
    """The force of the perturbation at the evaluated state (d.kin), stored in its segment of d.ctrl;
    returns (body, world x and y of the grabbed point, fx, fy), body -1 when nothing is held."""
    P = d.ctrl[d.ctrl.shape[0] - N_PT:]
    b = int(P[PT_BODY])
    if b < 0:
        P[PT_FX] = 0.0
        P[PT_FY] = 0.0
        return -1, 0.0, 0.0, 0.0, 0.0
    kin = d.kin
    wx, wy = point_world(b, P[PT_PX], P[PT_PY], kin.pos, kin.ang)
    vx, vy = point_velocity(b, wx, wy, kin.pos, kin.vel, kin.omg)
    fx = P[PT_MASS] * (P[PT_K] * (P[PT_TX] - wx) - P[PT_C] * vx)
    fy = P[PT_MASS] * (P[PT_K] * (P[PT_TY] - wy) - P[PT_C] * vy)
    f, fmax = np.hypot(fx, fy), P[PT_MASS] * P[PT_AMAX]
    if f > fmax:
        fx *= fmax / f
        fy *= fmax / f
    P[PT_FX] = fx
    P[PT_FY] = fy
    return b, wx, wy, fx, fy


@njit(cache=True)
def add_perturbation(m, d, Q):
    """Q += the generalized force of the perturbation at the evaluated state."""
    b, wx, wy, fx, fy = perturbation_force(m, d)
    if b >= 0:
        point_jacobian_add(b, wx, wy, m, d.kin, fx, fy, 1.0, Q)


@njit(cache=True)
def perturbation_power(m, d, v, row):
    """Power of the force last computed (perturbation_force) at generalized velocity v, with the
    geometry of d.kin. row: scratch (nq,)."""
    P = d.ctrl[d.ctrl.shape[0] - N_PT:]
    b = int(P[PT_BODY])
    if b < 0:
        return 0.0
    wx, wy = point_world(b, P[PT_PX], P[PT_PY], d.kin.pos, d.kin.ang)
    row[:] = 0.0
    point_jacobian_add(b, wx, wy, m, d.kin, P[PT_FX], P[PT_FY], 1.0, row)
    return row @ v


@njit(cache=True)
def write_perturbation(m, d, row):
    """The recorded perturbation signals (codes.PERTURB_SIGNALS) into a signal row."""
    p0 = d.ctrl.shape[0] - N_PT
    col = m.layout.perturb
    for k in range(N_PERTURB_SIGNALS):
        row[col + k] = d.ctrl[p0 + k]


# ------------------------------------------------------------------ Python side
def subtree_masses(model):
    """Mass of each body with every body below it in the tree (what the law scales by)."""
    from .codes import BF_MASS, BI_PARENT
    bf, bi = model.arrays.bf, model.arrays.bi
    out = bf[:, BF_MASS].astype(float).copy()
    for b in reversed(range(len(out))):  # parents come before their children
        p = int(bi[b, BI_PARENT])
        if p >= 0:
            out[p] += out[b]
    return out


def set_input(model, ctrl, body, point, target, stiffness=STIFFNESS, damping_ratio=DAMPING_RATIO,
              max_acceleration=MAX_ACCELERATION):
    """Write a perturbation input into a Data.ctrl (or a SimState's ctrl): `body` a name or index
    (None: release), `point` in that body's frame, `target` in the world. Raises ValueError naming
    what is wrong."""
    P = ctrl[len(ctrl) - N_PT:]
    if body is None:
        P[PT_BODY] = -1.0
        P[PT_FX] = P[PT_FY] = 0.0
        return
    b = body_index(model, body)
    point, target = _vec2(point, "point"), _vec2(target, "target")
    for name, value in (("stiffness", stiffness), ("damping_ratio", damping_ratio),
                        ("max_acceleration", max_acceleration)):
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"perturbation {name} must be a finite number ≥ 0, not {value!r}")
    P[PT_BODY] = b
    P[PT_PX], P[PT_PY] = point
    P[PT_TX], P[PT_TY] = target
    P[PT_MASS] = subtree_masses(model)[b]
    P[PT_K] = stiffness
    P[PT_C] = 2.0 * damping_ratio * np.sqrt(stiffness)
    P[PT_AMAX] = max_acceleration


def body_index(model, body):
    names = model.body_names
    if isinstance(body, (int, np.integer)):
        if not 0 <= body < len(names):
            raise ValueError(f"perturbation: no body {body} (the model has {len(names)})")
        b = int(body)
    elif body in names:
        b = names.index(body)
    else:
        raise ValueError(f"perturbation: no body named {body!r}")
    if model.arrays.plen[b] == 0:
        raise ValueError(f"perturbation: body {names[b]!r} cannot move (it is fixed to the world)")
    return b


def _vec2(x, what):
    a = np.asarray(x, float).reshape(-1)
    if a.shape != (2,) or not np.all(np.isfinite(a)):
        raise ValueError(f"perturbation {what} must be two finite numbers, not {x!r}")
    return a


class PerturbationSchedule:
    """The perturbation inputs of a recorded run, to replay it: `changes` is a list of
    (t, body index or -1, point (2,), target (2,)) in time order, each applied from the step that
    starts at t on. A row records the input of the step that ended at it, so a change seen at row k
    starts at row k − 1's time."""

    def __init__(self, changes=()):
        self.changes = list(changes)

    @classmethod
    def from_signals(cls, signals):
        """From a run's signals (a dict name -> array, as `simulate`, the exports and the history
        give): the rows where perturb.* change."""
        from .codes import PERTURB_SIGNALS
        try:
            t = np.asarray(signals["t"], float)
            cols = np.column_stack([np.asarray(signals[f"perturb.{k}"], float) for k in PERTURB_SIGNALS[:5]])
        except KeyError as e:
            raise ValueError(f"the run has no signal {e.args[0]!r}: no perturbation to replay") from None
        cols[cols[:, 0] < 0, 1:] = 0.0  # released: the rest of the input does not matter
        change = np.flatnonzero(np.any(cols[1:] != cols[:-1], axis=1)) + 1
        out = [] if cols[0, 0] < 0 else [(float(t[0]), int(cols[0, 0]), cols[0, 1:3].copy(), cols[0, 3:5].copy())]
        for k in change:
            out.append((float(t[k - 1]), int(cols[k, 0]), cols[k, 1:3].copy(), cols[k, 3:5].copy()))
        return cls(out)

    def next_time(self, t, dt):
        """Time of the first change after t (within round-off), or inf."""
        for tc, *_ in self.changes:
            if tc > t + 1e-9 * dt:
                return tc
        return np.inf

    def due(self, t, dt):
        """The last change at or before t (within round-off), or None."""
        last = None
        for c in self.changes:
            if c[0] <= t + 1e-9 * dt:
                last = c
            else:
                break
        return last


__all__ = ["perturbation_force", "add_perturbation", "perturbation_power", "write_perturbation", "set_input",
           "subtree_masses", "body_index", "PerturbationSchedule", "STIFFNESS", "DAMPING_RATIO", "MAX_ACCELERATION"]


class ScheduleSampler:
    """Simulator.replay_perturbations: applies a schedule's changes when due, and tells the simulator
    how many steps it may run before the next one (the interface of the Python controllers)."""

    def __init__(self, schedule, sim):
        self.schedule, self.sim = schedule, sim
        self.applied = None

    def next_time(self, d):
        dt = self.sim.model.dt
        nxt = self.schedule.next_time(float(d.t[0]), dt)
        return float(d.t[0]) + 1e9 * dt if not np.isfinite(nxt) else nxt

    def apply(self, t):
        change = self.schedule.due(t, self.sim.model.dt)
        if change is None or change is self.applied:
            return
        self.applied = change
        _t, body, point, target = change
        if body < 0:
            self.sim.release_perturbation()
        else:
            self.sim.perturb(body, point, target)
