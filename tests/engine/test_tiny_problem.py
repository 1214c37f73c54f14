"""The dense path of tiny step problems (tiny_problem.py: 1-2 contacts, up to TINY_ROWS frictionless)
against the general sparse path (delassus_csr + nsgs_fc2d_csr with friction, + bpp_lcp_csr without),
on random problems and on the sliding box's, the resting ball's and a resting bead column's own rows,
and its answers checked against the Coulomb-Signorini conditions (and the LCP's) directly."""
import os

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import SOLVED
from nsgui.engine.contact_rows import _minv_diagonal, delassus_csr, sparse_rows_times_into
from nsgui.engine.solvers._linalg import csr_symmetric, csr_transpose
from nsgui.engine.solvers.bpp import bpp_lcp_csr
from nsgui.engine.solvers.nsgs import nsgs_fc2d_csr
from nsgui.engine.tiny_problem import (SWEEPS, TINY_ROWS, delassus_dense, delassus_x_diagonal, lcp_dense,
                                      nothing_kept_tiny, nsgs_dense, nsgs_dense_start)
from nsgui.scene import load_scene
from tests.helpers import SCENES

TOL = 1e-10


def _minv_csr(rng, n):
    """A random SPD M⁻¹ in CSR with a random block pattern (two trees), columns ascending."""
    split = rng.integers(1, n) if n > 1 else 1
    Minv = np.zeros((n, n))
    for lo, hi in ((0, split), (split, n)):
        if hi > lo:
            A = rng.normal(size=(hi - lo, hi - lo))
            Minv[lo:hi, lo:hi] = A @ A.T + 0.5 * np.eye(hi - lo)
    ptr, col, val = [0], [], []
    for i in range(n):
        nz = np.nonzero(Minv[i])[0]
        col += list(nz)
        val += list(Minv[i, nz])
        ptr.append(len(col))
    return np.array(ptr, np.int64), np.array(col, np.int64), np.array(val), Minv


def _random_problem(rng, nc, n, width=3):
    k = 2 * nc
    rcols = np.zeros((4, width), np.int64)
    rvals = np.zeros((4, width))
    rnnz = np.zeros(4, np.int64)
    for c in range(nc):
        cols = np.sort(rng.choice(n, size=min(width, n), replace=False))
        for row in (2 * c, 2 * c + 1):
            rnnz[row] = len(cols)
            rcols[row, :len(cols)] = cols
            rvals[row, :len(cols)] = rng.normal(size=len(cols))
    q = rng.normal(size=4) * 2.0
    q[:k:2] -= 1.0  # mostly approaching: contacts pushed
    mu = rng.uniform(0.0, 1.0, size=2)
    r0 = np.where(rng.random(4) < 0.5, rng.uniform(0.0, 1.0, size=4), 0.0)
    return rcols, rvals, rnnz, q, mu, r0


def _general(rcols, rvals, rnnz, k, mptr, mcol, mval, n, q, mu, r0):
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(rcols[:k].copy(), rvals[:k].copy(), rnnz[:k].copy(),
                                                      mptr, mcol, mval, n)
    tptr, tcol, tval = csr_transpose(wptr, wcol, wval, k)
    r, status, it, err = nsgs_fc2d_csr(wptr, wcol, wval, tptr, tcol, tval, q[:k].copy(), mu, r0[:k].copy(),
                                       TOL, 1000)
    return r, status, it, err


def _dense(rcols, rvals, rnnz, k, mptr, mcol, mval, n, q, mu, r0):
    X = np.zeros((n, 4))
    W = np.zeros((4, 4))
    delassus_dense(rcols, rvals, rnnz, k, mptr, mcol, mval, X, W)
    r = r0.copy()
    u = np.zeros(4)
    status, it, err = nsgs_dense(W, q, mu, r, k // 2, TOL, 1000, u, np.empty((4, 4)))
    return r[:k], status, it, err, W[:k, :k], X[:, :k]


def _assert_coulomb(W, q, mu, r, tol):
    """0 <= uN ⊥ rN >= 0, |rT| <= mu rN, and sliding opposes the slip: checked on u = W r + q."""
    u = W @ r + q
    scale = max(1.0, np.abs(q).max())
    for c in range(len(r) // 2):
        rN, rT, uN, uT = r[2 * c], r[2 * c + 1], u[2 * c], u[2 * c + 1]
        assert rN >= -tol * scale and uN >= -tol * scale
        assert abs(rN * uN) <= tol * scale * max(1.0, abs(rN), abs(uN))
        assert abs(rT) <= mu[c] * rN + tol * scale
        if abs(uT) > 1e-7 * scale:  # slipping: the friction at its bound, against the slip
            assert rT == pytest.approx(-np.sign(uT) * mu[c] * rN, abs=1e-7 * scale)


@pytest.mark.parametrize("seed", range(40))
def test_dense_tiny_problem_is_the_general_paths_answer(seed):
    rng = np.random.default_rng(seed)
    nc = 1 + seed % 2
    n = int(rng.integers(2, 7))
    mptr, mcol, mval, Minv = _minv_csr(rng, n)
    rcols, rvals, rnnz, q, mu, r0 = _random_problem(rng, nc, n)
    k = 2 * nc
    rg, sg, itg, errg = _general(rcols, rvals, rnnz, k, mptr, mcol, mval, n, q, mu[:nc], r0)
    rd, sd, itd, errd, W, X = _dense(rcols, rvals, rnnz, k, mptr, mcol, mval, n, q, mu[:nc], r0)
    H = np.zeros((k, n))
    for row in range(k):
        H[row, rcols[row, :rnnz[row]]] = rvals[row, :rnnz[row]]
    np.testing.assert_allclose(X, Minv @ H.T, rtol=1e-12, atol=1e-12)   # the Delassus terms themselves
    np.testing.assert_allclose(W, H @ Minv @ H.T, rtol=1e-12, atol=1e-12)
    assert sd == sg
    np.testing.assert_allclose(rd, rg, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(q).max()))
    if sd == SOLVED:
        _assert_coulomb(H @ Minv @ H.T, q[:k], mu[:nc], rd, 1e-8)


@pytest.mark.parametrize("seed", range(40))
def test_warm_start_test_then_sweeps_is_one_nsgs_dense_call(seed):
    """stepper._solve_tiny runs nsgs_dense_start (its warm-start test, without a call) and, when that
    does not settle the problem, nsgs_dense from the iterate it left: the same status, iterations, error
    and percussions as one nsgs_dense call from the warm start, bit for bit (the start is idempotent)."""
    rng = np.random.default_rng(100 + seed)
    nc = 1 + seed % 2
    n = int(rng.integers(2, 7))
    mptr, mcol, mval, _Minv = _minv_csr(rng, n)
    rcols, rvals, rnnz, q, mu, r0 = _random_problem(rng, nc, n)
    if seed % 4 == 3:  # the previous step's answer as the warm start: settled without a sweep
        r0 = _dense(rcols, rvals, rnnz, 2 * nc, mptr, mcol, mval, n, q, mu[:nc], r0)[0]
        r0 = np.concatenate([r0, np.zeros(4 - 2 * nc)])
    X, W = np.zeros((n, 4)), np.zeros((4, 4))
    delassus_dense(rcols, rvals, rnnz, 2 * nc, mptr, mcol, mval, X, W)
    r_one, u_one = r0.copy(), np.zeros(4)
    one = nsgs_dense(W, q, mu[:nc], r_one, nc, TOL, 1000, u_one, np.empty((4, 4)))
    r_two, u_two = r0.copy(), np.zeros(4)
    status, err, _norm, _dmax = nsgs_dense_start(W, q, mu[:nc], r_two, nc, TOL, u_two)
    two = (status, 0, err) if status != SWEEPS else nsgs_dense(W, q, mu[:nc], r_two, nc, TOL, 1000, u_two,
                                                               np.empty((4, 4)))
    assert one == two
    np.testing.assert_array_equal(r_one, r_two)
    assert (status == SOLVED) == (one[1] == 0)


def test_non_finite_right_hand_side_is_left_to_the_general_path():
    W = np.eye(4)
    q = np.array([-1.0, np.nan, 0.0, 0.0])
    r = np.zeros(4)
    status, _it, err = nsgs_dense(W, q, np.array([0.3, 0.3]), r, 2, TOL, 100, np.zeros(4), np.empty((4, 4)))
    assert status != SOLVED and not np.isfinite(err)


def test_sliding_box_rows_give_the_general_paths_step():
    """The sliding box (two corners pushed, sliding then sticking): at each of a run's states the
    tiny path and the general path give the same new velocity and percussions, and the run's
    percussions satisfy Coulomb's law (sliding: |λT| = μ λN against the motion)."""
    model = compile_scene(load_scene(os.path.join(SCENES, "sliding_box.json")))
    sim = Simulator(model)
    dat = sim._data
    checked = 0
    for _ in range(60):
        sim.run(20, False)
        p = _step_problem(model, sim)
        if p is None:
            continue
        nact, fric, v_tiny, lamN_tiny, lamT_tiny, k, qd, mu, r0, on, X, (wptr, wcol, wval) = p
        assert fric and nact <= 2
        tptr, tcol, tval = csr_transpose(wptr, wcol, wval, k)
        lam, status, _it, _err = nsgs_fc2d_csr(wptr, wcol, wval, tptr, tcol, tval, qd, mu, r0,
                                               model.scene.settings.tolerance, 1000)
        assert status == SOLVED
        v_gen = _general_velocity(dat, X, lam)
        act = dat.act[:nact]
        # (the same sums today: equal bit for bit; required: to the solver's tolerance)
        np.testing.assert_allclose(lamN_tiny[act], lam[0::2], rtol=0, atol=1e-9)
        np.testing.assert_allclose(lamT_tiny[act], lam[1::2], rtol=0, atol=1e-9)
        np.testing.assert_allclose(v_tiny, v_gen, rtol=0, atol=1e-9)
        if lamN_tiny[act].sum() > 0:
            checked += 1
            Wd = np.zeros((k, k))
            for i in range(k):
                Wd[i, wcol[wptr[i]:wptr[i + 1]]] = wval[wptr[i]:wptr[i + 1]]
            _assert_coulomb(Wd, qd, mu, lam, 1e-8)
    assert checked >= 10


def _lcp_dense(W, q, active0, k, size=4):
    z, w, b = np.zeros(size), np.zeros(size), np.zeros(size)
    idx, L = np.zeros(size, np.int64), np.zeros((size, size))
    F, dropped = np.zeros(size, np.bool_), np.zeros(size, np.bool_)
    kF, kept = np.zeros(size, np.bool_), nothing_kept_tiny()
    status, it = lcp_dense(W, q, active0, k, 3 * k + 10, z, w, idx, b, L, F, dropped, kF, kept)
    return z[:k], status, it


@pytest.mark.parametrize("seed", range(40))
def test_dense_tiny_lcp_is_block_pivotings_answer(seed):
    """1-2 frictionless contacts: the dense LCP against bpp_lcp_csr on the sparse W of the same rows
    (random rows, M⁻¹ and warm starts, some rows redundant), and 0 <= z ⊥ W z + q >= 0 checked."""
    rng = np.random.default_rng(100 + seed)
    k = 1 + seed % 2
    n = int(rng.integers(2, 6))
    mptr, mcol, mval, Minv = _minv_csr(rng, n)
    rcols, rvals, rnnz, _q, _mu, _r0 = _random_problem(rng, k, n)
    if seed % 5 == 4 and k == 2:  # the second row a multiple of the first: a redundant contact
        rcols[1], rvals[1], rnnz[1] = rcols[0], 2.0 * rvals[0], rnnz[0]
    q = rng.normal(size=4)
    active0 = rng.random(4) < 0.5
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(rcols[:k].copy(), rvals[:k].copy(), rnnz[:k].copy(),
                                                      mptr, mcol, mval, n)
    zg, sg, itg = bpp_lcp_csr(wptr, wcol, wval, q[:k].copy(), active0[:k].copy(), 3 * k + 10,
                              csr_symmetric(wptr, wcol, wval), np.zeros(0, np.bool_))
    X, W = np.zeros((n, 4)), np.zeros((4, 4))
    delassus_dense(rcols, rvals, rnnz, k, mptr, mcol, mval, X, W)
    zd, sd, itd = _lcp_dense(W, q, active0, k)
    assert sd == sg
    if sd == SOLVED:
        np.testing.assert_allclose(zd, zg, rtol=0, atol=1e-9 * max(1.0, np.abs(q).max()))
        _assert_complementary(rcols, rvals, rnnz, k, n, Minv, q, zd)


def test_resting_balls_rows_give_block_pivotings_step():
    """The bouncing ball once it rests (one frictionless contact, a 1x1 LCP at each step): the tiny
    path's percussion and velocity are the general path's."""
    model = compile_scene(load_scene(os.path.join(SCENES, "bouncing_ball.json")))
    sim = Simulator(model)
    dat = sim._data
    sim.run(1600, False)  # resting by then
    checked = 0
    for _ in range(40):
        sim.run(5, False)
        v_tiny, lamN_tiny, z, status, v_gen = _tiny_and_general_step(model, sim, 1)
        assert status == SOLVED and z[0] > 0  # pushed: the ball's weight over the step
        c = dat.act[0]
        np.testing.assert_allclose(lamN_tiny[c], z[0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(v_tiny, v_gen, rtol=0, atol=1e-12)
        assert lamN_tiny[c] == pytest.approx(9.81 * model.dt, rel=1e-3)  # m g h: the weight over the step (m = 1 kg)
        checked += 1
    assert checked == 40


def _chain_rows(rng, k, n, chain):
    """k frictionless contact rows on n >= k coordinates: a column's (row r on coordinates r-1 and r,
    so W is tridiagonal; chain) or random ones of 1-3 coordinates (a general W, some rows redundant)."""
    width = 3
    rcols, rvals = np.zeros((TINY_ROWS, width), np.int64), np.zeros((TINY_ROWS, width))
    rnnz = np.zeros(TINY_ROWS, np.int64)
    for r in range(k):
        cols = [r - 1, r] if chain and r > 0 else [r] if chain else \
            sorted(rng.choice(n, size=int(rng.integers(1, 4)), replace=False))
        vals = [-1.0, 1.0] if chain and r > 0 else list(rng.normal(size=len(cols)))
        rnnz[r] = len(cols)
        rcols[r, :len(cols)] = cols
        rvals[r, :len(cols)] = vals
    if not chain and k > 3 and rng.random() < 0.3:  # a redundant row: two corners of a resting face
        rcols[k - 1], rvals[k - 1], rnnz[k - 1] = rcols[0], 3.0 * rvals[0], rnnz[0]
    return rcols, rvals, rnnz


def _column_or_random(rng, seed):
    """3 to TINY_ROWS frictionless rows by seed: a bead column's (diagonal M⁻¹, tridiagonal W) or random
    ones (a random M⁻¹, a full W). Returns k, whether a column, n, M⁻¹ (_minv_csr) and the rows."""
    k = 3 + seed % (TINY_ROWS - 2)
    chain = seed % 3 != 2
    n = k + int(rng.integers(0, 4))
    minv = _minv_csr(rng, n) if not chain else _diagonal_minv(rng, n)
    return k, chain, n, minv, _chain_rows(rng, k, n, chain)


@pytest.mark.parametrize("seed", range(60))
def test_dense_lcp_of_up_to_tiny_rows_is_block_pivotings_answer_bit_for_bit(seed):
    """3 to TINY_ROWS frictionless contacts (a short bead column: tridiagonal W, solved in its band;
    random rows: a full W): the dense path's percussions are bpp_lcp_csr's on the sparse W, bit for
    bit, and 0 <= z ⊥ W z + q >= 0 holds."""
    rng = np.random.default_rng(500 + seed)
    k, chain, n, (mptr, mcol, mval, Minv), (rcols, rvals, rnnz) = _column_or_random(rng, seed)
    q = rng.normal(size=TINY_ROWS) - 0.5 * (seed % 2)
    active0 = rng.random(TINY_ROWS) < 0.5
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(rcols[:k].copy(), rvals[:k].copy(), rnnz[:k].copy(),
                                                      mptr, mcol, mval, n)
    zg, sg, itg = bpp_lcp_csr(wptr, wcol, wval, q[:k].copy(), active0[:k].copy(), 3 * k + 10,
                              csr_symmetric(wptr, wcol, wval), np.zeros(0, np.bool_))
    X, W = np.zeros((n, TINY_ROWS)), np.zeros((TINY_ROWS, TINY_ROWS))
    delassus_dense(rcols, rvals, rnnz, k, mptr, mcol, mval, X, W)
    zd, sd, itd = _lcp_dense(W, q, active0, k, TINY_ROWS)
    assert (sd, itd) == (sg, itg)
    if sd == SOLVED:
        np.testing.assert_array_equal(zd, zg)
        _assert_complementary(rcols, rvals, rnnz, k, n, Minv, q, zd)


def _diagonal_minv(rng, n):
    """M⁻¹ of beads on their own prismatic joints: diagonal."""
    d = rng.uniform(0.5, 2.0, size=n)
    return np.arange(n + 1, dtype=np.int64), np.arange(n, dtype=np.int64), d, np.diag(d)


def test_resting_bead_columns_rows_give_block_pivotings_step():
    """A column of 10 beads at rest on the ground (10 frictionless contacts pushed at every step):
    the dense path takes it, and its percussions and velocities are the general path's bit for bit;
    the ground carries the column's weight over the step."""
    import runpy
    from tests.helpers import ROOT
    make = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_bead_columns.py"))
    model = compile_scene(make["bead_column"](10, bottom=0.1, pitch=0.2))
    sim = Simulator(model)
    dat = sim._data
    sim.run(50, False)
    for _ in range(10):
        sim.run(7, False)
        v_tiny, lamN_tiny, z, status, v_gen = _tiny_and_general_step(model, sim, 10)
        assert status == SOLVED
        act = dat.act[:10]
        np.testing.assert_array_equal(lamN_tiny[act], z)
        np.testing.assert_array_equal(v_tiny, v_gen)
        ground = model.contact_names.index("bead0_ground")
        assert lamN_tiny[ground] == pytest.approx(-10 * model.scene.gravity[1] * model.dt, rel=1e-9)  # N m g h


def _assert_complementary(rcols, rvals, rnnz, k, n, Minv, q, z):
    """0 <= z ⊥ H M⁻¹ Hᵀ z + q >= 0, W formed here from the rows (apart from the solvers)."""
    H = np.zeros((k, n))
    for row in range(k):
        H[row, rcols[row, :rnnz[row]]] = rvals[row, :rnnz[row]]
    w = H @ Minv @ H.T @ z + q[:k]
    tol = 1e-8 * max(1.0, np.abs(q).max())
    assert (z >= 0).all() and (w >= -tol).all() and (np.abs(z * w) <= tol * max(1.0, np.abs(z).max())).all()


def _step_problem(model, sim):
    """The next step problem of a run, solved by the tiny path (its v and percussions), and the general
    path's inputs: the sparse rows' q, mu, r0, first active set, X = M⁻¹Hᵀ and W in CSR. None when no
    contact is active."""
    m, d = sim._args
    dat, ma = sim._data, model.arrays  # Python reads the named tuples (the structs' own arrays)
    st.free_velocity(m, d)
    nact, fric = st.activate_contacts(m, d)
    if nact == 0:
        return None
    dat.v_new[:] = dat.vfree  # what solve_contact_problem does before its tiny path
    assert st._solve_tiny(m, d, nact, fric)
    v_tiny, lamN_tiny, lamT_tiny = dat.v_new.copy(), dat.lamN_new.copy(), dat.lamT_new.copy()
    k = 2 * nact if fric else nact
    width = max(ma.ccols.shape[1], 1)
    rcols, rvals, rnnz = np.zeros((k, width), np.int64), np.zeros((k, width)), np.zeros(k, np.int64)
    qd, mu, r0, on = np.zeros(k), np.zeros(nact), np.zeros(k), np.zeros(k, np.bool_)
    st._problem_rows(m, d, nact, fric, rcols, rvals, rnnz, qd, mu, r0, on)
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(rcols, rvals, rnnz, ma.mi_ptr, ma.mi_col, ma.mi_val,
                                                      dat.v.shape[0])
    return nact, fric, v_tiny, lamN_tiny, lamT_tiny, k, qd, mu, r0, on, (xptr, xcol, xval), (wptr, wcol, wval)


def _general_velocity(dat, X, lam):
    """v = vfree + X λ, X = M⁻¹Hᵀ by coordinate (ptr, col, val)."""
    xptr, xcol, xval = X
    v = dat.vfree.copy()
    for i in range(v.shape[0]):
        for t in range(xptr[i], xptr[i + 1]):
            v[i] += xval[t] * lam[xcol[t]]
    return v


def _tiny_and_general_step(model, sim, nact_expected):
    """A resting scene's next frictionless step problem solved by the tiny path (its v and
    percussions) and by the general path (bpp_lcp_csr on the sparse W, v = vfree + X z)."""
    nact, fric, v_tiny, lamN_tiny, _lamT, k, qd, _mu, _r0, on, X, (wptr, wcol, wval) = _step_problem(model, sim)
    assert nact == nact_expected and not fric
    z, status, _it = bpp_lcp_csr(wptr, wcol, wval, qd, on, 3 * nact + 10, csr_symmetric(wptr, wcol, wval),
                                 np.zeros(0, np.bool_))
    v_gen = _general_velocity(sim._data, X, z)
    return v_tiny, lamN_tiny, z, status, v_gen


@pytest.mark.parametrize("seed", range(30))
def test_dense_lcp_kept_factor_gives_the_fresh_answer_bit_for_bit(seed):
    """lcp_dense keeps W's symmetry and its last principal factor (tiny_problem.KEPT_*) from call to call:
    a sequence of problems on one W, each warm-started from the last answer's support as a resting
    column's steps are (q moving by a little, and now and then by much: another active set), gives the
    answers, statuses and solve counts of fresh calls bit for bit, and the kept factor is used."""
    from nsgui.engine.tiny_problem import KEPT_FACTOR, KEPT_SYM
    rng = np.random.default_rng(900 + seed)
    k, chain, n, (mptr, mcol, mval, _Minv), (rcols, rvals, rnnz) = _column_or_random(rng, seed)
    X, W = np.zeros((n, TINY_ROWS)), np.zeros((TINY_ROWS, TINY_ROWS))
    delassus_dense(rcols, rvals, rnnz, k, mptr, mcol, mval, X, W)
    size = TINY_ROWS
    z, w, b, idx = np.zeros(size), np.zeros(size), np.zeros(size), np.zeros(size, np.int64)
    L = np.zeros((size, size))
    F, dropped, kF = (np.zeros(size, np.bool_) for _ in range(3))
    kept = nothing_kept_tiny()
    q0 = rng.normal(size=TINY_ROWS) - 0.5
    active0 = rng.random(TINY_ROWS) < 0.5
    reused = 0
    for call in range(8):
        q = q0 + (rng.normal(size=TINY_ROWS) * (1.0 if call % 4 == 3 else 1e-9))
        will_reuse = kept[KEPT_FACTOR] == 1 and kept[KEPT_SYM] == 1 and np.array_equal(kF[:k], active0[:k])
        status, it = lcp_dense(W, q, active0, k, 3 * k + 10, z, w, idx, b, L, F, dropped, kF, kept)
        zf, sf, itf = _lcp_dense(W, q, active0, k, size)
        assert (status, it) == (sf, itf)
        if status == SOLVED:
            np.testing.assert_array_equal(z[:k], zf)
            reused += will_reuse
        active0 = np.zeros(TINY_ROWS, np.bool_)
        active0[:k] = z[:k] > 0.0
    if chain:  # W positive definite: every sequence solves, and its quiet calls reuse the factor
        assert reused >= 3


def _step_by_step(model, steps, forget):
    """q, v and the percussions after each of `steps` steps (each its own Simulator.run call); with
    forget, the tiny path's kept X, W and factor wiped before every step (built afresh). Also how many
    steps solved tiny rows the same as the step before's (the kept ones used)."""
    sim = Simulator(model)
    dat = sim._data
    out, same = [], 0
    for _ in range(steps):
        if forget:
            dat.tp_kept[:] = nothing_kept_tiny()
        before = dat.tp_kvals.copy(), dat.tp_kept.copy()
        sim.run(1, False)
        k = int(dat.tp_kept[0])
        same += k > 0 and k == before[1][0] and np.array_equal(before[0][:k], dat.tp_vals[:k])
        out.append(np.concatenate([dat.q, dat.v, dat.lamN, dat.lamT]))
    return np.array(out), same


@pytest.mark.parametrize("scene, steps, least", [("bead_column_10", 600, 350), ("bouncing_ball", 400, 250),
                                                  ("sliding_box", 200, 0)])
def test_tiny_paths_kept_rows_change_no_number(scene, steps, least):
    """The tiny path keeps X, W and the LCP's factor while the rows repeat bit for bit: a 10-bead
    column dropped onto the ground (impacts, then rest from about step 220), a bouncing ball and the
    sliding box (friction; its rows move with its angle's round-off, so never kept) run the same, bit
    for bit, as with everything built afresh at every step; and the kept rows are met (`least` steps)."""
    model = compile_scene(load_scene(os.path.join(SCENES, scene + ".json")))
    kept, same = _step_by_step(model, steps, False)
    fresh, _ = _step_by_step(model, steps, True)
    np.testing.assert_array_equal(kept, fresh)
    assert same >= least


def _free_bodies_minv(rng, bodies):
    """M⁻¹ of free bodies at their centres of mass, as compile stores it: each body's 3 x 3 block in full,
    its entries off the diagonal exact zeros (1/m, 1/m, 1/I)."""
    n = 3 * bodies
    ptr, col, val = [0], [], []
    for b in range(bodies):
        inv = (1.0 / rng.uniform(0.2, 5.0), 1.0 / rng.uniform(0.01, 2.0))
        for i in range(3):
            col += [3 * b, 3 * b + 1, 3 * b + 2]
            val += [inv[0] if i == j and i < 2 else inv[1] if i == j else 0.0 for j in range(3)]
            ptr.append(len(col))
    return np.array(ptr, np.int64), np.array(col, np.int64), np.array(val), n


@pytest.mark.parametrize("seed", range(40))
def test_diagonal_delassus_is_the_sparse_rows_one_bit_for_bit(seed):
    """X = M⁻¹Hᵀ by M⁻¹'s diagonal (the step's path when M⁻¹ is diagonal) is delassus_dense's X, and so its W,
    in every bit (the products that M⁻¹'s stored zeros add are ±0 and change no sum), negative zeros and
    all; a row whose columns do not ascend, or a product that is not finite, is refused."""
    rng = np.random.default_rng(seed)
    mptr, mcol, mval, n = _free_bodies_minv(rng, int(rng.integers(1, 4)))
    at = _minv_diagonal(mptr, mcol, mval, n)
    assert at.shape[0] == n and np.all(mcol[at] == np.arange(n))
    nc = int(rng.integers(1, 3))
    rcols, rvals, rnnz, *_ = _random_problem(rng, nc, n, width=min(n, 6))
    rvals[rng.random(rvals.shape) < 0.2] *= 0.0  # zeros and negative zeros in H
    k = 2 * nc
    X, W = np.full((n, 4), np.nan), np.full((4, 4), np.nan)
    delassus_dense(rcols, rvals, rnnz, k, mptr, mcol, mval, X, W)
    Xd, Wd = np.full((n, 4), np.nan), np.full((4, 4), np.nan)
    assert delassus_x_diagonal(rcols, rvals, rnnz, k, at, mval, Xd)
    sparse_rows_times_into(rcols, rvals, rnnz, Xd, k, k, Wd)
    assert Xd[:, :k].tobytes() == X[:, :k].tobytes()
    assert Wd[:k, :k].tobytes() == W[:k, :k].tobytes()
    # its own numbers: X[:, s] = diag(M⁻¹) h_s, W = H X
    H = np.zeros((k, n))
    for s in range(k):
        H[s, rcols[s, :rnnz[s]]] = rvals[s, :rnnz[s]]
    Minv = np.zeros((n, n))
    for i in range(n):
        Minv[i, mcol[mptr[i]:mptr[i + 1]]] = mval[mptr[i]:mptr[i + 1]]
    np.testing.assert_allclose(Xd[:, :k], Minv @ H.T, rtol=1e-15, atol=0)
    np.testing.assert_allclose(Wd[:k, :k], H @ Minv @ H.T, rtol=0, atol=1e-13 * np.abs(Wd[:k, :k]).max())
    # refusals: a row naming its columns out of order, a product that overflows
    if rnnz[k - 1] >= 2:
        wrong = rcols.copy()
        wrong[k - 1, :2] = rcols[k - 1, 1::-1]
        assert not delassus_x_diagonal(wrong, rvals, rnnz, k, at, mval, Xd)
    big = rvals.copy()
    big[0, 0] = np.inf
    assert not delassus_x_diagonal(rcols, big, rnnz, k, at, mval, Xd)
