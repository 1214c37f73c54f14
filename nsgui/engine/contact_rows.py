"""Sparse contact rows and the Delassus matrix W = H Ŵ⁻¹ Hᵀ of a step problem (numba kernels).

A candidate's normal and tangent Jacobian rows touch only the coordinates on the paths of its two
bodies (ModelArrays.ccols[c, :ccn[c]]): rows stay sparse, so chains cost O(m²), not O(m n²).
"""

import numpy as np
from numba import njit

from .codes import CI_ABODY, CI_BBODY, CI_BTYPE, CI_VCOUNT, LIMIT
from .solvers._linalg import lu_solve_factored


@njit(cache=True)
def sdot(cols, vals, nnz, x):
    acc = 0.0
    for kk in range(nnz):
        acc += vals[kk] * x[cols[kk]]
    return acc


@njit(cache=True)
def densify(rcols, rvals, rnnz, n):
    k = rnnz.shape[0]
    H = np.zeros((k, n))
    for r in range(k):
        for kk in range(rnnz[r]):
            H[r, rcols[r, kk]] += rvals[r, kk]
    return H


@njit(cache=True)
def sparse_rows_times(rcols, rvals, rnnz, X):
    """H X for sparse rows H (k x n) and dense X (n x k): the Delassus matrix W = H Ŵ⁻¹ Hᵀ."""
    k = rnnz.shape[0]
    W = np.zeros((k, X.shape[1]))
    for r in range(k):
        for s in range(X.shape[1]):
            acc = 0.0
            for kk in range(rnnz[r]):
                acc += rvals[r, kk] * X[rcols[r, kk], s]
            W[r, s] = acc
    return W


@njit(cache=True)
def delassus_sparse(rcols, rvals, rnnz, Minv):
    """X = Minv Hᵀ and W = H X for sparse rows H (chains: O(m²) work, not O(m n²))."""
    k = rnnz.shape[0]
    n = Minv.shape[0]
    X = np.zeros((n, k))
    for r in range(k):
        for kk in range(rnnz[r]):
            j = rcols[r, kk]
            hj = rvals[r, kk]
            for i in range(n):
                X[i, r] += Minv[i, j] * hj
    return X, sparse_rows_times(rcols, rvals, rnnz, X)


@njit(cache=True)
def delassus_lu(rcols, rvals, rnnz, LU, piv):
    """X = Ŵ⁻¹ Hᵀ and W = H X with Ŵ given by its LU factors (nonlinear models: n is small)."""
    k = rnnz.shape[0]
    n = LU.shape[0]
    X = np.zeros((n, k))
    col = np.zeros(n)
    for r in range(k):
        col[:] = 0.0
        for kk in range(rnnz[r]):
            col[rcols[r, kk]] += rvals[r, kk]
        lu_solve_factored(LU, piv, col)
        X[:, r] = col
    return X, sparse_rows_times(rcols, rvals, rnnz, X)


@njit(cache=True)
def contact_rows(c, m, kin, nrm, pa, pb, outN, outT):
    """Normal and tangent Jacobian rows of candidate c on its columns m.ccols[c, :m.ccn[c]], given its
    normal and contact points (nrm, pa, pb, per candidate) and the kinematics they were found with."""
    ci, ccols = m.ci, m.ccols
    if ci[c, CI_BTYPE] == LIMIT:
        outN[0] = ci[c, CI_VCOUNT]
        outT[0] = 0.0
        return
    pos, Jp, Ja = kin.pos, kin.Jp, kin.Ja
    nx, ny = nrm[c, 0], nrm[c, 1]
    a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
    rax, ray = pa[c, 0] - pos[a, 0], pa[c, 1] - pos[a, 1]
    rbx = rby = 0.0
    if b >= 0:
        rbx, rby = pb[c, 0] - pos[b, 0], pb[c, 1] - pos[b, 1]
    for kk in range(m.ccn[c]):
        j = ccols[c, kk]
        jx = Jp[a, 0, j] - ray * Ja[a, j]
        jy = Jp[a, 1, j] + rax * Ja[a, j]
        if b >= 0:
            jx -= Jp[b, 0, j] - rby * Ja[b, j]
            jy -= Jp[b, 1, j] + rbx * Ja[b, j]
        outN[kk] = nx * jx + ny * jy
        outT[kk] = ny * jx - nx * jy
