"""Nonsmooth Gauss-Seidel for the 2-D frictional contact problem (docs/numerics.md, step 4; the
time-stepping digest §5.2, §6.3).

u = W r + q, rows interleaved [N1, T1, N2, T2, ...]. Each contact's 2x2 problem is solved
exactly with the others frozen, in the order take-off, stick, slip(+), slip(-); the first
candidate that satisfies its own conditions is taken (if round-off rejects all of them, the one
with the smallest local residual). W is in compressed sparse rows (_linalg); u is kept up to date
incrementally (O(neighbours) per contact) and recomputed exactly before convergence is declared.
nsgs_fc2d_rows does the same sweeps without W, from the contact rows H and X = M⁻¹Hᵀ: it keeps
v - v_free = X r instead of u (u = q + H X r), which is cheaper than forming W when every contact's
rows see few coordinates but many neighbours (a stack of boxes: W has ~20 entries per row).

Slow problems are extrapolated: NSGS converges linearly, and on a landing pyramid of boxes slowly (the
error falls 100× per ~250 sweeps; 55 boxes reached the cap of 1000 sweeps on 4 landing steps, each then
solved by Lemke in ~100 ms). From sweep EXTRAPOLATE_FROM on, every EXTRAPOLATE_EVERY sweeps, the last
three iterates give the contraction ρ of the slowest mode and its limit r + ρ/(1 − ρ)(r − r_prev)
(Aitken's Δ²), projected onto the cones; it is taken only where its error is below the iterate's.
Problems solved in fewer sweeps keep their iterates bit for bit.

The rows form (the stepper's friction solve) instead takes Nesterov's momentum from sweep MOMENTUM_FROM on:
each sweep starts from y = x_k + β_k (x_k − x_{k−1}) (x the sweeps' iterates, β_k = (t_k − 1)/t_{k+1},
t_{k+1} = (1 + √(1 + 4 t_k²))/2, as FISTA), projected onto the cones; t goes back to 1 (β = 0) whenever a
sweep's own step |x_{k+1} − y| exceeds the last one's (an adaptive restart, O'Donoghue & Candès). On the
55-box pyramid's landing problems that takes 2.1× fewer sweeps than the sweeps with Aitken's extrapolation
(benchmarks/landing_sweeps.py, docs/benchmarks.md session 15); the state (X r) follows y by the same linear
combination, with the columns of the entries the projection moved. Problems solved in MOMENTUM_FROM sweeps or
fewer (every resting step) keep their iterates bit for bit.
"""
import numpy as np
import numba
from numba.extending import overload

from ._linalg import bad_input, csr_bad_input, csr_from_dense, csr_matvec_plus, csr_transpose
from .residuals import fc2d_contact_residual, fc2d_largest_residual as _contact_errors
from ..codes import BAD_INPUT, ITERATION_CAP, SOLVED


EXTRAPOLATE_FROM = 100   # sweeps before the first extrapolation
EXTRAPOLATE_EVERY = 10   # sweeps between two
MOMENTUM_FROM = 10       # the rows form: sweeps before the momentum starts (instead of the extrapolation)


@numba.njit(cache=True)
def _extrapolated(r, r1, r2, mu, nc, rx):
    """rx = Aitken's limit of the iterates r2, r1, r (oldest first) along the slowest mode, projected onto
    the cones (r_N >= 0, |r_T| <= mu r_N); False when the differences do not contract (ρ not in (0, 1))."""
    num = 0.0
    den = 0.0
    for i in range(2 * nc):
        d1 = r[i] - r1[i]
        d0 = r1[i] - r2[i]
        num += d1 * d0
        den += d0 * d0
    if not den > 0.0:
        return False
    rho = num / den
    if not (0.0 < rho < 1.0):
        return False
    f = rho / (1.0 - rho)
    for c in range(nc):
        rN = max(r[2 * c] + f * (r[2 * c] - r1[2 * c]), 0.0)
        rT = r[2 * c + 1] + f * (r[2 * c + 1] - r1[2 * c + 1])
        lim = max(mu[c], 0.0) * rN
        rx[2 * c] = rN
        rx[2 * c + 1] = min(max(rT, -lim), lim)
    return True


@numba.njit(cache=True, inline='always')
def _extrapolation_due(it):
    return it >= EXTRAPOLATE_FROM and (it - EXTRAPOLATE_FROM) % EXTRAPOLATE_EVERY == 0


@numba.njit(cache=True, inline='always')
def _keep_history(it, r, r1, r2):
    """r1, r2 = the last two iterates (only from the sweeps an extrapolation reads)."""
    if it >= EXTRAPOLATE_FROM - 2:
        r2[:] = r1
        r1[:] = r


@numba.njit(cache=True)
def _local_solve(a, b, bp, d, qN, qT, mu, frictionless):
    """Exact solution of 0 <= uN _|_ rN >= 0 + 2-D Coulomb for u = [[a, b], [bp, d]] r + q."""
    # take-off
    if qN >= 0.0:
        return 0.0, 0.0
    if frictionless:
        return -qN / a, 0.0
    best_rN = 0.0
    best_rT = 0.0
    best_e = -1.0  # the residual of r = 0, computed once a candidate fails (most local solves stick at once)
    # stick: solve the 2x2 system u = 0
    det = a * d - b * bp
    if det > 1e-14 * a * d:
        rN = (-qN * d + b * qT) / det
        rT = (-a * qT + bp * qN) / det
        if rN >= 0.0 and abs(rT) <= mu * rN:
            return rN, rT
        e = fc2d_contact_residual(rN, rT, 0.0, 0.0, mu)
        best_e = fc2d_contact_residual(0.0, 0.0, qN, qT, mu)
        if e < best_e:
            best_e, best_rN, best_rT = e, rN, rT
    # slip with direction s (u_T has the sign of s, r_T = -s mu r_N)
    for k in range(2):
        s = 1.0 if k == 0 else -1.0
        den = a - s * mu * b
        if den > 1e-14 * a:
            rN = -qN / den
            rT = -s * mu * rN
            uT = (bp - s * mu * d) * rN + qT
            if rN >= 0.0 and s * uT >= 0.0:
                return rN, rT
            uN = a * rN + b * rT + qN
            e = fc2d_contact_residual(rN, rT, uN, uT, mu)
            if best_e < 0.0:
                best_e = fc2d_contact_residual(0.0, 0.0, qN, qT, mu)
            if e < best_e:
                best_e, best_rN, best_rT = e, rN, rT
    return best_rN, best_rT


@numba.njit(cache=True, inline='always')
def _add_columns(tptr, tcol, tval, iN, dN, dT, u):
    """u += W[:, iN] dN + W[:, iN + 1] dT, one sum per entry as the dense update made it (the columns'
    entries in ascending rows, merged)."""
    p, pe = tptr[iN], tptr[iN + 1]
    k, ke = pe, tptr[iN + 2]
    while p < pe or k < ke:
        if k == ke or (p < pe and tcol[p] < tcol[k]):
            u[tcol[p]] += tval[p] * dN + 0.0 * dT
            p += 1
        elif p == pe or tcol[k] < tcol[p]:
            u[tcol[k]] += 0.0 * dN + tval[k] * dT
            k += 1
        else:
            u[tcol[p]] += tval[p] * dN + tval[k] * dT
            p += 1
            k += 1


@numba.njit(cache=True)
def _diagonal_blocks(ptr, col, val, nc):
    """Each contact's 2x2 block [[a, b], [bp, d]] of W (rows 2c, 2c + 1), in one pass over those rows
    (0.0 + entry, as csr_entry sums it; a missing entry is 0)."""
    blk = np.zeros((nc, 4))
    for c in range(nc):
        for side in range(2):
            i = 2 * c + side
            for p in range(ptr[i], ptr[i + 1]):
                j = col[p] - 2 * c
                if j == 0 or j == 1:
                    blk[c, 2 * side + j] = 0.0 + val[p]
    return blk


@numba.njit(cache=True)
def fc2d_error_csr(ptr, col, val, q, mu, r):
    """NSGS's error of r for u = W r + q (W in compressed sparse rows): the largest per-contact
    natural-map residual over max(1, ||q||inf)."""
    m = q.shape[0]
    u = np.empty(m)
    csr_matvec_plus(ptr, col, val, r, q, u)
    qn = 0.0
    for i in range(m):
        qn = max(qn, abs(q[i]))
    return _contact_errors(u, r, mu, m // 2) / max(1.0, qn)


@numba.njit(cache=True)
def nsgs_fc2d(W, q, mu, r0, tol, max_iter):
    """nsgs_fc2d_csr for a dense W (same iterates: the sums skip only exact zeros)."""
    m = q.shape[0]
    if bad_input(W, q, r0, m):
        return np.zeros(m), BAD_INPUT, 0, np.inf
    ptr, col, val = csr_from_dense(W)
    tptr, tcol, tval = csr_transpose(ptr, col, val, m)
    return nsgs_fc2d_csr(ptr, col, val, tptr, tcol, tval, q, mu, r0, tol, max_iter)


@numba.njit(cache=True)
def nsgs_fc2d_csr(ptr, col, val, tptr, tcol, tval, q, mu, r0, tol, max_iter):
    """Solve the FC2D problem by nonsmooth Gauss-Seidel, warm-started from r0; W by its rows (ptr,
    col, val) and its columns (tptr, tcol, tval: the rows of Wᵀ, the same arrays when W is symmetric).

    Returns (r, status, iterations, error). error = fc2d_residual(W, q, mu, r) / max(1, ||q||inf)
    (the max over contacts of the natural-map residual of the Coulomb-Signorini law, see
    residuals.fc2d_residual, made relative to the free velocity when that exceeds 1).
    status 0: error <= tol; 2: max_iter sweeps done without reaching tol (or non-finite);
    4: bad input (odd size, shapes of W / r0 / mu, non-finite q).
    Contacts with W_NN <= 1e-14 * max diag(W) are skipped (r = 0): they cannot act on anything.
    Contacts with mu = 0 are frictionless (r_T = 0). A contact with W_TT = 0 (its tangential
    percussion moves nothing) needs no division by W_TT: the slip candidates give
    r_T = -mu r_N sign(u_T), which the law requires and which has no effect on u.
    """
    m = q.shape[0]
    nc = m // 2
    if m % 2 != 0 or csr_bad_input(ptr, q, r0, m) or tptr.shape[0] != m + 1 or mu.shape[0] < nc:
        return np.zeros(m), BAD_INPUT, 0, np.inf
    if nc == 0:
        return np.zeros(m), SOLVED, 0, 0.0
    r = np.empty(m)
    for i in range(m):
        r[i] = r0[i]
    st, it, err = _nsgs(ptr, col, val, tptr, tcol, tval, _diagonal_blocks(ptr, col, val, nc), q, mu, r, np.empty(m),
                        tol, max_iter, False)
    return r, st, it, err


@numba.njit(cache=True)
def _nsgs(rp, rc, rv, cp, cc, cv, blk, q, mu, r, state, tol, max_iter, ready):
    """The sweeps of nsgs_fc2d_csr and nsgs_fc2d_rows (the W and the rows form, below), which differ only in
    what they keep of u = W r + q (their state) and so in how a sweep reads and updates it.
    rp, rc, rv: the form's matrix by rows; cp, cc, cv: by columns; blk: the contacts' 2x2 blocks of W.
    r: the warm start on entry (m entries), the answer on return; state: the form's state (W form: m entries,
    rows form: n), that of the answer on return.
    ready: the state already holds that of the warm start (the rows form's X r, summed as _exact_dv sums it),
    used unless the warm start is changed below.
    Returns (status, sweeps, error). Allocates nothing unless a sweep past the first few runs (a resting step's
    solve: the caller's scratch only)."""
    m = q.shape[0]
    nc = m // 2
    qn = 0.0
    dmax = 0.0
    for i in range(m):
        qn = max(qn, abs(q[i]))
        dmax = max(dmax, blk[i // 2, 0 if i % 2 == 0 else 3])
    norm = max(1.0, qn)
    thr = 1e-14 * dmax  # a contact whose blk[c, 0] is not above it is skipped (r = 0): it cannot act on anything
    for c in range(nc):
        if not (blk[c, 0] > thr):
            ready = ready and r[2 * c] == 0.0 and r[2 * c + 1] == 0.0
            r[2 * c] = 0.0
            r[2 * c + 1] = 0.0
        elif r[2 * c] < 0.0:
            ready = False
            r[2 * c] = 0.0
    # an error that only decides whether to go on (err > tol) stops at the first contact that shows it,
    # the scan starting where the last one stopped; only the extrapolation's sweeps need its value
    if ready:
        e, at = _error(rp, rc, rv, cp, cc, cv, q, state, r, mu, nc, norm, tol, 0)
    else:
        e, at = _exact_error(rp, rc, rv, cp, cc, cv, q, r, state, mu, nc, norm, tol, 0)
    err = e / norm
    if err <= tol:
        return SOLVED, 0, err
    # the momentum (rows form) keeps the last sweep's iterate in r1 with its state in statex, and y in rx;
    # the extrapolation (W form) its last iterates in r1, r2. Allocated at the first sweep that writes them
    # (MOMENTUM_FROM, EXTRAPOLATE_FROM - 2): a resting step's one or two sweeps allocate none of the four
    # (until then empty views of the state: no allocation either)
    momentum = _rows_form_of(rp)
    r1 = r2 = rx = statex = state[:0]
    history_from = MOMENTUM_FROM if momentum else EXTRAPOLATE_FROM - 2
    t = 1.0
    step = np.inf
    it = 0
    while it < max_iter:
        it += 1
        if it == history_from:
            r1, r2, rx, statex = np.empty(m), np.empty(m), np.empty(m), np.empty(state.shape[0])
        swept_from_y = momentum and it > MOMENTUM_FROM
        if swept_from_y:
            t1 = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            _momentum_point(r, r1, state, statex, (t - 1.0) / t1, mu, blk, thr, cp, cc, cv, nc, rx)
        _sweep(rp, rc, rv, cp, cc, cv, q, state, r, blk, thr, mu, nc)
        if swept_from_y:
            step1 = 0.0
            for i in range(m):
                step1 += (r[i] - rx[i]) ** 2
            t = 1.0 if step1 > step else t1   # restart where the sweep's step grew
            step = step1
        elif momentum and it == MOMENTUM_FROM:
            r1[:] = r
            statex[:] = state
        first = -1 if not momentum and _extrapolation_due(it) else at
        e, at = _error(rp, rc, rv, cp, cc, cv, q, state, r, mu, nc, norm, tol, first)
        err = e / norm
        if err <= tol:
            # drop the drift of the incremental update
            e, at = _exact_error(rp, rc, rv, cp, cc, cv, q, r, state, mu, nc, norm, tol, first)
            err = e / norm
            if err <= tol:
                return SOLVED, it, err
        at = max(at, 0)
        if momentum:
            continue
        if _extrapolation_due(it) and _extrapolated(r, r1, r2, mu, nc, rx):
            errx = _exact_error(rp, rc, rv, cp, cc, cv, q, rx, statex, mu, nc, norm, tol, -1)[0] / norm
            if errx < err:
                r[:] = rx
                state[:] = statex
                err = errx
        _keep_history(it, r, r1, r2)
    err = _exact_error(rp, rc, rv, cp, cc, cv, q, r, state, mu, nc, norm, tol, -1)[0] / norm
    return (SOLVED if err <= tol else ITERATION_CAP), it, err


# the sweeps' small helpers are inlined by numba: a call passes its arrays with reference counts,
# which cost as much as their arithmetic (half of a pyramid step's sweep)
@numba.njit(cache=True, inline='always')
def _row_dot(rcols, rvals, rnnz, i, x):
    s = 0.0
    for kk in range(rnnz[i]):
        s += rvals[i, kk] * x[rcols[i, kk]]
    return s


@numba.njit(cache=True, inline='always')
def _add_column(cptr, ccol, cval, i, f, dv):
    for t in range(cptr[i], cptr[i + 1]):
        dv[ccol[t]] += cval[t] * f


@numba.njit(cache=True, inline='always')
def _exact_dv(cptr, ccol, cval, r, dv):
    """dv = X r, per coordinate in the order of the rows."""
    dv[:] = 0.0
    for i in range(r.shape[0]):
        if r[i] != 0.0:
            _add_column(cptr, ccol, cval, i, r[i], dv)


@numba.njit(cache=True, inline='always')
def _scan_residuals(rcols, rvals, rnnz, q, dv, r, mu, nc, norm, tol, first):
    """(the largest contact residual, the contact where the scan stopped) of u = q + H dv (the rows form's,
    computed here contact by contact, kept nowhere). first >= 0: the scan goes from contact first on
    (wrapping round) and stops at the first contact whose residual / norm exceeds tol, the largest so far
    returned: enough to decide err > tol (x / norm is monotone in x), and the same decision as the whole scan;
    first < 0: every contact, the largest exactly (fc2d_largest_residual's number: a maximum in any order)."""
    res = 0.0
    stop = first >= 0
    c = first if stop else 0
    for _ in range(nc):
        i = 2 * c
        uN = q[i] + _row_dot(rcols, rvals, rnnz, i, dv)
        uT = q[i + 1] + _row_dot(rcols, rvals, rnnz, i + 1, dv)
        e = fc2d_contact_residual(r[i], r[i + 1], uN, uT, mu[c])
        if not np.isfinite(e):
            return np.inf, c
        if e > res:
            res = e
        if stop and e / norm > tol:
            return res, c
        c = c + 1 if c + 1 < nc else 0
    return res, -1


@numba.njit(cache=True, inline='always')
def _scan_u(u, r, mu, nc, norm, tol, first):
    """_scan_residuals of the W form's u (its state)."""
    res = 0.0
    stop = first >= 0
    c = first if stop else 0
    for _ in range(nc):
        i = 2 * c
        e = fc2d_contact_residual(r[i], r[i + 1], u[i], u[i + 1], mu[c])
        if not np.isfinite(e):
            return np.inf, c
        if e > res:
            res = e
        if stop and e / norm > tol:
            return res, c
        c = c + 1 if c + 1 < nc else 0
    return res, -1


@numba.njit(cache=True)
def _row_blocks(rcols, rvals, rnnz, cptr, ccol, cval, n, nc):
    """Each contact's 2x2 block of W = H X, [[a, b], [bp, d]], every entry summed over H's entries in
    order as delassus_csr sums W's (the same numbers)."""
    blk = np.zeros((nc, 4))
    xs = np.zeros(n)
    for c in range(nc):
        for side in range(2):
            s = 2 * c + side
            for t in range(cptr[s], cptr[s + 1]):
                xs[ccol[t]] = cval[t]
            for i in range(2):
                blk[c, 2 * i + side] = 0.0 + _row_dot(rcols, rvals, rnnz, 2 * c + i, xs)
            for t in range(cptr[s], cptr[s + 1]):
                xs[ccol[t]] = 0.0
    return blk


@numba.njit(cache=True)
def nsgs_fc2d_rows(rcols, rvals, rnnz, cptr, ccol, cval, n, q, mu, r0, tol, max_iter, blk):
    """nsgs_fc2d_csr for W = H X without forming W: H by its sparse rows (rcols, rvals, rnnz: row i
    has rvals[i, kk] in column rcols[i, kk], kk < rnnz[i]), X = M⁻¹Hᵀ by its columns (cptr, ccol,
    cval: contact_rows.delassus_columns), n coordinates. A contact's update reads u from the rows
    and v - v_free = X r (O(entries of its rows)) and adds its change to X r (O(entries of its
    columns)); the error is that of u = q + H X r, with X r recomputed before convergence is declared.
    Same returns, statuses, skipped contacts and local solves as nsgs_fc2d_csr (its iterates up to
    round-off: u is summed in another order). blk: the contacts' 2x2 blocks of W when the caller has them
    (contact_rows.delassus_columns_blocks: _row_blocks' numbers), else an array of no rows."""
    r, st, it, err, _dv = nsgs_fc2d_rows_dv(rcols, rvals, rnnz, cptr, ccol, cval, n, q, mu, r0, tol, max_iter, blk)
    return r, st, it, err


@numba.njit(cache=True)
def nsgs_fc2d_rows_dv(rcols, rvals, rnnz, cptr, ccol, cval, n, q, mu, r0, tol, max_iter, blk):
    """nsgs_fc2d_rows, and dv = X r of the answer (n entries): when SOLVED, the exact X r its last error was
    computed with (the columns added in the rows' order from 0, zero entries of r skipped); the stepper's
    v_new = v_free + dv then needs no pass of its own over X's columns."""
    m = q.shape[0]
    r = np.zeros(m)
    dv = np.zeros(n)
    if r0.shape[0] < m:
        return r, BAD_INPUT, 0, np.inf, dv
    for i in range(m):
        r[i] = r0[i]
    st, it, err = nsgs_fc2d_rows_into(rcols, rvals, rnnz, cptr, ccol, cval, q, mu, r, tol, max_iter, blk, dv)
    return r, st, it, err, dv


@numba.njit(cache=True)
def nsgs_fc2d_rows_into(rcols, rvals, rnnz, cptr, ccol, cval, q, mu, r, tol, max_iter, blk, dv, ready=False):
    """nsgs_fc2d_rows_dv in the caller's arrays (the stepper's scratch: a resting step allocates nothing):
    r holds the warm start on entry (exactly m entries) and the answer (or, not SOLVED, the last iterate) on
    return, dv (n entries) X r of the answer as nsgs_fc2d_rows_dv returns it; the same numbers as
    nsgs_fc2d_rows_dv. ready: dv holds X r of the warm start on entry, summed as _exact_dv sums it (the
    stepper's _problem_rows_columns does it while it writes X's columns: a pass over X a step less).
    Returns (status, sweeps, error); BAD_INPUT leaves r and dv zero."""
    m = q.shape[0]
    nc = m // 2
    if m % 2 != 0 or rnnz.shape[0] != m or cptr.shape[0] != m + 1 or r.shape[0] != m or mu.shape[0] < nc:
        r[:] = 0.0
        dv[:] = 0.0
        return BAD_INPUT, 0, np.inf
    for i in range(m):
        if not np.isfinite(q[i]):
            r[:] = 0.0
            dv[:] = 0.0
            return BAD_INPUT, 0, np.inf
    if nc == 0:
        dv[:] = 0.0
        return SOLVED, 0, 0.0
    if blk.shape[0] != nc:
        blk = _row_blocks(rcols, rvals, rnnz, cptr, ccol, cval, dv.shape[0], nc)
    return _nsgs(rcols, rvals, rnnz, cptr, ccol, cval, blk, q, mu, r, dv, tol, max_iter, ready)


# The forms' operations on their state, chosen by numba when it types _nsgs (one machine code per form):
# the W form (W by rows ptr, col, val and by columns tptr, tcol, tval) keeps u = W r + q, updated by W's
# columns; the rows form (H by rows rcols, rvals, rnnz, X = M⁻¹Hᵀ by columns cptr, ccol, cval) keeps
# dv = X r = v - v_free, updated by X's columns, and reads u = q + H dv from H's rows. A sweep is one
# operation (a call per contact would pass its arrays with reference counts: a third more per sweep).
def _rows_form(rp):
    return rp.ndim == 2


def _rows_form_of(rp):
    """True in the rows form (a constant numba compiles in)."""


@overload(_rows_form_of, inline="always")
def _rows_form_of_impl(rp):
    if _rows_form(rp):
        return lambda rp: True
    return lambda rp: False


@numba.njit(cache=True, inline='always')
def _momentum_point(r, r1, state, s1, beta, mu, blk, thr, cp, cc, cv, nc, y):
    """r = y = x + beta (x - r1) projected onto the cones (x = r on entry, the last sweep's iterate; r1 the one
    before), its state the same combination of theirs with the columns of what the projection moved;
    r1, s1 = x and its state. (A contact with blk[c, 0] not above thr is skipped: r = 0.)"""
    for j in range(state.shape[0]):
        dj = state[j] - s1[j]
        s1[j] = state[j]
        state[j] += beta * dj
    for c in range(nc):
        i = 2 * c
        xN, xT = r[i], r[i + 1]
        yN = xN + beta * (xN - r1[i])
        yT = xT + beta * (xT - r1[i + 1])
        pN = 0.0 if not (blk[c, 0] > thr) else max(yN, 0.0)
        lim = max(mu[c], 0.0) * pN
        pT = min(max(yT, -lim), lim)
        r1[i], r1[i + 1] = xN, xT
        r[i], r[i + 1] = pN, pT
        y[i], y[i + 1] = pN, pT
        if pN != yN:
            _add_column(cp, cc, cv, i, pN - yN, state)
        if pT != yT:
            _add_column(cp, cc, cv, i + 1, pT - yT, state)


def _error(rp, rc, rv, cp, cc, cv, q, state, r, mu, nc, norm, tol, first):
    """_scan_residuals (W form: _scan_u) of the iterate."""


def _exact_error(rp, rc, rv, cp, cc, cv, q, x, state, mu, nc, norm, tol, first):
    """The state of r = x computed afresh (no drift of the updates), and _scan_residuals of it."""


@numba.njit(cache=True, inline='always')
def _contact_solve(blk, c, uN, uT, r, mu):
    """The contact c's new (r_N, r_T) for the others' percussions frozen, u = (uN, uT) the iterate's."""
    a, b, bp, d = blk[c, 0], blk[c, 1], blk[c, 2], blk[c, 3]
    rN = r[2 * c]
    rT = r[2 * c + 1]
    return _local_solve(a, b, bp, d, uN - a * rN - b * rT, uT - bp * rN - d * rT, mu[c], mu[c] <= 0.0)


def _sweep(rp, rc, rv, cp, cc, cv, q, state, r, blk, thr, mu, nc):
    """One sweep of local solves, contact by contact, the state kept up to date (contacts with blk[c, 0] not
    above thr skipped)."""


@overload(_sweep)
def _sweep_of(rp, rc, rv, cp, cc, cv, q, state, r, blk, thr, mu, nc):
    if _rows_form(rp):
        def sweep_rows(rp, rc, rv, cp, cc, cv, q, state, r, blk, thr, mu, nc):
            for c in range(nc):
                if not (blk[c, 0] > thr):
                    continue
                iN = 2 * c
                nN, nT = _contact_solve(blk, c, q[iN] + _row_dot(rp, rc, rv, iN, state),
                                        q[iN + 1] + _row_dot(rp, rc, rv, iN + 1, state), r, mu)
                dN = nN - r[iN]
                dT = nT - r[iN + 1]
                if dN != 0.0:
                    r[iN] = nN
                    _add_column(cp, cc, cv, iN, dN, state)
                if dT != 0.0:
                    r[iN + 1] = nT
                    _add_column(cp, cc, cv, iN + 1, dT, state)
        return sweep_rows

    def sweep_w(rp, rc, rv, cp, cc, cv, q, state, r, blk, thr, mu, nc):
        for c in range(nc):
            if not (blk[c, 0] > thr):
                continue
            iN = 2 * c
            nN, nT = _contact_solve(blk, c, state[iN], state[iN + 1], r, mu)
            dN = nN - r[iN]
            dT = nT - r[iN + 1]
            if dN != 0.0 or dT != 0.0:
                r[iN] = nN
                r[iN + 1] = nT
                _add_columns(cp, cc, cv, iN, dN, dT, state)
    return sweep_w


@overload(_error)
def _error_of(rp, rc, rv, cp, cc, cv, q, state, r, mu, nc, norm, tol, first):
    if _rows_form(rp):
        return lambda rp, rc, rv, cp, cc, cv, q, state, r, mu, nc, norm, tol, first: _scan_residuals(
            rp, rc, rv, q, state, r, mu, nc, norm, tol, first)
    return lambda rp, rc, rv, cp, cc, cv, q, state, r, mu, nc, norm, tol, first: _scan_u(
        state, r, mu, nc, norm, tol, first)


@overload(_exact_error)
def _exact_error_of(rp, rc, rv, cp, cc, cv, q, x, state, mu, nc, norm, tol, first):
    if _rows_form(rp):
        def exact_rows(rp, rc, rv, cp, cc, cv, q, x, state, mu, nc, norm, tol, first):
            _exact_dv(cp, cc, cv, x, state)
            return _scan_residuals(rp, rc, rv, q, state, x, mu, nc, norm, tol, first)
        return exact_rows

    def exact_w(rp, rc, rv, cp, cc, cv, q, x, state, mu, nc, norm, tol, first):
        csr_matvec_plus(rp, rc, rv, x, q, state)
        return _scan_u(state, x, mu, nc, norm, tol, first)
    return exact_w
