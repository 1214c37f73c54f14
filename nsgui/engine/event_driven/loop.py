"""The event-driven loop (numba): rows on the time grid of settings.dt from an adaptive DOPRI5
integration, with every impact, closure and take-off at its own time.

Per row (t → t + dt): steps are taken until the current step covers the row time, and the row is
the dense output there. After each accepted step the event functions are checked over it — the gap
of every open contact, the multiplier of every closed one — and the earliest root is located on the
dense output (to 1e-14 s: gaps by safeguarded Newton, the rest by Illinois); the step is then taken
again to end exactly there. The event
is handled at the start of the next step (rows before it are written first):
  gap root    Newton's law over the touching contacts (impact LCP), accumulation check, then the
              acceleration LCP decides which touching contacts stay closed
  take-off    the contact leaves the active set; the acceleration LCP over the others
  slip        a sticking contact's |λ_T| reaches μ λ_N: it slides, against its force
  stick       a sliding contact's tangential velocity reaches zero: it sticks if the cone holds its
              force, else slides on (either way)
An accumulation (impact intervals shrinking geometrically, three ratios agreeing to 1 %, and what
is left of the series shorter than ZENO_WINDOW) is bridged: t* = t_k + δ_k r/(1 − r) is logged and
the impact is plastic, so the contact goes on closed (persistent contact).
"""

import numpy as np
from numba import njit

from ..codes import (ACC_ACTUATORS, ACC_DAMPING, ACC_FRICTION, ACC_IMPACT, CF_E, CF_ET, CF_MU, FS_H, FS_IMPACT, FS_STICK, IMPACT,
                     IS_CONST_M, K_NONE, K_PYTHON, KC_NEXT, KC_PENDING, KC_QUEUE, KF_PERIOD, KI_C0, KI_KIND, OK, OPEN,
                     SLIP, ST_IMPACTS, ST_STEPS, STICK, SW_AHEAD, SWF_AX, SWF_AY, SWF_PX, SWF_PY, SWI_APPROACH, SWI_BODY,
                     SWI_KIND)
from ..dynamics import point_world
from ..control.kernel import apply_controllers
from ..evaluation import evaluate
from ..loops import keep_loop_velocities, project_loops
from ..perturbation import perturbation_force
from ..stepper import keep_snapshot, record_step, update_switches
from .contact_dynamics import (closing_multipliers, derivative, frictional, impact, rest, set_point,
                               tangential_speed)
from .dopri5 import dense, dopri_step, next_step_size
from .layout import (CSTRIDE, EV_ACCUMULATION, EV_CONTACT, EV_DISABLED, EV_ENABLED, EV_IMPACT, EV_KIND, EV_LOST, EV_OPEN,
                     EV_PN, P_SWITCH_OFF, P_SWITCH_ON,
                     EV_SLIP, EV_STICK, EV_T, EV_TSTAR, EV_UPOST, EV_UPRE, EVENTS_FULL, H_HDENSE, H_TEND, H_HNEXT, H_INIT,
                     H_NSAME, H_PCONT, H_PENDING, H_PSIGN, H_SAME_T, H_T0, HEAD, K_ACTIVE, K_DLAST, K_IMPACT,
                     K_MODE, K_PN, K_PT, K_RLAST, K_STREAK, K_TLAST, P_CHECK, P_GAP, P_NONE, P_SLIP, P_STICK,
                     P_TAKEOFF, STALLED)

RTOL, ATOL = 1e-10, 1e-12     # DOPRI5 tolerances (relative, absolute)
HMAX = 0.05                   # s: longest step (a gap can dip below zero and back inside one step)
GAP_TOL = 1e-9                # m: a contact this close touches
VEL_TOL = 1e-8                # m/s: a touching contact approaching slower than this closes without impact
ROOT_TOL = 1e-14              # s: width of the bracket of a located event
ZENO_WINDOW = 1e-4            # s: an accumulation is bridged when what is left of it is shorter
BRIDGE_GAP = 1e-6             # m: contacts this close take part in the accumulation bridged
MAX_SAME_TIME = 64            # events at one instant before the run stops (chattering)


@njit(cache=True, nogil=True)  # as stepper.run_steps: the GIL is free while it steps
def run_rows(nsteps, rows, m, d, ed, ev, snaps, snap_clock, step0):
    """Advances up to nsteps rows of dt (rows written if rows has them), logging events into ev.
    Returns (code, rows done, candidate or -1, events logged): code OK, STALLED or EVENTS_FULL
    (the caller empties ev and calls again: the state in ed goes on from where it stopped). step0:
    the index of the first row in the caller's run (for the snapshots' step numbers)."""
    n, nc = d.q.shape[0], d.gap.shape[0]
    N = 2 * n + 3
    if m.isets[IS_CONST_M] != 0:
        d.M[:, :] = m.M_const
    h_row = m.fs[FS_H]
    record = rows.shape[0] >= nsteps and rows.shape[0] > 0
    xo = HEAD + CSTRIDE * nc
    x_next = ed[xo:xo + N]
    rcont = ed[xo + N:xo + 6 * N]
    if ed[H_INIT] == 0.0:
        _start(m, d, ed, x_next)
    act = np.zeros(nc, np.int64)
    smode = np.zeros(nc)
    lam = np.zeros(3 * nc)
    xs = np.empty(N)
    # the steps' scratch: stages, solution, dense output, gaps, normal velocities and forces at the
    # start and end of a step, and whether the next step's first stage is the last one's (FSAL)
    K = np.zeros((7, N))
    y1 = np.empty(N)
    rc = np.empty(5 * N)
    ends = np.zeros((6, nc))
    lams = np.zeros((2, 3 * nc))
    fsal = np.zeros(1, np.bool_)
    row_q, row_v, row_energy = d.q.copy(), d.v.copy(), d.energy.copy()
    nev = 0
    for step in range(nsteps):
        t_row = d.t[0]
        T = t_row + h_row
        apply_controllers(m, d, t_row)
        _switch_contacts(m, d, ed, fsal)
        row_q[:] = d.q
        row_v[:] = d.v
        row_energy[:] = d.energy
        code, cand, nev = _advance(m, d, ed, ev, nev, x_next, rcont, T, act, smode, lam, K, y1, rc, ends,
                                   lams, fsal)
        if code != OK:
            # d back at the last row's state (the steps used it as scratch): the caller goes on from
            # there (EVENTS_FULL: this integrator again; STALLED: time stepping for a while)
            d.q[:] = row_q
            d.v[:] = row_v
            d.energy[:] = row_energy
            evaluate(m, d, True)
            return code, step, cand, nev
        # the row: the dense output at T
        h = ed[H_HDENSE]
        theta = 1.0 if h <= 0.0 else (T - ed[H_T0]) / h
        dense(rcont, theta, xs)
        na = _active_list(ed, nc, act, smode)
        if na > 0 or m.li.shape[0] > 0:
            upot = derivative(m, d, act, na, smode, xs, K[1], lam)  # K[1]: free scratch between steps
        else:
            upot = set_point(m, d, xs)
        d.t[0] = T
        _fill_row_state(m, d, ed, act, na, lam, xs, h_row)
        code, col = record_step(m, d, rows, step, upot, record)
        if code != OK:
            return code, step, col, nev
        d.stats[ST_STEPS] += 1
        _keep_snapshot(d, ed, snaps, snap_clock, step0 + step)
    return OK, nsteps, -1, nev


@njit(cache=True)
def _start(m, d, ed, x_next):
    """First call (or a state restored without the integrator's): the current step is empty at d.t,
    every contact is checked (impacts, closures) before the first step."""
    n, nc = d.q.shape[0], d.gap.shape[0]
    ed[:] = 0.0
    x_next[:n] = d.q
    x_next[n:2 * n] = d.v
    x_next[2 * n] = d.energy[ACC_DAMPING]
    x_next[2 * n + 1] = d.energy[ACC_ACTUATORS]
    x_next[2 * n + 2] = d.energy[ACC_FRICTION]
    ed[H_T0] = d.t[0]
    ed[H_TEND] = d.t[0]
    ed[H_HNEXT] = min(m.fs[FS_H], HMAX)
    ed[H_PENDING] = P_CHECK
    ed[H_PCONT] = -1
    ed[H_SAME_T] = -np.inf
    for c in range(nc):
        ed[HEAD + CSTRIDE * c + K_TLAST] = -np.inf
    ed[H_INIT] = 1.0


@njit(cache=True)
def _enabled(m, d, c):
    """Whether contact c is switched on (scene `switch`; Data.ctrl holds the flags)."""
    return d.ctrl[m.ai.shape[0] + d.gap.shape[0] + c] != 0.0


@njit(cache=True)
def _switch_contacts(m, d, ed, fsal):
    """Contact switches, sampled at row times (d is evaluated at the row state): a closed contact
    switched off leaves the active set (the bodies then pass through each other)."""
    if m.switched.shape[0] == 0:
        return
    update_switches(m, d)
    for c in range(d.gap.shape[0]):
        if not _enabled(m, d, c) and ed[HEAD + CSTRIDE * c + K_ACTIVE] != 0.0:
            ed[HEAD + CSTRIDE * c + K_ACTIVE] = 0.0
            fsal[0] = False
            if ed[H_PENDING] == P_NONE:
                ed[H_PENDING] = P_CHECK


@njit(cache=True)
def _active_list(ed, nc, act, smode):
    """The closed contacts into act, how each moves into smode; returns how many."""
    na = 0
    for c in range(nc):
        if ed[HEAD + CSTRIDE * c + K_ACTIVE] != 0.0:
            act[na] = c
            smode[na] = ed[HEAD + CSTRIDE * c + K_MODE]
            na += 1
    return na


@njit(cache=True)
def _advance(m, d, ed, ev, nev, x_next, rcont, T, act, smode, lam, K, y1, rc, ends, lams, fsal):
    """Steps until the current step covers time T (scratch from run_rows). Returns (code,
    candidate, events logged). With actuators, steps end at row times and at the sample times k·T
    of the sampled controllers (and when a delayed output falls due): each is sampled there, at the
    state of that instant, and holds its output until the next (zero-order hold)."""
    nc = d.gap.shape[0]
    g0, u0, g1, u1, s0, s1 = ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
    lam0, lam_end = lams[0], lams[1]  # forces and tangential velocities of the closed contacts
    held_inputs = m.ai.shape[0] > 0
    while ed[H_TEND] < T:
        t0 = ed[H_TEND]
        if ed[H_PENDING] != P_NONE:
            fsal[0] = False
            if nev + 4 * nc + 4 > ev.shape[0]:
                return EVENTS_FULL, -1, nev
            nev = _handle_event(m, d, ed, ev, nev, x_next, t0)
            if t0 == ed[H_SAME_T]:
                ed[H_NSAME] += 1
                if ed[H_NSAME] > MAX_SAME_TIME:
                    return STALLED, int(ed[H_PCONT]), nev
            else:
                ed[H_SAME_T] = t0
                ed[H_NSAME] = 0
        t_stop = T
        if held_inputs:
            ts = _next_sample(m, d)
            if ts <= t0 + 1e-12 * (1.0 + abs(t0)):
                # a sample instant (the step before ended there): the controllers see this state
                set_point(m, d, x_next)
                apply_controllers(m, d, t0)
                fsal[0] = False
                ts = _next_sample(m, d)
            t_stop = min(T, ts)
        na = _active_list(ed, nc, act, smode)
        if fsal[0] and not held_inputs:
            K[0, :] = K[6]
            g0[:] = g1
            u0[:] = u1
            s0[:] = s1
            lam0[:] = lam_end
        else:
            derivative(m, d, act, na, smode, x_next, K[0], lam)
            lam0[:] = lam
            g0[:] = d.gap
            u0[:] = d.un
            _switch_values(m, d, s0)
        h = min(ed[H_HNEXT], HMAX)
        capped = held_inputs and h >= t_stop - t0
        if capped:
            h = t_stop - t0
        while True:
            err = dopri_step(m, d, act, na, smode, lam, x_next, K[0], h, K, y1, rc, RTOL, ATOL)
            if err <= 1.0:
                break
            h = next_step_size(h, err) if np.isfinite(err) else 0.25 * h
            capped = False
            if h < 1e-14 * (1.0 + abs(t0)):
                return STALLED, -1, nev
        # d holds the evaluation at y1 (the last stage): gaps and multipliers at the step's end (kept:
        # locating a root evaluates d elsewhere)
        lam_end[:] = lam
        g1[:] = d.gap
        u1[:] = d.un
        _switch_values(m, d, s1)
        theta, kind, who = 2.0, P_NONE, -1
        for k in range(m.switched.shape[0]):
            c = m.switched[k]
            if m.swi[c, SWI_KIND] != SW_AHEAD or ed[HEAD + CSTRIDE * c + K_ACTIVE] != 0.0:
                continue
            if not _enabled(m, d, c) and s1[c] > 0.0:
                th = 0.0 if s0[c] > 0.0 else _root(m, d, act, na, smode, rc, P_SWITCH_ON, c, 0.0, -s0[c], 1.0,
                                                   -s1[c], h)
                what = P_SWITCH_ON
            elif _enabled(m, d, c) and s0[c] > 0.0 >= s1[c] and g1[c] > GAP_TOL:
                th = _root(m, d, act, na, smode, rc, P_SWITCH_OFF, c, 0.0, s0[c], 1.0, s1[c], h)
                what = P_SWITCH_OFF
            else:
                continue
            if th < theta:
                theta, kind, who = th, what, c
        for c in range(nc):
            if ed[HEAD + CSTRIDE * c + K_ACTIVE] != 0.0 or not _enabled(m, d, c):
                continue
            th = _gap_root(m, d, act, na, smode, rc, c, g0[c], g1[c], u0[c], u1[c], h)
            if th < theta:
                theta, kind, who = th, P_GAP, c
        psign = 0.0
        for r in range(na):
            for what in (P_TAKEOFF, P_SLIP, P_STICK):
                if what != P_TAKEOFF and not frictional(m, act[r]):
                    continue
                if what == P_SLIP and smode[r] != 0.0 or what == P_STICK and smode[r] == 0.0:
                    continue
                f0 = _closed_value(m, act, smode, lam0, what, r)
                f1 = _closed_value(m, act, smode, lam_end, what, r)
                if f1 < 0.0:
                    # a function that starts non-positive (a take-off at once) gives the root 0
                    th = 0.0 if f0 <= 0.0 else _root(m, d, act, na, smode, rc, what, r, 0.0, f0, 1.0, f1, h)
                    if th < theta:
                        theta, kind, who = th, what, act[r]
                        psign = -1.0 if lam_end[nc + r] > 0.0 else 1.0  # slides against its force
        h_next = next_step_size(h, err)
        t1 = t_stop if capped else t0 + h
        if kind != P_NONE:
            h_ev = theta * h
            if h_ev < h:
                dopri_step(m, d, act, na, smode, lam, x_next, K[0], h_ev, K, y1, rc, RTOL, ATOL)
                h_next = ed[H_HNEXT]
                t1 = t0 + h_ev
                h = h_ev  # the dense output is the new step's
            ed[H_PENDING] = kind
            ed[H_PCONT] = who
            ed[H_PSIGN] = psign
        elif capped:
            h_next = max(h_next, ed[H_HNEXT])  # a step cut short by a row says nothing of the next
        fsal[0] = kind == P_NONE
        ed[H_T0] = t0
        ed[H_TEND] = t1
        ed[H_HDENSE] = h
        ed[H_HNEXT] = h_next
        x_next[:] = y1
        rcont[:] = rc
        if m.li.shape[0] > 0:
            _close_loops(m, d, x_next)
            fsal[0] = False
    return OK, -1, nev


@njit(cache=True)
def _next_sample(m, d):
    """The earliest time a compiled sampled controller is due (its next k·T, or a delayed output of
    its queue); inf when none is."""
    ki, kf, ctrl = m.ki, m.kf, d.ctrl
    t = np.inf
    for b in range(ki.shape[0]):
        kind = ki[b, KI_KIND]
        if kind == K_NONE:
            continue
        c0 = ki[b, KI_C0]
        if kind != K_PYTHON and kf[b, KF_PERIOD] > 0.0:
            t = min(t, ctrl[c0 + KC_NEXT])
        if ctrl[c0 + KC_PENDING] > 0.0:
            t = min(t, ctrl[c0 + KC_QUEUE])
    return t


@njit(cache=True)
def _switch_values(m, d, out):
    """The condition of each `ahead` switch at the evaluated state, positive when it holds (the contact
    point ahead of its reference point along the axis and, if asked, approaching): a root function
    like a gap (stepper.update_switches samples the same condition at row times)."""
    swi, swf, kin = m.swi, m.swf, d.kin
    for k in range(m.switched.shape[0]):
        c = m.switched[k]
        if swi[c, SWI_KIND] != SW_AHEAD:
            continue
        rx, ry = point_world(swi[c, SWI_BODY], swf[c, SWF_PX], swf[c, SWF_PY], kin.pos, kin.ang)
        s = (d.pa[c, 0] - rx) * swf[c, SWF_AX] + (d.pa[c, 1] - ry) * swf[c, SWF_AY]
        if swi[c, SWI_APPROACH] != 0:
            s = min(s, -d.un[c])
        out[c] = s


@njit(cache=True)
def _close_loops(m, d, x):
    """Drift of the loop joints (the smooth phase holds them at acceleration level only): after each
    step q is projected onto g(q) = 0 and v onto H_b v = 0, both M-orthogonally (loops.py), what this
    changes in energy booked in energy.projection."""
    n = d.q.shape[0]
    upot = set_point(m, d, x)
    project_loops(m, d, upot)
    keep_loop_velocities(m, d, np.zeros(n))
    x[:n] = d.q
    x[n:2 * n] = d.v


@njit(cache=True)
def _closed_value(m, act, smode, lam, kind, r):
    """The event function of closed contact r from derivative's lam: its normal force (take-off),
    μ λ_N − |λ_T| (slip), s u_T (a sliding one stops)."""
    nc = lam.shape[0] // 3
    if kind == P_TAKEOFF:
        return lam[r]
    if kind == P_SLIP:
        return m.cf[act[r], CF_MU] * lam[r] - abs(lam[nc + r])
    return smode[r] * lam[2 * nc + r]


@njit(cache=True)
def _event_value(m, d, act, na, smode, rc, kind, idx, theta):
    """A gap (kind P_GAP, candidate idx) or a closed contact's event function (row idx of the
    active set) on the dense output at theta."""
    N = rc.shape[0] // 5
    xs = np.empty(N)
    dense(rc, theta, xs)
    if kind == P_GAP:
        set_point(m, d, xs)
        return d.gap[idx]
    if kind == P_SWITCH_ON or kind == P_SWITCH_OFF:
        set_point(m, d, xs)
        s = np.zeros(d.gap.shape[0])
        _switch_values(m, d, s)
        return -s[idx] if kind == P_SWITCH_ON else s[idx]
    lam = np.zeros(3 * act.shape[0])
    derivative(m, d, act, na, smode, xs, np.empty(N), lam)
    return _closed_value(m, act, smode, lam, kind, idx)


@njit(cache=True)
def _root(m, d, act, na, smode, rc, kind, idx, a, fa, b, fb, h):
    """Illinois on [a, b] (fractions of the step h) with fa > 0 >= fb: returns the end of the final
    bracket on the non-positive side (the contact touches, or its force has vanished)."""
    side = 0
    for _ in range(200):
        if (b - a) * h <= ROOT_TOL or fb == 0.0:
            break
        c = b - fb * (b - a) / (fb - fa)
        if not (a < c < b):
            c = 0.5 * (a + b)
        fc = _event_value(m, d, act, na, smode, rc, kind, idx, c)
        a, fa, b, fb, side = _illinois(a, fa, b, fb, side, c, fc)
    return b


@njit(cache=True)
def _illinois(a, fa, b, fb, side, c, fc):
    """The bracket [a, b] (fa > 0 >= fb) narrowed at c, where the value is fc, with Illinois' halving
    of the end that stays twice in a row (`side`: the end last moved), so false position cannot stall."""
    if fc > 0.0:
        if side == 1:
            fb *= 0.5
        return c, fc, b, fb, 1
    if side == -1:
        fa *= 0.5
    return a, fa, c, fc, -1


@njit(cache=True)
def _gap_newton(m, d, rc, c, a, fa, b, fb, h):
    """The root of open contact c's gap on [a, b] (fractions of the step h, fa > 0 >= fb), as _root
    returns it (the end of a bracket narrower than ROOT_TOL, on the touching side), by Newton's method
    safeguarded in the bracket: the normal velocity is the gap's rate, so a few evaluations do. Where
    Newton does not apply (the contact still leaving at th: a gap that rises before it falls) the step
    is Illinois' (plain false position stalls at the end where the gap is ~0: a contact that has
    just left, the rod's bouncing end, then found its root at the far end of the step, 4e-4 m deep)."""
    N = rc.shape[0] // 5
    xs = np.empty(N)
    th = b - fb * (b - a) / (fb - fa)
    side = 0
    for _ in range(100):
        if not (a < th < b):
            th = 0.5 * (a + b)
        dense(rc, th, xs)
        set_point(m, d, xs)
        f, df = d.gap[c], d.un[c] * h
        a, fa, b, fb, side = _illinois(a, fa, b, fb, side, th, f)
        if (b - a) * h <= ROOT_TOL or f == 0.0:
            break
        step = f / df if df < 0.0 else np.inf
        if abs(step) * h < 0.25 * ROOT_TOL:
            # converged: close the bracket on the other side of this point
            th = th + (0.5 if f > 0.0 else -0.5) * ROOT_TOL / h
        elif np.isfinite(step) and a < th - step < b:
            th = th - step
        else:
            th = b - fb * (b - a) / (fb - fa)
    return b


@njit(cache=True)
def _gap_root(m, d, act, na, smode, rc, c, g0, g1, u0, u1, h):
    """The fraction of the step where open contact c first touches (2.0: it does not)."""
    if g1 < 0.0:
        if g0 > 0.0:
            return _gap_newton(m, d, rc, c, 0.0, g0, 1.0, g1, h)
        # it starts touching (it has just left, or grazes): the flight above the contact ends at
        # the last crossing; halve until a point above it is found
        b, fb = 1.0, g1
        for _ in range(60):
            a = 0.5 * b
            fa = _event_value(m, d, act, na, smode, rc, P_GAP, c, a)
            if fa > 0.0:
                return _gap_newton(m, d, rc, c, a, fa, b, fb, h)
            b, fb = a, fa
        return 0.0
    if u0 < 0.0 < u1 and g0 > 0.0:
        # approaching then leaving within the step: the gap may dip below zero and come back
        a = u0 / (u0 - u1)
        fm = _event_value(m, d, act, na, smode, rc, P_GAP, c, a)
        if fm < 0.0:
            return _gap_newton(m, d, rc, c, 0.0, g0, a, fm, h)
    return 2.0


@njit(cache=True)
def _log(ev, nev, t, kind, c, upre, upost, pn, lost, tstar):
    row = ev[nev]
    row[EV_T] = t
    row[EV_KIND] = kind
    row[EV_CONTACT] = c
    row[EV_UPRE] = upre
    row[EV_UPOST] = upost
    row[EV_PN] = pn
    row[EV_LOST] = lost
    row[EV_TSTAR] = tstar
    return nev + 1


@njit(cache=True)
def _accumulating(ed, c, t):
    """Books an impact of contact c at t; returns t* if its impacts accumulate (three consecutive
    ratios of intervals agreeing to 1 %, below 1, and what is left of the geometric series shorter
    than ZENO_WINDOW), else -inf."""
    k = HEAD + CSTRIDE * c
    tl = ed[k + K_TLAST]
    ed[k + K_TLAST] = t
    if not np.isfinite(tl):
        return -np.inf
    delta = t - tl
    dl = ed[k + K_DLAST]
    ed[k + K_DLAST] = delta
    if dl <= 0.0:
        return -np.inf
    r = delta / dl
    rl = ed[k + K_RLAST]
    ed[k + K_RLAST] = r
    if 0.0 < r < 1.0 and rl > 0.0 and abs(r - rl) <= 0.01 * rl:
        ed[k + K_STREAK] += 1.0
    else:
        ed[k + K_STREAK] = 0.0
    rest = delta * r / (1.0 - r) if r < 1.0 else np.inf
    if ed[k + K_STREAK] >= 2.0 and rest < ZENO_WINDOW:
        return t + rest
    return -np.inf


@njit(cache=True)
def _book_impact(m, d, ed, x_next, cands, k, PN, PT, UNm, UNp, UTm, UTp):
    """Energy and row percussions of an impact: each percussion's work, −P (U⁺ + U⁻)/2, normal to
    ACC_IMPACT, tangential to the friction loss carried in the state (x_next)."""
    n = d.q.shape[0]
    for r in range(k):
        kc = HEAD + CSTRIDE * cands[r]
        ed[kc + K_PN] += PN[r]
        ed[kc + K_PT] += PT[r]
        d.energy[ACC_IMPACT] -= PN[r] * (UNp[r] + UNm[r]) * 0.5
        x_next[2 * n + 2] -= PT[r] * (UTp[r] + UTm[r]) * 0.5
    x_next[n:2 * n] = d.v
    set_point(m, d, x_next)


@njit(cache=True)
def _handle_event(m, d, ed, ev, nev, x_next, t):
    """The event pending at time t, at the state x_next: impacts (Newton's law over the touching
    contacts, with Coulomb friction), then which touching contacts stay closed and how they move
    (the acceleration problem). Updates x_next and the active set, logs the events; returns the
    number of events logged."""
    nc = d.gap.shape[0]
    kind, who, psign = int(ed[H_PENDING]), int(ed[H_PCONT]), ed[H_PSIGN]
    ed[H_PENDING] = P_NONE
    cf = m.cf
    na_act = m.ai.shape[0]
    set_point(m, d, x_next)
    if kind == P_SWITCH_ON or kind == P_SWITCH_OFF:  # a switch condition's root: the flag, then as a check
        on = kind == P_SWITCH_ON
        d.ctrl[na_act + nc + who] = 1.0 if on else 0.0
        nev = _log(ev, nev, t, EV_ENABLED if on else EV_DISABLED, who, d.un[who], d.un[who], 0.0, 0.0, np.nan)
    cands = np.zeros(nc, np.int64)
    e = np.zeros(nc)
    et = np.zeros(nc)
    tstar = np.full(nc, -np.inf)
    k = 0
    approaching = False
    bridge_v = -1.0  # an accumulation bridged: the fastest approach among its impacts
    for c in range(nc):
        active = ed[HEAD + CSTRIDE * c + K_ACTIVE] != 0.0
        touching = d.gap[c] <= GAP_TOL or (kind == P_GAP and c == who)
        if not _enabled(m, d, c):
            continue
        if active or touching:
            cands[k] = c
            if not active and d.un[c] < -VEL_TOL:
                approaching = True
                tstar[k] = _accumulating(ed, c, t)
                e[k] = cf[c, CF_E]
                et[k] = cf[c, CF_ET]
                if np.isfinite(tstar[k]):
                    e[k] = 0.0
                    bridge_v = max(bridge_v, -d.un[c])
            k += 1
    if approaching:
        PN, PT, UNm, UNp, UTm, UTp, st = impact(m, d, cands, k, e, et)
        for r in range(k):
            c = cands[r]
            kc = HEAD + CSTRIDE * c
            if UNm[r] < -VEL_TOL and ed[kc + K_ACTIVE] == 0.0:
                lost = -(PN[r] * (UNp[r] + UNm[r]) + PT[r] * (UTp[r] + UTm[r])) * 0.5
                nev = _log(ev, nev, t, EV_IMPACT, c, UNm[r], UNp[r], PN[r], lost, np.nan)
                if UNm[r] < -m.fs[FS_IMPACT]:
                    ed[kc + K_IMPACT] = 1.0
                    d.stats[ST_IMPACTS] += 1
                    d.ctrl[na_act + c] += 1.0
                if np.isfinite(tstar[r]):
                    nev = _log(ev, nev, t, EV_ACCUMULATION, c, UNm[r], UNp[r], PN[r], lost, tstar[r])
        _book_impact(m, d, ed, x_next, cands, k, PN, PT, UNm, UNp, UTm, UTp)
    # closed contacts: touching (or closed before) with a normal velocity ~0 — a closed contact that
    # an impact elsewhere sets separating leaves, as does the take-off contact: remove what is left
    # of their approach (a plastic impact, nothing when they are at rest), then the acceleration
    # problem. Bridging an accumulation closes every contact taking part in it (a rocking block's
    # two corners): those within BRIDGE_GAP whose normal speed is at most twice the last approach,
    # all brought to rest (the limit of the accumulation)
    bridge = bridge_v >= 0.0
    gtol = BRIDGE_GAP if bridge else GAP_TOL
    vtol = 2.0 * bridge_v + VEL_TOL if bridge else VEL_TOL
    k = 0
    for c in range(nc):
        if (kind == P_TAKEOFF and c == who) or not _enabled(m, d, c):
            continue
        active = ed[HEAD + CSTRIDE * c + K_ACTIVE] != 0.0
        touching = d.gap[c] <= gtol or (kind == P_GAP and c == who)
        if (active or touching) and abs(d.un[c]) <= vtol:
            cands[k] = c
            k += 1
    lamN = np.zeros(k)
    smode = np.zeros(k)
    if k > 0:
        e[:k] = 0.0
        et[:k] = 0.0
        if bridge:
            P, Um, Up = rest(m, d, cands, k)
            for r in range(k):
                ed[HEAD + CSTRIDE * cands[r] + K_PN] += P[r]
            d.energy[ACC_IMPACT] -= np.sum(P * (Up + Um)) * 0.5
            x_next[d.q.shape[0]:2 * d.q.shape[0]] = d.v
            set_point(m, d, x_next)
        else:
            PN, PT, UNm, UNp, UTm, UTp, st = impact(m, d, cands, k, e, et)
            _book_impact(m, d, ed, x_next, cands, k, PN, PT, UNm, UNp, UTm, UTp)
        # how each moves: sliding where its tangential velocity is not ~0 (or where a slip starts),
        # else sticking if the friction cone holds the force that needs, else sliding against it
        for r in range(k):
            c = cands[r]
            ut = tangential_speed(m, d, c, r)
            if kind == P_SLIP and c == who:
                smode[r] = psign
            elif frictional(m, c) and abs(ut) > m.fs[FS_STICK]:
                smode[r] = 1.0 if ut > 0.0 else -1.0
        for _ in range(k + 1):
            lamN, lamT, st = closing_multipliers(m, d, cands, k, smode)
            changed = False
            for r in range(k):
                c = cands[r]
                if smode[r] == 0.0 and frictional(m, c) and lamN[r] > 0.0 \
                        and abs(lamT[r]) > cf[c, CF_MU] * lamN[r] * (1.0 + 1e-9) + 1e-12:
                    smode[r] = -1.0 if lamT[r] > 0.0 else 1.0
                    changed = True
            if not changed:
                break
    closed = np.zeros(nc, np.bool_)
    mode = np.zeros(nc)
    for r in range(k):
        if lamN[r] > 0.0:
            closed[cands[r]] = True
            mode[cands[r]] = smode[r]
    for c in range(nc):
        kc = HEAD + CSTRIDE * c
        was = ed[kc + K_ACTIVE] != 0.0
        if closed[c] and (not was or (frictional(m, c) and (mode[c] == 0.0) != (ed[kc + K_MODE] == 0.0))):
            if frictional(m, c):
                slip = mode[c] != 0.0
            else:
                slip = abs(tangential_speed(m, d, c, 0)) > m.fs[FS_STICK]
            nev = _log(ev, nev, t, EV_SLIP if slip else EV_STICK, c, d.un[c], d.un[c], 0.0, 0.0, np.nan)
        elif was and not closed[c]:
            nev = _log(ev, nev, t, EV_OPEN, c, d.un[c], d.un[c], 0.0, 0.0, np.nan)
        ed[kc + K_ACTIVE] = 1.0 if closed[c] else 0.0
        ed[kc + K_MODE] = mode[c]
    return nev


@njit(cache=True)
def _fill_row_state(m, d, ed, act, na, lam, xs, h_row):
    """What a row records beyond q and v (evaluated at the row state): the energies integrated with
    the motion, each contact's percussions since the last row (impacts plus force × dt) and status."""
    n, nc = d.q.shape[0], d.gap.shape[0]
    d.energy[ACC_DAMPING] = xs[2 * n]
    d.energy[ACC_ACTUATORS] = xs[2 * n + 1]
    d.energy[ACC_FRICTION] = xs[2 * n + 2]
    nu = d.u.shape[0]
    d.ctrl[:nu] = d.u
    perturbation_force(m, d)  # recorded: the force at the row state
    force = np.zeros(nc)
    tforce = np.zeros(nc)
    for r in range(na):
        if lam[r] > 0.0:
            force[act[r]] = lam[r]
            tforce[act[r]] = lam[nc + r]
    for r in range(d.lamB.shape[0]):  # derivative left the loops' forces at the row state
        d.lamB[r] *= h_row
    for c in range(nc):
        kc = HEAD + CSTRIDE * c
        d.lamN[c] = ed[kc + K_PN] + force[c] * h_row
        d.lamT[c] = ed[kc + K_PT] + tforce[c] * h_row
        if ed[kc + K_IMPACT] != 0.0:
            d.status[c] = IMPACT
        elif ed[kc + K_ACTIVE] != 0.0:
            if frictional(m, c):
                d.status[c] = STICK if ed[kc + K_MODE] == 0.0 else SLIP
            else:
                d.status[c] = SLIP if abs(tangential_speed(m, d, c, 0)) > m.fs[FS_STICK] else STICK
        else:
            d.status[c] = OPEN
        ed[kc + K_PN] = 0.0
        ed[kc + K_PT] = 0.0
        ed[kc + K_IMPACT] = 0.0


@njit(cache=True)
def _keep_snapshot(d, ed, snaps, clock, step):
    """stepper.keep_snapshot, with the integrator's state ed at the end of the snapshot row."""
    before = clock[2]
    keep_snapshot(d, snaps, clock, step)
    if clock[2] > before:
        row = snaps[int(clock[2]) - 1]
        w = ed.shape[0]
        row[row.shape[0] - w:] = ed
