"""NSGS without the Delassus matrix (nsgs.nsgs_fc2d_rows): the stepper's friction problems with a
constant M⁻¹ are solved from the contact rows H and X = M⁻¹Hᵀ, keeping v - v_free = X r instead of
forming W = H X. Its first MOMENTUM_FROM iterates are those of nsgs_fc2d_csr on W (the same local solves on
the same 2×2 blocks), up to round-off (then it adds momentum: test_nsgs_momentum.py): checked against it and
against the Coulomb-Signorini conditions computed here from u = H (v_free + M⁻¹Hᵀr)."""
import numpy as np
import pytest

from nsgui.engine.codes import ITERATION_CAP, SOLVED
from nsgui.engine.contact_rows import delassus_columns, delassus_csr
from nsgui.engine.solvers import nsgs_fc2d
from nsgui.engine.solvers._linalg import csr_from_dense
from nsgui.engine.solvers.nsgs import MOMENTUM_FROM, nsgs_fc2d_rows


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
        for maxit in (3, MOMENTUM_FROM, 5000):       # mid-way, where the rows form's momentum starts, the end
            rw, sw, itw, errw = nsgs_fc2d(W, p["q"], p["mu"], r0, 1e-12, maxit)
            rr, sr, itr, errr = _solve_rows(p, r0, 1e-12, maxit)
            if min(itr, itw) <= MOMENTUM_FROM:
                assert itr == itw and sr == sw
                np.testing.assert_allclose(rr, rw, rtol=1e-9, atol=1e-11 * np.abs(rw).max())
        # (beyond MOMENTUM_FROM sweeps the rows form sweeps from other points: the same answer, by the law)
        assert sr == SOLVED and errr <= 1e-12 and sw == SOLVED
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



def test_local_solve_takes_the_smallest_residual_when_no_candidate_holds():
    """The local solve computes r = 0's residual only once a candidate fails its conditions. On random
    blocks (non-symmetric and indefinite ones too, where often no candidate holds) its answer is a
    2x2 Coulomb-Signorini solution when one of the candidates (stick, slip either way) is, else none of
    them, r = 0 included, has a smaller residual."""
    from nsgui.engine.solvers.nsgs import _local_solve
    from nsgui.engine.solvers.residuals import fc2d_contact_residual as res
    rng = np.random.default_rng(11)
    undecided = 0
    for _ in range(4000):
        A = np.array([[rng.uniform(0.1, 2.0), 0.0], [0.0, 0.0]])
        A[0, 1], A[1, 0], A[1, 1] = rng.uniform(-2.0, 2.0, 3)
        q = np.array([rng.uniform(-1.0, -0.01), rng.uniform(-1.0, 1.0)])
        mu = rng.choice([0.3, 1.5])
        got = np.array(_local_solve(A[0, 0], A[0, 1], A[1, 0], A[1, 1], q[0], q[1], mu, False))
        dens = [(A[0, 0] - s * mu * A[0, 1], s) for s in (1.0, -1.0)]   # slip either way (where it can)
        cands = [np.zeros(2)] + [np.array([1.0, -s * mu]) * (-q[0] / den) for den, s in dens if den > 1e-14 * A[0, 0]]
        errs = [res(r[0], r[1], *(A @ r + q), mu) for r in cands]
        if np.linalg.det(A) > 1e-14 * A[0, 0] * A[1, 1]:   # stick: u = 0 (its residual at u = 0)
            r = np.linalg.solve(A, -q)
            errs.append(res(r[0], r[1], 0.0, 0.0, mu))
        e = res(got[0], got[1], *(A @ got + q), mu)
        if min(errs) < 1e-9:
            assert e < 1e-9
        else:
            undecided += 1
            assert e <= min(errs) + 1e-9
    assert undecided > 100


def test_residual_scan_decides_as_the_whole_scan():
    """The sweeps' error test stops at the first contact whose residual / norm exceeds tol (scanning from
    a given contact, wrapping round): it must decide err <= tol exactly as the largest residual of every
    contact does, return a lower bound of it (the stopping contact's residual or more), and without a
    stop give fc2d_largest_residual's number itself."""
    from nsgui.engine.solvers.nsgs import _scan_residuals
    from nsgui.engine.solvers.residuals import fc2d_contact_residual, fc2d_largest_residual
    rng = np.random.default_rng(7)
    p = _problem(rng, 8, 20)
    cptr, ccol, cval = delassus_columns(p["rcols"], p["rvals"], p["rnnz"], *p["mi"], p["n"])
    W = p["H"] @ p["Minv"] @ p["H"].T
    for trial in range(20):
        r = np.abs(rng.standard_normal(40)) * (trial % 3)
        dv = p["Minv"] @ (p["H"].T @ r)
        u_all = p["q"].copy()  # q + H dv, each row summed in its order as the scan sums it
        for i in range(40):
            acc = 0.0
            for kk in range(p["rnnz"][i]):
                acc += p["rvals"][i, kk] * dv[p["rcols"][i, kk]]
            u_all[i] += acc
        errs = np.array([fc2d_contact_residual(r[2 * c], r[2 * c + 1], u_all[2 * c], u_all[2 * c + 1], p["mu"][c])
                         for c in range(20)])
        norm = max(1.0, np.abs(p["q"]).max())
        full, at = _scan_residuals(p["rcols"], p["rvals"], p["rnnz"], p["q"], dv, r, p["mu"], 20, norm, 0.0, -1)
        assert at == -1 and full == errs.max()
        np.testing.assert_allclose(full, fc2d_largest_residual(W @ r + p["q"], r, p["mu"], 20), rtol=1e-9)
        for tol in np.r_[np.sort(errs / norm)[[0, 5, 10, 19]], 0.0]:
            for first in (0, 7, 19):
                e, at = _scan_residuals(p["rcols"], p["rvals"], p["rnnz"], p["q"], dv, r, p["mu"], 20, norm, tol,
                                        first)
                assert (e / norm <= tol) == (full / norm <= tol)
                if at >= 0:  # stopped at a contact over the tolerance, the first such one from `first` on
                    assert errs[at] / norm > tol and errs[at] <= e <= full
                    assert not (errs[[(first + k) % 20 for k in range((at - first) % 20)]] / norm > tol).any()
                else:
                    assert e == full
