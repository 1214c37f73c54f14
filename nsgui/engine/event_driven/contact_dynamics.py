"""Contact dynamics of the event-driven integrator (numba kernels), at the state held in d.q, d.v:

- `derivative`: the smooth phase's right-hand side. The closed contacts (the active set) are
  bilateral constraints at acceleration level: H q̈ + Ḣ v = 0 with M q̈ = F + Hᵀ λ, so
  W λ = −(H M⁻¹ F + Ḣ v), W = H M⁻¹ Hᵀ. λ may turn negative: that is the take-off root.
- `closing_multipliers`: the acceleration LCP 0 ≤ W λ + b ⊥ λ ≥ 0 over the contacts that are
  closed (gap ≈ 0, normal velocity ≈ 0): λ > 0 stays closed, λ = 0 with a separating acceleration
  leaves.
- `impact`: Newton's law at velocity level over the contacts that touch, the LCP
  0 ≤ U⁺ + e min(U⁻, 0) ⊥ P ≥ 0 with U⁺ = U⁻ + W P (a contact touching without approaching gets
  U⁺ ≥ 0 ⊥ P ≥ 0).

The state vector of the integrator is x = (q, v, damping loss, actuator work): the two energies are
integrated with the motion so that the bookkeeping of a row is exact to the integrator's tolerance.
"""

import numpy as np
from numba import njit

from ..codes import AI_COORD, IS_CONST_M, SOLVED
from ..contact_geometry import candidate_geometry
from ..contact_rows import contact_rows
from ..control.kernel import actuator_forces
from ..dynamics import body_kinematics, damper_power
from ..evaluation import evaluate, normal_velocity
from ..solvers import bpp_lcp, lemke
from ..solvers._linalg import lu_factor_inplace, lu_solve_factored, lu_solve_inplace


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
def contact_matrices(m, d, cands, k):
    """Dense normal rows H (k x n) of candidates cands[:k], X = M⁻¹ Hᵀ and W = H X (after
    free_acceleration, which factors M)."""
    n = d.q.shape[0]
    H = np.zeros((k, n))
    ccols, ccn, HN, HT = m.ccols, m.ccn, d.HN, d.HT
    for r in range(k):
        c = cands[r]
        contact_rows(c, m, d.kin, d.nrm, d.pa, d.pb, HN[r], HT[r])
        for kk in range(ccn[c]):
            H[r, ccols[c, kk]] += HN[r, kk]
    X = np.empty((n, k))
    col = np.empty(n)
    for r in range(k):
        col[:] = H[r]
        _solve_mass(m, d, col)
        X[:, r] = col
    W = np.zeros((k, k))
    for r in range(k):
        for s in range(k):
            acc = 0.0
            for j in range(n):
                acc += H[r, j] * X[j, s]
            W[r, s] = acc
    return H, X, W


@njit(cache=True)
def normal_drift(m, d, cands, k):
    """Ḣ v of candidates cands[:k]: the rate of their normal velocity along the flow with q̈ = 0, by a
    central difference in time (q ± ε v, v): generic over every contact geometry, error ~1e-10
    relative (truncation ε², round-off 1e-16/ε)."""
    q, v = d.q, d.v
    out = np.zeros(k)
    vmax = 0.0
    for j in range(v.shape[0]):
        vmax = max(vmax, abs(v[j]))
    if vmax == 0.0 or k == 0:
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
            u = normal_velocity(c, ci, v, fk.pos, fk.vel, fk.omg, nx, ny, pax, pay, pbx, pby)
            out[r] += s * u / (2.0 * eps)
    return out


@njit(cache=True)
def _regularize(W):
    """Redundant closed contacts (a box flat on the ground with three vertices down) make W
    singular: a tiny diagonal shift splits their forces (and leaves an acceleration ~1e-12 g)."""
    for r in range(W.shape[0]):
        W[r, r] += 1e-12 * (1.0 + W[r, r])


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
def derivative(m, d, act, na, x, out, lam):
    """out = dx/dt at x with the active contacts act[:na] closed (bilateral at acceleration level);
    lam[:na] their multipliers (contact forces, N). Returns the potential energy at x."""
    n = d.q.shape[0]
    upot = set_point(m, d, x)
    a = free_acceleration(m, d)
    if na > 0:
        H, X, W = contact_matrices(m, d, act, na)
        b = _bilateral(W, -(_matvec(H, a) + normal_drift(m, d, act, na)))
        for r in range(na):
            lam[r] = b[r]
        a += _matvec(X, b)
    out[:n] = d.v
    out[n:2 * n] = a
    out[2 * n] = -damper_power(m, d.v, d.kin, d.row_n)
    P = 0.0
    ai, u, v = m.ai, d.u, d.v
    for i in range(ai.shape[0]):
        P += u[i] * v[ai[i, AI_COORD]]
    out[2 * n + 1] = P
    return upot


@njit(cache=True)
def _lcp(W, b):
    z, st, it = bpp_lcp(W, b, np.ones(b.shape[0], np.bool_), 3 * b.shape[0] + 10)
    if st != SOLVED:
        z, st, it = lemke(W, b, 50 * b.shape[0] + 100)
    return z, st


@njit(cache=True)
def closing_multipliers(m, d, cands, k):
    """The acceleration LCP over the closed candidates cands[:k] at the evaluated state: returns
    (λ, solver status)."""
    a = free_acceleration(m, d)
    H, X, W = contact_matrices(m, d, cands, k)
    b = _matvec(H, a) + normal_drift(m, d, cands, k)
    _regularize(W)
    return _lcp(W, b)


@njit(cache=True)
def impact(m, d, cands, k, e):
    """Newton's impact law over candidates cands[:k] (restitution e[:k]) at the evaluated state:
    d.v jumps to v⁺ = v⁻ + M⁻¹ Hᵀ P. Returns (P, U⁻, U⁺, solver status)."""
    free_acceleration(m, d)  # factors M
    H, X, W = contact_matrices(m, d, cands, k)
    Um = _matvec(H, d.v)
    b = Um.copy()
    for r in range(k):
        if Um[r] < 0.0:
            b[r] += e[r] * Um[r]
    P, st = _lcp(W, b)
    d.v[:] += _matvec(X, P)
    return P, Um, _matvec(H, d.v), st


@njit(cache=True)
def rest(m, d, cands, k):
    """Brings the normal velocities of candidates cands[:k] to zero (W P = −U⁻, the end of an
    accumulation); d.v jumps. Returns (P, U⁻, U⁺)."""
    free_acceleration(m, d)  # factors M
    H, X, W = contact_matrices(m, d, cands, k)
    Um = _matvec(H, d.v)
    P = _bilateral(W, -Um)
    d.v[:] += _matvec(X, P)
    return P, Um, _matvec(H, d.v)
