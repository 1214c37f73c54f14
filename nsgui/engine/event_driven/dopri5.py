"""Dormand–Prince 5(4) with Hairer's dense output (DOPRI5), compiled: the smooth phases of the
event-driven integrator. The derivative is the constrained dynamics of contact_dynamics.derivative,
called directly (numba has no cheap function arguments).

A step gives the 5th-order solution, a 4th-order error estimate and five vectors from which
`dense` interpolates the solution anywhere in the step (4th order, continuous): rows on the time
grid and root finding use it without stepping again.
"""

import numpy as np
from numba import njit

from .contact_dynamics import derivative

C2, C3, C4, C5 = 1 / 5, 3 / 10, 4 / 5, 8 / 9
A21 = 1 / 5
A31, A32 = 3 / 40, 9 / 40
A41, A42, A43 = 44 / 45, -56 / 15, 32 / 9
A51, A52, A53, A54 = 19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729
A61, A62, A63, A64, A65 = 9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656
A71, A73, A74, A75, A76 = 35 / 384, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84
E1, E3, E4, E5, E6, E7 = 71 / 57600, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40
D1, D3, D4, D5 = -12715105075 / 11282082432, 87487479700 / 32700410799, -10690763975 / 1880347072, \
    701980252875 / 199316789632
D6, D7 = -1453857185 / 822651844, 69997945 / 29380423


@njit(cache=True)
def dopri_step(m, d, act, na, smode, lam, x0, k1, h, K, y1, rcont, rtol, atol):
    """One step of length h from x0 (k1 = f(x0) given). Writes the 5th-order solution y1, the dense
    output rcont (5 vectors of N, flat) and K[6] = f(y1) (the next step's k1: first same as last); lam holds the
    multipliers of the active contacts at y1. Returns the error norm (accept when <= 1)."""
    N = x0.shape[0]
    y = np.empty(N)
    k2, k3, k4, k5, k6, k7 = K[1], K[2], K[3], K[4], K[5], K[6]
    y[:] = x0 + h * A21 * k1
    derivative(m, d, act, na, smode, y, k2, lam)
    y[:] = x0 + h * (A31 * k1 + A32 * k2)
    derivative(m, d, act, na, smode, y, k3, lam)
    y[:] = x0 + h * (A41 * k1 + A42 * k2 + A43 * k3)
    derivative(m, d, act, na, smode, y, k4, lam)
    y[:] = x0 + h * (A51 * k1 + A52 * k2 + A53 * k3 + A54 * k4)
    derivative(m, d, act, na, smode, y, k5, lam)
    y[:] = x0 + h * (A61 * k1 + A62 * k2 + A63 * k3 + A64 * k4 + A65 * k5)
    derivative(m, d, act, na, smode, y, k6, lam)
    y1[:] = x0 + h * (A71 * k1 + A73 * k3 + A74 * k4 + A75 * k5 + A76 * k6)
    derivative(m, d, act, na, smode, y1, k7, lam)
    err = 0.0
    for i in range(N):
        e = h * (E1 * k1[i] + E3 * k3[i] + E4 * k4[i] + E5 * k5[i] + E6 * k6[i] + E7 * k7[i])
        sk = atol + rtol * max(abs(x0[i]), abs(y1[i]))
        err += (e / sk) ** 2
    for i in range(N):
        ydiff = y1[i] - x0[i]
        bspl = h * k1[i] - ydiff
        rcont[i] = x0[i]
        rcont[N + i] = ydiff
        rcont[2 * N + i] = bspl
        rcont[3 * N + i] = ydiff - h * k7[i] - bspl
        rcont[4 * N + i] = h * (D1 * k1[i] + D3 * k3[i] + D4 * k4[i] + D5 * k5[i] + D6 * k6[i] + D7 * k7[i])
    return np.sqrt(err / N)


@njit(cache=True)
def dense(rcont, theta, out):
    """The solution at the fraction theta of the step (theta = 0: its start, 1: its end)."""
    t1 = 1.0 - theta
    N = out.shape[0]
    for i in range(N):
        out[i] = rcont[i] + theta * (rcont[N + i] + t1 * (rcont[2 * N + i] + theta * (rcont[3 * N + i]
                                                                                    + t1 * rcont[4 * N + i])))


@njit(cache=True)
def next_step_size(h, err):
    """The usual controller: h · 0.9 err^(-1/5), changed by a factor in [0.2, 10]."""
    if err == 0.0:
        return 10.0 * h
    fac = 0.9 * err ** -0.2
    return h * min(10.0, max(0.2, fac))
