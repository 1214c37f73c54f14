"""Sparse contact rows and the Delassus matrix W = H Ŵ⁻¹ Hᵀ of a step problem (numba kernels).

A candidate's normal and tangent Jacobian rows touch only the coordinates on the paths of its two
bodies (ModelArrays.ccols[c, :ccn[c]]): rows stay sparse, so chains cost O(m²), not O(m n²).
"""

import numpy as np
from numba import njit

from .codes import BI_COORD, BI_JTYPE, BI_PARENT, CF_MU, CI_ABODY, CI_BBODY, CI_BTYPE, CI_VCOUNT, FREE, LIMIT
from .solvers._linalg import csr_from_dense, lu_solve_factored


@njit(cache=True)
def sdot(cols, vals, nnz, x):
    acc = 0.0
    for kk in range(nnz):
        acc += vals[kk] * x[cols[kk]]
    return acc


@njit(cache=True)
def densify(rcols, rvals, rnnz, n):
    k = rnnz.shape[0]
    H = np.zeros((k, n))
    for r in range(k):
        for kk in range(rnnz[r]):
            H[r, rcols[r, kk]] += rvals[r, kk]
    return H


@njit(cache=True)
def sparse_rows_times(rcols, rvals, rnnz, X):
    """H X for sparse rows H (k x n) and dense X (n x k): the Delassus matrix W = H Ŵ⁻¹ Hᵀ."""
    k = rnnz.shape[0]
    W = np.zeros((k, X.shape[1]))
    sparse_rows_times_into(rcols, rvals, rnnz, X, k, X.shape[1], W)
    return W


@njit(cache=True, inline="always")
def sparse_rows_times_into(rcols, rvals, rnnz, X, k, kc, out):
    """out[:k, :kc] = H X for the first k sparse rows H and the first kc columns of X (into scratch)."""
    for r in range(k):
        for s in range(kc):
            acc = 0.0
            for kk in range(rnnz[r]):
                acc += rvals[r, kk] * X[rcols[r, kk], s]
            out[r, s] = acc


@njit(cache=True)
def delassus_sparse(rcols, rvals, rnnz, Minv):
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
    return X, sparse_rows_times(rcols, rvals, rnnz, X)


@njit(cache=True)
def delassus_lu(rcols, rvals, rnnz, LU, piv):
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
    return X, sparse_rows_times(rcols, rvals, rnnz, X)


@njit(cache=True)
def contact_rows(c, m, kin, nrm, pa, pb, outN, outT):
    """Normal and tangent Jacobian rows of candidate c on its columns m.ccols[c, :m.ccn[c]], given its
    normal and contact points (nrm, pa, pb, per candidate) and the kinematics they were found with."""
    one = np.empty(1, np.int64)
    one[0] = c
    active_contact_rows(m, kin, one, 1, nrm, pa, pb, outN.reshape((1, outN.shape[0])),
                        outT.reshape((1, outT.shape[0])))


@njit(cache=True)
def active_contact_rows(m, kin, act, nact, nrm, pa, pb, HN, HT):
    """contact_rows of the candidates act[:nact] into HN[r], HT[r] (the step problem's rows), in one
    loop: a call per candidate would pay the reference counts of its arrays, five times the rows'
    arithmetic."""
    rows_into(m, kin, act, nact, nrm, pa, pb, HN, HT, np.empty(0, np.bool_))


@njit(cache=True, inline="always")
def rows_into(m, kin, act, nact, nrm, pa, pb, HN, HT, fric):
    """active_contact_rows compiled into its caller: a caller that calls nothing else then holds its
    arrays without reference counts (stepper.activate_contacts). With fric of nact or more entries (else
    empty), also whether each row has friction (mu > 0 and a tangent row of squared norm > 1e-20, summed
    over kk ascending as the row is written: the stepper's second pass over HT folded in); returns
    whether any has."""
    ci, ccols, ccn, bi, cf, pos, Jp, Ja = m.ci, m.ccols, m.ccn, m.bi, m.cf, kin.pos, kin.Jp, kin.Ja
    want = fric.shape[0] > 0
    anyfric = False
    jconst = kin.jconst[0] != 0.0  # (the free bodies' constant Jacobians written: the pairs' path below)
    for r in range(nact):
        c = act[r]
        nn = ccn[c]
        tt = 0.0
        if ci[c, CI_BTYPE] == LIMIT:
            HN[r, 0] = ci[c, CI_VCOUNT]
            HT[r, 0] = 0.0
            if want:
                for kk in range(nn):
                    tt += HT[r, kk] * HT[r, kk]
        else:
            nx, ny = nrm[c, 0], nrm[c, 1]
            a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
            rax, ray = pa[c, 0] - pos[a, 0], pa[c, 1] - pos[a, 1]
            rbx = rby = 0.0
            if b >= 0:
                rbx, rby = pb[c, 0] - pos[b, 0], pb[c, 1] - pos[b, 1]
            # a free body on the world has the path [qi, qi + 1, qi + 2]; off it its Jacobians are never written
            # (exact +0.0: Kinematics.zeros), so its part of an entry is 0 - arm * 0 = +0.0 (finite arms) and
            # is skipped: a + (+0.0)'s and a - (+0.0)'s sums are a's own (a box-box contact's rows read half the
            # entries, the same numbers bit for bit)
            qa = bi[a, BI_COORD] if bi[a, BI_PARENT] < 0 and bi[a, BI_JTYPE] == FREE else -1
            qb = bi[b, BI_COORD] if b >= 0 and bi[b, BI_PARENT] < 0 and bi[b, BI_JTYPE] == FREE else -1
            # (written out, not a helper given ccols: an inlined helper's array arguments keep reference counts)
            ka = -1  # where the row holds a's three coordinates, when a is a free body on the world and b the
            # ground ([qa, qa + 1, qa + 2]) or another such body ([qa .. qa + 2, qb .. qb + 2] or the other order)
            if jconst and qa >= 0 and (nn == 3 or nn == 6):
                j0 = ccols[c, 0]
                if ccols[c, 1] == j0 + 1 and ccols[c, 2] == j0 + 2:
                    if nn == 3:
                        ka = 0 if b < 0 and j0 == qa else -1
                    elif qb >= 0:
                        j3 = ccols[c, 3]
                        if ccols[c, 4] == j3 + 1 and ccols[c, 5] == j3 + 2:
                            ka = 0 if j0 == qa and j3 == qb else (3 if j0 == qb and j3 == qa else -1)
            if ka >= 0:
                # a free body on the world against the ground or another one (every box pyramid's contact): their
                # Jacobians on their own coordinates are the constants body_kinematics writes once, Jp = [[1, +0,
                # +0], [+0, 1, +0]] and Ja = [+0, +0, 1] (c = 1, s = 0, no offset), written in: the loop's sums
                # on the same numbers, bit for bit, without its loads of Jp and Ja and its branches per entry
                # (a resting 55-box pyramid's rows: ~40 % of their time)
                h0, t0 = _row_entry(nx, ny, 1.0 - ray * 0.0, 0.0 + rax * 0.0)
                h1, t1 = _row_entry(nx, ny, 0.0 - ray * 0.0, 1.0 + rax * 0.0)
                h2, t2 = _row_entry(nx, ny, 0.0 - ray * 1.0, 0.0 + rax * 1.0)
                HN[r, ka], HN[r, ka + 1], HN[r, ka + 2] = h0, h1, h2
                HT[r, ka], HT[r, ka + 1], HT[r, ka + 2] = t0, t1, t2
                if nn == 6:  # b's entries: 0 - (its term), a's part being 0 there
                    kb = 3 - ka
                    g0, s0 = _row_entry(nx, ny, 0.0 - (1.0 - rby * 0.0), 0.0 - (0.0 + rbx * 0.0))
                    g1, s1 = _row_entry(nx, ny, 0.0 - (0.0 - rby * 0.0), 0.0 - (1.0 + rbx * 0.0))
                    g2, s2 = _row_entry(nx, ny, 0.0 - (0.0 - rby * 1.0), 0.0 - (0.0 + rbx * 1.0))
                    HN[r, kb], HN[r, kb + 1], HN[r, kb + 2] = g0, g1, g2
                    HT[r, kb], HT[r, kb + 1], HT[r, kb + 2] = s0, s1, s2
                    if ka == 0:  # (the squared norm summed in the entries' order, kk ascending)
                        tt = 0.0 + t0 * t0 + t1 * t1 + t2 * t2 + s0 * s0 + s1 * s1 + s2 * s2
                    else:
                        tt = 0.0 + s0 * s0 + s1 * s1 + s2 * s2 + t0 * t0 + t1 * t1 + t2 * t2
                else:
                    tt = 0.0 + t0 * t0 + t1 * t1 + t2 * t2
            else:
                for kk in range(nn):
                    j = ccols[c, kk]
                    if qa >= 0 and (j < qa or j > qa + 2):
                        jx = jy = 0.0
                    else:
                        jx = Jp[a, 0, j] - ray * Ja[a, j]
                        jy = Jp[a, 1, j] + rax * Ja[a, j]
                    if b >= 0 and not (qb >= 0 and (j < qb or j > qb + 2)):
                        jx -= Jp[b, 0, j] - rby * Ja[b, j]
                        jy -= Jp[b, 1, j] + rbx * Ja[b, j]
                    ht = ny * jx - nx * jy
                    HN[r, kk] = nx * jx + ny * jy
                    HT[r, kk] = ht
                    tt += ht * ht
        if want:
            f = cf[c, CF_MU] > 0.0 and tt > 1e-20
            fric[r] = f
            anyfric = anyfric or f
    return anyfric


@njit(cache=True, inline="always")
def _row_entry(nx, ny, jx, jy):
    """A contact row's normal and tangent entries of the relative Jacobian (jx, jy): rows_into's products."""
    return nx * jx + ny * jy, ny * jx - nx * jy


@njit(cache=True)
def delassus_columns(rcols, rvals, rnnz, mptr, mcol, mval, n):
    """The columns X[:, r] = M⁻¹ H[r]ᵀ of X = M⁻¹Hᵀ (sparse rows H, M⁻¹ in compressed sparse rows):
    cptr, ccol, cval, column r holding X[ccol[t], r] for t in cptr[r]:cptr[r + 1], each entry summed
    over H's entries in order. delassus_csr's first pass; NSGS on the rows needs no more."""
    k = rnnz.shape[0]
    cap = 0
    for r in range(k):
        for kk in range(rnnz[r]):
            j = rcols[r, kk]
            cap += mptr[j + 1] - mptr[j]
    ccol = np.empty(cap, np.int64)
    cval = np.empty(cap)
    cptr = np.empty(k + 1, np.int64)
    diag = _diagonal_entries(mptr, mcol, mval, n, rcols, rnnz)
    if diag.shape[0] > 0:
        # M⁻¹ diagonal (a body's coordinates at its centre of mass, beads on prismatic joints): column r
        # is row r scaled, without the scatter (the same sums: 0 + one product; the scatter's other terms
        # are exact zeros, which change no sum, and its entries of the stored zeros are left out)
        p = 0
        for r in range(k):
            cptr[r] = p
            for kk in range(rnnz[r]):
                j = rcols[r, kk]
                ccol[p] = j
                cval[p] = 0.0 + mval[diag[j]] * rvals[r, kk]
                p += 1
        cptr[k] = p
        return cptr, ccol, cval
    acc = np.zeros(max(n, k))
    mark = np.full(max(n, k), -1, np.int64)
    p = 0
    for r in range(k):
        cptr[r] = p
        for kk in range(rnnz[r]):
            j = rcols[r, kk]
            hj = rvals[r, kk]
            for t in range(mptr[j], mptr[j + 1]):
                i = mcol[t]
                if mark[i] != r:
                    mark[i] = r
                    acc[i] = 0.0
                    ccol[p] = i
                    p += 1
                acc[i] += mval[t] * hj
        for t in range(cptr[r], p):
            cval[t] = acc[ccol[t]]
    cptr[k] = p
    return cptr, ccol, cval


@njit(cache=True)
def delassus_columns_blocks(rcols, rvals, rnnz, mptr, mcol, mval, n):
    """delassus_columns of a friction problem's rows (interleaved [N, T] per contact), with each contact's
    2 x 2 block of W = H X, [[a, b], [bp, d]] in blk[c], from the same pass when M⁻¹ is diagonal and each
    contact's tangent row lies on its normal row's columns (ascending) or is empty: the stepper's rows,
    where the columns and blocks in two passes cost a third of a resting pyramid's contact problem. The
    blocks are nsgs._row_blocks' numbers (the same sums in the same order: X's column entries in H's
    order); otherwise blk has no rows (nsgs_fc2d_rows computes them)."""
    k = rnnz.shape[0]
    nc = k // 2
    at = _minv_diagonal(mptr, mcol, mval, n)
    if at.shape[0] > 0 and k % 2 == 0:
        cap = 0
        for r in range(k):
            cap += rnnz[r]
        ccol = np.empty(cap, np.int64)
        cval = np.empty(cap)
        cptr = np.empty(k + 1, np.int64)
        blk = np.empty((nc, 4))
        p = 0
        ok = True
        for c in range(nc):
            iN, iT = 2 * c, 2 * c + 1
            nn, nt = rnnz[iN], rnnz[iT]
            ok = nt == 0 or nt == nn
            for kk in range(nn if ok else 0):
                j = rcols[iN, kk]
                if (kk > 0 and j <= rcols[iN, kk - 1]) or (nt != 0 and rcols[iT, kk] != j):
                    ok = False
                    break
                ccol[p + kk] = j
                cval[p + kk] = 0.0 + mval[at[j]] * rvals[iN, kk]
                if nt != 0:
                    ccol[p + nn + kk] = j
                    cval[p + nn + kk] = 0.0 + mval[at[j]] * rvals[iT, kk]
            if not ok:
                break
            cptr[iN] = p
            cptr[iT] = p + nn
            a = b = bp = dd = 0.0  # (_row_blocks' sums: an empty column scatters zeros, an empty row sums none)
            for kk in range(nn):
                a += rvals[iN, kk] * cval[p + kk]
                b += rvals[iN, kk] * (cval[p + nn + kk] if nt != 0 else 0.0)
            for kk in range(nt):
                bp += rvals[iT, kk] * cval[p + kk]
                dd += rvals[iT, kk] * cval[p + nn + kk]
            blk[c, 0], blk[c, 1], blk[c, 2], blk[c, 3] = 0.0 + a, 0.0 + b, 0.0 + bp, 0.0 + dd
            p += nn + nt
        if ok:
            cptr[k] = p
            return cptr, ccol, cval, blk
    cptr, ccol, cval = delassus_columns(rcols, rvals, rnnz, mptr, mcol, mval, n)
    return cptr, ccol, cval, np.empty((0, 4))


@njit(cache=True)
def _minv_diagonal(mptr, mcol, mval, n):
    """Where each coordinate's diagonal entry of M⁻¹ (compressed sparse rows) is stored, when M⁻¹ is
    diagonal (any other stored entry exactly 0: ModelArrays keeps a free body's whole 3 x 3 block, zeros
    included); else an empty array."""
    none = np.empty(0, np.int64)
    at = np.full(n, -1, np.int64)
    for j in range(n):
        for t in range(mptr[j], mptr[j + 1]):
            if mcol[t] == j:
                at[j] = t
            elif mval[t] != 0.0:
                return none
        if at[j] < 0:
            return none
    return at


@njit(cache=True)
def _diagonal_entries(mptr, mcol, mval, n, rcols, rnnz):
    """_minv_diagonal when no row of H names a coordinate twice; else an empty array."""
    none = np.empty(0, np.int64)
    at = _minv_diagonal(mptr, mcol, mval, n)
    if at.shape[0] == 0:
        return none
    for r in range(rnnz.shape[0]):
        for kk in range(1, rnnz[r]):
            if rcols[r, kk] <= rcols[r, kk - 1]:  # (rows on a candidate's ccols ascend: one test each)
                for ll in range(kk):
                    if rcols[r, kk] == rcols[r, ll]:
                        return none
    return at


@njit(cache=True)
def delassus_csr(rcols, rvals, rnnz, mptr, mcol, mval, n):
    """X = M⁻¹Hᵀ and W = H X for sparse rows H and a constant M⁻¹ given in compressed sparse rows
    (block-diagonal by kinematic tree: ModelArrays.mi_*): O(Σ entries) work and memory, where the
    dense X and W cost O(n k + k²). X comes by coordinate (xptr, xcol, xval: row i holds X[i, s] in
    ascending s), W in CSR (ascending columns). Every entry is the dense build's sum in the dense
    build's order (delassus_sparse), so both give the same numbers."""
    k = rnnz.shape[0]
    cptr, ccol, cval = delassus_columns(rcols, rvals, rnnz, mptr, mcol, mval, n)
    p = cptr[k]
    acc = np.zeros(max(n, k))
    mark = np.full(max(n, k), -1, np.int64)
    # X by coordinate (r ascending within each coordinate)
    xptr = np.zeros(n + 1, np.int64)
    for t in range(p):
        xptr[ccol[t] + 1] += 1
    for i in range(n):
        xptr[i + 1] += xptr[i]
    fill = xptr[:n].copy()
    xcol = np.empty(p, np.int64)
    xval = np.empty(p)
    for r in range(k):
        for t in range(cptr[r], cptr[r + 1]):
            i = ccol[t]
            xcol[fill[i]] = r
            xval[fill[i]] = cval[t]
            fill[i] += 1
    # W[r, s] = Σ_kk H[r, kk] X[cols[kk], s]
    wcap = 0
    for r in range(k):
        for kk in range(rnnz[r]):
            j = rcols[r, kk]
            wcap += xptr[j + 1] - xptr[j]
    wptr = np.empty(k + 1, np.int64)
    wcol = np.empty(wcap, np.int64)
    wval = np.empty(wcap)
    mark[:] = -1
    p = 0
    for r in range(k):
        wptr[r] = p
        for kk in range(rnnz[r]):
            j = rcols[r, kk]
            hr = rvals[r, kk]
            for t in range(xptr[j], xptr[j + 1]):
                s = xcol[t]
                if mark[s] != r:
                    mark[s] = r
                    acc[s] = 0.0
                    wcol[p] = s
                    p += 1
                acc[s] += hr * xval[t]
        _sort_ints(wcol, wptr[r], p)
        for t in range(wptr[r], p):
            wval[t] = acc[wcol[t]]
    wptr[k] = p
    return xptr, xcol, xval, wptr, wcol, wval


@njit(cache=True)
def _sort_ints(a, lo, hi):
    """Insertion sort of a[lo:hi] (a few neighbours per row)."""
    for i in range(lo + 1, hi):
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x

