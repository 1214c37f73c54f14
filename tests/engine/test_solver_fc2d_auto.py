"""The `auto` friction solver (solvers/fc2d_auto.py) on a stored hyperstatic step problem, checked
against the Coulomb–Signorini conditions computed here, contact by contact.

data/hyperstatic_step.npz is step 96 of make_heaps.disk_pile(10, 5) (45 disks landing, 29 active
contacts): W (58 × 58, rank 47) in compressed sparse rows, the free velocity q, the friction coefficients
and the last step's percussions r0 (the warm start). NSGS alone stalls on it above 1e-4.
data/pile200_ray_step.npz is the step at t = 0.204 s of make_heaps.disk_pile() (200 disks, 309 active
contacts, W 618 × 618 of rank 514), stored the same way: Lemke on W ends there on a ray (a basis made
singular by a pivot of round-off size), so the run stopped.
data/pile45_cycling_step.npz is step 542 of make_heaps.disk_pile(10, 5) (82 active contacts, W 164 × 164),
stored the same way: Lemke cycles there on degenerate vertices until its pivot cap, near an answer.
data/pile45_drift_step.npz is step 239 of make_heaps.disk_pile(10, 5) (84 active contacts, W 168 × 168),
stored the same way: NSGS stalls there with u still and r walking along W's null space."""
import os

import numpy as np

from nsgui.engine.codes import ITERATION_CAP, SOLVED
from nsgui.engine.solvers._linalg import csr_from_dense, csr_transpose
from nsgui.engine.solvers.fc2d_auto import fc2d_auto_csr
from nsgui.engine.solvers.lemke_fc2d import lemke_fc2d
from nsgui.engine.solvers.nsgs import nsgs_fc2d_csr

TOL = 1e-10
DATA = os.path.join(os.path.dirname(__file__), "data")


def _stored(name="hyperstatic_step.npz"):
    with np.load(os.path.join(DATA, name)) as f:
        ptr, col, val = (f[k].astype(t) for k, t in (("indptr", np.int64), ("indices", np.int64),
                                                      ("data", float)))
        return ptr, col, val, f["q"], f["mu"], f["r0"]


def _dense(ptr, col, val):
    m = len(ptr) - 1
    W = np.zeros((m, m))
    for i in range(m):
        W[i, col[ptr[i]:ptr[i + 1]]] = val[ptr[i]:ptr[i + 1]]
    return W


def _coulomb_violation(W, q, mu, r):
    """The largest violation of 0 <= r_N ⊥ u_N >= 0, |r_T| <= mu r_N, and (where the contact slides,
    |u_T| > 0) r_T = -mu r_N sign(u_T), with u = W r + q; in the units of r and u."""
    u = W @ r + q
    rN, rT, uN, uT = r[0::2], r[1::2], u[0::2], u[1::2]
    worst = max(np.max(-rN, initial=0.0), np.max(-uN, initial=0.0), np.max(np.minimum(np.abs(rN), np.abs(uN))))
    worst = max(worst, np.max(np.abs(rT) - mu * rN, initial=0.0))
    slide = np.abs(uT) > TOL
    if slide.any():   # a sliding contact: friction on the cone's edge, against the slip
        worst = max(worst, np.max(np.abs(rT[slide] + mu[slide] * rN[slide] * np.sign(uT[slide]))))
    return worst


def _args(ptr, col, val):
    return (ptr, col, val) + csr_transpose(ptr, col, val, len(ptr) - 1)


def test_stored_problem_is_hyperstatic_and_stalls_nsgs():
    ptr, col, val, q, mu, r0 = _stored()
    W = _dense(ptr, col, val)
    assert W.shape == (58, 58) and np.linalg.matrix_rank(W) < W.shape[0]   # the percussions are not unique
    r, st, it, err = nsgs_fc2d_csr(*_args(ptr, col, val), q, mu, r0, TOL, 1000)
    assert st == ITERATION_CAP and err > 1e-4


def test_auto_solves_the_hyperstatic_step():
    ptr, col, val, q, mu, r0 = _stored()
    W = _dense(ptr, col, val)
    r, st, it, err = fc2d_auto_csr(*_args(ptr, col, val), q, mu, r0, TOL, 1000)
    assert st == SOLVED and err <= TOL
    assert _coulomb_violation(W, q, mu, r) <= TOL * max(1.0, np.abs(q).max())
    assert r[0::2].sum() > 0.0   # it carries something (q pushes the contacts together)


def test_auto_solves_the_step_where_lemke_ends_on_a_ray():
    """Lemke on W stops on a ray here; the auto solver's Lemke on W + d I (d = 1e-11 of W's largest
    diagonal entry, solvers/fc2d_auto.py) gives an answer of the unshifted problem to the tolerance."""
    ptr, col, val, q, mu, r0 = _stored("pile200_ray_step.npz")
    W = _dense(ptr, col, val)
    assert W.shape == (618, 618) and np.linalg.matrix_rank(W) < W.shape[0]
    r, st, it, err = fc2d_auto_csr(*_args(ptr, col, val), q, mu, r0, TOL, 1000)
    assert st == SOLVED and err <= TOL
    assert _coulomb_violation(W, q, mu, r) <= TOL * max(1.0, np.abs(q).max())
    assert r[0::2].sum() > 0.0


def test_auto_keeps_nsgs_answers_where_nsgs_converges():
    rng = np.random.default_rng(7)
    solved = 0
    for _ in range(20):
        nc = rng.integers(1, 6)
        H = rng.normal(size=(2 * nc, 3 * nc))
        W = H @ H.T + 0.1 * np.eye(2 * nc)
        q = rng.normal(size=2 * nc)
        mu = rng.uniform(0.1, 0.8, nc)
        ptr, col, val = csr_from_dense(W)
        r0 = np.zeros(2 * nc)
        a = nsgs_fc2d_csr(*_args(ptr, col, val), q, mu, r0, TOL, 5000)
        b = fc2d_auto_csr(*_args(ptr, col, val), q, mu, r0, TOL, 5000)
        if a[1] == SOLVED:
            assert b[1] == SOLVED and np.array_equal(a[0], b[0]) and a[2] == b[2] and a[3] == b[3]
            solved += 1
    assert solved >= 15


def test_auto_takes_lemkes_checked_answer_where_lemke_cycles():
    """Lemke runs to its pivot cap on this step, at a point that meets the tolerance: the auto solver takes
    it (checked by NSGS's measure) instead of running the shifted Lemke three times more, each to the cap
    (33,200 pivots in all with 100 a contact, 0.5 s of CPU); its cap is 25 pivots a contact."""
    ptr, col, val, q, mu, r0 = _stored("pile45_cycling_step.npz")
    W = _dense(ptr, col, val)
    nc = len(mu)
    r, st, it, err = fc2d_auto_csr(*_args(ptr, col, val), q, mu, r0, TOL, 1000)
    assert st == SOLVED and err <= TOL
    assert _coulomb_violation(W, q, mu, r) <= TOL * max(1.0, np.abs(q).max())
    assert it <= 1000 + 25 * nc + 100   # the sweeps and one Lemke run


def test_stalled_nsgs_keeps_u_still_at_a_point_that_is_no_answer():
    """Where NSGS stalls with u still from sweep to sweep (to 1e-13) and r walking along W's null space,
    u is not the answer's velocity (Lemke's, exact to 1e-14, differs by over 1e-8): a stopping test that
    accepted a still u (with r's drift removed) would accept a wrong step (docs/benchmarks.md, session 11)."""
    ptr, col, val, q, mu, r0 = _stored("pile45_drift_step.npz")
    W = _dense(ptr, col, val)
    r1, st, _, err = nsgs_fc2d_csr(*_args(ptr, col, val), q, mu, r0, TOL, 1000)
    r2 = nsgs_fc2d_csr(*_args(ptr, col, val), q, mu, r1, TOL, 1000)[0]
    assert st == ITERATION_CAP and err > 10 * TOL
    assert np.abs(W @ (r2 - r1)).max() < 1e-13 and np.abs(r2 - r1).max() > 1e-7
    rl, stl, _ = lemke_fc2d(W, q, mu, 10_000)
    assert stl == SOLVED and _coulomb_violation(W, q, mu, rl) <= 1e-14
    assert np.abs(W @ (rl - r1)).max() > 1e-8
