"""2-D frictional contact via the LCP reformulation, solved by Lemke (docs/numerics.md, step 4; (T5.4)
of the time-stepping digest).

Per contact c the LCP variables are z = (r_N, r+, r-, beta) with r_T = r+ - r-, and
w = (u_N, beta + u_T, beta - u_T, mu r_N - r+ - r-).
"""
import numpy as np
import numba

from ._linalg import bad_input
from .lemke import lemke
from ..codes import BAD_INPUT, SOLVED


@numba.njit(cache=True)
def fc2d_to_lcp(W, q, mu):
    """Build (M, qq) of size 4 nc for the FC2D problem (W, q, mu)."""
    nc = q.shape[0] // 2
    n = 4 * nc
    M = np.zeros((n, n))
    qq = np.zeros(n)
    for c in range(nc):
        iN = 2 * c
        iT = iN + 1
        base = 4 * c
        qq[base] = q[iN]
        qq[base + 1] = q[iT]
        qq[base + 2] = -q[iT]
        for e in range(nc):
            jN = 2 * e
            jT = jN + 1
            cb = 4 * e
            # u_N row
            M[base, cb] = W[iN, jN]
            M[base, cb + 1] = W[iN, jT]
            M[base, cb + 2] = -W[iN, jT]
            # beta + u_T
            M[base + 1, cb] = W[iT, jN]
            M[base + 1, cb + 1] = W[iT, jT]
            M[base + 1, cb + 2] = -W[iT, jT]
            # beta - u_T
            M[base + 2, cb] = -W[iT, jN]
            M[base + 2, cb + 1] = -W[iT, jT]
            M[base + 2, cb + 2] = W[iT, jT]
        M[base + 1, base + 3] = 1.0
        M[base + 2, base + 3] = 1.0
        M[base + 3, base] = mu[c]
        M[base + 3, base + 1] = -1.0
        M[base + 3, base + 2] = -1.0
    return M, qq


@numba.njit(cache=True)
def lemke_fc2d(W, q, mu, max_pivots):
    """Solve u = W r + q with 2-D Coulomb-Signorini per contact via Lemke on (T5.4).

    Returns (r, status, pivots) with r interleaved [N1, T1, ...]; status as for lemke
    (4 also for an odd size or too few mu).
    """
    nc = q.shape[0] // 2
    r = np.zeros(q.shape[0])
    if q.shape[0] % 2 != 0 or bad_input(W, q, mu, nc):
        return r, BAD_INPUT, 0
    if nc == 0:
        return r, SOLVED, 0
    M, qq = fc2d_to_lcp(W, q, mu)
    z, status, pivots = lemke(M, qq, max_pivots)
    for c in range(nc):
        r[2 * c] = z[4 * c]
        r[2 * c + 1] = z[4 * c + 1] - z[4 * c + 2]
    return r, status, pivots
