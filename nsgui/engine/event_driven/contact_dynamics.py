"""Contact dynamics of the event-driven integrator (numba kernels), at the state held in d.q, d.v:

- `derivative`: the smooth phase's right-hand side. The closed contacts (the active set) are
  bilateral constraints at acceleration level: R q̈ + Ṙ v = 0 with M q̈ = F + Dᵀ λ, so
  W λ = −(R M⁻¹ F + Ṙ v), W = R M⁻¹ Dᵀ. R holds each closed contact's normal row, and the tangent
  row of a sticking frictional one; D is R but for a sliding contact, whose normal row carries its
  friction: H_N − μ s H_T (s its sliding direction). λ_N may turn negative (take-off), a sticking
  contact's |λ_T| exceed μ λ_N (slip), a sliding one's tangential velocity change sign (stick):
  those are the loop's roots.
- `closing_multipliers`: the acceleration problem 0 ≤ ä_N ⊥ λ_N ≥ 0 over the contacts that are
  closed (gap ≈ 0, normal velocity ≈ 0), sticking tangents held: λ_N > 0 stays closed, λ_N = 0
  with a separating acceleration leaves.
- `impact`: Newton's law at velocity level over the contacts that touch, 0 ≤ U_N⁺ + e min(U_N⁻, 0)
  ⊥ P_N ≥ 0, with 2-D Coulomb friction on U_T⁺ + e_T U_T⁻ for frictional ones (an FC2D problem).

Loop joints (scene `loops`) are bilateral rows that are always closed: their rows H_b = ∂g/∂q come
after the contacts' in R and D, their multipliers are free in sign, and at an impact they are
equalities (H_b v⁺ = 0) eliminated by a Schur complement before the contact problem.

The state vector of the integrator is x = (q, v, damping loss, actuator work, friction loss): the
energies are integrated with the motion so that a row's bookkeeping is exact to the tolerance.
"""

import numpy as np
from numba import njit

from ..codes import AI_COORD, CF_MU, CI_BTYPE, IS_CONST_M, ITERATION_CAP, LIMIT, LOOP_ROWS, SOLVED
from ..contact_geometry import candidate_geometry
from ..contact_rows import contact_rows, sdot
from ..control.kernel import actuator_forces
from ..dynamics import body_kinematics, damper_power
from ..evaluation import evaluate, relative_velocity
from ..loops import loop_rows
from ..perturbation import perturbation_power
from ..solvers import bpp_lcp, fc2d_residual, lcp_residual, lemke, lemke_fc2d, nsgs_fc2d
from ..solvers._linalg import lu_factor_inplace, lu_solve_factored, lu_solve_inplace

SOLVE_TOL = 1e-8  # a contact problem's answer checks when its residual is this small relative to its data


@njit(cache=True)
def set_point(m, d, x):
    """d.q, d.v from the state vector x and the model evaluated there; returns the potential energy.
    With a constant M, d.M holds it already (the loop sets it once)."""
    n = d.q.shape[0]
    d.q[:] = x[:n]
    d.v[:] = x[n:2 * n]
    return evaluate(m, d, m.isets[IS_CONST_M] == 0)


@njit(cache=True)
def _factor_mass(m, d):
    if m.isets[IS_CONST_M] != 0:
        return True
    d.What[:, :] = d.M
    return lu_factor_inplace(d.What, d.piv)


@njit(cache=True)
def _solve_mass(m, d, b):
    """b ← M⁻¹ b (after _factor_mass)."""
    if m.isets[IS_CONST_M] != 0:
        b[:] = _matvec(m.Minv_const, b)
    else:
        lu_solve_factored(d.What, d.piv, b)


@njit(cache=True)
def free_acceleration(m, d):
    """M⁻¹ (F + actuator forces) at the evaluated state (NaN when M is singular)."""
    actuator_forces(m, d)
    a = d.F + d.Qact
    if not _factor_mass(m, d):
        a[:] = np.nan
        return a
    _solve_mass(m, d, a)
    return a


@njit(cache=True)
def _matvec(A, x):
    """A x by loops: BLAS costs more than the work for these tiny matrices."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        out[i] = acc
    return out


@njit(cache=True)
def _times_inverse_mass(m, d, D):
    """(X, W) = (M⁻¹ Dᵀ, D M⁻¹ Dᵀ) for rows D (after free_acceleration, which factors M)."""
    n, nr = d.q.shape[0], D.shape[0]
    X = np.empty((n, nr))
    col = np.empty(n)
    for r in range(nr):
        col[:] = D[r]
        _solve_mass(m, d, col)
        X[:, r] = col
    return X


@njit(cache=True)
def _rows_times(R, X):
    W = np.zeros((R.shape[0], X.shape[1]))
    for r in range(R.shape[0]):
        for s in range(X.shape[1]):
            acc = 0.0
            for j in range(R.shape[1]):
                acc += R[r, j] * X[j, s]
            W[r, s] = acc
    return W


@njit(cache=True)
def _symmetrize(W):
    """W ← (W + Wᵀ)/2 for a Delassus matrix H M⁻¹ Hᵀ, symmetric but for round-off: an asymmetry of
    1e-16 relative made Lemke pick a wrong basis on the rimless wheel's nearly singular W (a point-like
    hub, I = 1e-6: cond 1e17) and report zero percussions for an approaching foot."""
    for r in range(W.shape[0]):
        for s in range(r):
            w = 0.5 * (W[r, s] + W[s, r])
            W[r, s] = w
            W[s, r] = w


@njit(cache=True)
def frictional(m, c):
    """Whether candidate c has Coulomb friction (a joint limit has no tangent)."""
    return m.cf[c, CF_MU] > 0.0 and m.ci[c, CI_BTYPE] != LIMIT


@njit(cache=True)
def contact_system(m, d, cands, k, smode):
    """The rows of closed candidates cands[:k] (smode[r]: 0 sticking, ±1 sliding direction), then the
    loop joints' rows (the last LOOP_ROWS · loops): (R, X = M⁻¹ Dᵀ, W = R X, trow, nr) as in the
    module notes; trow[r] is the row of candidate r's tangential multiplier (−1: none), nr the number
    of rows. Also leaves each candidate's sparse rows in d.HN[r], d.HT[r]."""
    n = d.q.shape[0]
    ccols, ccn, HN, HT = m.ccols, m.ccn, d.HN, d.HT
    trow = np.full(k, -1, np.int64)
    nr = k
    for r in range(k):
        if smode[r] == 0.0 and frictional(m, cands[r]):
            trow[r] = nr
            nr += 1
    nb = LOOP_ROWS * m.li.shape[0]
    nr += nb
    R = np.zeros((nr, n))
    D = np.zeros((nr, n))
    if nb > 0:
        rcols, rvals, rnnz = d.lrows_c, d.lrows_v, d.lrows_n
        loop_rows(m, d.kin, rcols, rvals, rnnz)
        for r in range(nb):
            for kk in range(rnnz[r]):
                R[nr - nb + r, rcols[r, kk]] += rvals[r, kk]
                D[nr - nb + r, rcols[r, kk]] += rvals[r, kk]
    for r in range(k):
        c = cands[r]
        contact_rows(c, m, d.kin, d.nrm, d.pa, d.pb, HN[r], HT[r])
        slide = m.cf[c, CF_MU] * smode[r] if frictional(m, c) else 0.0
        t = trow[r]
        for kk in range(ccn[c]):
            j = ccols[c, kk]
            R[r, j] += HN[r, kk]
            D[r, j] += HN[r, kk] - slide * HT[r, kk]
            if t >= 0:
                R[t, j] += HT[r, kk]
                D[t, j] += HT[r, kk]
    X = _times_inverse_mass(m, d, D)
    return R, X, _rows_times(R, X), trow, nr


@njit(cache=True)
def velocity_drift(m, d, cands, k, trow, nr):
    """Ṙ v of the rows of contact_system: the rate of each held velocity along the flow with q̈ = 0,
    by a central difference in time (q ± ε v, v): generic over every contact geometry, error ~1e-10
    relative (truncation ε², round-off 1e-16/ε)."""
    q, v = d.q, d.v
    out = np.zeros(nr)
    vmax = 0.0
    for j in range(v.shape[0]):
        vmax = max(vmax, abs(v[j]))
    nb = LOOP_ROWS * m.li.shape[0]
    if vmax == 0.0 or k + nb == 0:
        return out
    eps = 1e-5 / (1.0 + vmax)
    qq, fk = d.fd_q, d.fd_kin
    ci, cf, verts = m.ci, m.cf, m.verts
    for side in range(2):
        s = 1.0 if side == 0 else -1.0
        qq[:] = q + s * eps * v
        body_kinematics(m, qq, v, fk)
        for r in range(k):
            c = cands[r]
            g, nx, ny, pax, pay, pbx, pby = candidate_geometry(c, qq, ci, cf, verts, fk.pos, fk.ang)
            un, ut = relative_velocity(c, ci, v, fk.pos, fk.vel, fk.omg, nx, ny, pax, pay, pbx, pby)
            out[r] += s * un / (2.0 * eps)
            if trow[r] >= 0:
                out[trow[r]] += s * ut / (2.0 * eps)
        if nb > 0:  # the loops' rows at q ± ε v (d.lrows_* are scratch here: R holds them)
            loop_rows(m, fk, d.lrows_c, d.lrows_v, d.lrows_n)
            for r in range(nb):
                out[nr - nb + r] += s * sdot(d.lrows_c[r], d.lrows_v[r], d.lrows_n[r], v) / (2.0 * eps)
    return out


@njit(cache=True)
def tangential_speed(m, d, c, r):
    """Tangential relative velocity of candidate c at the evaluated state (its rows made into
    d.HN[r], d.HT[r])."""
    contact_rows(c, m, d.kin, d.nrm, d.pa, d.pb, d.HN[r], d.HT[r])
    return sdot(m.ccols[c], d.HT[r], m.ccn[c], d.v)


@njit(cache=True)
def _regularize(W):
    """Redundant closed contacts (a box flat on the ground with three vertices down) make W
    singular: a tiny diagonal shift splits their forces (and leaves an acceleration ~1e-12 g)."""
    for r in range(W.shape[0]):
        W[r, r] += 1e-12 * (1.0 + abs(W[r, r]))


@njit(cache=True)
def _bilateral(W, b):
    """λ with W λ = b, exactly when W is regular (no drift of a resting contact), else regularized."""
    A = W.copy()
    lam = b.copy()
    if lu_solve_inplace(A, lam):
        return lam
    _regularize(W)
    lam[:] = b
    if not lu_solve_inplace(W, lam):
        lam[:] = np.nan
    return lam


@njit(cache=True)
def derivative(m, d, act, na, smode, x, out, lam):
    """out = dx/dt at x with the active contacts act[:na] closed (smode as for contact_system).
    lam (3 nc): the normal forces lam[:na], the tangential ones lam[nc:nc + na] (a sliding
    contact's −μ s λ_N), the tangential velocities lam[2 nc:2 nc + na]; the loop joints' forces go
    to d.lamB. Returns the potential energy at x."""
    n, nc = d.q.shape[0], d.gap.shape[0]
    nb = LOOP_ROWS * m.li.shape[0]
    upot = set_point(m, d, x)
    a = free_acceleration(m, d)
    friction_power = 0.0
    if na > 0 or nb > 0:
        R, X, W, trow, nr = contact_system(m, d, act, na, smode)
        b = _bilateral(W, -(_matvec(R, a) + velocity_drift(m, d, act, na, trow, nr)))
        a += _matvec(X, b)
        d.lamB[:] = b[nr - nb:]
        for r in range(na):
            c = act[r]
            lam[r] = b[r]
            if trow[r] >= 0:
                lam[nc + r] = b[trow[r]]
            elif frictional(m, c):
                lam[nc + r] = -m.cf[c, CF_MU] * smode[r] * b[r]
            else:
                lam[nc + r] = 0.0
            ut = sdot(m.ccols[c], d.HT[r], m.ccn[c], d.v)
            lam[2 * nc + r] = ut
            friction_power += lam[nc + r] * ut
    out[:n] = d.v
    out[n:2 * n] = a
    out[2 * n] = -damper_power(m, d.v, d.kin, d.row_n)
    P = 0.0
    ai, u, v = m.ai, d.u, d.v
    for i in range(ai.shape[0]):
        P += u[i] * v[ai[i, AI_COORD]]
    out[2 * n + 1] = P + perturbation_power(m, d, v, d.row_n)  # its force: free_acceleration's
    out[2 * n + 2] = -friction_power
    return upot


@njit(cache=True)
def _accepted(res, b):
    """Whether a solution's natural-map residual res (solvers/residuals.py) is small for the problem's
    right-hand side b: pivoting methods can report success on a nearly singular W with a wrong basis
    (seen on the rimless wheel's strikes, cond(W) ~ 1e17), so each answer is checked."""
    scale = 0.0
    for i in range(b.shape[0]):
        scale = max(scale, abs(b[i]))
    return res <= SOLVE_TOL * (1.0 + scale)


@njit(cache=True)
def _lcp(W, b):
    """0 ≤ z ⊥ W z + b ≥ 0: block pivoting, Lemke if that fails or its answer does not check; the
    status SOLVED only for an answer that checks."""
    z, st, it = bpp_lcp(W, b, np.ones(b.shape[0], np.bool_), 3 * b.shape[0] + 10)
    if st == SOLVED and _accepted(lcp_residual(W, b, z), b):
        return z, st
    z2, st, it = lemke(W, b, 50 * b.shape[0] + 100)
    if lcp_residual(W, b, z2) <= lcp_residual(W, b, z):
        z = z2
    return z, SOLVED if _accepted(lcp_residual(W, b, z), b) else ITERATION_CAP


@njit(cache=True)
def impact_fc2d(W, b, mu, k):
    """The 2-D frictional contact problem of an impact (rows [N1, T1, ...]): Lemke on its LCP form,
    projected Gauss-Seidel (from zero: from Lemke's wrong answer it can stay there) when that does not
    check; the better answer, with SOLVED only if it checks."""
    P, st, it = lemke_fc2d(W, b, mu, 100 * k + 100)
    res = fc2d_residual(W, b, mu, P)
    if st == SOLVED and _accepted(res, b):
        return P, st
    P2, st, it, err = nsgs_fc2d(W, b, mu, np.zeros(2 * k), 1e-12, 10000)
    res2 = fc2d_residual(W, b, mu, P2)
    if res2 < res:
        P, res = P2, res2
    return P, SOLVED if _accepted(res, b) else ITERATION_CAP


@njit(cache=True)
def closing_multipliers(m, d, cands, k, smode):
    """The acceleration problem over the closed candidates cands[:k] at the evaluated state: normal
    rows complementary (0 ≤ ä_N ⊥ λ_N ≥ 0), the tangent rows of sticking ones held (their
    multipliers eliminated by a Schur complement). Returns (λ_N, λ_T per candidate, status)."""
    a = free_acceleration(m, d)
    R, X, W, trow, nr = contact_system(m, d, cands, k, smode)
    b = _matvec(R, a) + velocity_drift(m, d, cands, k, trow, nr)
    lamT = np.zeros(k)
    if nr == k:
        _regularize(W)
        lamN, st = _lcp(W, b)
    else:
        nt = nr - k
        WTT = W[k:, k:].copy()
        _regularize(WTT)
        Y = np.empty((nt, k + 1))  # WTT⁻¹ [W_TN | b_T]
        col = np.empty(nt)
        for j in range(k + 1):
            if j < k:
                col[:] = W[k:, j]
            else:
                col[:] = b[k:]
            if not lu_solve_inplace(WTT.copy(), col):
                col[:] = np.nan
            Y[:, j] = col
        Wr = W[:k, :k] - _rows_times(W[:k, k:].copy(), Y[:, :k].copy())
        br = b[:k] - _matvec(W[:k, k:].copy(), Y[:, k].copy())
        _regularize(Wr)
        lamN, st = _lcp(Wr, br)
        lt = -(Y[:, k] + _matvec(Y[:, :k].copy(), lamN))
        for r in range(k):
            if trow[r] >= 0:
                lamT[r] = lt[trow[r] - k]
    for r in range(k):
        if trow[r] < 0 and frictional(m, cands[r]):
            lamT[r] = -m.cf[cands[r], CF_MU] * smode[r] * lamN[r]
    return lamN, lamT, st


@njit(cache=True)
def impact(m, d, cands, k, e, et):
    """Newton's law over candidates cands[:k] (restitution e[:k], tangential restitution et[:k])
    at the evaluated state; with friction, the 2-D Coulomb law on U_T⁺ + e_T U_T⁻ (FC2D, Lemke on
    its LCP form). d.v jumps to v⁺ = v⁻ + M⁻¹ Hᵀ P. Returns (P_N, P_T, U_N⁻, U_N⁺, U_T⁻, U_T⁺,
    status)."""
    free_acceleration(m, d)  # factors M
    anyfric = False
    for r in range(k):
        if frictional(m, cands[r]):
            anyfric = True
    n = d.q.shape[0]
    ccols, ccn, HN, HT = m.ccols, m.ccn, d.HN, d.HT
    w = 2 if anyfric else 1
    H = np.zeros((w * k, n))
    for r in range(k):
        c = cands[r]
        contact_rows(c, m, d.kin, d.nrm, d.pa, d.pb, HN[r], HT[r])
        for kk in range(ccn[c]):
            H[w * r, ccols[c, kk]] += HN[r, kk]
            if anyfric:
                H[w * r + 1, ccols[c, kk]] += HT[r, kk]
    X = _times_inverse_mass(m, d, H)
    _keep_loops_closed(m, d, X)
    W = _rows_times(H, X)
    _symmetrize(W)
    Um = _matvec(H, d.v)
    b = Um.copy()
    mu = np.zeros(k)
    for r in range(k):
        if Um[w * r] < 0.0:
            b[w * r] += e[r] * Um[w * r]
            if anyfric:
                b[w * r + 1] += et[r] * Um[w * r + 1]
        if frictional(m, cands[r]):
            mu[r] = m.cf[cands[r], CF_MU]
    if anyfric:
        P, st = impact_fc2d(W, b, mu, k)
    else:
        P, st = _lcp(W, b)
    d.v[:] += _matvec(X, P)
    Up = _matvec(H, d.v)
    PN, PT, UNm, UNp = np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k)
    UTm, UTp = np.zeros(k), np.zeros(k)
    for r in range(k):
        PN[r], UNm[r], UNp[r] = P[w * r], Um[w * r], Up[w * r]
        if anyfric:
            PT[r], UTm[r], UTp[r] = P[w * r + 1], Um[w * r + 1], Up[w * r + 1]
    return PN, PT, UNm, UNp, UTm, UTp, st


@njit(cache=True)
def _keep_loops_closed(m, d, X):
    """Loop joints at an impact: equalities H_b v⁺ = 0, eliminated by their Schur complement (loops.py
    does the same in a time step) — v ← v − X_b W_bb⁻¹ H_b v (v⁻ made to satisfy them exactly) and each
    contact percussion's effect X_c ← X_c − X_b W_bb⁻¹ H_b X_c. After free_acceleration (M factored)."""
    nb = LOOP_ROWS * m.li.shape[0]
    if nb == 0:
        return
    n = d.q.shape[0]
    loop_rows(m, d.kin, d.lrows_c, d.lrows_v, d.lrows_n)
    Hb = np.zeros((nb, n))
    for r in range(nb):
        for kk in range(d.lrows_n[r]):
            Hb[r, d.lrows_c[r, kk]] += d.lrows_v[r, kk]
    Xb = _times_inverse_mass(m, d, Hb)
    Wbb = _rows_times(Hb, Xb)
    _regularize(Wbb)
    Winv = np.linalg.inv(Wbb)
    G = Winv @ _rows_times(Hb, X)
    X -= Xb @ G
    d.v[:] -= _matvec(Xb, _matvec(Winv, _matvec(Hb, d.v)))


@njit(cache=True)
def rest(m, d, cands, k):
    """Brings the normal velocities of candidates cands[:k] to zero (W P = −U⁻, the end of an
    accumulation); d.v jumps. Returns (P, U⁻, U⁺)."""
    free_acceleration(m, d)  # factors M
    R, X, W, trow, nr = contact_system(m, d, cands, k, np.ones(k))  # normal rows only
    Um = _matvec(R, d.v)
    P = _bilateral(W, -Um)
    d.v[:] += _matvec(X, P)
    return P, Um, _matvec(R, d.v)
