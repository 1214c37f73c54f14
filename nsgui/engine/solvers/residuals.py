"""Residuals of the one-step problems (used by tests and by the stepper's solver report).

Both are natural-map residuals with unit weight (rho = 1), infinity norm, unnormalised:
they mix percussion and velocity units exactly like the stopping tests of PGS and NSGS.
"""
import numpy as np
import numba


@numba.njit(cache=True)
def lcp_residual(M, q, z):
    """max_i |z_i - max(0, z_i - w_i)| = max_i |min(z_i, w_i)| with w = q + M z.

    Zero iff 0 <= z _|_ w >= 0. A negative z_i or w_i counts with its full size; any
    non-finite value gives inf.
    """
    m = q.shape[0]
    res = 0.0
    for i in range(m):
        w = q[i]
        for j in range(m):
            w += M[i, j] * z[j]
        e = abs(min(z[i], w))
        if not (np.isfinite(e) and np.isfinite(z[i]) and np.isfinite(w)):
            return np.inf
        if e > res:
            res = e
    return res


@numba.njit(cache=True, inline="always")
def fc2d_contact_residual(rN, rT, uN, uT, mu):
    """Per-contact residual of the 2-D Coulomb-Signorini law, see fc2d_residual."""
    if not (np.isfinite(rN) and np.isfinite(rT) and np.isfinite(uN) and np.isfinite(uT)
            and np.isfinite(mu)):
        return np.inf
    eN = abs(min(rN, uN))
    bound = mu * max(rN, 0.0)
    t = rT - uT
    if t > bound:
        t = bound
    elif t < -bound:
        t = -bound
    eT = abs(rT - t)
    return max(eN, eT)


@numba.njit(cache=True)
def fc2d_residual(W, q, mu, r):
    """Residual of the 2-D frictional contact problem u = W r + q (rows [N1, T1, N2, T2, ...]).

    Per contact: max(|r_N - max(0, r_N - u_N)|,
                     |r_T - proj_[-mu r_N+, mu r_N+](r_T - u_T)|)   (r_N+ = max(r_N, 0)).
    The first term vanishes iff 0 <= u_N _|_ r_N >= 0; given that, the second vanishes iff
    |r_T| <= mu r_N and r_T in -mu r_N d|u_T| (stick: u_T = 0 inside the interval; slip: r_T on
    the bound opposite to u_T). Returns the maximum over contacts (inf if anything is
    non-finite).
    """
    m = q.shape[0]
    nc = m // 2
    u = q.copy()
    for i in range(m):
        s = 0.0
        for j in range(m):
            s += W[i, j] * r[j]
        u[i] += s
    return fc2d_largest_residual(u, r, mu, nc)


@numba.njit(cache=True, inline="always")
def fc2d_largest_residual(u, r, mu, nc):
    """The largest fc2d_contact_residual of the nc contacts (inf if any is not finite). Compiled into
    its callers, with fc2d_contact_residual: a caller that calls nothing else keeps its arrays
    without reference counts (stepper._tiny_friction)."""
    res = 0.0
    for c in range(nc):  # (one return, no break: compiled into a caller, either keeps its reference counts)
        if res != np.inf:
            e = fc2d_contact_residual(r[2 * c], r[2 * c + 1], u[2 * c], u[2 * c + 1], mu[c])
            if not np.isfinite(e):
                res = np.inf
            elif e > res:
                res = e
    return res
