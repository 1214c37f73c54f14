"""Position projection after a step (settings.projection), numba kernels: docs/numerics.md, Projection.

The velocity step leaves two kinds of position error, both removed here by one small displacement
Δq = M⁻¹Hᵀτ (the M-closest one, a mixed LCP in τ):
- penetrations deeper than the projection tolerance (unilateral rows: gap ≥ 0 ⊥ τ ≥ 0);
- the O(h²) drift of persistent contacts, those pushed in this step and the one before (the velocity
  law holds for the Jacobians at the start of the step only): their gap returns to 0 and, if they
  stick, their material points return to where they were at the start of the step (equality rows),
  so a pivoting foot neither hovers nor slides, and a projection of the other contacts cannot drag it.
The projection keeps the total energy where it can: the potential energy the displacement adds is
taken from the kinetic energy along the same direction (v ← v + s Δq, as far as the velocity along Δq
allows), so lifting a body out of the ground slows its approach instead of adding the lift to its
energy; what it removes (a pivoting body's drift put back) returns to the motion (v ← c v).
With a constant M, a body (a block of M⁻¹) held by equality rows within DRIFT_TOL of rank its coordinates,
against the ground or bodies so held, keeps Δq = 0 (the equalities alone fix its Δq, to that tolerance):
the problem is solved on the other bodies' rows alone (_pinned_rows: a landing pyramid's 392 rows become
the landing row's 4–36), checked on that problem, else solved whole as before.
"""

import numpy as np
from numba import njit

from .codes import (ACC_PROJECTION, AN_LOADED, AN_RA, AN_RB, AN_SEP, CF_MU, CI_ABODY, CI_BBODY, CI_BTYPE,
                    FS_PROJ_TOL, FS_REST_V, IS_CONST_F, IS_CONST_M, ITERATION_CAP, LIMIT, SOLVED, STICK)
from .contact_geometry import body_point
from .contact_rows import active_contact_rows, densify
from .evaluation import (evaluate, evaluate_geometry, kinetic_energy, live_candidate, live_count, mass_times,
                         refresh_velocities, smooth_forces)
from .kept_delassus import delassus_kept
from .solvers._linalg import csr_from_dense, csr_to_dense
from .solvers.bpp import bpp_lcp_csr_dropping, bpp_lcp_csr_kept, new_factor
from .solvers.mixed_schur import _checked, mixed_schur_csr, small_lcp

DRIFT_TOL = 1e-10   # persistent contacts are put back once their drift exceeds this (m)
ITERATIONS = 4      # linearized projections per step (the gaps are nonlinear in q)


@njit(cache=True, inline="always")
def anchor_into(ci, cf, pos, cs, anchor, act, nact, pa, pb, lamN):
    """At the start of a step, for each active candidate act[:nact]: its contact points as material
    points of its two bodies (body-frame coordinates), their separation, and whether it was pushed in
    the last step (anchor, AN_* columns). The material points and separation are read for a sticking
    frictional contact only (_kind 2: its tangent row and drift); a frictionless one's are not written.
    Compiled into its caller (stepper._active_rows: one call less a step). pos, cs: each
    body's position and cos and sin as body_kinematics computed them (cos_sin's numbers). The two bodies'
    points are written out, not looped over a tuple of (column, body, points): that tuple cost reference
    counts per contact."""
    for r in range(nact):
        c = act[r]
        anchor[c, AN_LOADED] = 1.0 if lamN[c] > 0.0 else 0.0
        if ci[c, CI_BTYPE] == LIMIT or not cf[c, CF_MU] > 0.0:  # (never _kind 2: the points are not read)
            continue
        x, y = pa[c, 0], pa[c, 1]
        b = ci[c, CI_ABODY]
        if b >= 0:
            co, si = cs[b, 0], cs[b, 1]
            x, y = co * (x - pos[b, 0]) + si * (y - pos[b, 1]), -si * (x - pos[b, 0]) + co * (y - pos[b, 1])
        anchor[c, AN_RA], anchor[c, AN_RA + 1] = x, y
        x, y = pb[c, 0], pb[c, 1]
        b = ci[c, CI_BBODY]
        if b >= 0:
            co, si = cs[b, 0], cs[b, 1]
            x, y = co * (x - pos[b, 0]) + si * (y - pos[b, 1]), -si * (x - pos[b, 0]) + co * (y - pos[b, 1])
        anchor[c, AN_RB], anchor[c, AN_RB + 1] = x, y
        anchor[c, AN_SEP] = pa[c, 0] - pb[c, 0]
        anchor[c, AN_SEP + 1] = pa[c, 1] - pb[c, 1]


@njit(cache=True)
def _tangential_drift(m, d, c):
    """How far the material points of candidate c have slid along its tangent since the step began."""
    kin = d.kin
    return _drift_along(m.ci, kin.pos, kin.cs, d.anchor, d.nrm, c)


@njit(cache=True)
def _drift_along(ci, pos, cs, an, nrm, c):
    """_tangential_drift given the arrays (a loop over the candidates binds them once: each field access
    costs a reference count) and each body's cos and sin from the kinematics (point_world's numbers
    without its trigonometry). Not inlined: numba's inlining made the projection's test 3x slower."""
    ax, ay = _material_point(ci[c, CI_ABODY], an[c, AN_RA], an[c, AN_RA + 1], pos, cs)
    bx, by = _material_point(ci[c, CI_BBODY], an[c, AN_RB], an[c, AN_RB + 1], pos, cs)
    dx, dy = ax - bx - an[c, AN_SEP], ay - by - an[c, AN_SEP + 1]
    return nrm[c, 1] * dx - nrm[c, 0] * dy


@njit(cache=True)
def _material_point(b, lx, ly, pos, cs):
    """dynamics.point_world with the body's cos and sin read from kin.cs."""
    if b < 0:
        return lx, ly
    c, s = cs[b, 0], cs[b, 1]
    return pos[b, 0] + c * lx - s * ly, pos[b, 1] + s * lx + c * ly


@njit(cache=True)
def _persistent(m, d, enabled):
    """Per candidate: 1 if it was pushed in this step and the last and is not separating (its normal
    row becomes an equality), 2 if it also sticks with friction (its tangent row too), else 0."""
    lamN, anchor, un, status, ci, cf = d.lamN, d.anchor, d.un, d.status, m.ci, m.cf  # (bound once)
    nc = lamN.shape[0]
    kind = np.zeros(nc, np.int64)
    rest_v = max(m.fs[FS_REST_V], 1e-9)
    for c in range(nc):
        kind[c] = _kind(enabled[c], lamN[c], anchor[c, AN_LOADED], un[c], ci[c, CI_BTYPE], cf[c, CF_MU], status[c],
                        rest_v)
    return kind


@njit(cache=True, inline="always")
def _kind(enabled, lamN, loaded, un, btype, mu, status, rest_v):
    """_persistent's value of a candidate, given its entries (scalars: a helper taking the arrays keeps
    its caller's reference counts)."""
    if enabled != 0.0 and lamN > 0.0 and loaded != 0.0 and un <= rest_v:
        if btype != LIMIT and mu > 0.0 and status == STICK:
            return 2
        return 1
    return 0


@njit(cache=True)
def projection_due(m, d, live=None, nlive=-1):
    """False when project_positions has nothing to do: its first pass's test (no candidate deeper
    than the tolerance, no persistent one drifted by more than DRIFT_TOL) would end it at once, having
    changed nothing. Most steps of a resting or sliding scene, and every step in flight; the test
    without project_positions' allocations and reference counts (it calls nothing). Given the near list
    (live, nlive: evaluation.live_count), a lazy run's near candidates live[1:nlive + 1] only
    (near_candidates.py: the others are not pushed and their gaps are positive, which changes neither test)."""
    if live is None:
        live = d.act  # (nlive < 0: unread)
    gap, lamN, anchor, un, status, ci, cf, kin, nrm = d.gap, d.lamN, d.anchor, d.un, d.status, m.ci, m.cf, d.kin, d.nrm
    nc = gap.shape[0]
    enabled = d.ctrl[m.ai.shape[0] + nc:]
    rest_v = max(m.fs[FS_REST_V], 1e-9)
    gmin = 0.0
    drift = 0.0  # of the persistent gaps
    slide = 0.0  # of the sticking ones' material points along the tangent
    pos, cs = kin.pos, kin.cs
    # project_positions' first test in one pass: its gap drift and tangential drift used to be two passes,
    # the second one (after the gap test, when not due) continuing the same max: max ignores a NaN that
    # comes second (numba's max keeps the first when the comparison fails) and both start at 0, so
    # "drift > tol or slide > tol" is that max's test
    for i in range(live_count(nc, nlive)):
        c = live_candidate(live, nlive, i)
        kind = _kind(enabled[c], lamN[c], anchor[c, AN_LOADED], un[c], ci[c, CI_BTYPE], cf[c, CF_MU], status[c], rest_v)
        if kind == 0:
            if enabled[c] != 0.0 and gap[c] < gmin:
                gmin = gap[c]
            continue
        drift = max(drift, abs(gap[c]))
        if kind == 2:
            # _drift_along's numbers written out with scalars (one return, no call: a call or a helper
            # taking these arrays kept every array's reference counts, 22 a step)
            a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
            ax, ay = anchor[c, AN_RA], anchor[c, AN_RA + 1]
            if a >= 0:
                ax, ay = body_point(pos[a, 0], pos[a, 1], cs[a, 0], cs[a, 1], ax, ay)
            bx, by = anchor[c, AN_RB], anchor[c, AN_RB + 1]
            if b >= 0:
                bx, by = body_point(pos[b, 0], pos[b, 1], cs[b, 0], cs[b, 1], bx, by)
            dx, dy = ax - bx - anchor[c, AN_SEP], ay - by - anchor[c, AN_SEP + 1]
            slide = max(slide, abs(nrm[c, 1] * dx - nrm[c, 0] * dy))
    # (not <=: a NaN drift projects, as there)
    return gmin < -m.fs[FS_PROJ_TOL] or not drift <= DRIFT_TOL or not slide <= DRIFT_TOL


@njit(cache=True)
def _penetrating(kind, deep, enabled, gap, gmin):
    """1 if a candidate that is not persistent enters the projection as a penetration (the deepest
    ones, when any is deeper than the tolerance), else 0."""
    return 1 if kind == 0 and deep and enabled != 0.0 and gap < -gmin + 1e-12 else 0


@njit(cache=True)
def _solve_mixed(wptr, wcol, wval, qv, eq, fac, dependent=False):
    """τ with W τ + qv = 0 on the rows eq (equalities) and 0 ≤ W τ + qv ⊥ τ ≥ 0 on the others, W in
    compressed sparse rows: block pivoting with the equalities always in the active set (banded
    Cholesky: a column's projection costs O(k); fac: its kept factor of the shifted W, bpp_lcp_csr_kept).
    Where its banded Cholesky drops a dependent row with infeasible indices left (a box pyramid's
    redundant corners: it may cycle there), the banded Schur complement of the equality block
    (mixed_schur_csr: one factor, no cycle); if that fails its check, block pivoting to its end as before.
    dependent: the equality rows are known dependent (more of them than coordinates they touch), so that
    pivoting's first factor would drop rows: the Schur path first, without that factor.
    If pivoting fails, the dense Schur complement of the equality block and Lemke. Returns (τ, ok)."""
    k = qv.shape[0]
    found = 0
    for r in range(k):
        for p in range(wptr[r], wptr[r + 1]):
            if wcol[p] == r:
                wval[p] += 1e-12 * (1.0 + wval[p])   # redundant rows (two corners of a flat face) stay solvable
                found += 1
    if found == k:
        guess = np.zeros(k, np.bool_)
        for r in range(k):
            guess[r] = qv[r] < 0.0
        st = ITERATION_CAP
        if not dependent:
            tau, st, _ = bpp_lcp_csr_dropping(wptr, wcol, wval, qv, guess, 3 * k + 10, True, eq, fac, True)
            if st == SOLVED:
                return tau, True
        if st == ITERATION_CAP:  # stopped at a dropped row or sure to (any other status: the whole pivoting's)
            tau, st = mixed_schur_csr(wptr, wcol, wval, qv, eq)
            if st == SOLVED:
                return tau, True
            tau, st, _ = bpp_lcp_csr_kept(wptr, wcol, wval, qv, guess, 3 * k + 10, True, eq, fac)
            if st == SOLVED:
                return tau, True
    # the dense fallback takes the equalities first
    order = np.empty(k, np.int64)
    ne = 0
    for r in range(k):
        if eq[r]:
            order[ne] = r
            ne += 1
    j = ne
    for r in range(k):
        if not eq[r]:
            order[j] = r
            j += 1
    Wd = csr_to_dense(wptr, wcol, wval, k)
    W = np.empty((k, k))
    qo = np.empty(k)
    for a in range(k):
        qo[a] = qv[order[a]]
        for b in range(k):
            W[a, b] = Wd[order[a], order[b]]
        if W[a, a] == 0.0:
            W[a, a] = 1e-12
    to, ok = _solve_mixed_dense(W, qo, ne)
    tau = np.empty(k)
    for a in range(k):
        tau[order[a]] = to[a]
    return tau, ok


@njit(cache=True)
def _solve_mixed_dense(W, qv, ne):
    """_solve_mixed's fallback on a dense W (its diagonal already shifted): the unilateral rows
    reduced by the Schur complement of the equality block, then block pivoting or Lemke."""
    k = qv.shape[0]
    nu = k - ne
    tau = np.zeros(k)
    A = np.ascontiguousarray(W[:ne, :ne])
    if nu == 0:
        tau[:] = -np.linalg.solve(A, qv)
        return tau, True
    if ne > 0:
        Wue = np.ascontiguousarray(W[ne:, :ne])
        Y = np.linalg.solve(A, np.ascontiguousarray(W[:ne, ne:]))
        y = np.linalg.solve(A, qv[:ne].copy())
        Wr = W[ne:, ne:] - Wue @ Y
        qr = qv[ne:] - Wue @ y
    else:
        Wr = W.copy()
        qr = qv.copy()
    tu, st = small_lcp(Wr, qr, qr < 0.0)
    if st != SOLVED:
        return tau, False
    tau[ne:] = tu
    if ne > 0:
        tau[:ne] = -(y + Y @ tu)
    return tau, True


@njit(cache=True)
def project_positions(m, d, upot):
    """The projection of the step's end state (module doc): up to ITERATIONS linearized mixed LCPs,
    then the kinetic-energy compensation. upot: the potential energy at d.q; returns it at the
    projected state. Books the energy the whole change makes (ΔU + ΔK) as energy.projection."""
    q, gap, kin = d.q, d.gap, d.kin
    ccols, ccn = m.ccols, m.ccn
    n, nc = q.shape[0], gap.shape[0]
    const_M = m.isets[IS_CONST_M] != 0
    maxc = max(ccols.shape[1], 1)
    enabled = d.ctrl[m.ai.shape[0] + nc:]
    kind = _persistent(m, d, enabled)
    u0 = upot
    k0 = 0.0  # the kinetic energy and the displacement, from the first move on (most calls make none)
    dq = np.empty(0)
    moved = False
    for _ in range(ITERATIONS):
        gmin = 0.0
        drift = 0.0
        for c in range(nc):
            if enabled[c] != 0.0 and kind[c] == 0 and gap[c] < gmin:
                gmin = gap[c]
            if kind[c] > 0:
                drift = max(drift, abs(gap[c]))
        deep = gmin < -m.fs[FS_PROJ_TOL]
        if not deep and drift <= DRIFT_TOL:
            ci, pos, cs, an, nrm = m.ci, kin.pos, kin.cs, d.anchor, d.nrm
            for c in range(nc):
                if kind[c] == 2:
                    drift = max(drift, abs(_drift_along(ci, pos, cs, an, nrm, c)))
            if drift <= DRIFT_TOL:
                break
        # rows in candidate order (a column's problem stays banded): the equalities (persistent
        # normals, sticking tangents) and the penetrations
        sel = np.empty(nc, np.int64)  # the candidates in the problem
        ns = 0
        k = 0
        for c in range(nc):
            rows_c = kind[c] + _penetrating(kind[c], deep, enabled[c], gap[c], gmin)
            if rows_c > 0:
                sel[ns] = c
                ns += 1
                k += rows_c
        RN = np.empty((ns, maxc))  # their normal and tangent rows, in one call (not one per candidate)
        RT = np.empty((ns, maxc))
        active_contact_rows(m, kin, sel, ns, d.nrm, d.pa, d.pb, RN, RT)
        pcols = np.zeros((k, maxc), np.int64)
        pvals = np.zeros((k, maxc))
        pnnz = np.zeros(k, np.int64)
        qp = np.zeros(k)
        eq = np.zeros(k, np.bool_)
        r = 0
        for s in range(ns):
            c = sel[s]
            nn = ccn[c]
            for t in range(max(kind[c], 1)):  # the normal row, and the tangent row of a sticking contact
                R = RN if t == 0 else RT
                pnnz[r] = nn
                for kk in range(nn):
                    pcols[r, kk] = ccols[c, kk]
                    pvals[r, kk] = R[s, kk]
                qp[r] = gap[c] if t == 0 else _tangential_drift(m, d, c)
                eq[r] = kind[c] > 0
                r += 1
        step = np.empty(0)
        ok = False
        if const_M and deep:  # bodies the equalities hold keep Δq = 0 (module doc): the others' rows alone
            found, rcols, rvals, rnnz, rq, req = _pinned_rows(pcols, pvals, pnnz, qp, eq, m.mi_ptr, m.mi_col,
                                                              m.mi_val, n, m.fs[FS_PROJ_TOL])
            if found:
                step, ok = _move(m, d, rcols, rvals, rnnz, rq, req, const_M, True)
        if not ok:
            step, ok = _move(m, d, pcols, pvals, pnnz, qp, eq, const_M, False)
        if not ok:
            break
        if not moved:  # (v and M are still those of the call's start)
            k0 = kinetic_energy(m, d, d.v)
            dq = np.zeros(n)
        q += step
        dq += step
        moved = True
        if const_M:  # the iterations read the geometry alone: the forces once, at the last q
            evaluate_geometry(m, d)
        else:  # (the next iteration's M at the new q)
            upot = evaluate(m, d, True)
    if not moved:
        return upot
    if const_M:  # (the normal velocities are computed below, after v's change)
        upot = smooth_forces(m, d, False)
    if upot > u0:
        _give_back(m, d, dq, upot - u0)
    else:
        _restore(d, u0 - upot, k0)
    if m.isets[IS_CONST_F] != 0:  # v changed, q did not: the geometry and U stand
        refresh_velocities(m, d)
    else:
        upot = evaluate(m, d, False)
    d.energy[ACC_PROJECTION] += upot - u0 + kinetic_energy(m, d, d.v) - k0
    return upot


@njit(cache=True)
def _move(m, d, pcols, pvals, pnnz, qp, eq, const_M, checked):
    """The displacement Δq = M⁻¹Hᵀτ of one linearized projection on the rows (pcols, pvals, pnnz: rows in
    candidate order; qp their gaps or drifts; eq the equality rows) and whether τ was found; checked: τ must
    also pass block pivoting's test on this problem (mixed_schur._checked), for the reduced problem of
    _pinned_rows, whose fallback is the whole problem."""
    n = d.q.shape[0]
    k = qp.shape[0]
    if const_M:  # M⁻¹ by tree: X and W sparse (contact_rows.delassus_csr)
        # (after a column's landing it puts the drift of the same 1000 rows back step after step)
        kept, reused = delassus_kept(d.pj_kept, pcols, pvals, pnnz, m.mi_ptr, m.mi_col, m.mi_val, n, False)
        if not reused and not checked:  # (a reduced problem does not displace the whole one's: it may repeat)
            d.pj_kept = kept
        (xptr, xcol, xval), (wptr, wcol, wval), fac = kept[3], kept[4], kept[6]
    else:
        Hp = densify(pcols, pvals, pnnz, n)
        Xp = np.linalg.solve(d.M, Hp.T)
        xptr, xcol, xval = csr_from_dense(Xp)
        wptr, wcol, wval = csr_from_dense(Hp @ Xp)
        fac = new_factor(0)
    # more equality rows than coordinates they touch: W_EE is singular (a landing pyramid's redundant
    # corners: 392 rows of rank 162), pivoting's first factor would only find that out (a third of the
    # landing's projection)
    touched = np.zeros(n, np.bool_)
    ne = 0
    nt = 0
    for r in range(k):
        if eq[r]:
            ne += 1
            for kk in range(pnnz[r]):
                if not touched[pcols[r, kk]]:
                    touched[pcols[r, kk]] = True
                    nt += 1
    # (_solve_mixed shifts W's diagonal: W may be kept)
    tau, ok = _solve_mixed(wptr, wcol, wval.copy(), qp, eq, fac, ne > nt)
    step = np.zeros(n)
    if not ok or (checked and _checked(wptr, wcol, wval, qp, eq, tau) != SOLVED):
        return step, False
    for i in range(n):  # X τ
        for t in range(xptr[i], xptr[i + 1]):
            step[i] += xval[t] * tau[xcol[t]]
    return step, True


PIN_BLOCK = 6  # the largest block of M⁻¹ (a body's coordinates) _pinned_rows holds


@njit(cache=True)
def _pinned_rows(pcols, pvals, pnnz, qp, eq, mptr, mcol, mval, n, tol):
    """The projection's rows without the bodies the equalities hold (module doc): a block of M⁻¹ (its
    coordinates coupled by M⁻¹: a free body, a tree) is held when the equality rows within DRIFT_TOL between
    it and the ground or held blocks have rank its size (their Gram matrix in M⁻¹'s diagonal scaling has no
    pivot below 1e-8 of its largest diagonal entry), none of its equality rows drifted by more, and it has at
    most PIN_BLOCK coordinates. Its Δq is then fixed by those equalities alone, and within DRIFT_TOL it is 0:
    the held columns leave every row, and a row left with none is met (an equality within DRIFT_TOL, a
    unilateral row not deeper than tol) or the reduction is refused. Returns (whether a block is held and
    the reduction stands, its rows: cols, vals, nnz, right-hand sides, equality flags).
    A worklist, O(rows + coordinates): a row joins a block's Gram matrix when that block is the last of its
    blocks not held, and a block is tested again when a row joins it (a column of beads is held bead by
    bead, from the ground up, in one pass)."""
    k = qp.shape[0]
    ne = 0
    for r in range(k):
        ne += 1 if eq[r] else 0
    if ne == 0:  # (nothing holds a block: no blocks to find)
        return False, pcols[:0].copy(), pvals[:0].copy(), pnnz[:0].copy(), qp[:0].copy(), eq[:0].copy()
    # the blocks of M⁻¹: connected coordinates (union-find by the smallest index), numbered 0..nb-1
    root = np.arange(n)
    for i in range(n):
        for p in range(mptr[i], mptr[i + 1]):
            a = i
            while root[a] != a:
                a = root[a]
            b = mcol[p]
            while root[b] != b:
                b = root[b]
            if a != b:
                root[max(a, b)] = min(a, b)
    blk = np.empty(n, np.int64)  # a coordinate's block
    slot = np.empty(n, np.int64)  # its place in the block
    scale = np.zeros(n)  # sqrt of M⁻¹'s diagonal entry
    size = np.zeros(n, np.int64)  # by block
    nb = 0
    for i in range(n):
        a = i
        while root[a] != a:
            a = root[a]
        root[i] = a
        if a == i:
            blk[i] = nb
            nb += 1
        b = blk[a]
        blk[i] = b
        slot[i] = size[b]
        size[b] += 1
        for p in range(mptr[i], mptr[i + 1]):
            if mcol[p] == i:
                scale[i] = np.sqrt(max(mval[p], 0.0))
    bad = np.zeros(nb, np.bool_)
    for b in range(nb):
        bad[b] = size[b] > PIN_BLOCK
    for r in range(k):
        if eq[r] and not abs(qp[r]) <= DRIFT_TOL:
            for kk in range(pnnz[r]):
                bad[blk[pcols[r, kk]]] = True
    # the in-tolerance equality rows' distinct blocks, and each block's rows
    maxc = max(pcols.shape[1], 1)
    rb = np.empty((k, maxc), np.int64)
    nfree = np.zeros(k, np.int64)  # a row's blocks not held (0: not an in-tolerance equality row)
    count = np.zeros(nb + 1, np.int64)
    for r in range(k):
        if not (eq[r] and abs(qp[r]) <= DRIFT_TOL):
            continue
        for kk in range(pnnz[r]):
            b = blk[pcols[r, kk]]
            new = True
            for t in range(nfree[r]):
                if rb[r, t] == b:
                    new = False
            if new:
                rb[r, nfree[r]] = b
                nfree[r] += 1
                count[b + 1] += 1
    for b in range(nb):
        count[b + 1] += count[b]
    adj = np.empty(count[nb], np.int64)
    fill = count[:nb].copy()
    for r in range(k):
        for t in range(nfree[r]):
            b = rb[r, t]
            adj[fill[b]] = r
            fill[b] += 1
    width = 1
    for b in range(nb):
        if not bad[b]:
            width = max(width, size[b])
    gram = np.zeros((nb, width, width))
    held = np.zeros(nb, np.bool_)
    pending = np.zeros(nb, np.bool_)
    queue = np.empty(k + 1, np.int64)  # (a block is queued when a row joins it: at most once a row)
    head = 0
    tail = 0
    for r in range(k):  # rows against the ground alone
        if nfree[r] == 1:
            b = rb[r, 0]
            if not bad[b]:
                _gram_add(gram[b], pcols, pvals, pnnz, r, blk, slot, scale, b)
                if not pending[b]:
                    pending[b] = True
                    queue[tail] = b
                    tail += 1
    nheld = 0
    while head < tail:
        b = queue[head]
        head += 1
        pending[b] = False
        if held[b] or not _full_rank(gram[b], size[b]):
            continue
        held[b] = True
        nheld += 1
        for p in range(count[b], count[b + 1]):
            r = adj[p]
            nfree[r] -= 1
            if nfree[r] != 1:
                continue
            g = -1  # the row's last block not held
            for t in range(pnnz[r]):
                if not held[blk[pcols[r, t]]]:
                    g = blk[pcols[r, t]]
                    break
            if g < 0 or bad[g]:
                continue
            _gram_add(gram[g], pcols, pvals, pnnz, r, blk, slot, scale, g)
            if not pending[g]:
                pending[g] = True
                queue[tail] = g
                tail += 1
    held_coord = np.zeros(n, np.bool_)
    for i in range(n):
        held_coord[i] = held[blk[i]]
    cols = np.zeros_like(pcols)
    vals = np.zeros_like(pvals)
    nnz = np.zeros(k, np.int64)
    q = np.empty(k)
    e = np.zeros(k, np.bool_)
    if nheld == 0:
        return False, cols[:0].copy(), vals[:0].copy(), nnz[:0].copy(), q[:0].copy(), e[:0].copy()
    kr = 0
    for r in range(k):
        c = 0
        for kk in range(pnnz[r]):
            j = pcols[r, kk]
            if not held_coord[j]:
                cols[kr, c] = j
                vals[kr, c] = pvals[r, kk]
                c += 1
        if c == 0:  # every column held: met as it stands, or the reduction refused
            if (eq[r] and not abs(qp[r]) <= DRIFT_TOL) or (not eq[r] and not qp[r] >= -tol):
                return False, cols[:0].copy(), vals[:0].copy(), nnz[:0].copy(), q[:0].copy(), e[:0].copy()
            continue
        nnz[kr] = c
        q[kr] = qp[r]
        e[kr] = eq[r]
        kr += 1
    return kr > 0, cols[:kr].copy(), vals[:kr].copy(), nnz[:kr].copy(), q[:kr].copy(), e[:kr].copy()


@njit(cache=True)
def _gram_add(G, pcols, pvals, pnnz, r, blk, slot, scale, g):
    """Row r's part on block g (its columns in M⁻¹'s diagonal scaling) added to g's Gram matrix G."""
    for kk in range(pnnz[r]):
        j = pcols[r, kk]
        if blk[j] != g:
            continue
        x = pvals[r, kk] * scale[j]
        for kk2 in range(pnnz[r]):
            j2 = pcols[r, kk2]
            if blk[j2] == g:
                G[slot[j], slot[j2]] += x * pvals[r, kk2] * scale[j2]


@njit(cache=True)
def _full_rank(G, g):
    """Whether the symmetric g × g block G (PSD) has full rank: its Cholesky factor (on a copy) has no pivot
    below 1e-8 of G's largest diagonal entry."""
    A = G[:g, :g].copy()
    top = 0.0
    for i in range(g):
        top = max(top, A[i, i])
    if not top > 0.0:
        return False
    for j in range(g):
        s = A[j, j]
        for t in range(j):
            s -= A[j, t] * A[j, t]
        if not s > 1e-8 * top:
            return False
        A[j, j] = np.sqrt(s)
        for i in range(j + 1, g):
            s = A[i, j]
            for t in range(j):
                s -= A[i, t] * A[j, t]
            A[i, j] = s / A[j, j]
    return True


@njit(cache=True)
def _restore(d, du, k0):
    """v ← c v with c ≥ 1: the potential energy the projection removed (a persistent contact's drift
    put back: the velocity step had lifted the body at the expense of its motion) returns to the
    motion, all velocities scaled alike so every contact velocity keeps its value's direction (a
    sticking foot still sticks). At most 1 % of the kinetic energy: a body at rest is not set moving."""
    if k0 <= 0.0:
        return
    d.v *= np.sqrt(1.0 + min(du, 0.01 * k0) / k0)


@njit(cache=True)
def _give_back(m, d, w, du):
    """v ← v + s w with the s of smallest size that lowers the kinetic energy by du (or, if the velocity
    along w cannot give that much, by all it can): the potential energy the projection added is taken
    from the motion along the projection's direction w."""
    Mw = np.empty(w.shape[0])
    mass_times(m, d, w, Mw)
    a = w @ Mw
    b = d.v @ Mw
    if a <= 0.0 or b == 0.0:
        return
    disc = b * b - 2.0 * a * du
    if disc <= 0.0:
        s = -b / a
    else:
        s = -2.0 * du / (b + np.sign(b) * np.sqrt(disc))
    d.v += s * w
