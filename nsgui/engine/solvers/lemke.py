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
_WARM_PIV = 1e-9  # a guessed basic z_i enters only on a pivot above this share of its column (lemke_from)


@numba.njit(cache=True)
def _lex_leaving_row(T, m, col, rhs_col, basis, z0_var, cand):
    """Row chosen by the lexicographic ratio test for entering column `col`, -1 if a ray."""
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
        # lexicographic tie-break on column k of B^-1 (the tableau's w-columns)
        best = np.inf
        for c in range(nc):
            i = cand[c]
            v = T[i, k] / T[i, col]
            if v < best:
                best = v
        tie = _TIE_TOL * (1.0 + abs(best))
        nn = 0
        for c in range(nc):
            i = cand[c]
            if T[i, k] / T[i, col] <= best + tie:
                cand[nn] = i
                nn += 1
        nc = nn
        k += 1
    return cand[0]


@numba.njit(cache=True)
def _pivot(T, m, ncol, r, col, nz):
    """Pivot on T[r, col]. The other rows are updated on the pivot row's nonzero columns only (nz: a
    workspace of ncol): the columns of the basic variables are unit vectors, zero in row r but for the
    leaving one's, so half the tableau is skipped; the other entries change exactly as in a full sweep."""
    inv = 1.0 / T[r, col]
    nn = 0
    for j in range(ncol):
        T[r, j] *= inv
        if T[r, j] != 0.0 and j != col:
            nz[nn] = j
            nn += 1
    for i in range(m):
        if i != r:
            f = T[i, col]
            if f != 0.0:
                for t in range(nn):
                    j = nz[t]
                    T[i, j] -= f * T[r, j]
                T[i, col] = 0.0
    T[r, col] = 1.0


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
def _scales(M, q):
    """(sq, sM): the largest |q| and |M| (sM = -1 for a non-finite entry of M)."""
    m = q.shape[0]
    sq = 0.0
    sM = 0.0
    for i in range(m):
        sq = max(sq, abs(q[i]))
        for j in range(m):
            v = M[i, j]
            if not np.isfinite(v):
                return sq, -1.0
            sM = max(sM, abs(v))
    return sq, sM


@numba.njit(cache=True)
def _tableau(M, q, sq, sM):
    """Rows w - M z - 1 z0 = q of the scaled problem; columns [w (m) | z (m) | z0 | rhs]."""
    m = q.shape[0]
    T = np.zeros((m, 2 * m + 2))
    for i in range(m):
        T[i, i] = 1.0
        for j in range(m):
            T[i, m + j] = -M[i, j] / sM
        T[i, 2 * m] = -1.0
        T[i, 2 * m + 1] = q[i] / sq
    return T


@numba.njit(cache=True)
def _pivots(T, m, basis, pivots, max_pivots, nz):
    """Lemke's pivots from a tableau whose rows x_B = rhs + z0 (z0 column -1): z0 enters where rhs is
    most negative (ties: largest index = lex rule), then complements enter until z0 leaves.
    Returns (status, pivots)."""
    ncol = 2 * m + 2
    z0_var = 2 * m
    rhs = 2 * m + 1
    cand = np.empty(m, dtype=np.int64)  # workspace of the ratio test
    qs = T[0, rhs]
    for i in range(m):
        qs = min(qs, T[i, rhs])
    r = 0
    for i in range(m):
        if T[i, rhs] <= qs + _TIE_TOL:
            r = i
    _pivot(T, m, ncol, r, z0_var, nz)
    leaving = basis[r]
    basis[r] = z0_var
    pivots += 1
    while pivots < max_pivots:
        # complement of the variable that just left
        if leaving < m:
            enter = leaving + m
        else:
            enter = leaving - m
        r = _lex_leaving_row(T, m, enter, rhs, basis, z0_var, cand)
        if r < 0:
            return RAY_TERMINATION, pivots
        _pivot(T, m, ncol, r, enter, nz)
        leaving = basis[r]
        basis[r] = enter
        pivots += 1
        if leaving == z0_var:
            return SOLVED, pivots
    return ITERATION_CAP, pivots


@numba.njit(cache=True)
def _answer(M, q, T, basis, sq, sM, status):
    """z from the final basis (re-solved on its basic set), and the status: a basis that stopped short
    is accepted when its z verifies (a degenerate end game: z0 at ~0 with no usable pivot left)."""
    m = q.shape[0]
    z = np.zeros(m)
    basic_z = np.zeros(m, dtype=np.bool_)
    scale = sq / sM
    for i in range(m):
        v = basis[i]
        if v >= m and v < 2 * m:
            z[v - m] = max(T[i, 2 * m + 1], 0.0) * scale
            basic_z[v - m] = True
    z = _refine(M, q, z, basic_z)
    if status != SOLVED:
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
    return z, status


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
    sq, sM = _scales(M, q)
    if sM < 0.0:
        return z, BAD_INPUT, 0
    if sM == 0.0:
        return z, RAY_TERMINATION, 0  # q has a negative entry and M = 0: infeasible
    T = _tableau(M, q, sq, sM)
    basis = np.arange(m)
    nz = np.empty(2 * m + 2, dtype=np.int64)  # workspace of the pivots
    status, pivots = _pivots(T, m, basis, 0, max_pivots, nz)
    z, status = _answer(M, q, T, basis, sq, sM, status)
    return z, status, pivots


@numba.njit(cache=True)
def lemke_from(M, q, start, max_pivots):
    """lemke started from a guessed complementary basis: z_i basic where start[i] (e.g. the last step's
    answer), w_i elsewhere. The guessed z_i enter by principal pivots (row i), each skipped when its pivot
    is ~0 (a dependent column: the guess's redundant contacts), and the z0 column is set to -1: the
    covering vector is the one for which that basis is where the method starts, so when few statuses
    changed few pivots follow. No termination guarantee from an arbitrary start (degenerate bases are
    not lexicographically positive): on anything but SOLVED the caller falls back to lemke.
    Returns (z, status, pivots) as lemke (the principal pivots counted)."""
    m = q.shape[0]
    z = np.zeros(m)
    if bad_input(M, q, q, 0) or start.shape[0] != m:
        return z, BAD_INPUT, 0
    if m == 0:
        return z, SOLVED, 0
    sq, sM = _scales(M, q)
    if sM < 0.0:
        return z, BAD_INPUT, 0
    if sM == 0.0 or sq == 0.0:
        return lemke(M, q, max_pivots)
    T = _tableau(M, q, sq, sM)
    ncol = 2 * m + 2
    basis = np.arange(m)
    nz = np.empty(ncol, dtype=np.int64)
    pivots = 0
    for i in range(m):
        if not start[i]:
            continue
        col = m + i
        cmax = 0.0
        for j in range(m):
            cmax = max(cmax, abs(T[j, col]))
        if abs(T[i, col]) > _WARM_PIV * cmax:
            _pivot(T, m, ncol, i, col, nz)
            basis[i] = col
            pivots += 1
    rmin = 0.0
    for i in range(m):
        T[i, 2 * m] = -1.0
        rmin = min(rmin, T[i, 2 * m + 1])
    status = ITERATION_CAP
    if rmin < 0.0:
        status, pivots = _pivots(T, m, basis, pivots, max_pivots, nz)
    # a guess that is already feasible (or nearly: degenerate rows at -round-off) is judged by _answer
    z, status = _answer(M, q, T, basis, sq, sM, status)
    return z, status, pivots
