"""Desired trajectories q_d(t) with their velocity and acceleration, evaluated inside the compiled loop.

A trajectory is packed into a law's float parameters as [kind, its numbers...] (pack_trajectory);
`trajectory(P, k, t)` reads the one starting at P[k]. A spline is packed as its breakpoints and the
coefficients of a clamped cubic (zero velocity at both ends, so holding its end values outside is
smooth).
"""

import math

from numba import njit

from ..codes import T_CONSTANT, T_CUBIC, T_RAMP, T_SINE, T_SPLINE, TRAJECTORY_KINDS


def pack_trajectory(traj, default=0.0):
    """The floats of a scene Trajectory (None: constant `default`)."""
    if traj is None:
        return [float(T_CONSTANT), float(default)]
    kind = TRAJECTORY_KINDS[traj.type]
    if traj.type == "constant":
        return [float(kind), traj.value]
    if traj.type == "ramp":
        return [float(kind), traj.start, traj.rate, traj.t0, -1.0 if traj.t1 is None else traj.t1]
    if traj.type == "sine":
        return [float(kind), traj.offset, traj.amplitude, traj.frequency, traj.phase]
    if traj.type == "cubic":
        return [float(kind), traj.start, traj.end, traj.t0, traj.t1]
    from scipy.interpolate import CubicSpline  # only scenes with splines pay for the import
    cs = CubicSpline(traj.times, traj.values, bc_type="clamped")
    coef = cs.c.T  # (n - 1, 4), highest power first, in t - times[i]
    return [float(kind), float(len(traj.times))] + list(map(float, traj.times)) + coef.ravel().tolist()


def initial_value(traj, default=0.0):
    """q_d(0) of a scene Trajectory, in Python (what a block holds before its first sample)."""
    return trajectory_py(pack_trajectory(traj, default), 0.0)[0]


@njit(cache=True)
def trajectory(P, k, t):
    """(q_d, v_d, a_d) at time t of the trajectory packed at P[k]."""
    kind = int(P[k])
    if kind == T_CONSTANT:
        return P[k + 1], 0.0, 0.0
    if kind == T_RAMP:
        start, rate, t0, t1 = P[k + 1], P[k + 2], P[k + 3], P[k + 4]
        if t <= t0:
            return start, 0.0, 0.0
        if t1 >= 0.0 and t >= t1:
            return start + rate * (t1 - t0), 0.0, 0.0
        return start + rate * (t - t0), rate, 0.0
    if kind == T_SINE:
        off, amp, w, ph = P[k + 1], P[k + 2], 2.0 * math.pi * P[k + 3], P[k + 4]
        s, c = math.sin(w * t + ph), math.cos(w * t + ph)
        return off + amp * s, amp * w * c, -amp * w * w * s
    if kind == T_CUBIC:
        a, b, t0, t1 = P[k + 1], P[k + 2], P[k + 3], P[k + 4]
        if t <= t0:
            return a, 0.0, 0.0
        if t >= t1:
            return b, 0.0, 0.0
        T = t1 - t0
        s = (t - t0) / T
        return a + (b - a) * s * s * (3.0 - 2.0 * s), (b - a) * 6.0 * s * (1.0 - s) / T, \
            (b - a) * (6.0 - 12.0 * s) / (T * T)
    if kind == T_SPLINE:
        n = int(P[k + 1])
        tk = k + 2
        ck = tk + n
        if t <= P[tk]:
            return P[ck + 3], 0.0, 0.0
        if t >= P[tk + n - 1]:
            i = n - 2
            x = P[tk + n - 1] - P[tk + i]
            c3, c2, c1, c0 = P[ck + 4 * i], P[ck + 4 * i + 1], P[ck + 4 * i + 2], P[ck + 4 * i + 3]
            return ((c3 * x + c2) * x + c1) * x + c0, 0.0, 0.0
        i = 0
        while i < n - 2 and t >= P[tk + i + 1]:
            i += 1
        x = t - P[tk + i]
        c3, c2, c1, c0 = P[ck + 4 * i], P[ck + 4 * i + 1], P[ck + 4 * i + 2], P[ck + 4 * i + 3]
        return ((c3 * x + c2) * x + c1) * x + c0, (3.0 * c3 * x + 2.0 * c2) * x + c1, 6.0 * c3 * x + 2.0 * c2
    return 0.0, 0.0, 0.0


def trajectory_py(packed, t):
    """`trajectory` from Python on a packed list (tests, the views' desired curves)."""
    import numpy as np
    return trajectory(np.asarray(packed, float), 0, float(t))
