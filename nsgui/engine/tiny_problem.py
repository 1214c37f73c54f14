"""The step problem when it is tiny (1-2 contacts with friction, up to TINY_ROWS without), dense and
without allocation: what a resting ball, the sliding box, a resting or rocking body and a short bead
column solve at every step.

The general path (stepper.solve_contact_problem) builds W = H M⁻¹Hᵀ in compressed sparse rows, its
transpose and the solver's work arrays: some twenty to thirty small allocations, most of a 1- or
2-contact step's cost. Here X = M⁻¹Hᵀ and W are dense in the preallocated scratch of Data (tp_*), and
NSGS (friction) or block principal pivoting (LCP) run on the dense W with the general path's arithmetic,
sum for sum (delassus_csr's order; nsgs_fc2d_csr's sweeps, incremental updates and stopping tests;
bpp_lcp_csr's pivoting, with its banded Cholesky or LU on the dense principal block, whose extra entries
are exact zeros): the same iterates, so the same answer. Only for constant M⁻¹ (by tree, the
delassus_csr case); any other case, a failure or a non-finite input goes the general way.
"""
import numpy as np
from numba import njit

from .codes import BAD_INPUT, ITERATION_CAP, SINGULAR_SUBPROBLEM, SOLVED
from .contact_rows import sparse_rows_times_into
from .solvers._linalg import _band_substitute, _touch, band_cholesky_factor_n, lu_solve_n
from .solvers.bpp import _BACKUP
from .solvers.nsgs import EXTRAPOLATE_FROM, _contact_errors, _extrapolated, _extrapolation_due, _local_solve

TINY_CONTACTS = 2  # contacts with friction in a problem solved here (2 rows each)
TINY_ROWS = 16  # rows of a problem solved here (Data.tp_* are sized for it): frictionless contacts up to it

# What Data.tp_kept says of the scratch kept from the last problem (a resting column's or ball's rows repeat
# bit for bit, and with a constant M⁻¹ so do X, W and the LCP's principal factor: not built again)
KEPT_ROWS = 0  # the number of rows X and W were built from (Data.tp_kcols, tp_kvals, tp_knnz; -1: none)
KEPT_SYM = 1  # whether W is symmetric (-1: not tested yet)
KEPT_FACTOR = 2  # 1: Data.tp_L holds the band factor of W's principal block of tp_flags[3] (the free set)
KEPT_BW = 3  # ... whose band width
N_KEPT = 4


def nothing_kept_tiny():
    """Data.tp_kept before the first tiny problem."""
    return np.array([-1, -1, 0, 0], np.int64)


@njit(cache=True, inline="always")
def same_tiny_rows(kcols, kvals, knnz, kk, cols, vals, nnz, k):
    """Whether the k rows (cols, vals, nnz) are the kk kept ones bit for bit (a zero's sign too, as
    kept_delassus.same_rows). (One exit, every array used last in the last block: see lcp_dense.)"""
    same = kk == k and k > 0
    for r in range(k if same else 0):
        if knnz[r] != nnz[r]:
            same = False
        for j in range(nnz[r] if same else 0):
            a, b = kvals[r, j], vals[r, j]
            if kcols[r, j] != cols[r, j] or a != b or (a == 0.0 and np.signbit(a) != np.signbit(b)):
                same = False
    return same & _touch(kcols, kvals, knnz) & _touch(cols, vals, nnz)


@njit(cache=True, inline="always")
def keep_tiny_rows(kcols, kvals, knnz, cols, vals, nnz, k):
    """The k rows copied into the kept ones."""
    for r in range(k):
        knnz[r] = nnz[r]
        for j in range(nnz[r]):
            kcols[r, j] = cols[r, j]
            kvals[r, j] = vals[r, j]
    return _touch(kcols, kvals, knnz) & _touch(cols, vals, nnz)


@njit(cache=True, inline="always")
def delassus_dense(rcols, rvals, rnnz, k, mptr, mcol, mval, X, W):
    """X[:, :k] = M⁻¹Hᵀ and W[:k, :k] = H X for the k sparse rows H (rcols, rvals, rnnz) and M⁻¹ in
    compressed sparse rows: every entry the sum delassus_csr makes, in its order (the entries it
    does not store are zeros here)."""
    delassus_x(rcols, rvals, rnnz, k, mptr, mcol, mval, X)
    sparse_rows_times_into(rcols, rvals, rnnz, X, k, k, W)


@njit(cache=True, inline="always")
def delassus_x(rcols, rvals, rnnz, k, mptr, mcol, mval, X):
    """delassus_dense's X = M⁻¹Hᵀ alone."""
    n = X.shape[0]
    for s in range(k):
        for i in range(n):
            X[i, s] = 0.0
        for kk in range(rnnz[s]):
            j = rcols[s, kk]
            hj = rvals[s, kk]
            for t in range(mptr[j], mptr[j + 1]):
                X[mcol[t], s] += mval[t] * hj


@njit(cache=True, inline="always")
def delassus_x_diagonal(rcols, rvals, rnnz, k, at, mval, X):
    """delassus_x for a diagonal M⁻¹ (at: ModelArrays.mi_diag, its entries off the diagonal exactly 0):
    X[j, s] = 0 + M⁻¹_jj h_sj, which is delassus_x's sum (its other terms are ±0 products, which change
    no sum of finite numbers: a sum of ±0 from +0 ends +0): the same numbers, a product per entry
    instead of a row of M⁻¹'s (the sliding box: X in half the time, its rows change at every step).
    False when a row's columns do not ascend or a product is not finite: X is then delassus_x's to
    make (W = H X is made once, after either)."""
    n = X.shape[0]
    ok = True
    for s in range(k):
        for i in range(n):
            X[i, s] = 0.0
        jp = -1
        for kk in range(rnnz[s]):
            j = rcols[s, kk]
            x = 0.0 + mval[at[j]] * rvals[s, kk]
            ok = ok & (j > jp) & np.isfinite(x)
            jp = j
            X[j, s] = x
    return ok


@njit(cache=True, inline="always")
def _matvec_plus(W, x, q, k, out):
    """out = q + W x (q first, then the columns in ascending order, as csr_matvec_plus)."""
    for i in range(k):
        s = q[i]
        for j in range(k):
            s += W[i, j] * x[j]
        out[i] = s


SWEEPS = -1  # nsgs_dense_start's status when the warm start does not meet the tolerance


@njit(cache=True, inline="always")
def nsgs_dense_start(W, q, mu, r, nc, tol, u):
    """nsgs_dense up to its first sweep: the input check, the warm start made admissible and its error.
    Returns (status, error, norm, largest diagonal entry): SOLVED when the warm start meets tol (no
    sweep), BAD_INPUT, or SWEEPS. (Compiled into its callers: stepper._tiny_friction calls nothing, so
    its arrays cost no reference counts; the sweeps are another call.)"""
    m = 2 * nc
    finite = True
    for i in range(m):
        finite = finite and np.isfinite(q[i])
    # (one return, and every array used on every path, by loops of no turn when q is not finite: compiled
    # in, early returns or arrays used on one branch only keep the caller's reference counts)
    mm = m if finite else 0
    qn = dmax = 0.0
    for i in range(mm):
        qn = max(qn, abs(q[i]))
        dmax = max(dmax, W[i, i])
    norm = max(1.0, qn)
    for c in range(mm // 2):
        if not (W[2 * c, 2 * c] > 1e-14 * dmax):  # it acts on nothing (as nsgs_fc2d_csr's skip)
            r[2 * c] = 0.0
            r[2 * c + 1] = 0.0
        elif r[2 * c] < 0.0:
            r[2 * c] = 0.0
    _matvec_plus(W, r, q, mm, u)
    err = _contact_errors(u, r, mu, mm // 2) / norm
    st = SOLVED if err <= tol else SWEEPS
    if not finite:
        st, err = BAD_INPUT, np.inf
    return st, err, norm, dmax


@njit(cache=True)
def nsgs_dense(W, q, mu, r, nc, tol, max_iter, u, hist):
    """nsgs_fc2d_csr on a dense W of 2 nc rows [N1, T1, N2, T2], r warm start in and solution out, u
    scratch; hist: scratch of 4 rows of at least 2 nc (the extrapolation's last two iterates, its point and
    u there: allocated here, they cost an allocation and the arrays' reference counts at every call).
    Returns (status, iterations, error) as nsgs_fc2d_csr (BAD_INPUT for a non-finite q)."""
    st, err, norm, dmax = nsgs_dense_start(W, q, mu, r, nc, tol, u)
    if st != SWEEPS:
        return st, 0, err
    m = 2 * nc
    r1, r2, rx, ux = hist[0], hist[1], hist[2], hist[3]  # nsgs_fc2d_csr's extrapolation
    it = 0
    while it < max_iter:
        it += 1
        for c in range(nc):
            iN = 2 * c
            iT = iN + 1
            a, b, bp, dd = W[iN, iN], W[iN, iT], W[iT, iN], W[iT, iT]
            if not (a > 1e-14 * dmax):
                continue
            rN = r[iN]
            rT = r[iT]
            qN = u[iN] - a * rN - b * rT
            qT = u[iT] - bp * rN - dd * rT
            nN, nT = _local_solve(a, b, bp, dd, qN, qT, mu[c], mu[c] <= 0.0)
            dN = nN - rN
            dT = nT - rT
            if dN != 0.0 or dT != 0.0:
                r[iN] = nN
                r[iT] = nT
                for i in range(m):
                    u[i] += W[i, iN] * dN + W[i, iT] * dT
        err = _contact_errors(u, r, mu, nc) / norm
        if err <= tol:
            _matvec_plus(W, r, q, m, u)  # drop the drift of the incremental update
            err = _contact_errors(u, r, mu, nc) / norm
            if err <= tol:
                return SOLVED, it, err
        if _extrapolation_due(it) and _extrapolated(r, r1, r2, mu, nc, rx):
            _matvec_plus(W, rx, q, m, ux)
            errx = _contact_errors(ux, rx, mu, nc) / norm
            if errx < err:
                for i in range(m):  # (loops, not slices: r[:m] = rx checks the sizes)
                    r[i] = rx[i]
                    u[i] = ux[i]
                err = errx
        if it >= EXTRAPOLATE_FROM - 2:  # _keep_history of the first m entries
            for i in range(m):
                r2[i] = r1[i]
                r1[i] = r[i]
    _matvec_plus(W, r, q, m, u)
    err = _contact_errors(u, r, mu, nc) / norm
    return (SOLVED if err <= tol else ITERATION_CAP), it, err


@njit(cache=True, inline="always")
def _principal_solve(W, q, F, k, sym, z, idx, b, L, dropped, kF, kept):
    """bpp's _solve_sub on a dense W: z_F = -W_FF⁻¹ q_F, z = 0 elsewhere (band storage: the entries
    the sparse W lacks are zeros, which change no sum). False if unusable. A symmetric W_FF's band
    factor stays in L (kept[KEPT_FACTOR], its F in kF) and solves again while W and F repeat: the same
    substitution's sums, so the same z. (One exit, no views, every array used last in the last block:
    see lcp_dense.)"""
    n = 0
    same = sym and kept[KEPT_FACTOR] == 1
    for j in range(k):
        z[j] = 0.0
        if F[j]:
            idx[n] = j
            n += 1
        if F[j] != kF[j]:
            same = False
    for a in range(n):
        b[a] = -q[idx[a]]
    if same:
        ok = _band_substitute(L, kept[KEPT_BW], b, dropped, n)
    elif sym:
        # the band of the nonzero entries (bpp_lcp_csr's, or narrower by exact zeros: the same sums);
        # a chain's problem is tridiagonal, and a full band would cost O(n³)
        bw = 0
        for a in range(1, n):
            wide = bw  # the first nonzero entry left of the band (no break: a second exit keeps the counts)
            for c in range(a - bw):
                if wide == bw and W[idx[a], idx[c]] != 0.0:
                    wide = a - c
            bw = wide
        for a in range(n):
            for c in range(max(0, a - bw), a + 1):
                L[a, bw - (a - c)] = W[idx[a], idx[c]]
        factored = band_cholesky_factor_n(L, bw, dropped, n)  # (band_cholesky_solve_n in two)
        ok = factored & _band_substitute(L, bw, b, dropped, n if factored else 0)
        kept[KEPT_FACTOR] = 1 if factored else 0
        kept[KEPT_BW] = bw
        for j in range(k):
            kF[j] = F[j]
    else:
        for a in range(n):
            for c in range(n):
                L[a, c] = W[idx[a], idx[c]]
        ok = lu_solve_n(L, b, n)
        kept[KEPT_FACTOR] = 0
    for a in range(n if ok else 0):
        z[idx[a]] = b[a]
    return (ok & _touch(W, q, F) & _touch(z, idx, b) & _touch(L, dropped, dropped)
            & _touch(kF, kept, kept))


RUNNING = -1  # lcp_dense's status while it pivots


@njit(cache=True, inline="always")
def lcp_dense(W, q, active0, k, max_iter, z, w, idx, b, L, F, dropped, kF, kept):
    """bpp_lcp_csr (a plain LCP, no equality rows) on a dense W of k rows: 0 <= z ⊥ q + W z >= 0,
    warm-started from the active set active0; z, w (= q + W z), idx, b, F are scratch; L, dropped, kF
    and kept (tp_kept's entries KEPT_SYM, KEPT_FACTOR, KEPT_BW) what is known of W from the last call:
    its symmetry, the last principal factor. The caller sets kept[KEPT_SYM] = -1 and
    kept[KEPT_FACTOR] = 0 when W changes (or L is written elsewhere).
    Returns (status, principal solves) as bpp_lcp_csr. (Compiled into its caller with what it calls:
    stepper._tiny_lcp then calls nothing. Written with one exit and every array used last in the last
    block (_linalg._touch), as are its helpers, and compiled with numba's numpy error model (no
    division's raise path; no divisor here is zero: dmax is not, Cholesky pivots are > 0, LU pivots
    above its tolerance): an early return, a raise path, or an array last used in a loop leaves
    every array's reference counts, 41 pairs a step of a resting 10-bead column.)"""
    st = RUNNING
    for i in range(k):
        if st == RUNNING and not np.isfinite(q[i]):
            st = BAD_INPUT
        if st == RUNNING:
            z[i] = 0.0
    if st == RUNNING and k == 0:
        st = SOLVED
    qn = 0.0
    dmax = 0.0
    for i in range(k if st == RUNNING else 0):
        qn = max(qn, abs(q[i]))
        dmax = max(dmax, abs(W[i, i]))
    if st == RUNNING and qn == 0.0:
        st = SOLVED
    if dmax == 0.0:
        dmax = 1.0
    tol_w = 1e-12 * qn
    tol_z = tol_w / dmax
    known = kept[KEPT_SYM] >= 0
    sym = kept[KEPT_SYM] != 0  # (csr_symmetric's test, once for a W)
    for i in range(k if st == RUNNING and not known else 0):
        for j in range(i):
            x, y = W[i, j], W[j, i]
            if x != y and abs(x - y) > 1e-13 * (abs(x) + abs(y)):
                sym = False
    if st == RUNNING and not known:
        kept[KEPT_SYM] = 1 if sym else 0
    for i in range(k if st == RUNNING else 0):
        F[i] = active0[i]
    best = k + 1
    backup = _BACKUP
    swapped = -1  # the last single swap (bpp_lcp_csr's cycle test)
    it = 0
    while st == RUNNING and it < max_iter:
        it += 1
        if not _principal_solve(W, q, F, k, sym, z, idx, b, L, dropped, kF, kept):
            st = SINGULAR_SUBPROBLEM
            continue
        _matvec_plus(W, z, q, k, w)
        ninf = 0
        last = -1
        for i in range(k):
            bad = z[i] < -tol_z if F[i] else w[i] < -tol_w
            if bad:
                ninf += 1
                last = i
        if ninf == 0:
            lim = 1e-9 * qn  # complementarity verified, as bpp_lcp_csr does (up to the first failure)
            st = SOLVED
            for i in range(k):
                if st == SOLVED:
                    if z[i] < 0.0:
                        z[i] = 0.0
                    if not abs(min(z[i] * dmax, w[i])) <= lim:
                        st = SINGULAR_SUBPROBLEM
            continue
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
            for i in range(k):
                if F[i]:
                    if z[i] < -tol_z:
                        F[i] = False
                elif w[i] < -tol_w:
                    F[i] = True
            swapped = -1
        elif last == swapped and (max_iter - it) % 2 == 0:  # a cycle, stopped as bpp_lcp_csr does
            st = ITERATION_CAP
        else:
            swapped = last
            F[last] = not F[last]
    if st == RUNNING:
        st = ITERATION_CAP
    touched = _touch(W, q, active0) & _touch(z, w, idx) & _touch(b, L, F) & _touch(dropped, kF, kept)
    return (st if touched else BAD_INPUT), it  # (touched: always True)
