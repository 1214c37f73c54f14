"""Block principal pivoting (Judice-Pires) for the LCP 0 <= z _|_ q + M z >= 0, M symmetric PD.

Warm-started from a guess of the active set F (z_F free, w_F = 0; z = 0 elsewhere). Each
iteration solves M_FF z_F = -q_F and swaps every infeasible index (z_i < 0 in F, w_i < 0 out
of F). Safeguard: when the number of infeasibilities has not decreased for _BACKUP iterations,
only the largest infeasible index is swapped (Murty's single principal pivoting, finite for
P-matrices). Two single swaps of the same index in a row are a cycle (the active set is back where it
was, so every later iteration repeats): the solve stops there with status 2 and the z it would have
ended on at the iteration cap.
That happens on singular M (the projection of a box pyramid: redundant corners), where it used to
spend the whole cap of 3m + 10 solves.

M is given in compressed sparse rows (_linalg; bpp_lcp takes a dense M and hands its non-zeros on). The linear solve exploits bandedness: each row's leftmost
non-zero gives the bandwidth of M_FF in O(nnz) per iteration, and the banded Cholesky costs
O(|F| b^2) (with b = |F| - 1 it is ordinary dense Cholesky; b = 1, a long tridiagonal M_FF, is
factored as L D Lᵀ without square roots). A bead column (tridiagonal Delassus,
all contacts active, previous active set as guess) is solved in one iteration with O(m) work.
Non-symmetric M uses dense LU with partial pivoting.

A caller that solves problems with the same M again and again (a resting column's step problem, the
projection of its landing's drift) hands a kept factor (new_factor, bpp_lcp_csr_kept): M's diagonal
and leftmost columns, and the last L D Lᵀ factor with its active set, taken again for the same set
(the solve then costs two passes, not the factoring's chain of divisions).

Status: 0 solved (natural-map residual verified), 2 iteration cap, 3 the principal subproblem
was singular/indefinite or the result failed verification (PSD M with an unlucky active set):
the caller should fall back to Lemke. 4 bad input (shapes, non-finite q).
"""
import numpy as np
import numba

from ._linalg import (bad_input, band_cholesky_solve_inplace, band_cholesky_solve_wide, csr_bad_input,
                      csr_from_dense, csr_matvec_plus, csr_symmetric, lu_solve_inplace,
                      tridiagonal_ldl_resolve_inplace, tridiagonal_ldl_solve_inplace)
from ..codes import BAD_INPUT, ITERATION_CAP, SINGULAR_SUBPROBLEM, SOLVED

_BACKUP = 3
_LDL_MIN = 64  # a tridiagonal M_FF this large is factored as L D Lᵀ: its serial chain of square roots and
               # divisions is what costs at N = 1000 (~30 µs); smaller ones keep Cholesky's numbers
_WIDE = 4  # a band this wide is factored four entries at a time (the same numbers, the sums overlapped)


@numba.njit(cache=True)
def _diagonal_leftmost(ptr, col, val):
    """Each row's diagonal entry (csr_diagonal's sums) and leftmost non-zero column (the row itself if
    none lies left of the diagonal), in one pass over the entries."""
    m = ptr.shape[0] - 1
    diag = np.zeros(m)
    lo = np.empty(m, dtype=np.int64)
    for i in range(m):
        lo[i] = i
        for p in range(ptr[i], ptr[i + 1]):
            j = col[p]
            if j == i:
                diag[i] += val[p]
            elif j < lo[i]:
                lo[i] = j
    return diag, lo


@numba.njit(cache=True)
def new_factor(m):
    """A kept factor for an M of m rows, empty (m = 0: none kept): (diag, leftmost, the active set of
    the factor, its L D Lᵀ in band storage, its dropped rows, state: 0 nothing, 1 diag and leftmost,
    2 and the factor)."""
    return (np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.bool_), np.zeros((m, 2)), np.zeros(m, np.bool_),
            np.zeros(1, np.int64))


@numba.njit(cache=True)
def _kept_set(fac, F):
    """Whether fac holds the factor of the active set F."""
    if fac[5][0] != 2:
        return False
    kept = fac[2]
    for i in range(F.shape[0]):
        if kept[i] != F[i]:
            return False
    return True


@numba.njit(cache=True)
def _solve_sub(ptr, col, val, q, F, lo, sym, z, pos, idx, b, dropped, fac):
    """z_F = -M_FF^-1 q_F, z = 0 elsewhere. Returns False if the subproblem is unusable.

    pos (m + 1), idx, b, dropped (m) are workspaces; pos[j] = number of F indices < j. fac: a kept
    factor (new_factor) for M, or an empty one; a tridiagonal L D Lᵀ factor is kept there.
    """
    m = q.shape[0]
    n = 0
    for j in range(m):  # one pass: positions, indices, right-hand side, z cleared
        pos[j] = n
        z[j] = 0.0
        if F[j]:
            idx[n] = j
            b[n] = -q[j]
            n += 1
    pos[m] = n
    if n == 0:
        return True
    keep = fac[0].shape[0] == m
    if sym and keep and _kept_set(fac, F):  # the same M_FF: its factor
        tridiagonal_ldl_resolve_inplace(fac[3][:n], b[:n], fac[4][:n])
    elif sym:
        bw = 0
        for a in range(n):
            i = idx[a]
            band = pos[i] - pos[lo[i]]
            if band > bw:
                bw = band
        ldl = bw == 1 and n >= _LDL_MIN  # long chains and columns: LDLᵀ, no square-root chain
        if ldl and keep:  # factored in the kept storage, for the next solve with this set
            L = fac[3][:n]
            L[:, :] = 0.0
            dropped = fac[4]
            fac[5][0] = 1
        else:
            L = np.zeros((n, bw + 1))
        for a in range(n):
            i = idx[a]
            for p in range(ptr[i], ptr[i + 1]):
                j = col[p]
                if F[j] and j <= i:
                    L[a, bw - (a - pos[j])] += val[p]
        if ldl:
            if not tridiagonal_ldl_solve_inplace(L, b[:n], dropped[:n]):
                return False
            if keep:
                fac[2][:] = F
                fac[5][0] = 2
        elif bw >= _WIDE:
            if not band_cholesky_solve_wide(L, bw, b[:n], dropped[:n]):
                return False
        elif not band_cholesky_solve_inplace(L, bw, b[:n], dropped[:n]):
            return False
    else:
        A = np.zeros((n, n))
        for a in range(n):
            i = idx[a]
            for p in range(ptr[i], ptr[i + 1]):
                j = col[p]
                if F[j]:
                    A[a, pos[j]] += val[p]
        if not lu_solve_inplace(A, b[:n]):
            return False
    for a in range(n):
        z[idx[a]] = b[a]
    return True


@numba.njit(cache=True)
def bpp_lcp(M, q, active0, max_iter):
    """bpp_lcp_csr for a dense M (the same solves: band entries and sums skip only exact zeros)."""
    m = q.shape[0]
    if bad_input(M, q, active0, m):
        return np.zeros(m), BAD_INPUT, 0
    ptr, col, val = csr_from_dense(M)
    return bpp_lcp_csr(ptr, col, val, q, active0, max_iter, csr_symmetric(ptr, col, val), np.zeros(0, np.bool_))


@numba.njit(cache=True)
def bpp_lcp_csr(ptr, col, val, q, active0, max_iter, sym, eq):
    """Solve the LCP by block principal pivoting warm-started from the active-set guess active0; M by
    its rows (ptr, col, val), sym: whether it is symmetric (banded Cholesky, else dense LU).
    eq: the rows that are equalities (a mixed LCP: w_i = 0, z_i free; always in the active set), or an
    empty array (a plain LCP). They stay where they are: reordering them first would widen the band.

    Returns (z, status, iterations); iterations counts the principal linear solves.
    """
    return bpp_lcp_csr_kept(ptr, col, val, q, active0, max_iter, sym, eq, new_factor(0))


@numba.njit(cache=True)
def bpp_lcp_csr_kept(ptr, col, val, q, active0, max_iter, sym, eq, fac):
    """bpp_lcp_csr with a kept factor fac (new_factor(m)) of this M, the same M at every call with it
    (the caller's to ensure: a kept W): the same numbers, fewer operations."""
    return bpp_lcp_csr_dropping(ptr, col, val, q, active0, max_iter, sym, eq, fac, False)


@numba.njit(cache=True)
def bpp_lcp_csr_dropping(ptr, col, val, q, active0, max_iter, sym, eq, fac, stop_dropped):
    """bpp_lcp_csr_kept; with stop_dropped, it stops with ITERATION_CAP at the first iteration whose banded
    Cholesky dropped a row (M_FF singular: the pivoting may cycle, bpp.py's doc) and left infeasible
    indices (the same iterates, answers and other statuses up to there). The projection then solves its
    mixed problem by the Schur complement of its equality block (mixed_schur.py)."""
    m = q.shape[0]
    z = np.zeros(m)
    if csr_bad_input(ptr, q, active0, m):
        return z, BAD_INPUT, 0
    if m == 0:
        return z, SOLVED, 0
    if fac[0].shape[0] == m and fac[5][0] > 0:
        diag, lo = fac[0], fac[1]
    else:
        diag, lo = _diagonal_leftmost(ptr, col, val)
        if fac[0].shape[0] == m:
            fac[0][:] = diag
            fac[1][:] = lo
            fac[5][0] = 1
    qn = 0.0
    dmax = 0.0
    for i in range(m):
        qn = max(qn, abs(q[i]))
        dmax = max(dmax, abs(diag[i]))
    if qn == 0.0:
        return z, SOLVED, 0
    if dmax == 0.0:
        dmax = 1.0
    tol_w = 1e-12 * qn
    tol_z = tol_w / dmax
    mixed = eq.shape[0] == m
    F = np.empty(m, dtype=np.bool_)
    for i in range(m):
        F[i] = active0[i] or (mixed and eq[i])
    w = np.empty(m)
    pos = np.empty(m + 1, dtype=np.int64)
    idx = np.empty(m, dtype=np.int64)
    rhs = np.empty(m)
    dropped = np.empty(m, dtype=np.bool_)
    best = m + 1
    backup = _BACKUP
    swapped = -1  # the index of the last single swap (-1 after a block swap)
    it = 0
    while it < max_iter:
        it += 1
        if stop_dropped:
            dropped[:] = False  # (a kept tridiagonal factor's dropped rows are not written there: none seen)
        if not _solve_sub(ptr, col, val, q, F, lo, sym, z, pos, idx, rhs, dropped, fac):
            return z, SINGULAR_SUBPROBLEM, it
        csr_matvec_plus(ptr, col, val, z, q, w)
        ninf = 0
        last = -1
        for i in range(m):
            if mixed and eq[i]:
                continue
            if F[i]:
                bad = z[i] < -tol_z
            else:
                bad = w[i] < -tol_w
            if bad:
                ninf += 1
                last = i
        if stop_dropped and ninf > 0:
            for a in range(pos[m]):
                if dropped[a]:
                    return z, ITERATION_CAP, it
        if ninf == 0:
            # verify complementarity (catches dropped redundant rows that were inconsistent)
            lim = 1e-9 * qn
            for i in range(m):
                if mixed and eq[i]:
                    if not abs(w[i]) <= lim:
                        return z, SINGULAR_SUBPROBLEM, it
                    continue
                if z[i] < 0.0:
                    z[i] = 0.0
                if not abs(min(z[i] * dmax, w[i])) <= lim:  # also catches NaN
                    return z, SINGULAR_SUBPROBLEM, it
            return z, SOLVED, it
        if ninf < best:
            best = ninf
            backup = _BACKUP
            full = True
        elif backup > 0:
            backup -= 1
            full = True
        else:
            full = False
        if full:
            for i in range(m):
                if mixed and eq[i]:
                    continue
                if F[i]:
                    if z[i] < -tol_z:
                        F[i] = False
                elif w[i] < -tol_w:
                    F[i] = True
        else:
            # back to the active set of two iterations ago: a cycle (stopped on the iterate the cap
            # would end on: callers that keep the better of two answers get the same z)
            if last == swapped and (max_iter - it) % 2 == 0:
                return z, ITERATION_CAP, it
            swapped = last
            F[last] = not F[last]
            continue
        swapped = -1
    return z, ITERATION_CAP, it
