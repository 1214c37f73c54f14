"""The projection's mixed LCP on singular W (solvers/mixed_schur.py, projection._solve_mixed): answers checked
against the mixed-LCP conditions themselves and against the M-closest displacement found independently.

data/pyramid55_projection_step.npz is the projection's problem at step 78 of make_heaps.box_pyramid(10) (the
second row landing: 143 rows, 110 of them equalities, W of rank 73, its equality block of rank 57), stored as
W's compressed rows before the projection's 1e-12 shift (ptr, col, val), q and the equality rows eq. Block
pivoting cycles on it (its banded Cholesky drops the dependent rows)."""
import os

import numpy as np
import pytest

from nsgui.engine.codes import ITERATION_CAP, SINGULAR_SUBPROBLEM, SOLVED
from nsgui.engine.projection import _solve_mixed, _solve_mixed_dense
from nsgui.engine.solvers._linalg import csr_from_dense, csr_to_dense
from nsgui.engine.solvers.bpp import bpp_lcp_csr, bpp_lcp_csr_dropping, new_factor
from nsgui.engine.solvers.mixed_schur import mixed_schur_csr

DATA = os.path.join(os.path.dirname(__file__), "data")


def _shifted(W):
    """W with the projection's shift of its diagonal (projection._solve_mixed)."""
    return W + np.diag(1e-12 * (1.0 + np.diag(W)))


def _violation(W, q, eq, tau):
    """The largest violation of W τ + q = 0 on eq, 0 ≤ W τ + q ⊥ τ ≥ 0 elsewhere, relative to max |q| (τ scaled
    by W's largest diagonal entry in the product, as block pivoting's test)."""
    w = W @ tau + q
    qn = np.abs(q).max()
    d = np.abs(np.diag(W)).max()
    uni = ~eq
    parts = [np.abs(w[eq]).max(initial=0.0), max(0.0, -w[uni].min(initial=0.0)),
             max(0.0, -tau[uni].min(initial=0.0) * d), np.abs(np.minimum(tau[uni] * d, w[uni])).max(initial=0.0)]
    return max(parts) / qn


def _assert_as_dense(ptr, col, val, q, eq, tau):
    """τ (for W given unshifted by its compressed rows) meets the mixed-LCP conditions to 1e-9 of max|q|, so does
    the dense fallback's answer, and both give the same W τ (= H Δq) to 1e-10 of max|q|."""
    W = csr_to_dense(ptr, col, val, q.shape[0])
    Ws = _shifted(W)
    assert _violation(W, q, eq, tau) < 1e-9
    order = np.concatenate([np.flatnonzero(eq), np.flatnonzero(~eq)])
    td, ok = _solve_mixed_dense(Ws[np.ix_(order, order)].copy(), q[order].copy(), int(eq.sum()))
    tau_d = np.empty_like(td)
    tau_d[order] = td
    assert ok and _violation(W, q, eq, tau_d) < 1e-9
    assert np.abs(W @ (tau - tau_d)).max() <= 1e-10 * np.abs(q).max()


def _random_problem(rng, n, extra, nuni):
    """Rows H (k × n) with dependent ones (copies and combinations of others, as a box's redundant corners),
    M diagonal, W = H M⁻¹ Hᵀ (PSD, singular), the last nuni rows unilateral, q consistent: the equalities met
    and the unilateral rows ≥ 0 at a displacement x0 (so the mixed problem has an answer)."""
    H0 = rng.normal(size=(n - 1, n))
    dep = []
    for _ in range(extra):
        if rng.random() < 0.5:
            dep.append(H0[rng.integers(n - 1)].copy())
        else:
            c = rng.normal(size=3)
            dep.append(c @ H0[rng.choice(n - 1, 3, replace=False)])
    H = np.vstack([H0, np.array(dep)])
    H = H[rng.permutation(H.shape[0])]
    k = H.shape[0]
    Minv = 1.0 / rng.uniform(0.5, 2.0, n)
    W = (H * Minv) @ H.T
    eq = np.zeros(k, bool)
    eq[: k - nuni] = True
    x0 = rng.normal(size=n)
    s = np.where(rng.random(k) < 0.5, 0.0, rng.uniform(0.0, 1.0, k))
    q = -H @ x0 + np.where(eq, 0.0, s)
    return H, Minv, W, q, eq


@pytest.mark.parametrize("seed", range(40))
def test_schur_answers_singular_mixed_problems_with_redundant_equalities(seed):
    """Random singular PSD problems whose equality rows include copies and combinations of others (and
    unilateral rows dependent on the equalities): the Schur answer meets the mixed-LCP conditions, and its
    displacement M⁻¹Hᵀτ is the one of the dense fallback (the M-closest one is unique though τ is not)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 12))
    H, Minv, W, q, eq = _random_problem(rng, n, int(rng.integers(1, 2 * n)), int(rng.integers(1, n)))
    Ws = _shifted(W)
    ptr, col, val = csr_from_dense(Ws)
    tau, st = mixed_schur_csr(ptr, col, val, q, eq)
    assert st == SOLVED
    assert _violation(W, q, eq, tau) < 1e-8
    order = np.concatenate([np.flatnonzero(eq), np.flatnonzero(~eq)])
    td, ok = _solve_mixed_dense(Ws[np.ix_(order, order)].copy(), q[order].copy(), int(eq.sum()))
    assert ok
    tau_d = np.empty_like(td)
    tau_d[order] = td
    dq, dq_d = Minv * (H.T @ tau), Minv * (H.T @ tau_d)
    assert np.abs(dq - dq_d).max() <= 1e-8 * max(1.0, np.abs(dq_d).max())
    # and through the projection's solve (block pivoting first, stopped at its first dropped row)
    tau_p, ok = _solve_mixed(*csr_from_dense(W), q.copy(), eq, new_factor(0))
    assert ok and _violation(W, q, eq, tau_p) < 1e-8


def test_schur_refuses_an_inconsistent_dependent_equality():
    """Two equal rows with different right-hand sides: no τ meets both; the check says so (the caller then
    falls back) instead of returning the answer of one of them."""
    H = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    W = H @ H.T
    q = np.array([-1.0, -2.0, 1.0])
    eq = np.array([True, True, False])
    tau, st = mixed_schur_csr(*csr_from_dense(_shifted(W)), q, eq)
    assert st == SINGULAR_SUBPROBLEM


def test_schur_on_the_stored_pyramid_landing_problem():
    """The 55-box pyramid's projection at step 78: block pivoting cycles (the old path's dense fallback then
    solved it); the Schur complement of the equality block answers it, the answer meets the mixed-LCP
    conditions, and W τ (= H Δq) is the dense fallback's to round-off."""
    z = np.load(os.path.join(DATA, "pyramid55_projection_step.npz"))
    ptr, col, val, q, eq = z["ptr"], z["col"], z["val"], z["q"], z["eq"]
    k = q.shape[0]
    W = csr_to_dense(ptr, col, val, k)
    Ws = _shifted(W)
    assert np.linalg.matrix_rank(W[np.ix_(eq, eq)], tol=1e-9 * np.abs(W).max()) < eq.sum()  # singular
    sptr, scol, sval = csr_from_dense(Ws)
    _, st, it = bpp_lcp_csr(sptr, scol, sval, q, q < 0.0, 3 * k + 10, True, eq)
    assert st != SOLVED   # the cycle (the old path went to the dense fallback)
    _, st, it = bpp_lcp_csr_dropping(sptr, scol, sval, q, q < 0.0, 3 * k + 10, True, eq, new_factor(0), True)
    assert st == ITERATION_CAP and it == 1   # stopped at its first factor, which dropped rows
    tau, st = mixed_schur_csr(sptr, scol, sval, q, eq)
    assert st == SOLVED
    _assert_as_dense(ptr, col, val, q, eq, tau)
    tau_p, ok = _solve_mixed(ptr, col, val.copy(), q.copy(), eq, new_factor(0))
    assert ok and np.array_equal(tau_p, tau)   # the projection takes the Schur answer


@pytest.mark.parametrize("seed", range(10))
def test_stopping_at_a_dropped_row_changes_nothing_on_regular_problems(seed):
    """On positive definite problems (no row dropped) block pivoting with the stop gives its answer bit for
    bit, iterations included."""
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(3, 30))
    A = rng.normal(size=(k, k + 3))
    W = A @ A.T
    q = rng.normal(size=k)
    eq = rng.random(k) < 0.3
    ptr, col, val = csr_from_dense(W)
    z0, s0, i0 = bpp_lcp_csr(ptr, col, val, q, q < 0.0, 3 * k + 10, True, eq)
    z1, s1, i1 = bpp_lcp_csr_dropping(ptr, col, val, q, q < 0.0, 3 * k + 10, True, eq, new_factor(0), True)
    assert s0 == s1 and i0 == i1 and np.array_equal(z0, z1)


@pytest.mark.parametrize("step", [78, 127])
def test_schur_refines_the_landing_answers_that_failed_its_check(step):
    """The 55-box pyramid's projections at steps 78 (144 rows, 112 equalities) and 127 (364, 352) of main's
    trajectory after the NSGS momentum (data/pyramid55_schur_refined_steps.npz, stored as the file above):
    block pivoting stops at a dropped row, and the Schur path's first answer misses unilateral rows by
    0.1–0.7 max|q| (its small LCP's); refined with the same factors it is SOLVED, meets the mixed-LCP
    conditions and gives the dense fallback's W τ (= H Δq) to 1e-10 of max|q|, and the projection takes it."""
    z = np.load(os.path.join(DATA, "pyramid55_schur_refined_steps.npz"))
    ptr, col, val, q, eq = (z[f"s{step}_{n}"] for n in ("ptr", "col", "val", "q", "eq"))
    k = q.shape[0]
    W = csr_to_dense(ptr, col, val, k)
    Ws = _shifted(W)
    sptr, scol, sval = csr_from_dense(Ws)
    _, st, it = bpp_lcp_csr_dropping(sptr, scol, sval, q, q < 0.0, 3 * k + 10, True, eq, new_factor(0), True)
    assert st == ITERATION_CAP   # stopped at a dropped row: the Schur path's problem
    tau, st = mixed_schur_csr(sptr, scol, sval, q, eq)
    assert st == SOLVED
    _assert_as_dense(ptr, col, val, q, eq, tau)
    tau_p, ok = _solve_mixed(ptr, col, val.copy(), q.copy(), eq, new_factor(0))
    assert ok and np.array_equal(tau_p, tau)   # the projection takes the refined Schur answer


@pytest.mark.parametrize("seed", range(20))
def test_known_dependent_equalities_go_to_the_schur_path_first(seed):
    """More equality rows than coordinates (project_positions' test for `dependent`: W_EE singular for sure):
    _solve_mixed skips block pivoting's first factor; its answer still meets the mixed-LCP conditions and gives
    the dense fallback's displacement M⁻¹Hᵀτ, computed independently."""
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(4, 10))
    nuni = int(rng.integers(1, n))
    H, Minv, W, q, eq = _random_problem(rng, n, nuni + 2 + int(rng.integers(0, n)), nuni)
    assert eq.sum() > n   # the flag's condition: more equalities than coordinates
    tau, ok = _solve_mixed(*csr_from_dense(W), q.copy(), eq, new_factor(0), True)
    assert ok and _violation(W, q, eq, tau) < 1e-8
    Ws = _shifted(W)
    order = np.concatenate([np.flatnonzero(eq), np.flatnonzero(~eq)])
    td, ok = _solve_mixed_dense(Ws[np.ix_(order, order)].copy(), q[order].copy(), int(eq.sum()))
    tau_d = np.empty_like(td)
    tau_d[order] = td
    dq, dq_d = Minv * (H.T @ tau), Minv * (H.T @ tau_d)
    assert ok and np.abs(dq - dq_d).max() <= 1e-8 * max(1.0, np.abs(dq_d).max())


@pytest.mark.parametrize("name,step", [("pyramid55_projection_step.npz", None),
                                       ("pyramid55_schur_refined_steps.npz", 78),
                                       ("pyramid55_schur_refined_steps.npz", 127)])
def test_the_landing_problems_skip_the_first_factor_with_the_same_answer(name, step):
    """The stored landing problems have more equality rows than their rank (boxes' corners) and block pivoting
    stops at its first factor on them: told they are dependent, _solve_mixed gives the Schur answer without
    that factor, bit for bit the answer of the path through it, meeting the conditions as the dense one."""
    z = np.load(os.path.join(DATA, name))
    pre = "" if step is None else f"s{step}_"
    ptr, col, val, q, eq = (z[pre + n] for n in ("ptr", "col", "val", "q", "eq"))
    W = csr_to_dense(ptr, col, val, q.shape[0])
    assert np.linalg.matrix_rank(W[np.ix_(eq, eq)], tol=1e-9 * np.abs(W).max()) < eq.sum()
    tau0, ok0 = _solve_mixed(ptr, col, val.copy(), q.copy(), eq, new_factor(0))
    tau1, ok1 = _solve_mixed(ptr, col, val.copy(), q.copy(), eq, new_factor(0), True)
    assert ok0 and ok1 and np.array_equal(tau0, tau1)
    _assert_as_dense(ptr, col, val, q, eq, tau1)


def _envelope_matrix(rng, n, bw):
    """A symmetric positive definite band matrix (lower band storage, _linalg's layout) whose rows start at
    scattered columns within the band (an envelope narrower than the band, as the landing pyramid's W_EE: band
    75, rows starting 0-75 before the diagonal), singular up to a 1e-12 shift (rows copied), and its envelope."""
    first = np.array([max(0, i - int(rng.integers(0, bw + 1))) for i in range(n)])
    H = np.zeros((n, n + 3))
    for i in range(n):
        H[i, first[i]:i + 1] = rng.normal(size=i + 1 - first[i])
        if i > 0 and rng.random() < 0.2 and first[i] <= first[i - 1]:
            H[i] = H[i - 1]  # a dependent row (a redundant corner)
    A = H @ H.T
    A[np.abs(np.subtract.outer(np.arange(n), np.arange(n))) > bw] = 0.0
    A = A + np.diag(1e-12 * (1.0 + np.diag(A)))
    for i in range(n):  # (positive definite after the cut: diagonal dominance added where needed)
        A[i, i] += np.abs(A[i]).sum() - abs(A[i, i])
    env = np.array([np.flatnonzero(A[i, :i + 1])[0] for i in range(n)])
    L = np.zeros((n, bw + 1))
    for i in range(n):
        for j in range(max(0, i - bw), i + 1):
            L[i, bw - (i - j)] = A[i, j]
    return A, L, env


def _band_factor_reference(L, bw, n):
    """The band Cholesky summed one by one over the whole band (mixed_schur's factor before the envelope)."""
    L = L.copy()
    for i in range(n):
        j0 = max(i - bw, 0)
        for j in range(j0, i + 1):
            s = L[i, bw - (i - j)]
            for k in range(j0, j):
                s -= L[i, bw - (i - k)] * L[j, bw - (j - k)]
            L[i, bw - (i - j)] = s / L[j, bw] if j < i else np.sqrt(s)
    return L


@pytest.mark.parametrize("seed", range(6))
def test_envelope_factor_is_the_band_factor_bit_for_bit(seed):
    """mixed_schur's factor skips the products before each row's envelope and sums four entries side by side:
    L Lᵀ is the matrix, the factor is the whole band's bit for bit, and the forward substitutions (one and four
    right-hand sides, each zero above its own first row) are L⁻¹ b as numpy's triangular solve gives it."""
    from nsgui.engine.solvers.mixed_schur import _band_factor, _forward, _forward4
    rng = np.random.default_rng(seed)
    n, bw = int(rng.integers(20, 90)), int(rng.integers(3, 30))
    A, L, env = _envelope_matrix(rng, n, bw)
    ref = _band_factor_reference(L, bw, n)
    F = L.copy()
    assert _band_factor(F, bw, n, env)
    assert np.array_equal(F, ref)
    Ld = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - bw), i + 1):
            Ld[i, j] = F[i, bw - (i - j)]
    assert np.allclose(Ld @ Ld.T, A, rtol=0, atol=1e-10 * np.abs(A).max())
    firsts = rng.integers(0, n, size=5)
    bs = []
    for f in firsts:
        b = np.zeros(n)
        b[f:] = rng.normal(size=n - f)
        bs.append(b)
    expect = [np.linalg.solve(Ld, b) for b in bs]
    one = [b.copy() for b in bs]
    for b, f in zip(one, firsts):
        _forward(F, bw, b, f, n, env)
    four = [b.copy() for b in bs[:4]]
    _forward4(F, bw, four[0], four[1], four[2], four[3], int(firsts[:4].min()), n, env)
    for b, f, e in zip(one, firsts, expect):
        assert np.allclose(b, e, rtol=1e-8, atol=1e-8 * np.abs(e).max())
        assert not b[:f].any()
    for a, b in zip(four, one[:4]):
        assert np.array_equal(a, b)  # (the same numbers, a zero's sign apart)
