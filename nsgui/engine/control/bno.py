"""The Brogliato–Niculescu–Orhant switching tracking scheme of seed 004 (control digest §7; the phase
logic of the public Siconos example, rewritten): an end effector tracks a circle that dips below a
surface, following the surface where the circle is infeasible.

Task frame: world x (tangential) and y (normal); the surface is y = `surface_y`; the circle
X_c(t) = centre + radius (cos ωt, sin ωt), ω = 2π/period, leaves the admissible side at t_leave and
re-enters at t_enter in each cycle [kP, (k+1)P) (P/2 and P when the centre is on the surface).
Every mode uses the task-space Slotine–Li law (slotine_li.task_space_law) toward its desired point,
plus a normal force in modes 2 and 3. Modes (the `phase` signal):

0 free: the circle. At kP + t_leave − lead (exogenous switch, time-triggered) → 1, with τ0 = t.
1 transition before the first impact: x_d stops smoothly (x0 + ẋ0 δ (σ − σ³ + σ⁴/2), σ = (t − τ0)/δ,
  C² with zero end velocity); y_d follows a cubic from the circle's (y, ẏ) at τ0 to
  surface − depth with zero end velocity over `descent` (C7.3 with its initial velocity kept), where
  depth = depth_min + α √V(τ0) (the public code's −α√V1 form, with a floor so that a perfectly
  tracking arm still reaches the surface). The first step with a positive percussion → 2.
2 transition after the first impact (C7.4): q_d = (x_d, surface) for the feed-forward, and the
  feedback on q*_d = (x_d, surface − depth), i.e. an added normal force −γ1 γ2 depth. Every step with
  a positive percussion increments the impact counter n_i; two consecutive ones (persistent contact,
  t_f) → 3.
3 constrained (C7.5): y_d = surface, x_d a cubic to the re-entry point by kP + t_enter (zero end
  velocities); added normal force −λ_d + K_f (λ − λ_d), λ the contact force of the last step
  (percussion / h): at equilibrium λ = λ_d.
4 take-off, from kP + t_enter (also from an unfinished transition): y_d blends from the surface into
  the circle with a quintic weight over `takeoff` s, x_d is the circle's → 0.

State S = [mode, n_i, τ0, x0, ẋ0, y0, ẏ0, depth, previous step positive, t_c, x_c, t_end, next
switch, take-off start]; signals [phase, impacts, V, x_d, y_d, x, y, error], error = |X − X_d| with
y_d clipped to the surface (the feasible path).
"""

import math

import numpy as np
from numba import njit

from ..codes import FS_H
from .slotine_li import pack_task_frame, point_position, refused, task_space_law

FREE, BEFORE_IMPACT, AFTER_IMPACT, CONSTRAINED, TAKE_OFF = 0, 1, 2, 3, 4
POSITIVE = 1e-12  # N·s: a percussion above this counts as an impact step

P_G1, P_G2 = 0, 1
# P indices after the task frame [γ1, γ2, gravity, body, point x, point y]
(P_CAND, P_CX, P_CY, P_R, P_PERIOD, P_SURF, P_LEAD, P_STOP, P_DESCENT, P_DEPTH, P_ALPHA, P_LAMD, P_KF,
 P_TAKEOFF, P_TLEAVE, P_TENTER) = range(6, 22)
(S_MODE, S_NI, S_TAU0, S_X0, S_VX0, S_Y0, S_VY0, S_DEPTH, S_PREV, S_TC, S_XC, S_TEND, S_NEXT,
 S_TOFF) = range(14)
N_S = 14


def crossing_times(c):
    """(t_leave, t_enter) in a cycle: the circle crosses the surface downward, then upward."""
    a = (c.surface_y - c.centre[1]) / c.radius
    if not -1.0 < a < 1.0:
        raise refused(c, f"the circle (centre y {c.centre[1]:g}, radius {c.radius:g}) does not cross the "
                         f"surface y = {c.surface_y:g}")
    phi = math.asin(a)
    return c.cycle * (math.pi - phi) / (2 * math.pi), c.cycle * (2 * math.pi + phi) / (2 * math.pi)


def pack(c, model, coords):
    frame = pack_task_frame(c, model, coords, "the switching tracking scheme")
    if c.contact not in model.contact_names:
        raise refused(c, f"contact {c.contact!r} is not a one-point contact of the scene")
    t_leave, t_enter = crossing_times(c)
    if c.lead >= t_leave:
        raise refused(c, f"lead {c.lead:g} s must be shorter than the free part of the cycle ({t_leave:g} s)")
    P = frame + [float(model.contact_names.index(c.contact)), c.centre[0], c.centre[1], c.radius, c.cycle,
                 c.surface_y, c.lead, c.stop, c.descent, c.depth_min, c.alpha, c.contact_force, c.force_gain,
                 c.takeoff, t_leave, t_enter]
    S = [0.0] * N_S
    S[S_NEXT] = t_leave - c.lead
    xd, yd = c.centre[0] + c.radius, c.centre[1]
    x, y = point_position(model.scene, c.body, c.point)
    return P, S, [0.0, 0.0, 0.0, xd, yd, x, y, math.hypot(x - xd, y - max(yd, c.surface_y))]


@njit(cache=True)
def _circle(P, t):
    w = 2.0 * math.pi / P[P_PERIOD]
    r = P[P_R]
    c, s = math.cos(w * t), math.sin(w * t)
    return (P[P_CX] + r * c, P[P_CY] + r * s, -r * w * s, r * w * c, -r * w * w * c, -r * w * w * s)


@njit(cache=True)
def _stop(x0, v0, T, t):
    """Smooth stop from (x0, v0): x0 + v0 T (σ − σ³ + σ⁴/2), zero velocity and acceleration at σ = 1."""
    s = min(max(t / T, 0.0), 1.0)
    return (x0 + v0 * T * (s - s ** 3 + 0.5 * s ** 4), v0 * (1.0 - 3.0 * s * s + 2.0 * s ** 3),
            v0 * (-6.0 * s + 6.0 * s * s) / T)


@njit(cache=True)
def _hermite(y0, v0, y1, T, t):
    """Cubic from (y0, v0) to (y1, 0) over T, held after."""
    s = min(max(t / T, 0.0), 1.0)
    a1 = v0 * T
    a2 = 3.0 * (y1 - y0) - 2.0 * a1
    a3 = -2.0 * (y1 - y0) + a1
    return (y0 + a1 * s + a2 * s * s + a3 * s ** 3, (a1 + 2.0 * a2 * s + 3.0 * a3 * s * s) / T,
            (2.0 * a2 + 6.0 * a3 * s) / (T * T) if s < 1.0 else 0.0)


@njit(cache=True)
def bno_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    h = m.fs[FS_H]
    tol = 0.5 * h  # switch at the step nearest to a switching instant (t accumulates round-off)
    lam = d.lamN[int(P[P_CAND])]
    positive = lam > POSITIVE
    surf, g12 = P[P_SURF], P[P_G1] * P[P_G2]
    out = np.zeros(5)
    mode = int(S[S_MODE])
    # ---- transitions (the percussion is the last step's: an impact seen now happened in that step)
    if mode == FREE and t >= S[S_NEXT] - tol:
        xc, yc, vxc, vyc, axc, ayc = _circle(P, t)
        task_space_law(m, d, P, coords, xc, yc, vxc, vyc, axc, ayc, 0.0, 0.0, u, out)
        V0 = out[2] if out[2] == out[2] else 0.0
        S[S_TAU0], S[S_X0], S[S_VX0], S[S_Y0], S[S_VY0] = t, xc, vxc, yc, vyc
        S[S_DEPTH] = P[P_DEPTH] + P[P_ALPHA] * math.sqrt(max(V0, 0.0))
        S[S_NI], S[S_PREV] = 0.0, 0.0
        S[S_TEND] = S[S_NEXT] + P[P_LEAD] - P[P_TLEAVE] + P[P_TENTER]
        S[S_NEXT] += P[P_PERIOD]
        mode = BEFORE_IMPACT
    elif mode == BEFORE_IMPACT and positive:
        S[S_NI], S[S_PREV] = 1.0, 1.0
        mode = AFTER_IMPACT
    elif mode == AFTER_IMPACT:
        if positive:
            S[S_NI] += 1.0
            if S[S_PREV] != 0.0:
                S[S_TC] = t
                S[S_XC] = _stop(S[S_X0], S[S_VX0], P[P_STOP], t - S[S_TAU0])[0]
                mode = CONSTRAINED
        S[S_PREV] = 1.0 if positive else 0.0
    if (mode == BEFORE_IMPACT or mode == AFTER_IMPACT or mode == CONSTRAINED) and t >= S[S_TEND] - tol:
        S[S_TOFF] = t
        mode = TAKE_OFF
    if mode == TAKE_OFF and t >= S[S_TOFF] + P[P_TAKEOFF] - tol:
        mode = FREE
    S[S_MODE] = mode
    # ---- the desired point of the mode, and the added normal force
    fy = 0.0
    if mode == FREE:
        xd, yd, vxd, vyd, axd, ayd = _circle(P, t)
    elif mode == BEFORE_IMPACT or mode == AFTER_IMPACT:
        xd, vxd, axd = _stop(S[S_X0], S[S_VX0], P[P_STOP], t - S[S_TAU0])
        if mode == BEFORE_IMPACT:
            yd, vyd, ayd = _hermite(S[S_Y0], S[S_VY0], surf - S[S_DEPTH], P[P_DESCENT], t - S[S_TAU0])
        else:
            yd, vyd, ayd = surf, 0.0, 0.0
            fy = -g12 * S[S_DEPTH]
    elif mode == CONSTRAINED:
        x_end = _circle(P, S[S_TEND])[0]
        xd, vxd, axd = _hermite(S[S_XC], 0.0, x_end, S[S_TEND] - S[S_TC], t - S[S_TC])
        yd, vyd, ayd = surf, 0.0, 0.0
        lam_d, kf = P[P_LAMD], P[P_KF]
        fy = -lam_d + kf * (lam / h - lam_d)
    else:
        xd, yc, vxd, vyc, axd, ayc = _circle(P, t)
        T = P[P_TAKEOFF]
        s = min(max((t - S[S_TOFF]) / T, 0.0), 1.0)
        w = s ** 3 * (10.0 - 15.0 * s + 6.0 * s * s)
        w1 = 30.0 * s * s * (1.0 - s) ** 2 / T
        w2 = 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / (T * T)
        yd = surf + w * (yc - surf)
        vyd = w1 * (yc - surf) + w * vyc
        ayd = w2 * (yc - surf) + 2.0 * w1 * vyc + w * ayc
    task_space_law(m, d, P, coords, xd, yd, vxd, vyd, axd, ayd, 0.0, fy, u, out)
    sig[0], sig[1], sig[2] = mode, S[S_NI], out[2]
    sig[3], sig[4], sig[5], sig[6] = xd, yd, out[0], out[1]
    sig[7] = math.hypot(out[0] - xd, out[1] - max(yd, surf))

