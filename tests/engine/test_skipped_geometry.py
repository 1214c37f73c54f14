"""The stepping loop's geometry skips the candidate points out of reach when nothing records their gaps
(evaluation.evaluate_skipping): a skipped point is provably inactive in the next step and never the
smallest gap, the others' geometry is the full evaluation's bit for bit, and a run that records no
contact signal ends in the state, and passes through the positions, of a run that records them all."""
import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import CI_BBODY, CI_BTYPE, FS_ACTIVATION, FS_GAMMA, FS_H, POLYGON
from nsgui.engine.evaluation import evaluate, evaluate_skipping
from tests.engine.test_heaps import HEAPS


def _landing(rows=4, steps=60):
    model = compile_scene(HEAPS["box_pyramid"](rows))
    sim = Simulator(model)
    sim.run(steps, record=False)   # the rows fall and land: some pushed, some approaching
    return model, sim


def _geometry(sim):
    d = sim._data
    return d.gap.copy(), d.nrm.copy(), d.pa.copy(), d.pb.copy(), d.un.copy()


@pytest.mark.parametrize("spin", [0.0, 3.0])
def test_skipped_points_are_out_of_reach(spin):
    """With the bodies' velocities made large (up to 2 m/s, `spin` rad/s), each skipped point's exact gap
    stays above its stand-in lower bound, and neither its gap nor its approach can activate it."""
    model, sim = _landing()
    d, a = sim._data, model.arrays
    rng = np.random.default_rng(3)
    d.v[:] = rng.uniform(-2.0, 2.0, d.v.shape)
    d.v[2::3] = rng.uniform(-spin, spin, d.v[2::3].shape)   # free bodies: x, y, theta
    m, dd = sim._args
    evaluate_skipping(m, dd, False)
    lazy = _geometry(sim)
    evaluate(m, dd, False)
    gap, nrm, pa, pb, un = _geometry(sim)
    skipped = (lazy[1] == 0.0).all(axis=1) & (a.ci[:, CI_BTYPE] == POLYGON) & (a.ci[:, CI_BBODY] >= 0)
    assert 0 < skipped.sum() < skipped.size
    kept = ~skipped
    for x, y in zip(lazy, (gap, nrm, pa, pb, un)):
        np.testing.assert_array_equal(x[kept], y[kept])
    gh, threshold = a.fs[FS_GAMMA] * a.fs[FS_H], a.fs[FS_ACTIVATION]
    assert (lazy[0][skipped] > max(threshold, 0.0)).all() and (lazy[0][skipped] <= gap[skipped]).all()
    assert (lazy[4][skipped] == 0.0).all()
    assert (gap[skipped] + gh * np.minimum(un[skipped], 0.0) > threshold).all()


def test_nothing_skipped_when_a_point_is_deep():
    """A point deeper than the projection tolerance: the projection takes in every point closer than the
    deepest, so the whole geometry is computed."""
    model, sim = _landing()
    m, d = sim._args
    names = model.coord_names
    sim._data.q[names.index("box1_0.y")] -= 0.05      # into the boxes below
    evaluate_skipping(m, d, False)
    lazy = _geometry(sim)
    evaluate(m, d, False)
    for x, y in zip(lazy, _geometry(sim)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("rows, steps", [(4, 600), (10, 1500)])
def test_a_run_without_contact_signals_is_the_full_run(rows, steps):
    """Landing and at rest (the 10-row pyramid: 55 boxes, whose resting near list leaves 180 quiet corners
    out, near_candidates.py): the positions at every step, the end state (the skipped points' exact
    geometry restored before the call returns) and the statistics (the largest penetration) are those of a
    run recording every signal, bit for bit."""
    model = compile_scene(HEAPS["box_pyramid"](rows))
    full, lean = Simulator(model), Simulator(model)
    qcols = [n for n in model.signal_names if n.startswith("q.")]
    rows = full.run(steps)
    q = lean.run(steps, signals=qcols)
    np.testing.assert_array_equal(q, rows[:, [model.signal_names.index(n) for n in qcols]])
    for name in ("q", "v", "lamN", "lamT", "status", "gap", "nrm", "pa", "pb", "un", "stats"):
        np.testing.assert_array_equal(getattr(lean._data, name), getattr(full._data, name), err_msg=name)
    assert lean.stats == full.stats
