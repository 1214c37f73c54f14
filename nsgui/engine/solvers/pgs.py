"""Projected Gauss-Seidel for the LCP 0 <= z _|_ q + M z >= 0, omega = 1 (docs/numerics.md, step 4;
(T6.1) of the time-stepping digest). M in compressed sparse rows (_linalg): a sweep costs O(nnz)."""
import numpy as np
import numba

from ._linalg import bad_input, csr_bad_input, csr_diagonal, csr_from_dense, csr_matvec_plus, csr_transpose
from ..codes import BAD_INPUT, ITERATION_CAP, SOLVED


@numba.njit(cache=True)
def _natural_residual(z, w):
    res = 0.0
    for i in range(z.shape[0]):
        e = abs(min(z[i], w[i]))
        if not (np.isfinite(z[i]) and np.isfinite(w[i])):
            return np.inf
        if e > res:
            res = e
    return res


@numba.njit(cache=True)
def pgs_lcp(M, q, z0, tol, max_iter):
    """pgs_lcp_csr for a dense M (same iterates: the sums skip only exact zeros)."""
    m = q.shape[0]
    if bad_input(M, q, z0, m):
        return np.zeros(m), BAD_INPUT, 0, np.inf
    ptr, col, val = csr_from_dense(M)
    tptr, tcol, tval = csr_transpose(ptr, col, val, m)
    return pgs_lcp_csr(ptr, col, val, tptr, tcol, tval, q, z0, tol, max_iter)


@numba.njit(cache=True)
def pgs_lcp_csr(ptr, col, val, tptr, tcol, tval, q, z0, tol, max_iter):
    """Projected Gauss-Seidel warm-started from z0 (negative entries are clipped to 0), M given by its
    rows (ptr, col, val) and its columns (tptr, tcol, tval: the rows of Mᵀ; the same arrays for a
    symmetric M).

    Returns (z, status, iterations, residual) with residual = ||z - max(0, z - (q + M z))||inf
    (absolute); status 0 when residual <= tol, 2 when max_iter sweeps were not enough (or the
    iterates became non-finite), 4 bad input (shapes, non-finite q).
    Rows with M_ii <= 0 are left at z_i = 0 (they cannot be relaxed; the residual reports them).
    w = q + M z is updated incrementally and recomputed exactly before convergence is declared.
    """
    m = q.shape[0]
    z = np.zeros(m)
    if csr_bad_input(ptr, q, z0, m) or tptr.shape[0] != m + 1:
        return z, BAD_INPUT, 0, np.inf
    diag = csr_diagonal(ptr, col, val)
    for i in range(m):
        z[i] = max(z0[i], 0.0)
    for i in range(m):
        if not (diag[i] > 0.0):
            z[i] = 0.0
    w = np.empty(m)
    csr_matvec_plus(ptr, col, val, z, q, w)
    res = _natural_residual(z, w)
    if res <= tol:
        return z, SOLVED, 0, res
    it = 0
    while it < max_iter:
        it += 1
        for i in range(m):
            mii = diag[i]
            if not (mii > 0.0):
                continue
            zi = z[i] - w[i] / mii
            if zi < 0.0:
                zi = 0.0
            dz = zi - z[i]
            if dz != 0.0:
                z[i] = zi
                for p in range(tptr[i], tptr[i + 1]):
                    w[tcol[p]] += tval[p] * dz
        res = _natural_residual(z, w)
        if res <= tol:
            csr_matvec_plus(ptr, col, val, z, q, w)
            res = _natural_residual(z, w)
            if res <= tol:
                return z, SOLVED, it, res
    csr_matvec_plus(ptr, col, val, z, q, w)
    res = _natural_residual(z, w)
    return z, (SOLVED if res <= tol else ITERATION_CAP), it, res
