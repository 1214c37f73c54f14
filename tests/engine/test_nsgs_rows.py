"""NSGS without the Delassus matrix (nsgs.nsgs_fc2d_rows): the stepper's friction problems with a
constant M⁻¹ are solved from the contact rows H and X = M⁻¹Hᵀ, keeping v - v_free = X r instead of
forming W = H X. Its iterates are those of nsgs_fc2d_csr on W (the same local solves on the same
2×2 blocks), up to round-off: checked against it and against the Coulomb-Signorini conditions
computed here from u = H (v_free + M⁻¹Hᵀr)."""
import numpy as np
import pytest

from nsgui.engine.codes import ITERATION_CAP, SOLVED
from nsgui.engine.contact_rows import delassus_columns, delassus_csr
from nsgui.engine.solvers import nsgs_fc2d
from nsgui.engine.solvers._linalg import csr_from_dense
from nsgui.engine.solvers.nsgs import nsgs_fc2d_rows


def _problem(rng, bodies, nc, mu_max=1.0, zero_tangents=()):
    """nc contacts between random pairs of free bodies (3 coordinates each, a 3×3 SPD mass block):
    sparse rows as the stepper stores them (rcols, rvals, rnnz; rows [N, T] per contact)."""
    n = 3 * bodies
    Minv = np.zeros((n, n))
    for b in range(bodies):
        B = rng.standard_normal((3, 3))
        Minv[3 * b:3 * b + 3, 3 * b:3 * b + 3] = np.linalg.inv(B @ B.T + 3 * np.eye(3))
    rcols = np.zeros((2 * nc, 6), np.int64)
    rvals = np.zeros((2 * nc, 6))
    rnnz = np.zeros(2 * nc, np.int64)
    for c in range(nc):
        a, b = sorted(rng.choice(bodies, 2, replace=False))
        cols = np.r_[3 * a:3 * a + 3, 3 * b:3 * b + 3]
        for side in range(2):
            if side == 1 and c in zero_tangents:
                continue
            rcols[2 * c + side] = cols
            rvals[2 * c + side] = rng.standard_normal(6)
            rnnz[2 * c + side] = 6
    H = np.zeros((2 * nc, n))
    for i in range(2 * nc):
        H[i, rcols[i, :rnnz[i]]] = rvals[i, :rnnz[i]]
    vfree = rng.standard_normal(n)
    mu = rng.uniform(0.0, mu_max, nc)
    mptr, mcol, mval = csr_from_dense(Minv)
    return dict(rcols=rcols, rvals=rvals, rnnz=rnnz, H=H, Minv=Minv, q=H @ vfree, mu=mu,
                mi=(mptr, mcol, mval), n=n)


def _solve_rows(p, r0, tol=1e-12, maxit=5000):
    cptr, ccol, cval = delassus_columns(p["rcols"], p["rvals"], p["rnnz"], *p["mi"], p["n"])
    return nsgs_fc2d_rows(p["rcols"], p["rvals"], p["rnnz"], cptr, ccol, cval, p["n"], p["q"], p["mu"], r0, tol, maxit,
                          np.empty((0, 4)))


def _coulomb_violation(p, r):
    """Largest violation of 0 <= u_N ⊥ r_N >= 0, |r_T| <= mu r_N, stick or slip against u_T."""
    u = p["H"] @ (p["Minv"] @ (p["H"].T @ r)) + p["q"]
    worst = 0.0
    for c, mu in enumerate(p["mu"]):
        uN, uT, rN, rT = u[2 * c], u[2 * c + 1], r[2 * c], r[2 * c + 1]
        worst = max(worst, -uN, -rN, abs(uN * rN), abs(rT) - mu * rN)
        if abs(rT) < mu * rN * (1 - 1e-9):
            worst = max(worst, abs(uT))                # inside the cone: sticking
        elif mu > 0 and rN > 0:
            worst = max(worst, rT * uT)                # on the edge: slips against r_T
    return worst


@pytest.mark.parametrize("seed", range(4))
def test_same_iterates_as_nsgs_on_w(seed):
    rng = np.random.default_rng(seed)
    for bodies, nc in ((2, 1), (3, 4), (6, 10), (8, 20)):        # up to 40 rows on 24 coordinates
        p = _problem(rng, bodies, nc, zero_tangents=(0,) if seed == 3 else ())
        xptr, xcol, xval, wptr, wcol, wval = delassus_csr(p["rcols"], p["rvals"], p["rnnz"], *p["mi"], p["n"])
        W = np.zeros((2 * nc, 2 * nc))
        for i in range(2 * nc):
            W[i, wcol[wptr[i]:wptr[i + 1]]] = wval[wptr[i]:wptr[i + 1]]
        r0 = np.abs(rng.standard_normal(2 * nc)) * (seed % 2)
        for maxit in (3, 5000):       # mid-way and at the end
            rw, sw, itw, errw = nsgs_fc2d(W, p["q"], p["mu"], r0, 1e-12, maxit)
            rr, sr, itr, errr = _solve_rows(p, r0, 1e-12, maxit)
            assert itr == itw and sr == sw
            np.testing.assert_allclose(rr, rw, rtol=1e-9, atol=1e-11 * np.abs(rw).max())
        assert sr == SOLVED and errr <= 1e-12
        assert _coulomb_violation(p, rr) < 1e-10


def test_warm_start_at_the_answer_and_the_iteration_cap():
    rng = np.random.default_rng(7)
    p = _problem(rng, 5, 12)
    r, s, it, err = _solve_rows(p, np.zeros(24))
    assert s == SOLVED and it > 1
    r2, s2, it2, err2 = _solve_rows(p, r)
    assert s2 == SOLVED and it2 == 0 and np.array_equal(r2, r)
    r3, s3, it3, err3 = _solve_rows(p, np.zeros(24), 1e-14, 1)
    assert s3 == ITERATION_CAP and it3 == 1 and err3 > 1e-14


def _local_solve_reference(a, b, bp, d, qN, qT, mu):
    """The 2x2 contact problem by the candidates in NSGS's order (take-off, stick, slip +, slip -): the
    first that meets its own conditions, else the one of smallest residual, r = 0's counted first; and
    whether the residuals decided."""
    def residual(rN, rT, uN, uT):
        t = min(max(rT - uT, -mu * max(rN, 0.0)), mu * max(rN, 0.0))
        return max(abs(min(rN, uN)), abs(rT - t))
    if qN >= 0.0:
        return 0.0, 0.0, False
    best = (residual(0.0, 0.0, qN, qT), 0.0, 0.0)
    det = a * d - b * bp
    if det > 1e-14 * a * d:
        rN, rT = (-qN * d + b * qT) / det, (-a * qT + bp * qN) / det
        if rN >= 0.0 and abs(rT) <= mu * rN:
            return rN, rT, False
        best = min(best, (residual(rN, rT, 0.0, 0.0), rN, rT), key=lambda x: x[0])
    for s in (1.0, -1.0):
        den = a - s * mu * b
        if den > 1e-14 * a:
            rN = -qN / den
            rT = -s * mu * rN
            uT = (bp - s * mu * d) * rN + qT
            if rN >= 0.0 and s * uT >= 0.0:
                return rN, rT, False
            e = residual(rN, rT, a * rN + b * rT + qN, uT)
            if e < best[0]:
                best = (e, rN, rT)
    return best[1], best[2], True


def test_local_solve_is_the_candidates_rule():
    """The local solve against the rule written out (it computes r = 0's residual only once a candidate
    fails): the same percussions bit for bit on random blocks, non-symmetric and indefinite ones too,
    where no candidate meets its conditions and the smallest residual decides."""
    from nsgui.engine.solvers.nsgs import _local_solve
    rng = np.random.default_rng(11)
    fallbacks = 0
    for _ in range(4000):
        a = rng.uniform(0.1, 2.0)
        b, bp, d = rng.uniform(-2.0, 2.0, 3)
        qN, qT = rng.uniform(-1.0, 0.2), rng.uniform(-1.0, 1.0)
        mu = rng.choice([0.0, 0.3, 1.5])
        got = _local_solve(a, b, bp, d, qN, qT, mu, mu <= 0.0)
        if mu <= 0.0:
            assert got == ((-qN / a, 0.0) if qN < 0.0 else (0.0, 0.0))
            continue
        rN, rT, by_residual = _local_solve_reference(a, b, bp, d, qN, qT, mu)
        assert got == (rN, rT)
        fallbacks += by_residual
    assert fallbacks > 100
