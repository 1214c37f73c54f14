"""Lemke's complementary pivoting method for the dense LCP 0 <= z _|_ q + M z >= 0.

Covering vector d = 1, lexicographic minimum-ratio test (ties in the ratio are broken by the
rows of B^-1 divided by the pivot column, which keeps every row of [rhs, B^-1] lexicographically
positive and so prevents cycling on degenerate problems). The problem is scaled to unit size
first so that the fixed tie and pivot tolerances are meaningful; at the end the basic set is
re-solved directly (M_AA z_A = -q_A) to remove the round-off the tableau accumulates.
"""
import numpy as np
import numba

from ._linalg import bad_input, lu_solve_inplace
from .residuals import lcp_residual
from ..codes import BAD_INPUT, ITERATION_CAP, RAY_TERMINATION, SOLVED

_PIV_TOL = 1e-12  # relative to the largest entry of the entering column (scaled problem)
_TIE_TOL = 1e-11  # ratio ties (scaled problem)
_ACCEPT = 1e-10  # scaled natural-map residual accepted as a solution after a failed end game


@numba.njit(cache=True)
def _lex_leaving_row(T, m, col, rhs_col, basis, z0_var, cand, colof):
    """Row chosen by the lexicographic ratio test for entering column `col`, -1 if a ray. colof[v]: the
    column of nonbasic variable v, -1 - its row if basic (the compact tableau keeps nonbasic columns)."""
    cmax = 0.0
    for i in range(m):
        v = abs(T[i, col])
        if v > cmax:
            cmax = v
    piv_tol = _PIV_TOL * max(1.0, cmax)
    theta = np.inf
    for i in range(m):
        a = T[i, col]
        if a > piv_tol:
            rt = T[i, rhs_col] / a
            if rt < theta:
                theta = rt
    if theta == np.inf:
        return -1
    nc = 0
    tie = _TIE_TOL * (1.0 + abs(theta))
    for i in range(m):
        a = T[i, col]
        if a > piv_tol and T[i, rhs_col] / a <= theta + tie:
            if basis[i] == z0_var:
                return i  # z0 can leave: the next pivot ends the method
            cand[nc] = i
            nc += 1
    k = 0
    while nc > 1 and k < m:
        # lexicographic tie-break on column k of B^-1 (w_k's column: a unit vector where w_k is basic)
        wk = colof[k]
        best = np.inf
        for c in range(nc):
            i = cand[c]
            v = _entry(T, i, wk) / T[i, col]
            if v < best:
                best = v
        tie = _TIE_TOL * (1.0 + abs(best))
        nn = 0
        for c in range(nc):
            i = cand[c]
            if _entry(T, i, wk) / T[i, col] <= best + tie:
                cand[nn] = i
                nn += 1
        nc = nn
        k += 1
    return cand[0]


@numba.njit(cache=True, inline='always')
def _entry(T, i, c):
    """Row i of a variable's column: c >= 0 a nonbasic column, else the unit column of row -1 - c."""
    if c >= 0:
        return T[i, c]
    return 1.0 if i == -1 - c else 0.0


@numba.njit(cache=True)
def _pivot(T, m, ncol, r, col):
    """Exchange step of the compact tableau: the variable of column col becomes basic in row r and the
    one leaving takes column col. The same numbers as the full tableau's pivot (the leaving variable's
    unit column becomes (-f / p, ..., 1 / p, ...)), on half the columns: the tableau is read from memory
    at every pivot, so that halves its time."""
    inv = 1.0 / T[r, col]
    for j in range(ncol):
        T[r, j] *= inv
    T[r, col] = inv
    for i in range(m):
        if i != r:
            f = T[i, col]
            if f != 0.0:
                for j in range(ncol):
                    T[i, j] -= f * T[r, j]
                T[i, col] = -(f * inv)


@numba.njit(cache=True)
def _exchange(T, m, ncol, r, enter, basis, colof):
    """Pivot variable enter into row r; returns the variable that left (now in enter's column)."""
    col = colof[enter]
    _pivot(T, m, ncol, r, col)
    leaving = basis[r]
    basis[r] = enter
    colof[enter] = -1 - r
    colof[leaving] = col
    return leaving


@numba.njit(cache=True)
def _refine(M, q, z, basic_z):
    """Re-solve M_AA z_A = -q_A on the final basis; keep it if the LCP residual improves."""
    m = q.shape[0]
    na = 0
    for i in range(m):
        if basic_z[i]:
            na += 1
    if na == 0:
        return z
    idx = np.empty(na, dtype=np.int64)
    k = 0
    for i in range(m):
        if basic_z[i]:
            idx[k] = i
            k += 1
    A = np.empty((na, na))
    b = np.empty(na)
    for a in range(na):
        b[a] = -q[idx[a]]
        for c in range(na):
            A[a, c] = M[idx[a], idx[c]]
    if not lu_solve_inplace(A, b):
        return z
    z2 = np.zeros(m)
    for a in range(na):
        z2[idx[a]] = max(b[a], 0.0)
    if lcp_residual(M, q, z2) <= lcp_residual(M, q, z):
        return z2
    return z


@numba.njit(cache=True)
def lemke(M, q, max_pivots):
    """Solve 0 <= z _|_ q + M z >= 0 by Lemke's method.

    Returns (z, status, pivots): status 0 solved, 1 ray termination (no solution found; for
    copositive-plus M, e.g. PSD, this certifies infeasibility), 2 pivot cap reached,
    4 bad input (M not m x m, or a non-finite entry in M or q).
    `pivots` counts every pivot including the initial one on the artificial variable.
    """
    m = q.shape[0]
    z = np.zeros(m)
    if bad_input(M, q, q, 0):
        return z, BAD_INPUT, 0
    if m == 0:
        return z, SOLVED, 0
    qmin = q[0]
    for i in range(m):
        if q[i] < qmin:
            qmin = q[i]
    if qmin >= 0.0:
        return z, SOLVED, 0
    # scale to unit size: z' = z * sM / sq solves LCP(q / sq, M / sM)
    sq = 0.0
    sM = 0.0
    for i in range(m):
        sq = max(sq, abs(q[i]))
        for j in range(m):
            v = M[i, j]
            if not np.isfinite(v):
                return z, BAD_INPUT, 0
            sM = max(sM, abs(v))
    if sM == 0.0:
        return z, RAY_TERMINATION, 0  # q has a negative entry and M = 0: infeasible
    # tableau rows: w - M z - 1 z0 = q, compact: the columns of the m + 1 nonbasic variables (z, z0 at
    # the start) and rhs. Variables: w_i = i, z_j = m + j, z0 = 2 m
    ncol = m + 2
    z0_var = 2 * m
    rhs = m + 1
    T = np.zeros((m, ncol))
    for i in range(m):
        for j in range(m):
            T[i, j] = -M[i, j] / sM
        T[i, m] = -1.0
        T[i, rhs] = q[i] / sq
    basis = np.arange(m)
    colof = np.empty(2 * m + 1, dtype=np.int64)   # a variable's column, -1 - its row if basic
    for i in range(m):
        colof[i] = -1 - i
    for j in range(m + 1):
        colof[m + j] = j
    cand = np.empty(m, dtype=np.int64)  # workspace of the ratio test
    # first pivot: z0 enters, the most negative q leaves (ties: largest index = lex rule)
    qs = qmin / sq
    r = 0
    for i in range(m):
        if T[i, rhs] <= qs + _TIE_TOL:
            r = i
    leaving = _exchange(T, m, ncol, r, z0_var, basis, colof)
    pivots = 1
    status = ITERATION_CAP
    while pivots < max_pivots:
        # complement of the variable that just left
        if leaving < m:
            enter = leaving + m
        else:
            enter = leaving - m
        col = colof[enter]
        r = _lex_leaving_row(T, m, col, rhs, basis, z0_var, cand, colof)
        if r < 0:
            status = RAY_TERMINATION
            break
        leaving = _exchange(T, m, ncol, r, enter, basis, colof)
        pivots += 1
        if leaving == z0_var:
            status = SOLVED
            break
    basic_z = np.zeros(m, dtype=np.bool_)
    scale = sq / sM
    for i in range(m):
        v = basis[i]
        if v >= m and v < 2 * m:
            z[v - m] = max(T[i, rhs], 0.0) * scale
            basic_z[v - m] = True
    z = _refine(M, q, z, basic_z)
    if status != SOLVED:
        # degenerate end game: z0 may sit at ~0 with no usable pivot left (ray by round-off);
        # the current basis is then already a solution. Accept it only if it verifies.
        ok = True
        for i in range(m):
            w = q[i]
            for j in range(m):
                w += M[i, j] * z[j]
            if not abs(min(z[i] * sM, w)) <= _ACCEPT * sq:
                ok = False
                break
        if ok:
            status = SOLVED
    return z, status, pivots
