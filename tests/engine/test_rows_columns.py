"""The step problem's rows, X = M⁻¹Hᵀ's columns and NSGS's 2 × 2 blocks of W in one pass
(stepper._problem_rows_columns, a pile of free bodies' friction problem on the rows): over a pyramid's
fall, landing and rest they are the two-pass numbers (_problem_rows, then contact_rows.delassus_columns_blocks)
bit for bit, X equals numpy's M⁻¹Hᵀ and each block H_c M⁻¹ H_cᵀ to round-off; and the model keeps M⁻¹'s
diagonal places (ModelArrays.mi_diag), contact_rows._minv_diagonal's answer."""
import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import FS_TOL, IS_MAXIT, OK
from nsgui.engine.contact_rows import _minv_diagonal, delassus_columns_blocks
from nsgui.engine.solvers.nsgs import nsgs_fc2d_rows_dv
from nsgui.engine.tiny_problem import TINY_CONTACTS
from tests.engine.rows_problems import rows_problems
from tests.engine.test_heaps import HEAPS


def _bits(a):
    """Floats as their bit patterns (signs of zeros and NaN payloads compared too)."""
    a = np.ascontiguousarray(a)
    return a.view(np.int64) if a.dtype == np.float64 else a


def _same(a, b):
    np.testing.assert_array_equal(_bits(a), _bits(b))


def _x_times(cptr, ccol, cval, r, n):
    """X r from X's columns as nsgs._exact_dv sums it: rows ascending, zero entries of r skipped."""
    out = np.zeros(n)
    for i in range(r.shape[0]):
        if r[i] != 0.0:
            for t in range(cptr[i], cptr[i + 1]):
                out[ccol[t]] += cval[t] * r[i]
    return out


def _problem(dat, k, nact, width):
    return (np.zeros((k, width), np.int64), np.zeros((k, width)), np.zeros(k, np.int64), np.zeros(k), np.zeros(nact),
            np.zeros(k), np.zeros(k, np.bool_))


@pytest.mark.parametrize("rows", [4, 5])
def test_one_pass_is_the_two_passes_bit_for_bit_and_numpys_product(rows):
    model = compile_scene(HEAPS["box_pyramid"](rows))
    ma = model.arrays
    assert ma.mi_diag.shape[0] == model.nq        # free boxes at their centres: M⁻¹ diagonal
    _same(ma.mi_diag, _minv_diagonal(ma.mi_ptr, ma.mi_col, ma.mi_val, model.nq))
    width = max(ma.ccols.shape[1], 1)
    checked = entries = warm = 0
    for m, d, dat, nact, fric in rows_problems(model, 360, 6):
        k = 2 * nact
        # garbage in the scratch where the pass writes: any entry it did not write would show
        cptr = np.full(k + 1, -7, np.int64)
        ccol = np.full(k * width, -7, np.int64)
        cval = np.full(k * width, np.nan)
        blk = np.full((nact, 4), np.nan)
        one = _problem(dat, k, nact, width)
        assert st._problem_rows_columns(m, d, nact, *one, ma.mi_diag, cptr, ccol, cval, blk)
        two = _problem(dat, k, nact, width)
        st._problem_rows(m, d, nact, True, *two)
        for a, b in zip(one, two):
            _same(a, b)
        rcols, rvals, rnnz, qd = two[0], two[1], two[2], two[3]
        wptr, wcol, wval, wblk = delassus_columns_blocks(rcols, rvals, rnnz, ma.mi_ptr, ma.mi_col, ma.mi_val,
                                                         model.nq)
        assert wblk.shape[0] == nact                      # (the old pass took its own shortcut too)
        p = wptr[k]
        _same(cptr, wptr)
        _same(ccol[:p], wcol[:p])
        _same(cval[:p], wval[:p])
        _same(blk, wblk)
        # against numpy: X = M⁻¹Hᵀ column by column, block c = H_c M⁻¹ H_cᵀ (H_c: contact c's two rows)
        H = np.zeros((k, model.nq))
        for i in range(k):
            H[i, rcols[i, :rnnz[i]]] = rvals[i, :rnnz[i]]
        X = np.zeros((model.nq, k))
        for i in range(k):
            X[ccol[cptr[i]:cptr[i + 1]], i] = cval[cptr[i]:cptr[i + 1]]
        Xn = ma.Minv_const @ H.T
        np.testing.assert_allclose(X, Xn, rtol=0, atol=1e-14 * np.abs(Xn).max())
        W = H @ ma.Minv_const @ H.T
        for c in range(nact):
            want = W[2 * c:2 * c + 2, 2 * c:2 * c + 2].ravel()
            np.testing.assert_allclose(blk[c], want, rtol=1e-12, atol=1e-14 * np.abs(W).max())
        # the tangent rows' right-hand side is H_T v_free (no tangential restitution in this scene)
        np.testing.assert_allclose(qd[1::2], (H @ dat.vfree)[1::2], rtol=0,
                                   atol=1e-12 * max(1.0, np.abs(dat.vfree).max()))
        # X r0 left in d.v_new (NSGS's first dv): _exact_dv's sums, in its order, bit for bit ...
        r0 = two[5]
        _same(dat.v_new, _x_times(wptr, wcol, wval, r0, model.nq))
        # ... and X r0 by numpy to round-off
        np.testing.assert_allclose(dat.v_new, Xn @ r0, rtol=0, atol=1e-13 * max(1.0, np.abs(Xn @ r0).max()))
        warm += np.count_nonzero(r0)
        checked += 1
        entries += p
    assert checked >= 30 and entries > 2000 and warm > 500


def test_the_step_on_the_scratch_is_the_step_on_fresh_arrays():
    """solve_contact_problem (the one pass into Data's scratch) and the same problem solved from the two-pass
    numbers by the stepper's NSGS call give the same percussions and velocities bit for bit at rest."""
    model = compile_scene(HEAPS["box_pyramid"](5))
    sim = Simulator(model)
    m, d = sim._args
    dat = sim._data
    sim.run(800, record=False)
    st.free_velocity(m, d)
    nact, fric = st.activate_contacts(m, d)
    assert fric and nact > TINY_CONTACTS
    ma = model.arrays
    width = max(ma.ccols.shape[1], 1)
    k = 2 * nact
    two = _problem(dat, k, nact, width)
    st._problem_rows(m, d, nact, True, *two)
    rcols, rvals, rnnz, qd, mu, r0, _a0 = two
    cptr, ccol, cval, blk = delassus_columns_blocks(rcols, rvals, rnnz, ma.mi_ptr, ma.mi_col, ma.mi_val, model.nq)
    lam, status, _it, _err, dv = nsgs_fc2d_rows_dv(rcols, rvals, rnnz, cptr, ccol, cval, model.nq, qd, mu, r0,
                                                   ma.fs[FS_TOL], ma.isets[IS_MAXIT], blk)
    vfree = dat.vfree.copy()
    assert st.solve_contact_problem(m, d, nact, fric)[0] == OK
    act = dat.act[:nact]
    _same(dat.lamN_new[act], lam[0::2])
    _same(dat.lamT_new[act], lam[1::2])
    _same(dat.v_new, vfree + dv)
    assert (lam[0::2] > 0.0).sum() >= 20


@pytest.mark.parametrize("case", ["diagonal", "zeros kept", "block", "no diagonal"])
def test_model_diagonal_places_are_minv_diagonals(case):
    rng = np.random.default_rng(2)
    n = 6
    Minv = np.diag(rng.uniform(0.5, 2.0, n))
    if case == "block":
        Minv[0, 1] = Minv[1, 0] = 0.1
    ptr, col = [0], []
    for i in range(n):
        cols = [i] if case == "diagonal" else [j for j in range(3 * (i // 3), 3 * (i // 3) + 3)]
        if case == "no diagonal" and i == 4:
            cols = [3, 5]
        col += cols
        ptr.append(len(col))
    ptr, col = np.array(ptr, np.int64), np.array(col, np.int64)
    rows = np.repeat(np.arange(n), np.diff(ptr))
    val = Minv[rows, col].copy()
    got = _minv_diagonal(ptr, col, val, n)
    if case in ("diagonal", "zeros kept"):  # each coordinate's own entry, by the definition
        want = np.array([next(t for t in range(ptr[j], ptr[j + 1]) if col[t] == j) for j in range(n)], np.int64)
        _same(got, want)
        assert np.array_equal(val[got], np.diag(Minv))
    else:  # an off-diagonal nonzero, or a coordinate without its diagonal entry: not diagonal
        assert got.shape[0] == 0


def test_nsgs_from_the_given_first_dv_is_nsgs_from_its_own():
    """nsgs_fc2d_rows_into(ready=True) takes dv as X r0 (the stepper's one pass sums it) and skips its own
    first pass over X: the same answer, dv, sweeps and error bit for bit as without; a warm start it must
    change (a negative r_N clipped) makes it sum X r afresh, whatever dv held."""
    from nsgui.engine.solvers.nsgs import nsgs_fc2d_rows_into
    model = compile_scene(HEAPS["box_pyramid"](5))
    ma = model.arrays
    width = max(ma.ccols.shape[1], 1)
    seen = clipped = 0
    for m, d, dat, nact, fric in rows_problems(model, 360, 6):
        k = 2 * nact
        two = _problem(dat, k, nact, width)
        st._problem_rows(m, d, nact, True, *two)
        rcols, rvals, rnnz, qd, mu, r0, _a0 = two
        cptr, ccol, cval, blk = delassus_columns_blocks(rcols, rvals, rnnz, ma.mi_ptr, ma.mi_col, ma.mi_val,
                                                        model.nq)
        starts = [r0]
        if np.count_nonzero(r0[0::2]) > 0:
            bad = r0.copy()
            bad[2 * int(np.flatnonzero(r0[0::2])[0])] = -1.0     # clipped to 0 at NSGS's entry
            starts.append(bad)
        for r_start in starts:
            args = (rcols, rvals, rnnz, cptr, ccol, cval, qd, mu)
            r1, dv1 = r_start.copy(), np.zeros(model.nq)
            out1 = nsgs_fc2d_rows_into(*args, r1, ma.fs[FS_TOL], ma.isets[IS_MAXIT], blk, dv1)
            dv2 = _x_times(cptr, ccol, cval, r_start, model.nq)
            if r_start is not r0:
                dv2[:] = np.nan      # must not be read
                clipped += 1
            r2 = r_start.copy()
            out2 = nsgs_fc2d_rows_into(*args, r2, ma.fs[FS_TOL], ma.isets[IS_MAXIT], blk, dv2, True)
            assert out1[:2] == out2[:2]
            _same(np.array(out1[2]), np.array(out2[2]))
            _same(r1, r2)
            _same(dv1, dv2)
            seen += 1
    assert seen >= 30 and clipped >= 20
