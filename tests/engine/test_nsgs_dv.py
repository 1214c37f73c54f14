"""NSGS on the rows hands back dv = X r (nsgs.nsgs_fc2d_rows_dv), the exact X r of its last error, and the stepper
takes v_new = v_free + dv instead of a pass of its own over X's columns. dv must be X r summed from 0 in the rows'
order (the exact error's numbers), r the same as nsgs_fc2d_rows' bit for bit, and the stepper's velocities must
still meet the contact law over a pyramid's fall, landing and rest (computed here with numpy from the step's
rows and M⁻¹, not by the engine's kernels)."""
import numpy as np
import pytest

from nsgui.engine import compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import IS_MAXIT, OK, SOLVED, ST_MAXITER
from nsgui.engine.contact_rows import delassus_columns
from nsgui.engine.solvers.nsgs import nsgs_fc2d_rows, nsgs_fc2d_rows_dv, nsgs_fc2d_rows_into
from tests.engine.rows_problems import rows_problems
from tests.engine.test_heaps import HEAPS
from tests.engine.test_nsgs_rows import _coulomb_violation, _problem


@pytest.mark.parametrize("seed", range(4))
def test_dv_is_x_r_summed_from_zero(seed):
    rng = np.random.default_rng(seed)
    p = _problem(rng, 6, 8)
    cptr, ccol, cval = delassus_columns(p["rcols"], p["rvals"], p["rnnz"], *p["mi"], p["n"])
    for r0, maxit in ((np.zeros(16), 5000), (np.zeros(16), 3), (np.abs(rng.standard_normal(16)), 5000)):
        args = (p["rcols"], p["rvals"], p["rnnz"], cptr, ccol, cval, p["n"], p["q"], p["mu"], r0, 1e-12, maxit,
                np.empty((0, 4)))
        r, status, it, err, dv = nsgs_fc2d_rows_dv(*args)
        r2, status2, it2, err2 = nsgs_fc2d_rows(*args)
        np.testing.assert_array_equal(r, r2)
        assert (status, it, err) == (status2, it2, err2)
        if status != SOLVED:
            continue
        want = np.zeros(p["n"])
        for i in range(r.shape[0]):          # the exact error's sum: columns in the rows' order, from 0
            if r[i] != 0.0:
                for t in range(cptr[i], cptr[i + 1]):
                    want[ccol[t]] += cval[t] * r[i]
        np.testing.assert_array_equal(dv, want)
        np.testing.assert_allclose(dv, p["Minv"] @ (p["H"].T @ r), rtol=0, atol=1e-12 * max(1.0, np.abs(r).max()))
        assert _coulomb_violation(p, r) < 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_in_place_form_is_rows_dv_bit_for_bit(seed):
    """nsgs_fc2d_rows_into (the stepper's: the warm start's array becomes the answer, dv in the caller's array,
    nothing allocated) gives nsgs_fc2d_rows_dv's answer, status, sweeps, error and dv bit for bit, whatever the dv
    array held (NaN here), also when stopped short (its r is then the last iterate); the answers meet the law."""
    rng = np.random.default_rng(10 + seed)
    p = _problem(rng, 6, 8)
    cptr, ccol, cval = delassus_columns(p["rcols"], p["rvals"], p["rnnz"], *p["mi"], p["n"])
    solved = 0
    for r0, maxit in ((np.zeros(16), 5000), (np.zeros(16), 2), (np.abs(rng.standard_normal(16)), 5000),
                      (np.abs(rng.standard_normal(16)), 11)):
        args = (p["rcols"], p["rvals"], p["rnnz"], cptr, ccol, cval, p["n"], p["q"], p["mu"], r0, 1e-12, maxit,
                np.empty((0, 4)))
        want = nsgs_fc2d_rows_dv(*args)
        r, dv = r0.copy(), np.full(p["n"], np.nan)
        status, it, err = nsgs_fc2d_rows_into(*args[:6], p["q"], p["mu"], r, 1e-12, maxit, np.empty((0, 4)), dv)
        assert (status, it, err) == want[1:4]
        assert np.array_equal(r.view(np.int64), want[0].view(np.int64))
        if status == SOLVED:
            assert np.array_equal(dv.view(np.int64), want[4].view(np.int64))
            assert _coulomb_violation(p, r) < 1e-9
            solved += 1
            # warm-started at its own answer: no sweep, the same r
            r2 = r.copy()
            assert nsgs_fc2d_rows_into(*args[:6], p["q"], p["mu"], r2, 1e-12, maxit, np.empty((0, 4)), dv)[:2] == \
                (SOLVED, 0)
            assert np.array_equal(r2, r)
    assert solved >= 2


@pytest.mark.parametrize("maxit", [None, 1])
def test_stepper_velocities_meet_the_contact_law(maxit):
    """10 boxes falling, landing and resting: after each step problem on the rows, v_new − v_free = M⁻¹Hᵀλ (numpy,
    dense) to round-off and u = q + H (v_new − v_free) meets Signorini-Coulomb at the stepper's tolerance.
    maxit = 1: NSGS stops short on the landing and the general path (Lemke) answers; v_new, NSGS's scratch for its
    dv meanwhile, must be back at v_free for it (else v_new − v_free would hold NSGS's dv on top of M⁻¹Hᵀλ)."""
    model = compile_scene(HEAPS["box_pyramid"](4))
    ma = model.arrays
    if maxit is not None:
        ma.isets[IS_MAXIT] = maxit
    solved = stalled = 0
    for m, d, dat, nact, fric in rows_problems(model, 240, 4):
        dat.stats[ST_MAXITER] = 0
        assert st.solve_contact_problem(m, d, nact, fric)[0] == OK
        stalled += maxit is not None and dat.stats[ST_MAXITER] > maxit   # (sweeps + the general path's pivots)
        k = 2 * nact
        H = np.zeros((k, model.nq))
        for i in range(k):
            H[i, dat.gp_cols[i, :dat.gp_nnz[i]]] = dat.gp_vals[i, :dat.gp_nnz[i]]
        lam = np.zeros(k)
        lam[0::2] = dat.lamN_new[dat.act[:nact]]
        lam[1::2] = dat.lamT_new[dat.act[:nact]]
        dv = dat.v_new - dat.vfree
        scale = max(1.0, np.abs(dat.v_new).max())
        np.testing.assert_allclose(dv, ma.Minv_const @ (H.T @ lam), rtol=0, atol=1e-13 * scale)
        u = dat.gp_vec[0, :k] + H @ dv
        tol = 1e-8 * max(1.0, np.abs(dat.gp_vec[0, :k]).max())
        lam_tol = 1e-12 * np.abs(lam).max()   # (Lemke's answers carry round-off of the percussions' size)
        for c in range(nact):
            uN, uT, lN, lT, mu = u[2 * c], u[2 * c + 1], lam[2 * c], lam[2 * c + 1], dat.gp_mu[c]
            assert lN >= 0.0 and uN >= -tol and abs(uN * lN) <= tol * max(1.0, lN)
            assert abs(lT) <= mu * lN * (1 + 1e-9) + lam_tol
            if lN > 0.0 and abs(lT) < mu * lN * (1 - 1e-6):
                assert abs(uT) <= tol   # sticking
        solved += 1
    assert solved >= 30
    assert (dat.lamN > 0.0).sum() >= 20   # at rest, loaded
    assert maxit is None or stalled >= 2


def _exact_error_of(p, cptr, ccol, cval, r):
    """The rows form's error of r computed here: dv = X r (the columns in the rows' order from 0), u = q + H dv
    row by row, the Coulomb-Signorini residual of each contact (max(|min(r_N, u_N)|, |r_T − proj(r_T − u_T)|) on
    [−μ r_N+, μ r_N+]), the largest over max(1, max |q|)."""
    dv = np.zeros(p["n"])
    for i in range(r.shape[0]):
        if r[i] != 0.0:
            for t in range(cptr[i], cptr[i + 1]):
                dv[ccol[t]] += cval[t] * r[i]
    u = np.empty(r.shape[0])
    for i in range(r.shape[0]):
        s = 0.0
        for kk in range(p["rnnz"][i]):
            s += p["rvals"][i, kk] * dv[p["rcols"][i, kk]]
        u[i] = p["q"][i] + s
    worst = 0.0
    for c, mu in enumerate(p["mu"]):
        rN, rT, uN, uT = r[2 * c], r[2 * c + 1], u[2 * c], u[2 * c + 1]
        bound = mu * max(rN, 0.0)
        worst = max(worst, abs(min(rN, uN)), abs(rT - min(max(rT - uT, -bound), bound)))
    return worst / max(1.0, np.abs(p["q"]).max()), dv


@pytest.mark.parametrize("seed", [40, 42, 43, 44, 45, 46])   # (41: one sweep solves it exactly, error 0)
def test_first_sweep_decided_by_the_exact_error(seed):
    """The rows form declares a problem solved on the exact error of its iterate (X r summed afresh, then the
    residuals of u = q + H X r): with the tolerance just above the first sweep's exact error (computed here, not
    by the engine) it stops after that sweep, SOLVED, with that iterate, that error and dv = X r; just below it,
    it sweeps on to an iterate whose exact error meets the tolerance. The iterate after one sweep is taken from a
    run capped at one sweep with a tolerance nothing meets."""
    rng = np.random.default_rng(seed)
    p = _problem(rng, 6, 8)
    cptr, ccol, cval = delassus_columns(p["rcols"], p["rvals"], p["rnnz"], *p["mi"], p["n"])
    none = np.empty((0, 4))
    rows = (p["rcols"], p["rvals"], p["rnnz"], cptr, ccol, cval, p["q"], p["mu"])
    r1, dv = np.zeros(16), np.full(p["n"], np.nan)
    status, it, err = nsgs_fc2d_rows_into(*rows, r1, 1e-300, 1, none, dv)
    assert status != SOLVED and it == 1
    e1, dv1 = _exact_error_of(p, cptr, ccol, cval, r1)
    e0, _ = _exact_error_of(p, cptr, ccol, cval, np.zeros(16))
    assert err == pytest.approx(e1, rel=1e-12, abs=0.0)
    assert e0 > 2.0 * e1 > 0.0   # the warm start (r = 0) is not within either tolerance
    for tol, stops in ((e1 * (1.0 + 1e-9), True), (e1 * (1.0 - 1e-9), False)):
        r, dv = np.zeros(16), np.full(p["n"], np.nan)
        status, it, err = nsgs_fc2d_rows_into(*rows, r, tol, 5000, none, dv)
        assert status == SOLVED
        if stops:
            assert it == 1 and err <= tol
            assert np.array_equal(r.view(np.int64), r1.view(np.int64))
            np.testing.assert_array_equal(dv, dv1)
        else:
            assert it > 1
            assert _exact_error_of(p, cptr, ccol, cval, r)[0] <= tol * (1.0 + 1e-9)
