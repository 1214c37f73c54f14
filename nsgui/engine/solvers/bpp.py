"""Block principal pivoting (Judice-Pires) for the LCP 0 <= z _|_ q + M z >= 0, M symmetric PD.

Warm-started from a guess of the active set F (z_F free, w_F = 0; z = 0 elsewhere). Each
iteration solves M_FF z_F = -q_F and swaps every infeasible index (z_i < 0 in F, w_i < 0 out
of F). Safeguard: when the number of infeasibilities has not decreased for _BACKUP iterations,
only the largest infeasible index is swapped (Murty's single principal pivoting, finite for
P-matrices).

The linear solve exploits bandedness: one O(m^2) scan of M records each row's leftmost non-zero
and symmetry; the bandwidth of M_FF then costs O(m) per iteration and the banded Cholesky
O(|F| b^2) (with b = |F| - 1 it is ordinary dense Cholesky). A 100-bead chain (tridiagonal
Delassus, all contacts active, previous active set as guess) is solved in one iteration with
O(m) floating-point work. Non-symmetric M uses dense LU with partial pivoting.

Status: 0 solved (natural-map residual verified), 2 iteration cap, 3 the principal subproblem
was singular/indefinite or the result failed verification (PSD M with an unlucky active set):
the caller should fall back to Lemke. 4 bad input (shapes, non-finite q).
"""
import numpy as np
import numba

from ._linalg import bad_input, band_cholesky_solve_inplace, lu_solve_inplace
from ..codes import BAD_INPUT, ITERATION_CAP, SINGULAR_SUBPROBLEM, SOLVED

_BACKUP = 3


@numba.njit(cache=True)
def _scan(M):
    """Leftmost / rightmost non-zero column per row (hi may overestimate), and symmetry.

    One pass over the strict lower triangle: O(m^2) comparisons, no arithmetic worth noting.
    """
    m = M.shape[0]
    lo = np.empty(m, dtype=np.int64)
    hi = np.empty(m, dtype=np.int64)
    sym = True
    for i in range(m):
        lo[i] = i
        hi[i] = i
        for j in range(i):
            a = M[i, j]
            b = M[j, i]
            if a != b and abs(a - b) > 1e-13 * (abs(a) + abs(b)):
                sym = False
            if a != 0.0 and lo[i] == i:
                lo[i] = j
    if sym:
        # a non-zero M[i, j] with j > i means lo[j] <= i
        for j in range(m):
            for i in range(lo[j], j):
                if hi[i] < j:
                    hi[i] = j
    else:
        for i in range(m):
            for j in range(m - 1, i, -1):
                if M[i, j] != 0.0:
                    hi[i] = j
                    break
            for j in range(i):
                if M[i, j] != 0.0:
                    lo[i] = j
                    break
    return lo, hi, sym


@numba.njit(cache=True)
def _solve_sub(M, q, F, lo, sym, z, pos, idx, b, dropped):
    """z_F = -M_FF^-1 q_F, z = 0 elsewhere. Returns False if the subproblem is unusable.

    pos (m + 1), idx, b, dropped (m) are workspaces; pos[j] = number of F indices < j.
    """
    m = q.shape[0]
    n = 0
    for j in range(m):
        pos[j] = n
        if F[j]:
            n += 1
    pos[m] = n
    for j in range(m):
        z[j] = 0.0
    if n == 0:
        return True
    k = 0
    for j in range(m):
        if F[j]:
            idx[k] = j
            k += 1
    for a in range(n):
        b[a] = -q[idx[a]]
    if sym:
        bw = 0
        for a in range(n):
            i = idx[a]
            band = pos[i] - pos[lo[i]]
            if band > bw:
                bw = band
        L = np.zeros((n, bw + 1))
        for a in range(n):
            i = idx[a]
            c0 = a - bw
            if c0 < 0:
                c0 = 0
            for c in range(c0, a + 1):
                L[a, bw - (a - c)] = M[i, idx[c]]
        if not band_cholesky_solve_inplace(L, bw, b[:n], dropped[:n]):
            return False
    else:
        A = np.empty((n, n))
        for a in range(n):
            for c in range(n):
                A[a, c] = M[idx[a], idx[c]]
        if not lu_solve_inplace(A, b[:n]):
            return False
    for a in range(n):
        z[idx[a]] = b[a]
    return True


@numba.njit(cache=True)
def _w_banded(M, q, z, lo, hi, w):
    """w = q + M z using the per-row non-zero extent (O(m b) for banded M)."""
    m = q.shape[0]
    for i in range(m):
        s = q[i]
        for j in range(lo[i], hi[i] + 1):
            s += M[i, j] * z[j]
        w[i] = s


@numba.njit(cache=True)
def bpp_lcp(M, q, active0, max_iter):
    """Solve the LCP by block principal pivoting warm-started from the active-set guess active0.

    Returns (z, status, iterations); iterations counts the principal linear solves.
    """
    m = q.shape[0]
    z = np.zeros(m)
    if bad_input(M, q, active0, m):
        return z, BAD_INPUT, 0
    if m == 0:
        return z, SOLVED, 0
    qn = 0.0
    dmax = 0.0
    for i in range(m):
        qn = max(qn, abs(q[i]))
        dmax = max(dmax, abs(M[i, i]))
    if qn == 0.0:
        return z, SOLVED, 0
    if dmax == 0.0:
        dmax = 1.0
    tol_w = 1e-12 * qn
    tol_z = tol_w / dmax
    lo, hi, sym = _scan(M)
    F = np.empty(m, dtype=np.bool_)
    for i in range(m):
        F[i] = active0[i]
    w = np.empty(m)
    pos = np.empty(m + 1, dtype=np.int64)
    idx = np.empty(m, dtype=np.int64)
    rhs = np.empty(m)
    dropped = np.empty(m, dtype=np.bool_)
    best = m + 1
    backup = _BACKUP
    it = 0
    while it < max_iter:
        it += 1
        if not _solve_sub(M, q, F, lo, sym, z, pos, idx, rhs, dropped):
            return z, SINGULAR_SUBPROBLEM, it
        _w_banded(M, q, z, lo, hi, w)
        ninf = 0
        last = -1
        for i in range(m):
            if F[i]:
                bad = z[i] < -tol_z
            else:
                bad = w[i] < -tol_w
            if bad:
                ninf += 1
                last = i
        if ninf == 0:
            # verify complementarity (catches dropped redundant rows that were inconsistent)
            lim = 1e-9 * qn
            for i in range(m):
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
                if F[i]:
                    if z[i] < -tol_z:
                        F[i] = False
                elif w[i] < -tol_w:
                    F[i] = True
        else:
            F[last] = not F[last]
    return z, ITERATION_CAP, it
