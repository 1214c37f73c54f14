"""One-step problem solvers: LCP (Lemke, PGS, BPP) and 2-D frictional contact (NSGS, Lemke).

Random problems are seeded. Delassus-like matrices are built as W = H A^-1 H^T with q = H v,
which is how the stepper forms them (q in the range of H makes every problem solvable).
"""

import numpy as np
import pytest

from nsgui.engine.codes import BAD_INPUT, ITERATION_CAP, RAY_TERMINATION, SOLVED
from nsgui.engine.solvers import (
    bpp_lcp,
    fc2d_residual,
    lcp_residual,
    lemke,
    lemke_fc2d,
    nsgs_fc2d,
    pgs_lcp,
)
from nsgui.engine.solvers._linalg import (band_cholesky_solve_inplace, band_cholesky_solve_n, band_cholesky_solve_wide,
                                          lu_solve_n, tridiagonal_ldl_solve_inplace)

TOL = 1e-9


def delassus(rng, rows, ndof):
    H = rng.standard_normal((rows, ndof))
    B = rng.standard_normal((ndof, ndof))
    A = B @ B.T + ndof * np.eye(ndof)
    W = H @ np.linalg.solve(A, H.T)
    W = 0.5 * (W + W.T)
    q = H @ rng.standard_normal(ndof)
    return W, q


def chain(n, mass=1.0, g=9.81, h=1e-3, v=None):
    """Bead column resting on the ground: contact k joins bead k-1 (k=0: ground) and bead k."""
    H = np.eye(n) - np.eye(n, k=-1)
    M = H @ H.T / mass
    vfree = np.full(n, -g * h) if v is None else v
    return M, H @ vfree


# ---------------------------------------------------------------- LCP: hand-checkable problems


def test_lemke_known_solutions():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    z, status, piv = lemke(M, np.array([-5.0, -6.0]), 100)
    assert status == SOLVED
    np.testing.assert_allclose(z, [4 / 3, 7 / 3], rtol=1e-13)
    z, status, piv = lemke(M, np.array([-1.0, 4.0]), 100)
    assert status == SOLVED
    np.testing.assert_allclose(z, [0.5, 0.0], atol=1e-14)
    z, status, piv = lemke(M, np.array([1.0, 0.0]), 100)  # q >= 0: z = 0 without pivoting
    assert status == SOLVED and piv == 0 and not z.any()


def test_lemke_ray_on_infeasible_psd_problem():
    # w1 + w2 = -2 for every z: no solution; M is PSD so Lemke must end on a ray
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    z, status, piv = lemke(M, np.array([-1.0, -1.0]), 100)
    assert status == RAY_TERMINATION
    z, status, piv = lemke(np.zeros((1, 1)), np.array([-1.0]), 100)
    assert status == RAY_TERMINATION


def test_lemke_pivot_cap_reported():
    rng = np.random.default_rng(7)
    M, q = delassus(rng, 12, 20)
    q = -np.abs(q) - 1.0  # every contact active: needs about 13 pivots
    z, status, piv = lemke(M, q, 3)
    assert status == ITERATION_CAP and piv == 3


@pytest.mark.parametrize("k", [2, 5, 9])
def test_degenerate_duplicate_contacts_do_not_cycle(k):
    # k identical contacts (rank-1 M, all ratios tie): any z >= 0 with sum z = 1 is a solution
    M = np.ones((k, k))
    q = -np.ones(k)
    z, status, piv = lemke(M, q, 1000)
    assert status == SOLVED and piv <= 2 * k + 2
    assert lcp_residual(M, q, z) < TOL
    np.testing.assert_allclose(q + M @ z, 0.0, atol=1e-12)
    # ties plus zero entries of q (degenerate starting basis), redundant pairs of contacts
    H = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    M = H @ H.T
    q = np.array([-1.0, -1.0, 0.0, 0.0, -1.0, -1.0])
    z, status, piv = lemke(M, q, 1000)
    assert status == SOLVED and piv < 50
    assert lcp_residual(M, q, z) < TOL
    z3, status3, it3 = bpp_lcp(M, q, np.zeros(6, dtype=bool), 50)
    if status3 == SOLVED:
        np.testing.assert_allclose(q + M @ z3, q + M @ z, atol=1e-10)


# ---------------------------------------------------------------- LCP: random PD / PSD


@pytest.mark.parametrize("rank_deficient", [False, True])
def test_three_lcp_solvers_agree_on_random_problems(rank_deficient):
    rng = np.random.default_rng(11 if rank_deficient else 10)
    n_bpp_ok = 0
    n = 0
    for m in (1, 3, 6, 12, 25):
        for _ in range(8):
            ndof = int(rng.integers(1, m + 1)) if rank_deficient else m + 3
            M, q = delassus(rng, m, ndof)
            z1, s1, _ = lemke(M, q, 10 * m + 10)
            assert s1 == SOLVED and lcp_residual(M, q, z1) < TOL
            w1 = q + M @ z1
            z2, s2, _, res2 = pgs_lcp(M, q, np.zeros(m), 1e-12, 200000)
            assert s2 == SOLVED and res2 <= 1e-12 and lcp_residual(M, q, z2) < TOL
            np.testing.assert_allclose(q + M @ z2, w1, atol=1e-7)
            z3, s3, _ = bpp_lcp(M, q, rng.random(m) < 0.5, 100)
            n += 1
            if s3 == SOLVED:
                n_bpp_ok += 1
                assert lcp_residual(M, q, z3) < TOL
                np.testing.assert_allclose(q + M @ z3, w1, atol=1e-9)
            else:
                assert rank_deficient, "bpp must solve symmetric PD problems"
            if not rank_deficient:  # unique solution
                np.testing.assert_allclose(z3, z1, atol=1e-9)
                np.testing.assert_allclose(z2, z1, atol=1e-8)
    # with redundant contacts BPP drops dependent rows and still solves most problems
    assert n_bpp_ok >= 0.8 * n


def test_pgs_warm_start_and_cap():
    rng = np.random.default_rng(3)
    M, q = delassus(rng, 10, 14)
    z, s, _ = lemke(M, q, 100)
    z2, s2, it, res = pgs_lcp(M, q, z, 1e-10, 100)
    assert s2 == SOLVED and it <= 1 and res <= 1e-10
    Mc, qc = chain(60)
    z3, s3, it3, res3 = pgs_lcp(Mc, qc, np.zeros(60), 1e-12, 20)  # stiff chain hits the cap
    assert s3 == ITERATION_CAP and it3 == 20 and res3 > 1e-12
    assert res3 == pytest.approx(lcp_residual(Mc, qc, z3), rel=1e-12, abs=1e-15)


def test_nonsymmetric_p_matrix_bpp_uses_lu_and_matches_lemke():
    rng = np.random.default_rng(5)
    for m in (4, 10, 20):
        B = rng.standard_normal((m, m))
        K = rng.standard_normal((m, m))
        M = B @ B.T + np.eye(m) + (K - K.T)  # positive definite, not symmetric: a P-matrix
        q = rng.standard_normal(m)
        z1, s1, _ = lemke(M, q, 1000)
        z3, s3, _ = bpp_lcp(M, q, np.zeros(m, dtype=bool), 200)
        assert s1 == SOLVED and s3 == SOLVED
        assert lcp_residual(M, q, z3) < TOL
        np.testing.assert_allclose(z3, z1, atol=1e-9)


# ---------------------------------------------------------------- BPP on chains


def test_bpp_chain_of_100_resting_is_one_iteration():
    n, mass, g, h = 100, 0.2, 9.81, 1e-3
    M, q = chain(n, mass, g, h)
    z, status, it = bpp_lcp(M, q, np.ones(n, dtype=bool), 50)
    assert status == SOLVED and it == 1
    # contact k carries the weight of the n - k beads above it over the step
    np.testing.assert_allclose(z, (n - np.arange(n)) * mass * g * h, rtol=1e-10)
    zl, sl, _ = lemke(M, q, 1000)
    assert sl == SOLVED
    np.testing.assert_allclose(zl, z, rtol=1e-10)
    # cold start still solves (one contact joins per iteration)
    z0, s0, it0 = bpp_lcp(M, q, np.zeros(n, dtype=bool), 500)
    assert s0 == SOLVED and it0 > 1
    np.testing.assert_allclose(z0, z, rtol=1e-10)


def test_bpp_chain_impact_and_separation():
    n, g, h = 100, 9.81, 1e-3
    resting = (n - 1 - np.arange(n - 1)) * g * h  # percussions of a 99-bead column at rest
    # a bead falls onto the resting column: previous active set = all but the new top contact
    v = np.full(n, -g * h)
    v[-1] -= 2.0
    M, q = chain(n, 1.0, g, h, v)
    guess = np.ones(n, dtype=bool)
    guess[-1] = False
    z, status, it = bpp_lcp(M, q, guess, 50)
    assert status == SOLVED and it == 2  # the new contact joins, then the solve is verified
    zl, sl, _ = lemke(M, q, 1000)
    assert sl == SOLVED
    np.testing.assert_allclose(z, zl, rtol=1e-10)
    # plastic impact: the whole column ends at rest (w = 0 everywhere)
    np.testing.assert_allclose(q + M @ z, 0.0, atol=1e-12)
    # the top five beads are thrown upwards: their contacts open
    v = np.full(n, -g * h)
    v[-5:] += 1.0
    M, q = chain(n, 1.0, g, h, v)
    z, status, it = bpp_lcp(M, q, np.ones(n, dtype=bool), 200)
    assert status == SOLVED
    np.testing.assert_array_equal(z[-5:], 0.0)  # inside the block w = 0 with z = 0
    np.testing.assert_allclose(z[:-5], resting[:-4] - 4 * g * h, rtol=1e-10)
    exact = np.arange(n) < n - 5
    z2, status2, it2 = bpp_lcp(M, q, exact, 200)  # right guess: one solve
    assert status2 == SOLVED and it2 == 1
    np.testing.assert_allclose(z2, z, rtol=1e-12)


def test_bpp_banded_and_dense_paths_agree_on_permuted_chain():
    n = 40
    M, q = chain(n)
    q = q + np.linspace(-1e-3, 1e-3, n)
    p = np.random.default_rng(2).permutation(n)
    Mp, qp = M[np.ix_(p, p)], q[p]  # same problem, bandwidth ~ n: dense factorisation
    z, s, _ = bpp_lcp(M, q, np.ones(n, dtype=bool), 100)
    zp, sp, _ = bpp_lcp(Mp, qp, np.ones(n, dtype=bool), 100)
    assert s == SOLVED and sp == SOLVED
    np.testing.assert_allclose(zp, z[p], atol=1e-12)


@pytest.mark.parametrize("bw", [0, 1, 3, 7, 19])
def test_band_cholesky_matches_dense_solve(bw):
    rng = np.random.default_rng(bw)
    n = 20
    S = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - bw), i + 1):
            S[i, j] = S[j, i] = rng.standard_normal()
    S = S @ S.T  # bandwidth 2 bw, SPD
    b2 = 2 * bw if 2 * bw < n else n - 1
    L = np.zeros((n, b2 + 1))
    for i in range(n):
        for j in range(max(0, i - b2), i + 1):
            L[i, b2 - (i - j)] = S[i, j]
    S += np.eye(n)
    L[:, b2] += 1.0
    rhs = rng.standard_normal(n)
    x = rhs.copy()
    dropped = np.zeros(n, dtype=bool)
    assert band_cholesky_solve_inplace(L, b2, x, dropped)
    assert not dropped.any()
    np.testing.assert_allclose(S @ x, rhs, atol=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_wide_band_cholesky_is_band_cholesky_bit_for_bit(seed):
    """band_cholesky_solve_wide (four entries of a row summed side by side) gives band_cholesky_solve_inplace's
    factor, dropped rows and solution to the last bit, on PSD band matrices with redundant rows (a
    pyramid's projection: two corners of a face on the same coordinates), and the solution solves the
    system without the dropped rows."""
    rng = np.random.default_rng(seed)
    n, bw = (7, 6, 40, 60, 120, 200)[seed], (6, 5, 9, 13, 30, 47)[seed]
    w = bw // 2 - 1
    G = np.zeros((n, n))
    for i in range(n):  # rows of a band: S = G Gᵀ has S[i, j] = 0 for |i - j| > bw
        lo = max(0, i - w)
        G[i, lo:i + 1] = rng.standard_normal(i + 1 - lo)
    for i in range(w + 2, n, 9):
        G[i] = G[i - 1] * 0.5  # redundant: row i depends on row i - 1
    S = G @ G.T + 1e-14 * np.eye(n)
    assert not S[np.abs(np.subtract.outer(np.arange(n), np.arange(n))) > bw].any()
    L = np.zeros((n, bw + 1))
    for i in range(n):
        for j in range(max(0, i - bw), i + 1):
            L[i, bw - (i - j)] = S[i, j]
    rhs = S @ rng.standard_normal(n)
    L1, x1, d1 = L.copy(), rhs.copy(), np.zeros(n, dtype=bool)
    L2, x2, d2 = L.copy(), rhs.copy(), np.zeros(n, dtype=bool)
    assert band_cholesky_solve_inplace(L1, bw, x1, d1)
    assert band_cholesky_solve_wide(L2, bw, x2, d2)
    assert d1.any() == (n > w + 2) and np.array_equal(d1, d2)
    assert np.array_equal(L1, L2) and np.array_equal(x1, x2)
    keep = ~d1
    np.testing.assert_allclose(S[np.ix_(keep, keep)] @ x1[keep], rhs[keep], atol=1e-8 * np.abs(rhs).max())
    L[1, bw - 1] = 3.0 * np.sqrt(S[0, 0] * S[1, 1])  # |S[1, 0]| > sqrt(S[0, 0] S[1, 1]): indefinite
    assert not band_cholesky_solve_inplace(L.copy(), bw, rhs.copy(), d1)
    assert not band_cholesky_solve_wide(L, bw, rhs.copy(), d2)


def _tridiagonal_band(S):
    n = S.shape[0]
    L = np.zeros((n, 2))
    L[:, 1] = np.diag(S)
    L[1:, 0] = np.diag(S, -1)
    return L


@pytest.mark.parametrize("n", [1, 2, 5, 1000])
def test_tridiagonal_ldl_solves_the_column(n):
    """A bead column's Delassus matrix (tridiagonal, 2 on the diagonal, -1 beside): x solves S x = b
    (S's exact inverse: the weights the beads carry) without square roots, as band Cholesky does."""
    S = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    rhs = np.random.default_rng(n).standard_normal(n)
    x, x_chol = rhs.copy(), rhs.copy()
    dropped, dropped_chol = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    assert tridiagonal_ldl_solve_inplace(_tridiagonal_band(S), x, dropped)
    assert band_cholesky_solve_inplace(_tridiagonal_band(S), 1, x_chol, dropped_chol)
    assert not dropped.any()
    np.testing.assert_allclose(S @ x, rhs, rtol=0, atol=1e-12 * n * n)
    np.testing.assert_allclose(x, x_chol, rtol=1e-12, atol=1e-12 * n)
    # the column under gravity (unit masses, g h = 1; the ground contact's row has 1 on the diagonal):
    # contact k carries the n - k beads from k up
    S[0, 0] = 1.0
    w = np.zeros(n)
    w[0] = 1.0
    assert tridiagonal_ldl_solve_inplace(_tridiagonal_band(S), w, dropped)
    np.testing.assert_allclose(w, n - np.arange(n), rtol=1e-12)


def test_tridiagonal_ldl_drops_a_redundant_row_as_band_cholesky_does():
    """Rows 1 and 2 equal (two contacts on one coordinate): the later one is dropped, its x is 0, and
    the rest solves the system without it; an indefinite matrix is refused."""
    S = np.array([[2.0, -1.0, 0.0, 0.0], [-1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, -1.0], [0.0, 0.0, -1.0, 2.0]])
    S[2, 2] = S[1, 2] ** 2 / (S[1, 1] - 1.0 / 2.0)  # D_2 = 0: row 2 depends on rows 0 and 1
    rhs = np.array([1.0, 2.0, 3.0, 4.0])
    for solve in (lambda L, b, dr: tridiagonal_ldl_solve_inplace(L, b, dr),
                  lambda L, b, dr: band_cholesky_solve_inplace(L, 1, b, dr)):
        x, dropped = rhs.copy(), np.zeros(4, dtype=bool)
        assert solve(_tridiagonal_band(S), x, dropped)
        assert dropped.tolist() == [False, False, True, False]
        keep = [0, 1, 3]
        np.testing.assert_allclose(x[keep], np.linalg.solve(S[np.ix_(keep, keep)], rhs[keep]), rtol=1e-12)
        assert x[2] == 0.0
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]])
    assert not tridiagonal_ldl_solve_inplace(_tridiagonal_band(indefinite), np.ones(2), np.zeros(2, dtype=bool))



def test_tridiagonal_ldl_resolve_repeats_the_solve_bit_for_bit():
    """A kept factor (what tridiagonal_ldl_solve_inplace leaves in L and dropped) solves another
    right-hand side with the numbers a new factoring gives, a dropped row included."""
    from nsgui.engine.solvers._linalg import tridiagonal_ldl_resolve_inplace
    n = 300
    S = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    S[0, 0] = 1.0
    S[40, 41] = S[41, 40] = 0.0  # a second chain from 41 on ...
    S[41, 41] = 1.0
    S[42, 42] = 1.0  # ... whose row 42 depends on row 41 (D = 0: dropped)
    rng = np.random.default_rng(3)
    L, dropped = _tridiagonal_band(S), np.zeros(n, dtype=bool)
    assert tridiagonal_ldl_solve_inplace(L, rng.standard_normal(n), dropped)
    assert dropped.tolist() == [i == 42 for i in range(n)]
    for _ in range(3):
        rhs = rng.standard_normal(n)
        fresh, kept = rhs.copy(), rhs.copy()
        assert tridiagonal_ldl_solve_inplace(_tridiagonal_band(S), fresh, np.zeros(n, dtype=bool))
        tridiagonal_ldl_resolve_inplace(L, kept, dropped)
        np.testing.assert_array_equal(kept, fresh)


def test_block_pivoting_with_a_kept_factor_gives_the_same_numbers():
    """bpp_lcp_csr_kept on a 1000-bead column's W, one kept factor across problems with other
    right-hand sides and active sets (the first guess right, or swaps needed, equality rows too):
    z, status and solves bit for bit bpp_lcp_csr's; the factor is kept for the last active set only
    (a problem with another set factors again)."""
    from nsgui.engine.solvers._linalg import csr_from_dense
    from nsgui.engine.solvers.bpp import bpp_lcp_csr, bpp_lcp_csr_kept, new_factor
    n = 1000
    S = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    S[0, 0] = 1.0
    ptr, col, val = csr_from_dense(S)
    fac = new_factor(n)
    rng = np.random.default_rng(5)
    none = np.zeros(0, np.bool_)
    eq = np.zeros(n, np.bool_)
    eq[::3] = True
    down = -np.ones(n)  # every contact pushed: the whole column in the active set
    cases = [(down, down < 0, none), (down * 2, down < 0, none), (rng.standard_normal(n), down < 0, none),
             (down * 3, down < 0, none), (rng.standard_normal(n), down > 0, eq), (down, down < 0, none)]
    states = []
    for q, guess, rows in cases:
        want = bpp_lcp_csr(ptr, col, val, q, guess, 3 * n + 10, True, rows)
        got = bpp_lcp_csr_kept(ptr, col, val, q, guess, 3 * n + 10, True, rows, fac)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:]
        states.append(fac[5][0])
        assert want[1] == SOLVED
    assert states == [2] * len(cases)
    assert fac[2].all()  # the last problem's active set: the whole column


# ---------------------------------------------------------------- FC2D


def test_single_contact_sliding_matches_coulomb():
    m, g, h, mu, v0 = 2.0, 9.81, 1e-3, 0.3, 0.5
    W = np.diag([1 / m, 1 / m])
    q = np.array([-g * h, v0])
    mus = np.array([mu])
    for solve in ("nsgs", "lemke"):
        r = _fc2d(solve, W, q, mus)
        np.testing.assert_allclose(r, [m * g * h, -mu * m * g * h], rtol=1e-12)
        u = W @ r + q
        assert u[0] == pytest.approx(0.0, abs=1e-15) and u[1] == pytest.approx(v0 - mu * g * h)
    # negative sliding velocity: friction acts the other way
    r = _fc2d("nsgs", W, np.array([-g * h, -v0]), mus)
    np.testing.assert_allclose(r, [m * g * h, mu * m * g * h], rtol=1e-12)


def test_single_contact_coupled_slip_analytic():
    # normal/tangent coupling (off-centre contact): slip s = +1 gives r_N = -q_N / (a - mu b)
    a, b, d, mu = 2.0, 0.6, 1.5, 0.4
    W = np.array([[a, b], [b, d]])
    q = np.array([-1.0, 3.0])
    rN = 1.0 / (a - mu * b)
    for solve in ("nsgs", "lemke"):
        r = _fc2d(solve, W, q, np.array([mu]))
        np.testing.assert_allclose(r, [rN, -mu * rN], rtol=1e-12)
        assert (W @ r + q)[1] > 0


def test_single_contact_sticking_and_takeoff():
    m, g, h, mu = 1.0, 9.81, 1e-3, 0.5
    W = np.diag([1 / m, 1 / m])
    v0 = 0.4 * mu * g * h  # small enough to be stopped within the step
    for solve in ("nsgs", "lemke"):
        r = _fc2d(solve, W, np.array([-g * h, v0]), np.array([mu]))
        np.testing.assert_allclose(r, [m * g * h, -m * v0], rtol=1e-12)
        np.testing.assert_allclose(W @ r + np.array([-g * h, v0]), 0.0, atol=1e-15)
        r = _fc2d(solve, W, np.array([0.1, 2.0]), np.array([mu]))  # separating: no force
        np.testing.assert_array_equal(r, 0.0)


def test_frictionless_and_degenerate_rows():
    # contact 0: mu = 0; contact 1: W_TT = 0 (no tangential mobility); contact 2: W_NN = 0
    W = np.zeros((6, 6))
    W[0, 0] = W[1, 1] = 1.0
    W[2, 2] = 2.0
    W[0, 2] = W[2, 0] = 0.5
    q = np.array([-1.0, 2.0, -1.0, 3.0, 0.5, 0.0])
    mu = np.array([0.0, 0.7, 0.5])
    r, s, it, err = nsgs_fc2d(W, q, mu, np.zeros(6), 1e-12, 100)
    assert s == SOLVED and np.isfinite(r).all()
    assert r[1] == 0.0 and r[4] == 0.0 and r[5] == 0.0
    # W_TT = 0: r_T has no effect; the law puts it on the cone edge opposite to u_T = 3
    assert r[3] == pytest.approx(-0.7 * r[2], rel=1e-12)
    assert fc2d_residual(W, q, mu, r) < TOL
    rN = np.linalg.solve(W[np.ix_([0, 2], [0, 2])], [1.0, 1.0])
    np.testing.assert_allclose(r[[0, 2]], rN, rtol=1e-10)
    rl, sl, _ = lemke_fc2d(W, q, mu, 200)
    assert sl == SOLVED and fc2d_residual(W, q, mu, rl) < TOL
    np.testing.assert_allclose(rl[[0, 2]], rN, rtol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_fc2d_nsgs_and_lemke_agree(seed):
    rng = np.random.default_rng(100 + seed)
    for nc in (1, 2, 4, 8):
        for _ in range(10):
            ndof = 2 * nc + int(rng.integers(0, 4))  # W positive definite
            W, q = delassus(rng, 2 * nc, ndof)
            mu = rng.uniform(0.0, 1.0, nc)
            r1, s1, _, err = nsgs_fc2d(W, q, mu, np.zeros(2 * nc), 1e-13, 20000)
            r2, s2, _ = lemke_fc2d(W, q, mu, 2000)
            assert s1 == SOLVED and err <= 1e-13 and s2 == SOLVED
            assert fc2d_residual(W, q, mu, r1) < TOL
            assert fc2d_residual(W, q, mu, r2) < TOL
            np.testing.assert_allclose(W @ r1 + q, W @ r2 + q, atol=1e-7)


def test_fc2d_redundant_contacts_lemke_solves_nsgs_warm_start():
    # fewer dofs than constraint rows: W is singular (redundant contacts)
    rng = np.random.default_rng(42)
    for nc in (2, 4, 6):
        for _ in range(6):
            W, q = delassus(rng, 2 * nc, int(rng.integers(1, 2 * nc)))
            mu = rng.uniform(0.0, 1.0, nc)
            r2, s2, _ = lemke_fc2d(W, q, mu, 5000)
            assert s2 == SOLVED and fc2d_residual(W, q, mu, r2) < TOL
            # warm-started at the solution NSGS stops at once
            r1, s1, it, err = nsgs_fc2d(W, q, mu, r2, 1e-9, 10)
            assert s1 == SOLVED and it <= 1


def _fc2d(solver, W, q, mu):
    if solver == "nsgs":
        r, s, _, err = nsgs_fc2d(W, q, mu, np.zeros(q.size), 1e-14, 1000)
    else:
        r, s, _ = lemke_fc2d(W, q, mu, 1000)
    assert s == SOLVED
    return r


def _box_problem(v0, m=3.0, width=0.4, height=0.3, g=9.81, h=1e-3):
    """Two bottom corners of a box (CoM at height/2) on the ground; dofs (x, y, phi)."""
    inertia = m * (width**2 + height**2) / 12.0
    rows = []
    for rx in (+width / 2, -width / 2):  # front (leading, +x) corner first
        ry = -height / 2
        rows.append([0.0, 1.0, rx])  # normal velocity  = ydot + phidot * rx
        rows.append([1.0, 0.0, -ry])  # tangent velocity = xdot - phidot * ry
    H = np.array(rows)
    W = H @ np.diag([1 / m, 1 / m, 1 / inertia]) @ H.T
    q = H @ np.array([v0, -g * h, 0.0])
    return W, q, m * g * h


@pytest.mark.parametrize("solver", ["nsgs", "lemke"])
def test_two_corner_box_sliding_load_split(solver):
    # (T8.10) of the time-stepping digest: N_front - N_back = 2 mu h_G / w * m g (percussions: times h)
    mu, width, height = 0.4, 0.4, 0.3
    W, q, mgh = _box_problem(1.0, width=width, height=height)
    r = _fc2d(solver, W, q, np.array([mu, mu]))
    k = 2 * mu * (height / 2) / width
    np.testing.assert_allclose(r[[0, 2]], [mgh / 2 * (1 + k), mgh / 2 * (1 - k)], rtol=1e-10)
    np.testing.assert_allclose(r[[1, 3]], -mu * r[[0, 2]], rtol=1e-10)


@pytest.mark.parametrize("solver", ["nsgs", "lemke"])
def test_two_corner_box_at_rest_compares_only_sums(solver):
    # W is singular (4 rows, 3 dofs): tangential percussions are statically indeterminate
    W, q, mgh = _box_problem(0.0)
    mu = np.array([0.5, 0.5])
    r = _fc2d(solver, W, q, mu)
    assert fc2d_residual(W, q, mu, r) < 1e-12
    np.testing.assert_allclose(r[[0, 2]], [mgh / 2, mgh / 2], rtol=1e-10)
    assert abs(r[1] + r[3]) < 1e-12
    np.testing.assert_allclose(W @ r + q, 0.0, atol=1e-12)


def test_bad_input_gives_status_4_not_a_crash():
    M = np.eye(3)
    q = np.array([-1.0, 0.0, 1.0])
    assert lemke(np.eye(2), q, 10)[1] == BAD_INPUT
    assert lemke(M, np.array([-1.0, np.nan, 0.0]), 10)[1] == BAD_INPUT
    bad_M = M.copy()
    bad_M[1, 2] = np.inf
    assert lemke(bad_M, q, 10)[1] == BAD_INPUT
    assert pgs_lcp(M, q, np.zeros(2), 1e-9, 10)[1] == BAD_INPUT
    assert bpp_lcp(M, q, np.zeros(2, dtype=bool), 10)[1] == BAD_INPUT
    nan_M = M.copy()
    nan_M[0, 0] = np.nan
    assert bpp_lcp(nan_M, q, np.ones(3, dtype=bool), 10)[1] != SOLVED
    assert pgs_lcp(nan_M, q, np.zeros(3), 1e-9, 10)[1] != SOLVED
    W = np.eye(4)
    qf = np.array([-1.0, 0.0, -1.0, 0.0])
    assert nsgs_fc2d(W, qf, np.array([0.5]), np.zeros(4), 1e-9, 10)[1] == BAD_INPUT  # too few mu
    assert nsgs_fc2d(np.eye(3), qf[:3], np.array([0.5, 0.5]), np.zeros(3), 1e-9, 10)[1] == BAD_INPUT
    assert lemke_fc2d(W, qf, np.array([0.5]), 10)[1] == BAD_INPUT
    W[2, 2] = np.nan
    assert nsgs_fc2d(W, qf, np.array([0.5, 0.5]), np.zeros(4), 1e-9, 10)[1] != SOLVED


def test_many_degenerate_integer_problems_are_solved():
    # integer PSD M = B B^T and q = B v: ties in every ratio test, zero entries of q, redundancy
    rng = np.random.default_rng(9)
    for _ in range(300):
        m = int(rng.integers(1, 25))
        k = int(rng.integers(1, m + 2))
        B = rng.integers(-1, 2, (m, k)).astype(float)
        M = B @ B.T
        q = B @ rng.integers(-2, 3, k).astype(float)
        z, s, piv = lemke(M, q, 20 * m + 20)
        assert s == SOLVED and lcp_residual(M, q, z) < TOL
        z3, s3, _ = bpp_lcp(M, q, rng.random(m) < 0.5, 200)
        if s3 == SOLVED:
            np.testing.assert_allclose(M @ z3, M @ z, atol=1e-9)


def test_bpp_mixed_lcp_with_equalities_among_the_rows():
    """The projection's mixed problem: equality rows (w = 0, z free) interleaved with unilateral ones
    in candidate order (issue 13: ordering them first widened the band to the whole problem). The
    answer satisfies both laws and equals the dense Schur-complement solution."""
    from nsgui.engine.projection import _solve_mixed
    from nsgui.engine.solvers.bpp import new_factor
    from nsgui.engine.solvers._linalg import csr_from_dense
    from nsgui.engine.solvers.bpp import bpp_lcp_csr
    rng = np.random.default_rng(7)
    n = 60
    M, _ = chain(n)
    eq = rng.random(n) < 0.4
    q = rng.uniform(-1.0, 1.0, n) + 30.0 * eq   # the equalities separating: held, they pull
    ptr, col, val = csr_from_dense(M)
    z, status, it = bpp_lcp_csr(ptr, col, val, q, q < 0.0, 3 * n + 10, True, eq)
    assert status == SOLVED
    w = q + M @ z
    np.testing.assert_allclose(w[eq], 0.0, atol=1e-12)
    assert (z[~eq] >= 0.0).all() and (w[~eq] >= -1e-12).all()
    np.testing.assert_allclose(np.minimum(z[~eq], w[~eq]), 0.0, atol=1e-12)
    assert (z[eq] < 0.0).any()          # free: some equality pulls
    # the dense path of the projection (equalities first, their Schur complement, then pivoting)
    order = np.concatenate([np.flatnonzero(eq), np.flatnonzero(~eq)])
    from nsgui.engine.projection import _solve_mixed_dense
    Wd = M[np.ix_(order, order)].copy()
    zd, ok = _solve_mixed_dense(Wd, q[order].copy(), int(eq.sum()))
    assert ok
    np.testing.assert_allclose(zd, z[order], rtol=1e-9, atol=1e-12)
    # and the projection's entry (its diagonal shift of 1e-12 aside)
    tau, ok = _solve_mixed(*csr_from_dense(M), q.copy(), eq, new_factor(0))
    assert ok
    np.testing.assert_allclose(tau, z, rtol=1e-9, atol=1e-9)


def test_bpp_stops_at_a_cycle_on_a_singular_mixed_problem():
    """Four rows on three coordinates (W = H Hᵀ of rank 3, shifted by 1e-12 as the projection does): the
    banded Cholesky drops the dependent row and block pivoting's single swaps toggle one index for ever
    (the 55-box pyramid's projection spent its whole cap of 3k + 10 solves so, 1162 banded factors of a
    384-row problem a step). The cycle is seen at its second swap; the projection's dense fallback then
    finds the M-closest displacement, checked against every active set tried by hand."""
    from itertools import combinations

    from nsgui.engine.projection import _solve_mixed
    from nsgui.engine.solvers.bpp import new_factor
    from nsgui.engine.solvers._linalg import csr_from_dense
    from nsgui.engine.solvers.bpp import bpp_lcp_csr
    H = np.array([[1.0, 1.0, -1.0], [1.0, -1.0, 0.0], [0.0, -1.0, 1.0], [-1.0, 0.0, -1.0]])
    q = np.array([-1.0, -2.0, 0.0, -1.0])
    eq = np.array([False, False, True, False])
    k = q.shape[0]
    W = H @ H.T
    Ws = W + np.diag(1e-12 * (1.0 + np.diag(W)))
    z, status, it = bpp_lcp_csr(*csr_from_dense(Ws), q, q < 0.0, 3 * k + 10, True, eq)
    assert status == ITERATION_CAP and it < 3 * k + 10   # (it was 22: the whole cap)
    tau, ok = _solve_mixed(*csr_from_dense(W), q.copy(), eq, new_factor(0))
    assert ok
    dq = H.T @ tau
    gap = H @ dq + q
    assert abs(gap[eq]).max() < 1e-9 and gap[~eq].min() > -1e-9
    # the smallest displacement meeting the rows: the least-norm one over every choice of held rows
    best = None
    uni = np.flatnonzero(~eq)
    for size in range(len(uni) + 1):
        for held in combinations(uni, size):
            rows = np.concatenate([np.flatnonzero(eq), held]).astype(int)
            d = -np.linalg.lstsq(H[rows], q[rows], rcond=None)[0]
            g = H @ d + q
            if np.allclose(g[rows], 0.0, atol=1e-12) and g.min() > -1e-12 and (best is None or d @ d < best @ best):
                best = d
    np.testing.assert_allclose(dq, best, atol=1e-9)


def _cholesky_dense_reference(S, bw, rhs):
    """Band Cholesky with dropped rows as the solvers did it with early returns, on the dense S and in
    Python: (ok, factor (dense, lower), dropped, solution or None); the same operations in the same order."""
    n = len(rhs)
    F, dropped = np.zeros((n, n)), [False] * n
    for i in range(n):
        j0 = max(0, i - bw)
        for j in range(j0, i + 1):
            if j < i and dropped[j]:
                continue  # (F[i, j] stays 0)
            s = S[i, j]
            for k in range(max(j0, j - bw), j):
                s -= F[i, k] * F[j, k]
            if j < i:
                F[i, j] = s / F[j, j]
            elif S[i, i] <= 0.0 or s <= 1e-10 * S[i, i]:
                if S[i, i] > 0.0 and s < -1e-8 * S[i, i]:
                    return False, F, dropped, None
                dropped[i] = True
                F[i, :i] = 0.0
                F[i, i] = 1.0
            else:
                F[i, i] = np.sqrt(s)
    x = list(rhs)
    for i in range(n):  # F y = b, then Fᵀ x = y, dropped rows 0
        s = x[i]
        for k in range(max(0, i - bw), i):
            s -= F[i, k] * x[k]
        x[i] = 0.0 if dropped[i] else s / F[i, i]
    for i in reversed(range(n)):
        s = x[i]
        for k in range(i + 1, min(n - 1, i + bw) + 1):
            s -= F[k, i] * x[k]
        x[i] = 0.0 if dropped[i] else s / F[i, i]
    return True, F, dropped, np.array(x)


@pytest.mark.parametrize("seed", range(40))
def test_band_cholesky_on_the_first_rows_is_the_early_return_algorithm_bit_for_bit(seed):
    """band_cholesky_solve_n (one exit, no views: the tiny LCP's principal solve) on the first n rows of
    larger arrays: the factor, the dropped rows and the solution of the early-return algorithm on the
    dense matrix, to the last bit, PSD with redundant rows or indefinite (False, b unchanged); the rows
    past n untouched."""
    rng = np.random.default_rng(900 + seed)
    n = 1 + seed % 12
    bw = int(rng.integers(0, n))
    if n > 1 and (seed % 3 == 0 or seed % 4 == 3):
        bw = max(bw, 1)  # (the redundant row's and the indefinite entry's coupling in the band)
    G = np.zeros((n, n))
    for i in range(n):
        lo = max(0, i - bw // 2)
        G[i, lo:i + 1] = rng.standard_normal(i + 1 - lo)
    if n > 2 and seed % 3 == 0:
        G[n - 1] = 2.0 * G[n - 2]  # a redundant row
    S = G @ G.T + 1e-14 * np.eye(n)
    if seed % 4 == 3 and n > 1:
        S[1, 0] = S[0, 1] = 3.0 * np.sqrt(S[0, 0] * S[1, 1])  # indefinite
    rhs = rng.standard_normal(n)
    size = 16
    L = np.full((size, size), 7.0)
    for i in range(n):
        for j in range(max(0, i - bw), i + 1):
            L[i, bw - (i - j)] = S[i, j]
    b, dropped = np.full(size, 5.0), np.ones(size, np.bool_)
    b[:n] = rhs
    L0 = L.copy()
    ok = band_cholesky_solve_n(L, bw, b, dropped, n)
    want_ok, F, want_dropped, x = _cholesky_dense_reference(S, bw, rhs)
    assert ok == want_ok and ok == (seed % 4 != 3 or n == 1)
    assert np.array_equal(L[n:], L0[n:]) and (b[n:] == 5.0).all() and dropped[n:].all()
    if ok:
        assert list(dropped[:n]) == want_dropped and any(want_dropped) == (n > 2 and seed % 3 == 0)
        assert np.array_equal(b[:n], x)
        for i in range(n):
            for j in range(max(0, i - bw), i + 1):
                assert L[i, bw - (i - j)] == F[i, j]
    else:
        assert np.array_equal(b[:n], rhs)


def _lu_reference(A, rhs):
    """Gaussian elimination with partial pivoting as lu_solve_inplace did it with early returns, in Python."""
    A, x, n = A.copy(), list(rhs), len(rhs)
    amax = np.abs(A).max() if n else 0.0
    if n and amax == 0.0:
        return False, None
    for k in range(n):
        p = k + int(np.argmax(np.abs(A[k:, k])))  # (the first largest, as the strict > keeps it)
        if abs(A[p, k]) <= 1e-14 * amax:
            return False, None
        A[[k, p], k:] = A[[p, k], k:]
        x[k], x[p] = x[p], x[k]
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            f = A[i, k] * inv
            if f != 0.0:
                A[i, k + 1:] -= f * A[k, k + 1:]
                x[i] -= f * x[k]
    for i in reversed(range(n)):
        s = x[i]
        for j in range(i + 1, n):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return True, np.array(x)


@pytest.mark.parametrize("seed", range(30))
def test_lu_on_the_first_rows_is_the_early_return_algorithm_bit_for_bit(seed):
    """lu_solve_n (one exit, no views) on the first n rows of larger arrays: the early-return algorithm's
    solution to the last bit, False on a singular matrix (a zero one, a repeated row), rows past n
    untouched."""
    rng = np.random.default_rng(700 + seed)
    n = seed % 9
    A = rng.standard_normal((n, n))
    if seed % 5 == 4 and n > 1:
        A[n - 1] = A[0]  # singular: the elimination meets a pivot of round-off size or zero
    if seed % 10 == 9:
        A[:] = 0.0
    rhs = rng.standard_normal(n)
    big, b = np.full((12, 12), 3.0), np.full(12, 4.0)
    big[:n, :n], b[:n] = A, rhs
    ok = lu_solve_n(big, b, n)
    want_ok, x = _lu_reference(A, rhs)
    assert ok == want_ok
    assert (big[n:] == 3.0).all() and (big[:, n:] == 3.0).all() and (b[n:] == 4.0).all()
    if ok and n:
        assert np.array_equal(b[:n], x)
        np.testing.assert_allclose(A @ b[:n], rhs, atol=1e-8 * max(1.0, np.abs(A).max() * np.abs(x).max()))
    assert ok == (n == 0 or not (seed % 10 == 9 or (seed % 5 == 4 and n > 1)))
