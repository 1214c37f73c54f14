"""NSGS's momentum stage (nsgs.nsgs_fc2d_rows, from sweep MOMENTUM_FROM on: each sweep starts from the last
iterate pushed along its last step, projected onto the cones). It must not change what is solved: on the 55-box
pyramid's slow landing problems its answers meet the Coulomb-Signorini law at the stepper's tolerance
(computed here with numpy from u = H M⁻¹Hᵀ r + q, not by the engine's kernels) and give the velocities of an
independent answer (sweeps without momentum, the W form, run up to 50,000 sweeps: 3e-12 .. 2.6e-11).

data/pyramid55_landing_steps.npz: the friction problems of steps 79, 101 and 144 of make_heaps.box_pyramid(10)
(benchmarks/step_problems.py 10 0 300 PREFIX --pyramid --sweeps=20; 88-200 contacts on 165 coordinates,
W singular), stored with keys "<step>_<name>": the contact rows, M⁻¹, q, mu and the warm start."""
import os

import numpy as np
import pytest

from nsgui.engine.codes import SOLVED
from nsgui.engine.contact_rows import delassus_columns, delassus_csr
from nsgui.engine.solvers._linalg import csr_transpose
from nsgui.engine.solvers.nsgs import MOMENTUM_FROM, nsgs_fc2d_csr, nsgs_fc2d_rows

DATA = os.path.join(os.path.dirname(__file__), "data", "pyramid55_landing_steps.npz")
STEPS = (79, 101, 144)
TOL = 1e-10          # the scene's tolerance
MAXIT = 1000         # and sweep cap


def _load(step):
    z = np.load(DATA)
    p = {k.split("_", 1)[1]: z[k] for k in z.files if k.split("_", 1)[0] == str(step)}
    p["n"] = int(p["n"])
    m, n = p["q"].shape[0], p["n"]
    H = np.zeros((m, n))
    for i in range(m):
        H[i, p["rcols"][i, :p["rnnz"][i]]] = p["rvals"][i, :p["rnnz"][i]]
    Minv = np.zeros((n, n))
    for i in range(n):
        Minv[i, p["mi_col"][p["mi_ptr"][i]:p["mi_ptr"][i + 1]]] = p["mi_val"][p["mi_ptr"][i]:p["mi_ptr"][i + 1]]
    p["H"], p["Minv"] = H, Minv
    return p


def _rows(p, tol=TOL, maxit=MAXIT):
    cptr, ccol, cval = delassus_columns(p["rcols"], p["rvals"], p["rnnz"], p["mi_ptr"], p["mi_col"], p["mi_val"],
                                        p["n"])
    return nsgs_fc2d_rows(p["rcols"], p["rvals"], p["rnnz"], cptr, ccol, cval, p["n"], p["q"], p["mu"], p["r0"], tol,
                          maxit, np.empty((0, 4)))


def _u(p, r):
    return p["H"] @ (p["Minv"] @ (p["H"].T @ r)) + p["q"]


def _law_residual(p, r):
    """The largest natural-map residual of the Coulomb-Signorini law over max(1, |q|inf) (numpy)."""
    u = _u(p, r)
    rN, rT, uN, uT = r[0::2], r[1::2], u[0::2], u[1::2]
    eN = np.abs(np.minimum(rN, uN))
    bound = p["mu"] * np.maximum(rN, 0.0)
    eT = np.abs(rT - np.clip(rT - uT, -bound, bound))
    return max(eN.max(), eT.max()) / max(1.0, np.abs(p["q"]).max())


@pytest.mark.parametrize("step", STEPS)
def test_momentum_answer_meets_the_law(step):
    p = _load(step)
    r, st, it, err = _rows(p)
    assert st == SOLVED and it > MOMENTUM_FROM          # the momentum did run
    assert err <= TOL
    assert _law_residual(p, r) <= TOL * (1 + 1e-6)      # (summed in another order than the engine's)
    rN, rT = r[0::2], r[1::2]
    assert rN.min() >= 0.0 and np.all(np.abs(rT) <= p["mu"] * rN)   # in the cones, exactly (projected)


@pytest.mark.parametrize("step", STEPS)
def test_momentum_velocities_equal_an_independent_answer(step):
    """u (the contacts' velocities) of the momentum's answer against those of plain sweeps with Aitken's
    extrapolation (the W form, which has no momentum) run long: percussions differ (W is singular, the
    corners redundant), velocities agree to the tolerance's order (the law's residual bounds |u| on the
    sticking contacts by TOL)."""
    p = _load(step)
    r, st, it, err = _rows(p)
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(p["rcols"], p["rvals"], p["rnnz"], p["mi_ptr"], p["mi_col"],
                                                      p["mi_val"], p["n"])
    tptr, tcol, tval = csr_transpose(wptr, wcol, wval, p["q"].shape[0])
    rref, stref, itref, erref = nsgs_fc2d_csr(wptr, wcol, wval, tptr, tcol, tval, p["q"], p["mu"], p["r0"], 1e-11,
                                              50000)
    assert _law_residual(p, rref) <= 3e-11          # (the sweeps stall at 3e-12 .. 2.6e-11: r drifts in W's null space)
    u, uref = _u(p, r), _u(p, rref)
    assert np.abs(u - uref).max() <= 10 * TOL * max(1.0, np.abs(p["q"]).max())
    # the bodies' velocity change M⁻¹Hᵀr too (their motion, what the step keeps)
    dv, dvref = p["Minv"] @ (p["H"].T @ r), p["Minv"] @ (p["H"].T @ rref)
    assert np.abs(dv - dvref).max() <= 1e-6 * np.abs(dvref).max()


@pytest.mark.parametrize("step", STEPS)
def test_sweeps_before_the_momentum_are_the_w_forms(step):
    """Up to MOMENTUM_FROM sweeps the rows form's iterates are nsgs_fc2d_csr's (the W form), up to round-off."""
    p = _load(step)
    r, st, it, err = _rows(p, TOL, MOMENTUM_FROM)
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(p["rcols"], p["rvals"], p["rnnz"], p["mi_ptr"], p["mi_col"],
                                                      p["mi_val"], p["n"])
    tptr, tcol, tval = csr_transpose(wptr, wcol, wval, p["q"].shape[0])
    rw, sw, itw, errw = nsgs_fc2d_csr(wptr, wcol, wval, tptr, tcol, tval, p["q"], p["mu"], p["r0"], TOL,
                                      MOMENTUM_FROM)
    assert it == itw == MOMENTUM_FROM
    np.testing.assert_allclose(r, rw, rtol=1e-9, atol=1e-11 * np.abs(rw).max())
