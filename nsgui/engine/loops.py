"""Loop-closing joints (scene `loops`): bilateral constraints g(q) = 0 between two bodies of the tree,
solved in the same one-step problem as the contacts (numba kernels).

Each loop joint has LOOP_ROWS = 2 rows (codes.py): revolute, the x and y of p_a − p_b; prismatic,
n·(p_a − p_b) with n ⊥ the axis fixed in a, and θ_a − θ_b − angle. In a step the equalities
H_b v_θ = 0 with v_θ = θ v⁺ + (1 − θ) v_k, H_b = ½(∂g/∂q(q_k) + ∂g/∂q(q_k + h v_k)) (the Jacobian at the
step's midpoint: the loops' percussions do no work at v_θ, and H_b(q_k+1) v_k+1 = O(h²) without any
velocity projection), are eliminated by a Schur complement before the contact problem: with
X_b = Ŵ⁻¹H_bᵀ, W_bb = H_b X_b and the target r = −(1 − θ)/θ H_b v_k of H_b v⁺,
    v_free ← v_free + X_b W_bb⁻¹ (r − H_b v_free)   (the free velocity that keeps the loops closed)
    X_c    ← X_c − X_b W_bb⁻¹ H_b X_c              (each contact percussion's effect, loops kept closed)
so the contact LCP / friction problem is the usual one on W_c = H_c X_c, and H_b v⁺ = r holds whatever
the contact percussions λ_c; the loops' percussions are λ_b = W_bb⁻¹ (r − H_b (v_free + X_c λ_c)).
After the step, the positions are projected back onto g(q) = 0 (Newton, M⁻¹-weighted, to 1e-12), the
potential energy this changes booked in energy.projection like the contact projection.
"""

import numpy as np
from numba import njit

from .codes import (ACC_PROJECTION, FS_H, FS_THETA, IS_CONST_F, IS_CONST_M, IS_IMPLICIT, LF_ANGLE, LF_AX, LF_AY, LF_BX,
                    LF_BY, LF_UX, LF_UY, LI_A, LI_B, LI_TYPE, LOOP_ROWS, PRISMATIC)
from .contact_rows import delassus_lu, delassus_sparse, densify, sdot, sparse_rows_times
from .dynamics import body_kinematics
from .evaluation import evaluate

LOOP_TOL = 1e-12    # the projection's target residual (m, rad)
LOOP_NEWTON = 8     # Newton iterations at most per projection (quadratic: 1 or 2 are used)


@njit(cache=True)
def _anchors(m, l, pos, ang):
    """World positions of the anchors on a and b of loop l."""
    li, lf = m.li, m.lf
    a, b = li[l, LI_A], li[l, LI_B]
    ca, sa = np.cos(ang[a]), np.sin(ang[a])
    pax = pos[a, 0] + ca * lf[l, LF_AX] - sa * lf[l, LF_AY]
    pay = pos[a, 1] + sa * lf[l, LF_AX] + ca * lf[l, LF_AY]
    if b < 0:
        return pax, pay, lf[l, LF_BX], lf[l, LF_BY]
    cb, sb = np.cos(ang[b]), np.sin(ang[b])
    return (pax, pay, pos[b, 0] + cb * lf[l, LF_BX] - sb * lf[l, LF_BY],
            pos[b, 1] + sb * lf[l, LF_BX] + cb * lf[l, LF_BY])


@njit(cache=True)
def loop_normal(m, l, ang):
    """(n_x, n_y) of a prismatic loop (world frame)."""
    nx, ny, _ux, _uy = _normal(m, l, ang)
    return nx, ny


@njit(cache=True)
def _normal(m, l, ang):
    """The prismatic loop's normal n = perp(u) and axis u, world frame (u fixed in body a)."""
    a = m.li[l, LI_A]
    c, s = np.cos(ang[a]), np.sin(ang[a])
    ux = c * m.lf[l, LF_UX] - s * m.lf[l, LF_UY]
    uy = s * m.lf[l, LF_UX] + c * m.lf[l, LF_UY]
    return -uy, ux, ux, uy


@njit(cache=True)
def loop_residuals(m, kin, g):
    """g(q) of every loop row at the kinematics kin (LOOP_ROWS per loop)."""
    li, lf = m.li, m.lf
    pos, ang = kin.pos, kin.ang
    for l in range(li.shape[0]):
        pax, pay, pbx, pby = _anchors(m, l, pos, ang)
        r = LOOP_ROWS * l
        if li[l, LI_TYPE] == PRISMATIC:
            nx, ny, _ux, _uy = _normal(m, l, ang)
            b = li[l, LI_B]
            g[r] = nx * (pax - pbx) + ny * (pay - pby)
            g[r + 1] = ang[li[l, LI_A]] - (ang[b] if b >= 0 else 0.0) - lf[l, LF_ANGLE]
        else:
            g[r] = pax - pbx
            g[r + 1] = pay - pby


@njit(cache=True)
def loop_rows(m, kin, rcols, rvals, rnnz):
    """The sparse Jacobian rows H_b = ∂g/∂q of every loop on its columns m.lcols (rows of rcols, rvals,
    rnnz: LOOP_ROWS per loop)."""
    li, lcols, lcn = m.li, m.lcols, m.lcn
    pos, ang, Jp, Ja = kin.pos, kin.ang, kin.Jp, kin.Ja
    for l in range(li.shape[0]):
        a, b = li[l, LI_A], li[l, LI_B]
        pax, pay, pbx, pby = _anchors(m, l, pos, ang)
        rax, ray = pax - pos[a, 0], pay - pos[a, 1]
        rbx = rby = 0.0
        if b >= 0:
            rbx, rby = pbx - pos[b, 0], pby - pos[b, 1]
        prismatic = li[l, LI_TYPE] == PRISMATIC
        nx = ny = ux = uy = 0.0
        if prismatic:
            nx, ny, ux, uy = _normal(m, l, ang)
        r = LOOP_ROWS * l
        nn = lcn[l]
        rnnz[r] = nn
        rnnz[r + 1] = nn
        for kk in range(nn):
            j = lcols[l, kk]
            rcols[r, kk] = j
            rcols[r + 1, kk] = j
            jx = Jp[a, 0, j] - ray * Ja[a, j]   # velocity of a's anchor minus b's
            jy = Jp[a, 1, j] + rax * Ja[a, j]
            jab = Ja[a, j]
            if b >= 0:
                jx -= Jp[b, 0, j] - rby * Ja[b, j]
                jy -= Jp[b, 1, j] + rbx * Ja[b, j]
                jab -= Ja[b, j]
            if prismatic:
                # d/dt n·(p_a − p_b) = n·(v_a − v_b) + ṅ·(p_a − p_b), ṅ = −ω_a u
                rvals[r, kk] = nx * jx + ny * jy - (ux * (pax - pbx) + uy * (pay - pby)) * Ja[a, j]
                rvals[r + 1, kk] = jab
            else:
                rvals[r, kk] = jx
                rvals[r + 1, kk] = jy


@njit(cache=True)
def _regularized_inverse(W):
    """W⁻¹ of the loops' Delassus matrix, a tiny diagonal shift keeping redundant loops solvable."""
    k = W.shape[0]
    A = W.copy()
    for r in range(k):
        A[r, r] += 1e-13 * (1.0 + W[r, r])
    return np.linalg.inv(A)


@njit(cache=True)
def constrain_free_velocity(m, d):
    """Schur complement of the loops (see the module doc): the rows H_b at the step's midpoint in
    d.lrows_*, X_b and W_bb⁻¹ in d.lX, d.lWinv, v_free made to satisfy H_b v_free = r and the loops'
    percussions of the free step in d.lamB. Uses d.fd_kin and d.fd_q as scratch."""
    nl = m.li.shape[0]
    if nl == 0:
        return
    rcols, rvals, rnnz = d.lrows_c, d.lrows_v, d.lrows_n
    h, theta = m.fs[FS_H], m.fs[FS_THETA]
    qp, v = d.fd_q, d.v
    for i in range(qp.shape[0]):
        qp[i] = d.q[i] + h * v[i]
    body_kinematics(m, qp, v, d.fd_kin)
    loop_rows(m, d.fd_kin, rcols, rvals, rnnz)
    end = rvals.copy()
    loop_rows(m, d.kin, rcols, rvals, rnnz)
    for r in range(rvals.shape[0]):
        for kk in range(rnnz[r]):
            rvals[r, kk] = 0.5 * (rvals[r, kk] + end[r, kk])
    if m.isets[IS_CONST_F] != 0 and m.isets[IS_IMPLICIT] == 0:
        X, W = delassus_sparse(rcols, rvals, rnnz, m.Minv_const)
    else:
        X, W = delassus_lu(rcols, rvals, rnnz, d.What, d.piv)
    Winv = _regularized_inverse(W)
    d.lX[:, :] = X
    d.lWinv[:, :] = Winv
    k = rnnz.shape[0]
    ub = np.zeros(k)
    for r in range(k):
        ub[r] = -(1.0 - theta) / theta * sdot(rcols[r], rvals[r], rnnz[r], v) - sdot(rcols[r], rvals[r], rnnz[r], d.vfree)
    lam = Winv @ ub
    d.lamB[:] = lam
    dv = X @ lam
    vfree = d.vfree
    for i in range(vfree.shape[0]):
        vfree[i] += dv[i]


@njit(cache=True)
def condense_contacts(m, d, X):
    """X_c ← X_c − X_b W_bb⁻¹ H_b X_c (in place) and the matrix G = W_bb⁻¹ H_b X_c (before the change):
    the loops' percussions move by −G λ_c when the contacts push."""
    rcols, rvals, rnnz = d.lrows_c, d.lrows_v, d.lrows_n
    G = d.lWinv @ sparse_rows_times(rcols, rvals, rnnz, X)
    X -= d.lX @ G
    return G


@njit(cache=True)
def keep_loop_velocities(m, d, v0):
    """The part of the velocity change since v0 (the contacts' projection's, which knows nothing of the
    loops) that breaks H_b v = 0 is taken out, M-orthogonally (v ← v − M⁻¹H_bᵀ W_bb⁻¹ H_b (v − v0)), and
    the kinetic energy this changes booked in energy.projection. The step's own v is kept as it is:
    its H_b v_θ = 0 at the midpoint Jacobian is what keeps the loops' percussions from working, and a
    violation put in from outside would otherwise alternate in sign at θ = ½ from step to step."""
    nl = m.li.shape[0]
    n = d.v.shape[0]
    if nl == 0:
        return
    dv = d.v - v0
    if np.max(np.abs(dv)) == 0.0:
        return
    rcols, rvals, rnnz = d.lrows_c, d.lrows_v, d.lrows_n
    loop_rows(m, d.kin, rcols, rvals, rnnz)
    if m.isets[IS_CONST_M] != 0:
        X, W = delassus_sparse(rcols, rvals, rnnz, m.Minv_const)
    else:
        H = densify(rcols, rvals, rnnz, n)
        X = np.ascontiguousarray(np.linalg.solve(d.M, np.ascontiguousarray(H.T)))
        W = H @ X
    k = rnnz.shape[0]
    hdv = np.zeros(k)
    for r in range(k):
        hdv[r] = sdot(rcols[r], rvals[r], rnnz[r], dv)
    corr = X @ (_regularized_inverse(W) @ hdv)
    v = d.v
    k_before = 0.5 * v @ (d.M @ v)
    for i in range(n):
        v[i] -= corr[i]
    d.energy[ACC_PROJECTION] += 0.5 * v @ (d.M @ v) - k_before


@njit(cache=True)
def project_loops(m, d, upot):
    """Newton projection of d.q onto g(q) = 0 along M⁻¹H_bᵀ (the M-nearest closed configuration),
    the model evaluated again at each iterate and the potential energy it changes booked in
    energy.projection. upot: the potential energy at d.q; returns it at the projected d.q."""
    nl = m.li.shape[0]
    if nl == 0:
        return upot
    const_M = m.isets[IS_CONST_M] != 0
    g = d.lerr
    rcols, rvals, rnnz = d.lrows_c, d.lrows_v, d.lrows_n
    n = d.q.shape[0]
    for _ in range(LOOP_NEWTON):
        loop_residuals(m, d.kin, g)
        if np.max(np.abs(g)) <= LOOP_TOL:
            break
        loop_rows(m, d.kin, rcols, rvals, rnnz)
        if const_M:
            X, W = delassus_sparse(rcols, rvals, rnnz, m.Minv_const)
        else:
            H = densify(rcols, rvals, rnnz, n)
            X = np.ascontiguousarray(np.linalg.solve(d.M, np.ascontiguousarray(H.T)))
            W = H @ X
        tau = -(_regularized_inverse(W) @ g)
        dq = X @ tau
        q = d.q
        for i in range(n):
            q[i] += dq[i]
        u_before = upot
        upot = evaluate(m, d, not const_M)
        d.energy[ACC_PROJECTION] += upot - u_before
    return upot
