"""The Moreau–Jean θ time-stepping loop, compiled with numba.

One step (q_k, v_k) -> (q_k+1, v_k+1), exactly the scheme of docs/../time_stepping.md §3 when projection
is off: activation y + γ h y' <= 0 at the start of the step; iteration matrix W^ = M - hθ ∂F/∂v -
h²θ² ∂F/∂q taken at the start of the step (one Newton iteration); free velocity; one-step LCP (or 2-D
friction-contact problem) in the percussions over the step with Newton's law in the right-hand side;
q_k+1 = q_k + h(θ v_k+1 + (1-θ) v_k). The optional position projection then moves q along M⁻¹Hᵀ to
remove penetration (velocities untouched), and books the potential energy it changes.
"""

import numpy as np
from numba import njit

from .contact_geometry import (CF_E, CF_MU, CI_ABODY, CI_BBODY, CI_BTYPE, CI_VSTART, CI_VCOUNT, LIMIT,
                               candidate_geometry)
from .dynamics import body_kinematics, com_terms, damper_power, element_forces, point_jacobian_add
from .solvers import bpp_lcp, lemke, lemke_fc2d, nsgs_fc2d, pgs_lcp
from .solvers._linalg import lu_factor_inplace, lu_solve_factored

# settings (float): index names
FS_H, FS_THETA, FS_GAMMA, FS_TOL, FS_IMPACT, FS_GX, FS_GY, FS_STICK, FS_ACTIVATION, FS_REST_V, FS_PROJ_TOL = range(11)
# settings (int)
IS_SOLVER, IS_MAXIT, IS_PROJECTION, IS_CONST_M, IS_CONST_F = range(5)
SOLVER_AUTO, SOLVER_LEMKE, SOLVER_NSGS = 0, 1, 2
# accumulated energies
ACC_IMPACT, ACC_FRICTION, ACC_DAMPING, ACC_ACTUATORS, ACC_PROJECTION, ACC_E0 = range(6)
# statistics (ST_BADVALUE: the offending value of a NOT_FINITE or RUNAWAY stop)
ST_IMPACTS, ST_MINGAP, ST_WARNINGS, ST_MAXITER, ST_LASTERR, ST_STEPS, ST_BADVALUE = range(7)
N_STATS = 7
# return codes; for NOT_FINITE and RUNAWAY the third value returned is the signal column at fault
OK, SOLVER_FAILED, NOT_FINITE, SINGULAR, RUNAWAY = 0, 1, 2, 3, 4
# a coordinate or velocity beyond ±RUNAWAY (SI units: m, rad, m/s, rad/s) is a blow-up, stopped where
# it starts rather than when its overflow poisons an unrelated contact problem many steps later
RUNAWAY_BOUND = 1e8
# contact status
OPEN, STICK, SLIP, IMPACT = 0, 1, 2, 3
N_ENERGY = 10
# recorded per contact, in this order: gap, percussions over the step (N·s), status, and the mean
# forces over the step fn = pn / h, ft = pt / h (N)
CONTACT_SIGNALS = ("gap", "pn", "pt", "status", "fn", "ft")
N_CONTACT_SIGNALS = len(CONTACT_SIGNALS)


class Work:
    """Scratch arrays shaped for one model (plain Python holder; unpacked into the kernel)."""


@njit(cache=True)
def _evaluate(q, v, bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi, ff, gx, gy,
              pos, ang, vel, omg, acc, Jp, Ja, M, bias, grav, F, want_mass,
              gap, nrm, pa, pb, U):
    """Kinematics, M, forces (without actuators) and contact geometry at (q, v). Returns (Ugrav+Uel, Pd)."""
    body_kinematics(q, v, bi, bf, order, path, plen, pos, ang, vel, omg, acc, Jp, Ja)
    Ug = com_terms(bf, pos, ang, omg, acc, gx, gy, path, plen, Jp, Ja, M, bias, grav, want_mass)
    F[:] = grav - bias
    Ue, Pd = element_forces(q, v, si, sf, ji, jf, fi, ff, path, plen, pos, ang, vel, omg, Jp, Ja, F, bias)
    for c in range(ci.shape[0]):
        g, nx, ny, pax, pay, pbx, pby = candidate_geometry(c, q, ci, cf, verts, pos, ang)
        gap[c] = g
        nrm[c, 0], nrm[c, 1] = nx, ny
        pa[c, 0], pa[c, 1], pb[c, 0], pb[c, 1] = pax, pay, pbx, pby
        if ci[c, CI_BTYPE] == LIMIT:
            U[c] = ci[c, CI_VCOUNT] * v[ci[c, CI_VSTART]]
        else:
            a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
            vax = vel[a, 0] - omg[a] * (pay - pos[a, 1])
            vay = vel[a, 1] + omg[a] * (pax - pos[a, 0])
            vbx = vby = 0.0
            if b >= 0:
                vbx = vel[b, 0] - omg[b] * (pby - pos[b, 1])
                vby = vel[b, 1] + omg[b] * (pbx - pos[b, 0])
            U[c] = nx * (vax - vbx) + ny * (vay - vby)
    return Ug + Ue, Pd


@njit(cache=True)
def _forces_only(q, v, bi, bf, order, path, plen, si, sf, ji, jf, fi, ff, gx, gy,
                 pos, ang, vel, omg, acc, Jp, Ja, M, bias, grav, F):
    body_kinematics(q, v, bi, bf, order, path, plen, pos, ang, vel, omg, acc, Jp, Ja)
    com_terms(bf, pos, ang, omg, acc, gx, gy, path, plen, Jp, Ja, M, bias, grav, False)
    F[:] = grav - bias
    element_forces(q, v, si, sf, ji, jf, fi, ff, path, plen, pos, ang, vel, omg, Jp, Ja, F, bias)


@njit(cache=True)
def _force_jacobians(q, v, F0, bi, bf, order, path, plen, si, sf, ji, jf, fi, ff, gx, gy, K, C,
                     pos, ang, vel, omg, acc, Jp, Ja, bias, grav, Fp, Fm, qq, vv):
    """Finite differences of F(q, v) = gravity - bias + elements: K = dF/dq, C = dF/dv.

    Forward differences around F0 = F(q, v) (step sqrt(eps), relative error ~1e-8, far below what
    h²θ²K weighs in Ŵ) when only gravity and Coriolis terms act; central differences when springs or
    dampers do, so that linear elements get their exact Jacobian (to ~1e-10) and the θ = ½ scheme keeps
    their quadratic energy. The kinematics arrays passed in are scratch space."""
    n = q.shape[0]
    central = si.shape[0] + ji.shape[0] + fi.shape[0] > 0
    Md = np.zeros((1, 1))
    qq[:] = q
    vv[:] = v
    for j in range(n):
        for which in range(2):
            x = q[j] if which == 0 else v[j]
            eps = (1e-6 if central else 1.5e-8) * (1.0 + abs(x))
            if which == 0:
                qq[j] = x + eps
            else:
                vv[j] = x + eps
            _forces_only(qq, vv, bi, bf, order, path, plen, si, sf, ji, jf, fi, ff, gx, gy,
                         pos, ang, vel, omg, acc, Jp, Ja, Md, bias, grav, Fp)
            if central:
                if which == 0:
                    qq[j] = x - eps
                else:
                    vv[j] = x - eps
                _forces_only(qq, vv, bi, bf, order, path, plen, si, sf, ji, jf, fi, ff, gx, gy,
                             pos, ang, vel, omg, acc, Jp, Ja, Md, bias, grav, Fm)
            else:
                Fm[:] = F0
            if which == 0:
                qq[j] = x
            else:
                vv[j] = x
            D = K if which == 0 else C
            for i in range(n):
                D[i, j] = (Fp[i] - Fm[i]) / ((2.0 if central else 1.0) * eps)


@njit(cache=True)
def _actuator_forces(t, q, v, grav, ai, af, u_held, next_sample, Qact):
    Qact[:] = 0.0
    for i in range(ai.shape[0]):
        j = ai[i, 0]
        kind = ai[i, 1]
        period = af[i, 7]
        if kind == 3:  # set from Python between kernel calls (nsgui.engine.controllers)
            Qact[j] += u_held[i]
            continue
        if period <= 0.0 or t >= next_sample[i] - 1e-9 * period:
            if kind == 1:
                u = af[i, 8]
            elif kind == 2:
                u = af[i, 0] * (af[i, 2] - q[j]) + af[i, 1] * (af[i, 3] - v[j]) + af[i, 4]
                if af[i, 5] != 0.0:
                    u -= grav[j]
            else:
                u = 0.0
            lim = af[i, 6]
            if u > lim:
                u = lim
            elif u < -lim:
                u = -lim
            u_held[i] = u
            if period > 0.0:
                while next_sample[i] <= t + 1e-9 * period:
                    next_sample[i] += period
        Qact[j] += u_held[i]


@njit(cache=True)
def _restitution(e, u, projection, rest_v):
    """The e in Newton's law U+ + e U- >= 0 of one active contact.

    Standard scheme (projection off): e itself, whatever the sign of U-. With projection, closed
    contacts stay in the problem: approaches slower than rest_v are plastic (else the projection feeds
    a micro-bouncing), and separating contacts get e = 1, the one value whose percussion does no work
    (λ (U+ + U-)/2 = 0 when U+ = -U-), so neighbours pushing them back cannot create energy.
    """
    if projection == 0 or u < -rest_v:
        return e
    if u <= 0.0:
        return 0.0
    return 1.0


@njit(cache=True)
def _sdot(cols, vals, nnz, x):
    acc = 0.0
    for kk in range(nnz):
        acc += vals[kk] * x[cols[kk]]
    return acc


@njit(cache=True)
def _densify(rcols, rvals, rnnz, n):
    k = rnnz.shape[0]
    H = np.zeros((k, n))
    for r in range(k):
        for kk in range(rnnz[r]):
            H[r, rcols[r, kk]] += rvals[r, kk]
    return H


@njit(cache=True)
def _sparse_rows_times(rcols, rvals, rnnz, X):
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
def _delassus_sparse(rcols, rvals, rnnz, Minv):
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
    return X, _sparse_rows_times(rcols, rvals, rnnz, X)


@njit(cache=True)
def _delassus_lu(rcols, rvals, rnnz, LU, piv):
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
    return X, _sparse_rows_times(rcols, rvals, rnnz, X)


@njit(cache=True)
def _worst(act, m, fric, W, qd, lam):
    """The active contact whose complementarity is worst violated (to name it in the error)."""
    u = W @ lam + qd
    worst, wv = act[0], -1.0
    for r in range(m):
        rn = 2 * r if fric else r
        viol = abs(min(u[rn], lam[rn]))
        if not np.isfinite(viol):
            return act[r]
        if viol > wv:
            worst, wv = act[r], viol
    return worst


@njit(cache=True)
def _contact_rows_sparse(c, ci, nrm, pa, pb, ccols, ccn, pos, Jp, Ja, outN, outT):
    """Normal and tangent Jacobian rows of candidate c on its columns ccols[c, :ccn[c]]."""
    if ci[c, CI_BTYPE] == LIMIT:
        outN[0] = ci[c, CI_VCOUNT]
        outT[0] = 0.0
        return
    nx, ny = nrm[c, 0], nrm[c, 1]
    a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
    rax, ray = pa[c, 0] - pos[a, 0], pa[c, 1] - pos[a, 1]
    rbx = rby = 0.0
    if b >= 0:
        rbx, rby = pb[c, 0] - pos[b, 0], pb[c, 1] - pos[b, 1]
    for kk in range(ccn[c]):
        j = ccols[c, kk]
        jx = Jp[a, 0, j] - ray * Ja[a, j]
        jy = Jp[a, 1, j] + rax * Ja[a, j]
        if b >= 0:
            jx -= Jp[b, 0, j] - rby * Ja[b, j]
            jy -= Jp[b, 1, j] + rbx * Ja[b, j]
        outN[kk] = nx * jx + ny * jy
        outT[kk] = ny * jx - nx * jy


@njit(cache=True)
def _solve_problem(m, fric, Wd, qd, mu, r0, active0, solver, tol, maxit):
    """Solves the step problem; returns (r, status, iterations, error).

    fric: interleaved 2-D friction-contact problem of size 2m, else LCP of size m.
    """
    if not fric:
        if solver == SOLVER_LEMKE:
            z, st, it = lemke(Wd, qd, 50 * m + 100)
            return z, st, it, 0.0
        if solver == SOLVER_NSGS:
            z, st, it, res = pgs_lcp(Wd, qd, r0, tol, maxit)
            return z, st, it, res
        z, st, it = bpp_lcp(Wd, qd, active0, 3 * m + 10)
        if st != 0:
            z, st, it = lemke(Wd, qd, 50 * m + 100)
        return z, st, it, 0.0
    if solver == SOLVER_LEMKE:
        r, st, it = lemke_fc2d(Wd, qd, mu, 100 * m + 100)
        return r, st, it, 0.0
    r, st, it, err = nsgs_fc2d(Wd, qd, mu, r0, tol, maxit)
    return r, st, it, err


@njit(cache=True)
def _state_arrays(n, nb, nc):
    """Kinematics, dynamics and contact-geometry arrays of one evaluation (see _evaluate)."""
    return (np.zeros((nb, 2)), np.zeros(nb), np.zeros((nb, 2)), np.zeros(nb), np.zeros((nb, 2)),
            np.zeros((nb, 2, n)), np.zeros((nb, n)), np.zeros((n, n)), np.zeros(n), np.zeros(n), np.zeros(n),
            np.zeros(nc), np.zeros((nc, 2)), np.zeros((nc, 2)), np.zeros((nc, 2)), np.zeros(nc))


@njit(cache=True)
def initial_row(q, v, t, acc_e, lamN, lamT, status, u_held, row,
                bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi, ff, fs):
    """Signal row of the current state with the given contact percussions; returns the total energy."""
    pos, ang, vel, omg, acc, Jp, Ja, M, bias, grav, F, gap, nrm, pa, pb, U = _state_arrays(
        q.shape[0], bf.shape[0], ci.shape[0])
    Upot, Pd = _evaluate(q, v, bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi, ff,
                         fs[FS_GX], fs[FS_GY], pos, ang, vel, omg, acc, Jp, Ja, M, bias, grav, F, True,
                         gap, nrm, pa, pb, U)
    K = 0.5 * v @ (M @ v)
    _write_row(row, t, q, v, K, Upot, acc_e, gap, lamN, lamT, status, u_held, fs[FS_H])
    return K + Upot


@njit(cache=True)
def _write_row(row, t, q, v, K, Upot, acc_e, gap, lamN, lamT, status, u, h):
    n = q.shape[0]
    row[0] = t
    row[1:1 + n] = q
    row[1 + n:1 + 2 * n] = v
    k = 1 + 2 * n
    diss = acc_e[ACC_IMPACT] + acc_e[ACC_FRICTION] + acc_e[ACC_DAMPING]
    row[k] = K
    row[k + 1] = Upot
    row[k + 2] = K + Upot
    row[k + 3] = diss
    row[k + 4] = acc_e[ACC_IMPACT]
    row[k + 5] = acc_e[ACC_FRICTION]
    row[k + 6] = acc_e[ACC_DAMPING]
    row[k + 7] = acc_e[ACC_ACTUATORS]
    row[k + 8] = acc_e[ACC_PROJECTION]
    row[k + 9] = K + Upot + diss - acc_e[ACC_ACTUATORS] - acc_e[ACC_PROJECTION] - acc_e[ACC_E0]
    k += N_ENERGY
    for c in range(gap.shape[0]):
        row[k] = gap[c]
        row[k + 1] = lamN[c]
        row[k + 2] = lamT[c]
        row[k + 3] = status[c]
        row[k + 4] = lamN[c] / h
        row[k + 5] = lamT[c] / h
        k += N_CONTACT_SIGNALS
    for i in range(u.shape[0]):
        row[k + i] = u[i]


@njit(cache=True)
def _check_state(x, column0, stats):
    """0 if every x is finite and within ±RUNAWAY_BOUND, else the code, with the column of the first
    bad entry (column0 + its index) returned and its value kept in stats[ST_BADVALUE]."""
    for j in range(x.shape[0]):
        if not np.isfinite(x[j]) or abs(x[j]) > RUNAWAY_BOUND:
            stats[ST_BADVALUE] = x[j]
            return (RUNAWAY if np.isfinite(x[j]) else NOT_FINITE), column0 + j
    return OK, -1


@njit(cache=True)
def _first_nonfinite(row, stats):
    for j in range(row.shape[0]):
        if not np.isfinite(row[j]):
            stats[ST_BADVALUE] = row[j]
            return j
    return -1


@njit(cache=True)
def run_steps(nsteps, rows, q, v, tarr, acc_e, lamN, lamT, status, u_held, next_sample, stats,
              bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi, ff, ai, af,
              fs, isets, M_const, Minv_const, ccols, ccn):
    """Advances up to nsteps steps, writing one signal row per step into rows (if rows has them).

    Returns (code, steps_done, failing candidate or -1; for NOT_FINITE and RUNAWAY the signal column
    at fault). State arrays are updated in place; on failure they hold the last good state (but for a
    non-finite energy or gap, found once the step is taken: that step's row is not written).
    """
    n = q.shape[0]
    nb = bf.shape[0]
    nc = ci.shape[0]
    h, theta, gamma = fs[FS_H], fs[FS_THETA], fs[FS_GAMMA]
    gx, gy = fs[FS_GX], fs[FS_GY]
    solver, maxit, projection = isets[IS_SOLVER], isets[IS_MAXIT], isets[IS_PROJECTION]
    const_M, const_F = isets[IS_CONST_M] != 0, isets[IS_CONST_F] != 0
    record = rows.shape[0] >= nsteps and rows.shape[0] > 0

    pos, ang, vel, omg, accb, Jp, Ja, M, bias, grav, F, gap, nrm, pa, pb, U = _state_arrays(n, nb, nc)
    Qact = np.zeros(n)
    K = np.zeros((n, n))
    C = np.zeros((n, n))
    maxc = max(ccols.shape[1], 1)
    HNv = np.zeros((nc, maxc))
    HTv = np.zeros((nc, maxc))
    act = np.zeros(nc, np.int64)
    fric_c = np.zeros(nc, np.bool_)
    q_new = np.zeros(n)
    What = np.zeros((n, n))
    piv = np.zeros(n, np.int64)
    # scratch space of the finite-difference force Jacobians
    s_pos, s_ang, s_vel, s_omg, s_acc = np.zeros((nb, 2)), np.zeros(nb), np.zeros((nb, 2)), np.zeros(nb), np.zeros((nb, 2))
    s_Jp, s_Ja = np.zeros((nb, 2, n)), np.zeros((nb, n))
    s_bias, s_grav, s_Fp, s_Fm, s_q, s_v = (np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n),
                                            np.zeros(n))

    Upot, Pd = _evaluate(q, v, bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi, ff, gx, gy,
                         pos, ang, vel, omg, accb, Jp, Ja, M, bias, grav, F, not const_M,
                         gap, nrm, pa, pb, U)
    if const_M:
        M[:, :] = M_const
    for step in range(nsteps):
        t = tarr[0]
        # --- smooth forces and iteration matrix at the start of the step
        _actuator_forces(t, q, v, grav, ai, af, u_held, next_sample, Qact)
        if const_F:
            vfree = v + Minv_const @ (h * (F + Qact))
        else:
            _force_jacobians(q, v, F, bi, bf, order, path, plen, si, sf, ji, jf, fi, ff, gx, gy, K, C,
                             s_pos, s_ang, s_vel, s_omg, s_acc, s_Jp, s_Ja, s_bias, s_grav, s_Fp, s_Fm,
                             s_q, s_v)
            for i in range(n):
                for j in range(n):
                    What[i, j] = M[i, j] - h * theta * C[i, j] - h * h * theta * theta * K[i, j]
            if not lu_factor_inplace(What, piv):
                return SINGULAR, step, -1
            rhs = h * (F + Qact + h * theta * (K @ v))
            lu_solve_factored(What, piv, rhs)
            vfree = v + rhs
        # --- a blow-up of the smooth dynamics is named here, before it reaches a contact problem
        code, col = _check_state(vfree, 1 + n, stats)
        if code != OK:
            return code, step, col
        # --- activation and the step problem (contact rows kept sparse: chains stay O(m^2))
        m = 0
        anyfric = False
        for c in range(nc):
            # standard rule y + γ h y' <= 0; with projection a closed contact (gap ~ 0 after the
            # projection) stays in the problem while separating, so its neighbours cannot push it through
            uact = U[c] if projection == 0 or U[c] < 0.0 else 0.0
            if gap[c] + gamma * h * uact <= fs[FS_ACTIVATION]:
                act[m] = c
                _contact_rows_sparse(c, ci, nrm, pa, pb, ccols, ccn, pos, Jp, Ja, HNv[m], HTv[m])
                tt = 0.0
                for kk in range(ccn[c]):
                    tt += HTv[m, kk] * HTv[m, kk]
                fric_c[m] = cf[c, CF_MU] > 0.0 and tt > 1e-20
                if fric_c[m]:
                    anyfric = True
                m += 1
        newlamN = np.zeros(nc)
        newlamT = np.zeros(nc)
        v_new = vfree.copy()
        if m > 0:
            k = 2 * m if anyfric else m
            rcols = np.zeros((k, maxc), np.int64)
            rvals = np.zeros((k, maxc))
            rnnz = np.zeros(k, np.int64)
            qd = np.zeros(k)
            mu = np.zeros(m)
            r0 = np.zeros(k)
            active0 = np.zeros(k, np.bool_)
            for r in range(m):
                c = act[r]
                rn = 2 * r if anyfric else r
                nn = ccn[c]
                rnnz[rn] = nn
                rcols[rn, :nn] = ccols[c, :nn]
                rvals[rn, :nn] = HNv[r, :nn]
                e = _restitution(cf[c, CF_E], U[c], projection, fs[FS_REST_V])
                qd[rn] = _sdot(ccols[c], HNv[r], nn, vfree) + e * U[c]
                r0[rn] = lamN[c]
                active0[rn] = lamN[c] > 0.0
                if anyfric and fric_c[r]:
                    rnnz[rn + 1] = nn
                    rcols[rn + 1, :nn] = ccols[c, :nn]
                    rvals[rn + 1, :nn] = HTv[r, :nn]
                    qd[rn + 1] = _sdot(ccols[c], HTv[r], nn, vfree)
                    mu[r] = cf[c, CF_MU]
                    r0[rn + 1] = lamT[c]
            if const_F:
                X, Wd = _delassus_sparse(rcols, rvals, rnnz, Minv_const)
            else:
                X, Wd = _delassus_lu(rcols, rvals, rnnz, What, piv)
            lam, st, it, err = _solve_problem(m, anyfric, Wd, qd, mu, r0, active0, solver,
                                              fs[FS_TOL], maxit)
            if it > stats[ST_MAXITER]:
                stats[ST_MAXITER] = it
            stats[ST_LASTERR] = err
            bad = False
            for i in range(k):
                if not np.isfinite(lam[i]):
                    bad = True
            if st != 0:
                if solver == SOLVER_NSGS or (anyfric and solver == SOLVER_AUTO):
                    stats[ST_WARNINGS] += 1
                    if err > 1e-4 or bad:
                        return SOLVER_FAILED, step, _worst(act, m, anyfric, Wd, qd, lam)
                else:
                    return SOLVER_FAILED, step, _worst(act, m, anyfric, Wd, qd, lam)
            if bad:
                return SOLVER_FAILED, step, act[0]
            for r in range(k):
                lr = lam[r]
                if lr != 0.0:
                    for i in range(n):
                        v_new[i] += X[i, r] * lr
            for r in range(m):
                c = act[r]
                rn = 2 * r if anyfric else r
                newlamN[c] = lam[rn]
                if anyfric:
                    newlamT[c] = lam[rn + 1]
        # --- positions, energy bookkeeping of the step
        vth = theta * v_new + (1.0 - theta) * v
        for j in range(n):
            q_new[j] = q[j] + h * vth[j]
        code, col = _check_state(v_new, 1 + n, stats)
        if code == OK:
            code, col = _check_state(q_new, 1, stats)
        if code != OK:
            return code, step, col
        for r in range(m):
            c = act[r]
            acc_e[ACC_IMPACT] -= newlamN[c] * _sdot(ccols[c], HNv[r], ccn[c], vth)
            acc_e[ACC_FRICTION] -= newlamT[c] * _sdot(ccols[c], HTv[r], ccn[c], vth)
        for i in range(ai.shape[0]):
            acc_e[ACC_ACTUATORS] += h * u_held[i] * vth[ai[i, 0]]
        acc_e[ACC_DAMPING] -= h * damper_power(vth, si, sf, ji, jf, path, plen, pos, ang, Jp, Ja, Qact)
        # --- contact status of the step
        for c in range(nc):
            status[c] = OPEN
        for r in range(m):
            c = act[r]
            if newlamN[c] > 0.0:
                if U[c] < -fs[FS_IMPACT]:
                    status[c] = IMPACT
                    stats[ST_IMPACTS] += 1
                elif abs(_sdot(ccols[c], HTv[r], ccn[c], v_new)) > fs[FS_STICK]:
                    status[c] = SLIP
                else:
                    status[c] = STICK
        q[:] = q_new
        v[:] = v_new
        lamN[:] = newlamN
        lamT[:] = newlamT
        tarr[0] = t + h
        # --- end of step: geometry at the new state (also the start of the next step)
        Upot, Pd = _evaluate(q, v, bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi, ff,
                             gx, gy, pos, ang, vel, omg, accb, Jp, Ja, M, bias, grav, F, not const_M,
                             gap, nrm, pa, pb, U)
        if projection != 0:
            for it in range(4):
                gmin = 0.0
                for c in range(nc):
                    if gap[c] < gmin:
                        gmin = gap[c]
                if gmin > -fs[FS_PROJ_TOL]:
                    break
                mp = 0
                for c in range(nc):
                    if gap[c] < -gmin + 1e-12:
                        act[mp] = c
                        mp += 1
                pcols = np.zeros((mp, maxc), np.int64)
                pvals = np.zeros((mp, maxc))
                pnnz = np.zeros(mp, np.int64)
                qp = np.zeros(mp)
                a0 = np.zeros(mp, np.bool_)
                for r in range(mp):
                    c = act[r]
                    _contact_rows_sparse(c, ci, nrm, pa, pb, ccols, ccn, pos, Jp, Ja, HNv[r], HTv[r])
                    pnnz[r] = ccn[c]
                    pcols[r, :ccn[c]] = ccols[c, :ccn[c]]
                    pvals[r, :ccn[c]] = HNv[r, :ccn[c]]
                    qp[r] = gap[c]
                    a0[r] = gap[c] < 0.0
                if const_M:
                    Xp, Wp = _delassus_sparse(pcols, pvals, pnnz, Minv_const)
                else:
                    Hp = _densify(pcols, pvals, pnnz, n)
                    Xp = np.linalg.solve(M, Hp.T)
                    Wp = Hp @ Xp
                for r in range(mp):
                    Wp[r, r] += 1e-12 * (1.0 + Wp[r, r])
                tau, st, itp = bpp_lcp(Wp, qp, a0, 3 * mp + 10)
                if st != 0:
                    tau, st, itp = lemke(Wp, qp, 50 * mp + 100)
                if st != 0:
                    break
                for r in range(mp):
                    for i in range(n):
                        q[i] += Xp[i, r] * tau[r]
                U_before = Upot
                Upot, Pd = _evaluate(q, v, bi, bf, order, path, plen, ci, cf, verts, si, sf, ji, jf, fi,
                                     ff, gx, gy, pos, ang, vel, omg, accb, Jp, Ja, M, bias, grav, F,
                                     not const_M, gap, nrm, pa, pb, U)
                acc_e[ACC_PROJECTION] += Upot - U_before
        for c in range(nc):
            if gap[c] < stats[ST_MINGAP]:
                stats[ST_MINGAP] = gap[c]
        if record:
            Kin = 0.5 * v @ (M @ v)
            _write_row(rows[step], tarr[0], q, v, Kin, Upot, acc_e, gap, lamN, lamT, status, u_held, h)
            col = _first_nonfinite(rows[step], stats)  # never hand out a non-finite row
            if col >= 0:
                return NOT_FINITE, step, col
        elif not (np.isfinite(Upot) and np.isfinite(acc_e.sum())):
            return NOT_FINITE, step, -1
        stats[ST_STEPS] += 1
    return OK, nsteps, -1
