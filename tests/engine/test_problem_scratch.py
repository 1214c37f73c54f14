"""The general step problem's rows in Data's scratch (Data.gp_*, stepper._solve_general when NSGS solves it
on the rows): nothing of a former problem is read, whatever its size, so a run whose scratch is filled with
garbage before every step is the run with fresh arrays bit for bit, on a landing pyramid whose problem
grows and shrinks from step to step, also where NSGS stalls and the general path keeps the rows
(delassus_kept: arrays of their own, never the scratch); and the answers meet the contact law."""
import numpy as np
import pytest
from numba import njit

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import FS_H, IS_MAXIT
from tests.engine.test_heaps import HEAPS

SCRATCH = ("gp_cols", "gp_vals", "gp_nnz", "gp_vec", "gp_mu", "gp_act0", "gp_cptr", "gp_ccol", "gp_cval", "gp_blk")


def _scribble(d, rng):
    """Every scratch entry overwritten: columns in range (a read would not crash but give other numbers),
    values NaN or huge, counts and flags at random."""
    n = d.q.shape[0]
    width = d.gp_cols.shape[1]
    d.gp_cols[:] = rng.integers(0, n, d.gp_cols.shape)
    d.gp_vals[:] = np.where(rng.random(d.gp_vals.shape) < 0.5, np.nan, 1e30)
    d.gp_nnz[:] = rng.integers(0, width + 1, d.gp_nnz.shape)
    d.gp_vec[:] = np.nan
    d.gp_mu[:] = rng.uniform(-1.0, 5.0, d.gp_mu.shape)
    d.gp_act0[:] = rng.random(d.gp_act0.shape) < 0.5
    # X's columns and the blocks (written in the rows' pass)
    d.gp_cptr[:] = rng.integers(0, d.gp_ccol.shape[0] + 1, d.gp_cptr.shape)
    d.gp_ccol[:] = rng.integers(0, n, d.gp_ccol.shape)
    d.gp_cval[:] = np.where(rng.random(d.gp_cval.shape) < 0.5, np.nan, 1e30)
    d.gp_blk[:] = np.nan


def _state(sim):
    d = sim._data
    return d.q.copy(), d.v.copy(), d.lamN.copy(), d.lamT.copy(), d.status.copy(), d.stats.copy()


def _twin_runs(model, steps):
    """A clean run and one scribbled before every step, compared after every step; the pushed counts."""
    clean, dirty = Simulator(model), Simulator(model)
    rng = np.random.default_rng(5)
    pushed = []
    for _ in range(steps):
        clean.run(1, record=False)
        _scribble(dirty._data, rng)
        dirty.run(1, record=False)
        for a, b in zip(_state(clean), _state(dirty)):
            np.testing.assert_array_equal(a, b)
        pushed.append(int((clean._data.lamN > 0.0).sum()))
    return clean, dirty, pushed


def test_scribbled_scratch_changes_nothing_on_a_landing():
    """The 10-box pyramid falling, landing and settling: the problem's size changes from step to step."""
    model = compile_scene(HEAPS["box_pyramid"](4))
    _clean, _dirty, pushed = _twin_runs(model, 160)
    assert len(set(pushed)) >= 5 and max(pushed) >= 20   # sizes really changed, up to the resting set


def test_stalled_sweeps_keep_rows_of_their_own():
    """NSGS capped at 2 sweeps stalls on the landing: the general path (Lemke) takes over with copies of the
    rows, which d.sp_kept keeps (the scratch is overwritten at the next step); the same run bit for bit."""
    model = compile_scene(HEAPS["box_pyramid"](4))
    model.arrays.isets[IS_MAXIT] = 2
    clean, dirty, pushed = _twin_runs(model, 120)
    assert max(pushed) >= 10
    kept = _kept_rows(dirty._args[1])   # (the structref's field: the kernels assign it)
    assert kept[0].shape[0] >= 20       # the general path took the stalled problems (Lemke) and kept their rows
    for arr in kept:
        for name in SCRATCH:
            assert not np.shares_memory(arr, getattr(dirty._data, name))


@njit
def _kept_rows(d):
    k = d.sp_kept
    return k[0], k[1], k[2]


def test_resting_answer_meets_the_contact_law():
    """A resting step of the 10-box pyramid (the rows path with the scratch): at the start-of-step
    Jacobians, each pushed contact's normal velocity after the step is zero (plastic, e = 0 in this scene's
    pushed contacts) and its percussion is in the friction cone, sticking ones with zero tangential
    velocity; the percussions carry the weight over the step."""
    scene = HEAPS["box_pyramid"](4)
    model = compile_scene(scene)
    sim = Simulator(model)
    sim.run(600, record=False)
    q0 = sim._data.q.copy()
    sim.run(1, record=False)
    d = sim._data
    HN, HT = model.contact_jacobians(q0)
    uN, uT = HN @ d.v, HT @ d.v
    lamN, lamT = d.lamN, d.lamT
    pushed = lamN > 0.0
    assert pushed.sum() >= 20
    friction = {c.name: c.friction for c in scene.contacts}
    mu = np.array([friction[name.split("[")[0]] for name in model.contact_names])
    assert np.all(np.abs(uN[pushed]) <= 1e-8)
    assert np.all(np.abs(lamT[pushed]) <= mu[pushed] * lamN[pushed] * (1 + 1e-12) + 1e-15)
    inside = pushed & (np.abs(lamT) < mu * lamN * (1 - 1e-6))
    assert inside.sum() > 0 and np.all(np.abs(uT[inside]) <= 1e-8)
    # the ground's percussions over the step carry the boxes' weight (at rest to the solver's tolerance)
    h = model.arrays.fs[FS_H]
    ground = np.array([name.split("[")[0].endswith("_ground") for name in model.contact_names])
    weight = sum(b.mass for b in scene.bodies) * 9.81
    assert lamN[ground].sum() / h == pytest.approx(weight, rel=1e-8)
