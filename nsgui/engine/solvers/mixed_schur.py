"""A mixed LCP with many equality rows and few unilateral ones, singular W allowed, by the Schur complement
of the equality block (the projection of a box pyramid's landing).

    W τ + q = 0 on the rows eq,   0 ≤ W τ + q ⊥ τ ≥ 0 on the others,   W symmetric PSD (compressed rows).

The equality block W_EE, shifted by the projection (1e-12 of its diagonal), is factored once by a banded
Cholesky in the rows' own order (a pyramid's candidate order keeps it banded: a row of boxes). No row is
dropped: a row dependent on the earlier ones (a box's two corners on a flat face, the same point as two
candidates) has the shift as its pivot, and dropping rows at block pivoting's threshold (1e-10 of the
diagonal) also drops nearly dependent ones (a tilted box's corners) whose equations then miss by ~1e-9 of
max|q| on the pyramid's landing, where keeping them meets them to ~1e-13 as the dense fallback does. The
unilateral rows U are then a small dense LCP in τ_U,

    S = W_UU − Zᵀ Z,   r = q_U − Zᵀ L⁻¹ q_E,   Z = L⁻¹ W_EU,   W_EE = L Lᵀ,   0 ≤ S τ_U + r ⊥ τ_U ≥ 0,

S symmetric PSD, solved by block pivoting and, where that fails, Lemke (small_lcp); τ_E = −W_EE⁻¹ (q_E + W_EU τ_U).
Cost: one banded factor, |U| forward substitutions (each from its column's first entry) and one solve,
where block pivoting on the whole problem factors the whole band at each of its iterations and may cycle
on the rows its factor drops (bpp.py), and the dense fallback factors W_EE as a dense matrix.

The answer is checked on the whole problem with block pivoting's own test (equalities to 1e-9 max|q|,
complementarity to the same with τ scaled by W's largest diagonal entry). An answer that fails it is refined
with the same factors (_refined: its residual taken back into the Schur form and the small LCP solved again,
up to REFINE rounds; on the 55 boxes' landing the first small LCP's answer can miss its unilateral rows by
~0.1–0.7 max|q|, one round meets them to ~1e-11); a dependent equality the others do not satisfy
(inconsistent), or a small LCP left unsolved, still returns SINGULAR_SUBPROBLEM and the caller falls back.
"""
import numpy as np
import numba

from ._linalg import _band_substitute, csr_matvec_plus
from .bpp import bpp_lcp
from .lemke import lemke
from ..codes import SINGULAR_SUBPROBLEM, SOLVED

REFINE = 2  # rounds of _refined after a failed check (the pyramid's landing needs one)


@numba.njit(cache=True)
def mixed_schur_csr(ptr, col, val, q, eq):
    """τ of the mixed LCP (module doc) and a status: SOLVED (checked on the whole problem) or
    SINGULAR_SUBPROBLEM (the equality block indefinite, the small LCP unsolved, or the check failed)."""
    m = q.shape[0]
    tau = np.zeros(m)
    pos = np.empty(m, np.int64)  # a row's position among the equality rows, or among the unilateral ones
    eidx = np.empty(m, np.int64)
    uidx = np.empty(m, np.int64)
    ne = 0
    nu = 0
    for i in range(m):
        if eq[i]:
            pos[i] = ne
            eidx[ne] = i
            ne += 1
        else:
            pos[i] = nu
            uidx[nu] = i
            nu += 1
    bw = 0
    env = np.empty(ne, np.int64)  # each equality row's first entry (its envelope: the factor's too)
    for a in range(ne):
        i = eidx[a]
        env[a] = a
        for p in range(ptr[i], ptr[i + 1]):
            j = col[p]
            if eq[j] and j < i:
                bw = max(bw, a - pos[j])
                env[a] = min(env[a], pos[j])
    L = np.zeros((ne, bw + 1))  # W_EE in lower band storage (_linalg), then its factor
    y = np.empty(ne)
    for a in range(ne):
        i = eidx[a]
        y[a] = q[i]
        for p in range(ptr[i], ptr[i + 1]):
            j = col[p]
            if eq[j] and j <= i:
                L[a, bw - (a - pos[j])] += val[p]
    if not _band_factor(L, bw, ne, env):
        return tau, SINGULAR_SUBPROBLEM
    # W_EE = L Lᵀ; Z[j] = L⁻¹ W_E,u_j (zero above its first entry), S = W_UU − Zᵀ Z, r = q_U − Zᵀ L⁻¹ q_E
    _forward(L, bw, y, 0, ne, env)
    Z = np.zeros((nu, ne))
    first = np.empty(nu, np.int64)
    for jj in range(nu):
        j = uidx[jj]
        Zj = Z[jj]
        f = ne
        for p in range(ptr[j], ptr[j + 1]):
            c = col[p]
            if eq[c]:
                Zj[pos[c]] += val[p]
                f = min(f, pos[c])
        first[jj] = f
    for jj in range(0, nu - 3, 4):  # four columns side by side (_forward4), the rest one by one
        _forward4(L, bw, Z[jj], Z[jj + 1], Z[jj + 2], Z[jj + 3],
                  min(min(first[jj], first[jj + 1]), min(first[jj + 2], first[jj + 3])), ne, env)
    for jj in range(nu - nu % 4, nu):
        _forward(L, bw, Z[jj], first[jj], ne, env)
    S = np.zeros((nu, nu))
    r = np.empty(nu)
    for ii in range(nu):
        i = uidx[ii]
        Zi = Z[ii]
        s = q[i]
        for a in range(first[ii], ne):
            s -= Zi[a] * y[a]
        r[ii] = s
        for p in range(ptr[i], ptr[i + 1]):
            c = col[p]
            if not eq[c] and pos[c] <= ii:
                S[ii, pos[c]] += val[p]
        for jj in range(ii + 1):  # the lower triangle, mirrored: S exactly symmetric
            Zj = Z[jj]
            s = S[ii, jj]
            for a in range(max(first[ii], first[jj]), ne):
                s -= Zi[a] * Zj[a]
            S[ii, jj] = s
            S[jj, ii] = s
    tu = np.zeros(nu)
    if nu > 0:
        tu, st = small_lcp(S, r, r < 0.0)
        if st != SOLVED:
            return tau, SINGULAR_SUBPROBLEM
        for jj in range(nu):
            tu[jj] = max(tu[jj], 0.0)
            tau[uidx[jj]] = tu[jj]
    # τ_E = −W_EE⁻¹ (q_E + W_EU τ_U)
    b = np.empty(ne)
    _equality_solve(ptr, col, val, eq, pos, eidx, q, tu, L, bw, b)
    for a in range(ne):
        tau[eidx[a]] = -b[a]
    if _checked(ptr, col, val, q, eq, tau) == SOLVED:
        return tau, SOLVED
    return _refined(ptr, col, val, q, eq, tau, L, bw, env, Z, first, S, pos, eidx, uidx)


@numba.njit(cache=True)
def _refined(ptr, col, val, q, eq, tau, L, bw, env, Z, first, S, pos, eidx, uidx):
    """A Schur answer τ that failed _checked, corrected with the same factors (iterative refinement of the
    whole mixed LCP): the residual w = W τ + q taken back into the Schur form, r' = w_U − Zᵀ L⁻¹ w_E − S τ_U
    (the small LCP's r that τ's own residual implies), the small LCP solved again with r' (from τ_U's active
    set), τ_U replaced by its answer and τ_E corrected by −W_EE⁻¹ (w_E + W_EU δ_U). Up to REFINE rounds,
    each checked as the first answer; (τ, SOLVED or SINGULAR_SUBPROBLEM)."""
    m = q.shape[0]
    ne = Z.shape[1]
    nu = Z.shape[0]
    w = np.empty(m)
    y = np.empty(ne)
    b = np.empty(ne)
    tu = np.empty(nu)
    r = np.empty(nu)
    du = np.zeros(nu)
    for _ in range(REFINE):
        csr_matvec_plus(ptr, col, val, tau, q, w)
        for a in range(ne):
            y[a] = w[eidx[a]]
        _forward(L, bw, y, 0, ne, env)
        for ii in range(nu):
            tu[ii] = tau[uidx[ii]]
        for ii in range(nu):
            s = w[uidx[ii]]
            Zi = Z[ii]
            for a in range(first[ii], ne):
                s -= Zi[a] * y[a]
            for jj in range(nu):
                s -= S[ii, jj] * tu[jj]
            r[ii] = s
        if nu > 0:
            t2, st = small_lcp(S, r, tu > 0.0)
            if st != SOLVED:
                return tau, SINGULAR_SUBPROBLEM
            for jj in range(nu):
                t = max(t2[jj], 0.0)
                du[jj] = t - tu[jj]
                tau[uidx[jj]] = t
        _equality_solve(ptr, col, val, eq, pos, eidx, w, du, L, bw, b)
        for a in range(ne):
            tau[eidx[a]] -= b[a]
        if _checked(ptr, col, val, q, eq, tau) == SOLVED and _unshifted(ptr, col, val, q, tau):
            return tau, SOLVED
    return tau, SINGULAR_SUBPROBLEM


@numba.njit(cache=True)
def small_lcp(S, r, active0):
    """The small dense LCP 0 ≤ S t + r ⊥ t ≥ 0 (S symmetric PSD): block pivoting from active0 and, where
    that fails (a cycle, its cap), Lemke; (t, status)."""
    nu = r.shape[0]
    t, st, _ = bpp_lcp(S, r, active0, 3 * nu + 10)
    if st != SOLVED:
        t, st, _ = lemke(S, r, 50 * nu + 100)
    return t, st


@numba.njit(cache=True)
def _equality_solve(ptr, col, val, eq, pos, eidx, base, xu, L, bw, b):
    """b[:ne] = W_EE⁻¹ (base_E + W_EU xu) with the band factor L (xu by unilateral position; base by row):
    τ_E's solve, for the first answer (base q, xu τ_U) and for a refinement's correction (base w, xu δ_U)."""
    ne = b.shape[0]
    for a in range(ne):
        i = eidx[a]
        s = base[i]
        for p in range(ptr[i], ptr[i + 1]):
            c = col[p]
            if not eq[c]:
                s += val[p] * xu[pos[c]]
        b[a] = s
    _band_substitute(L, bw, b, np.zeros(ne, np.bool_), ne)


@numba.njit(cache=True)
def _unshifted(ptr, col, val, q, tau):
    """Whether τ meets the problem without the projection's 1e-12 shift of W's diagonal too: each row's shift
    times τ within _checked's 1e-9 max|q|. (Refined to round-off, the shifted system meets an inconsistent
    dependent equality with a τ of the order of the inconsistency / 1e-12, which this refuses.)"""
    qn = 0.0
    for i in range(q.shape[0]):
        qn = max(qn, abs(q[i]))
    for i in range(q.shape[0]):
        for p in range(ptr[i], ptr[i + 1]):
            if col[p] == i and not abs(1e-12 * (1.0 + val[p]) * tau[i]) <= 1e-9 * qn:
                return False
    return True


@numba.njit(cache=True)
def _band_factor(L, bw, n, env):
    """The Cholesky factor of the symmetric matrix in lower band storage L (_linalg's layout), in place,
    dropping no row (the shifted W of the projection is positive definite: a dependent row's pivot is its
    shift); False at a pivot that is not positive. env[i]: row i's first entry (the factor keeps each row's
    envelope): the products with an entry before it are exact zeros, which change no sum, and are skipped;
    four entries of a row are summed side by side (_linalg.band_cholesky_solve_wide's chains), each in its
    own order (k ascending). The numbers of the band factor summed one by one over the whole band, bit for
    bit, in ~0.6 of its time on the 55-box pyramid's landing (W_EE: 392 rows, band 75, envelope ~50)."""
    for i in range(n):
        j0 = max(i - bw, 0)
        fi = env[i]
        Li = L[i, bw - i + j0:]  # Li[t] = the entry (i, j0 + t); zero before fi - j0
        j = fi
        while j + 3 < i:
            R0, R1 = L[j, bw - j + j0:], L[j + 1, bw - j - 1 + j0:]  # rows j..j+3 from column j0 on
            R2, R3 = L[j + 2, bw - j - 2 + j0:], L[j + 3, bw - j - 3 + j0:]
            t = j - j0
            s0, s1, s2, s3 = Li[t], Li[t + 1], Li[t + 2], Li[t + 3]
            for k in range(max(fi, min(min(env[j], env[j + 1]), min(env[j + 2], env[j + 3]))) - j0, t):
                lik = Li[k]
                s0 -= lik * R0[k]
                s1 -= lik * R1[k]
                s2 -= lik * R2[k]
                s3 -= lik * R3[k]
            x0 = s0 / L[j, bw]
            Li[t] = x0
            s1 -= x0 * R1[t]
            s2 -= x0 * R2[t]
            s3 -= x0 * R3[t]
            x1 = s1 / L[j + 1, bw]
            Li[t + 1] = x1
            s2 -= x1 * R2[t + 1]
            s3 -= x1 * R3[t + 1]
            x2 = s2 / L[j + 2, bw]
            Li[t + 2] = x2
            s3 -= x2 * R3[t + 2]
            Li[t + 3] = s3 / L[j + 3, bw]
            j += 4
        for jj in range(j, i + 1):  # the last few entries and the pivot, one by one
            t = jj - j0
            Rj = L[jj, bw - jj + j0:]
            s = Li[t]
            for k in range(max(fi, env[jj]) - j0, t):
                s -= Li[k] * Rj[k]
            if jj < i:
                Li[t] = s / L[jj, bw]
            elif s > 0.0:
                Li[t] = np.sqrt(s)
            else:
                return False
    return True


@numba.njit(cache=True)
def _forward(L, bw, b, f, n, env):
    """b[f:n] = L⁻¹ b[f:n] for the band factor L, b zero above f (so is the answer); env: the rows' first
    entries (_band_factor: the products before them are exact zeros, skipped)."""
    for i in range(f, n):
        s = b[i]
        for k in range(max(i - bw, f, env[i]), i):
            s -= L[i, bw - (i - k)] * b[k]
        b[i] = s / L[i, bw]


@numba.njit(cache=True)
def _forward4(L, bw, b0, b1, b2, b3, f, n, env):
    """_forward on four right-hand sides side by side (four independent chains of subtractions), each zero
    above f or later: its numbers bit for bit (the products with its zeros are exact zeros; an entry above
    its own first stays a zero)."""
    for i in range(f, n):
        s0, s1, s2, s3 = b0[i], b1[i], b2[i], b3[i]
        for k in range(max(i - bw, f, env[i]), i):
            lik = L[i, bw - (i - k)]
            s0 -= lik * b0[k]
            s1 -= lik * b1[k]
            s2 -= lik * b2[k]
            s3 -= lik * b3[k]
        d = L[i, bw]
        b0[i], b1[i], b2[i], b3[i] = s0 / d, s1 / d, s2 / d, s3 / d


@numba.njit(cache=True)
def _checked(ptr, col, val, q, eq, tau):
    """SOLVED if τ meets the mixed LCP's conditions to block pivoting's tolerances (bpp_lcp_csr's test),
    else SINGULAR_SUBPROBLEM."""
    m = q.shape[0]
    w = np.empty(m)
    csr_matvec_plus(ptr, col, val, tau, q, w)
    qn = 0.0
    dmax = 0.0
    for i in range(m):
        qn = max(qn, abs(q[i]))
        for p in range(ptr[i], ptr[i + 1]):
            if col[p] == i:
                dmax = max(dmax, abs(val[p]))
    if dmax == 0.0:
        dmax = 1.0
    lim = 1e-9 * qn
    for i in range(m):
        if eq[i]:
            if not abs(w[i]) <= lim:
                return SINGULAR_SUBPROBLEM
        elif not abs(min(tau[i] * dmax, w[i])) <= lim:  # (also catches NaN)
            return SINGULAR_SUBPROBLEM
    return SOLVED
