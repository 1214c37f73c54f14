"""The control seam inside the compiled loop: at the start of a step every controller block that is
due samples its law, and its outputs reach the actuator inputs d.u (held between samples) now or,
with a delay, when their time comes.

- Sampling: a block with a period samples when t reaches its next sample time (zero-order hold in
  between); without one it samples every step.
- Delay: a sample's output waits in the block's queue (in Data.ctrl, so snapshots keep it) until
  t_sample + delay; before the first one arrives the inputs are 0.
- Saturation: each input is clipped to its actuator's limit; a clipped input has no Jacobian.
- Implicit: a block sampled every step without delay hands its Jacobians du/dq and du/dv to the
  iteration matrix (stepper.free_velocity), so stiff PD gains do not blow up the explicit way.
- Inputs of actuators flagged in d.external are written by Python (Simulator.set_controller); a
  `python` block (K_PYTHON) is sampled by Python between kernel calls, which writes d.u or pushes
  into its delay queue: only the queue is popped here.

The laws live one per file in this package; `_dispatch` is the one place that lists them.
"""

from numba import njit

from ..codes import (AF_LIMIT, AI_COORD, FS_H, IS_IMPLICIT, K_BNO, K_COMPUTED_TORQUE, K_CONSTANT, K_MANIPULATOR,
                     K_NONE, K_PD, K_PYTHON, K_SIMBICON, K_SLOTINE_LI, K_STANDING, KC_NEXT, KC_PENDING, KC_QUEUE, KF_DELAY,
                     KF_PERIOD, KI_ACT0, KI_C0, KI_IMPLICIT, KI_KIND, KI_NACT, KI_NP, KI_NS, KI_NSIG, KI_P0, KI_QMAX,
                     KI_SIGCOL)
from ..perturbation import add_perturbation
from .bno import bno_law
from .computed_torque import computed_torque_law
from .constant import constant_law
from .manipulator import manipulator_law
from .pd import pd_law
from .simbicon import simbicon_law
from .slotine_li import slotine_li_law
from .standing import standing_law


@njit(cache=True)
def _dispatch(kind, m, d, t, P, S, u, dudq, dudv, sig, coords):
    if kind == K_PD:
        pd_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_CONSTANT:
        constant_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_COMPUTED_TORQUE:
        computed_torque_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_SLOTINE_LI:
        slotine_li_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_BNO:
        bno_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_MANIPULATOR:
        manipulator_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_STANDING:
        standing_law(m, d, t, P, S, u, dudq, dudv, sig, coords)
    elif kind == K_SIMBICON:
        simbicon_law(m, d, t, P, S, u, dudq, dudv, sig, coords)


@njit(cache=True)
def block_segment(ki, b):
    """(offset of the signals, offset of the state) of block b in Data.ctrl."""
    sig0 = ki[b, KI_C0] + KC_QUEUE + ki[b, KI_QMAX] * (1 + ki[b, KI_NACT])
    return sig0, sig0 + ki[b, KI_NSIG]


@njit(cache=True)
def apply_controllers(m, d, t):
    """Each block due at time t samples its law; outputs due (now or from the delay queue) are
    written to d.u, their Jacobians to d.dudq / d.dudv for implicit blocks."""
    ki, kf, kacts, kpar = m.ki, m.kf, m.kacts, m.kpar
    ctrl = d.ctrl
    h = m.fs[FS_H]
    for b in range(ki.shape[0]):
        kind = ki[b, KI_KIND]
        if kind == K_NONE:
            continue
        a0, na, c0, qmax = ki[b, KI_ACT0], ki[b, KI_NACT], ki[b, KI_C0], ki[b, KI_QMAX]
        period, delay = kf[b, KF_PERIOD], kf[b, KF_DELAY]
        tol = 1e-9 * (period if period > 0.0 else h)
        # a Python block samples between kernel calls (python_block.py); its delayed outputs wait here
        if kind != K_PYTHON and (period <= 0.0 or t >= ctrl[c0 + KC_NEXT] - tol):
            u, dq, dv = d.kbuf_u[:na], d.kbuf_dq[:na], d.kbuf_dv[:na]
            u[:] = 0.0
            dq[:, :] = 0.0
            dv[:, :] = 0.0
            sig0, s0 = block_segment(ki, b)
            p0 = ki[b, KI_P0]
            _dispatch(kind, m, d, t, kpar[p0:p0 + ki[b, KI_NP]], ctrl[s0:s0 + ki[b, KI_NS]], u, dq, dv,
                      ctrl[sig0:sig0 + ki[b, KI_NSIG]], m.kcoords[a0:a0 + na])
            if qmax > 0:
                _push(ctrl, c0, qmax, na, t + delay, u)
            else:
                _write_inputs(m, d, a0, na, u, dq, dv, ki[b, KI_IMPLICIT] != 0)
            if period > 0.0:
                while ctrl[c0 + KC_NEXT] <= t + tol:
                    ctrl[c0 + KC_NEXT] += period
        if qmax > 0:
            _pop_due(m, d, ctrl, c0, a0, na, t + 1e-9 * h)


@njit(cache=True)
def _write_inputs(m, d, a0, na, u, dq, dv, implicit):
    kacts, af, ext = m.kacts, m.af, d.external
    for i in range(na):
        a = kacts[a0 + i]
        if ext[a] != 0:
            continue
        x = u[i]
        lim = af[a, AF_LIMIT]
        clipped = False
        if x > lim:
            x, clipped = lim, True
        elif x < -lim:
            x, clipped = -lim, True
        d.u[a] = x
        if implicit:
            if clipped:
                d.dudq[a, :] = 0.0
                d.dudv[a, :] = 0.0
            else:
                d.dudq[a, :] = dq[i, :]
                d.dudv[a, :] = dv[i, :]


@njit(cache=True)
def _push(ctrl, c0, qmax, na, t_apply, u):
    """Append (t_apply, u) to the block's queue (full: the oldest pending output is dropped)."""
    w = 1 + na
    k = int(ctrl[c0 + KC_PENDING])
    base = c0 + KC_QUEUE
    if k == qmax:
        ctrl[base:base + (qmax - 1) * w] = ctrl[base + w:base + qmax * w].copy()
        k -= 1
    e = base + k * w
    ctrl[e] = t_apply
    ctrl[e + 1:e + 1 + na] = u
    ctrl[c0 + KC_PENDING] = k + 1


@njit(cache=True)
def _pop_due(m, d, ctrl, c0, a0, na, t):
    """Write the queued outputs whose time has come (the latest of them wins) and drop them."""
    w = 1 + na
    base = c0 + KC_QUEUE
    k = int(ctrl[c0 + KC_PENDING])
    due = 0
    while due < k and ctrl[base + due * w] <= t:
        due += 1
    if due == 0:
        return
    e = base + (due - 1) * w
    u = ctrl[e + 1:e + 1 + na].copy()
    _write_inputs(m, d, a0, na, u, d.kbuf_dq[:na], d.kbuf_dv[:na], False)
    rest = k - due
    if rest > 0:
        ctrl[base:base + rest * w] = ctrl[base + due * w:base + k * w].copy()
    ctrl[c0 + KC_PENDING] = rest


@njit(cache=True)
def actuator_forces(m, d):
    """d.Qact: the generalized forces of the inputs d.u and of the mouse perturbation (perturbation.py:
    an external input too, held like them)."""
    ai, u, Qact = m.ai, d.u, d.Qact
    Qact[:] = 0.0
    for i in range(ai.shape[0]):
        Qact[ai[i, AI_COORD]] += u[i]
    add_perturbation(m, d, Qact)


@njit(cache=True)
def add_actuator_jacobians(m, d, K, C):
    """K += dQact/dq, C += dQact/dv (the implicit blocks' rows; zero rows for the others)."""
    ai, dudq, dudv = m.ai, d.dudq, d.dudv
    for i in range(ai.shape[0]):
        j = ai[i, AI_COORD]
        for k in range(K.shape[1]):
            K[j, k] += dudq[i, k]
            C[j, k] += dudv[i, k]


@njit(cache=True)
def applied_inputs(m, d, theta, h):
    """The inputs the step actually applied (into d.ctrl[:na], recorded as u.<actuator>): the held
    input plus, for implicit blocks, the linearized change over the step,
    u + θ du/dv (v_new − v) + hθ du/dq v_θ."""
    ctrl, u = d.ctrl, d.u
    if m.isets[IS_IMPLICIT] == 0:
        ctrl[:u.shape[0]] = u
        return
    dudq, dudv, dvel, vth = d.dudq, d.dudv, d.v_new - d.v, d.vth
    for i in range(u.shape[0]):
        ctrl[i] = u[i] + theta * (dudv[i] @ dvel) + h * theta * (dudq[i] @ vth)


def block_signal_offsets(ki):
    """Python: (signals offset, state offset) of every block (for the simulator's views of Data.ctrl)."""
    return [block_segment(ki, b) for b in range(ki.shape[0])]


__all__ = ["apply_controllers", "actuator_forces", "add_actuator_jacobians", "applied_inputs", "block_segment",
           "block_signal_offsets"]
