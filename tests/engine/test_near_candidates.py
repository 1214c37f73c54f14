"""A lazy run's near candidates (near_candidates.py): a candidate left out of the list is one
evaluate_skipping skips at every step until the list is rebuilt, so the steps are those without the list
(test_skipped_geometry.py's full run against the lean one checks the whole run bit for bit)."""
import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import CI_BBODY, CI_BTYPE, POLYGON
from nsgui.engine.evaluation import evaluate, evaluate_skipping
from nsgui.engine.near_candidates import _near_valid, evaluate_near, new_near
from tests.engine.test_heaps import HEAPS


def _at_rest(rows=4, steps=400):
    model = compile_scene(HEAPS["box_pyramid"](rows))
    sim = Simulator(model)
    sim.run(steps, record=False)
    return model, sim


def _geometry(d):
    return d.gap.copy(), d.nrm.copy(), d.pa.copy(), d.pb.copy(), d.un.copy()


def _built(model, sim):
    m, d = sim._args
    live, ref = new_near(len(model.arrays.ci), sim._data.kin.pos.shape[0])
    evaluate_near(m, d, False, live, ref)
    return live, ref


def test_the_list_leaves_out_far_points_only():
    """At rest most candidate points are left out, each a point against a polygon on a body, not pushed,
    whose exact gap exceeds the skin."""
    model, sim = _at_rest()
    a, dd = model.arrays, sim._data
    live, ref = _built(model, sim)
    out = np.ones(len(a.ci), bool)
    out[live[1:live[0] + 1]] = False
    assert 0 < live[0] < len(a.ci) and out.sum() > len(a.ci) // 2
    assert np.all(np.diff(live[1:live[0] + 1]) > 0)   # in candidate order: activation's order
    assert (a.ci[out, CI_BTYPE] == POLYGON).all() and (a.ci[out, CI_BBODY] >= 0).all()
    assert (dd.lamN[out] == 0.0).all()
    m, d = sim._args
    evaluate(m, d, False)
    skin = ref[-1, 0]
    assert skin > 0.0 and (dd.gap[out] > skin).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_left_out_points_stay_skipped_while_the_list_holds(seed):
    """The pyramid spread apart (positions scaled by 1 + s from the ground: no overlap), each box turned and
    set moving at random, s from 1e-5 to 0.05: whenever the list still holds, every point it leaves out is
    one evaluate_skipping skips, and the live ones' geometry is evaluate_skipping's bit for bit; spread
    farther, the list no longer holds."""
    model, sim = _at_rest()
    m, dd = sim._args
    d = sim._data
    live, ref = _built(model, sim)
    q0, v0 = d.q.copy(), d.v.copy()
    rng = np.random.default_rng(seed)
    held = dropped = 0
    for s in np.geomspace(1e-5, 0.05, 40):
        d.q[:] = q0 * (1.0 + s)
        d.q[2::3] = q0[2::3] + rng.uniform(-0.1, 0.1, q0[2::3].shape) * s   # free boxes: x, y, theta
        d.v[:] = v0 + rng.uniform(-10.0, 10.0, v0.shape) * s
        keep = live.copy()
        evaluate_skipping(m, dd, False)
        lazy = _geometry(d)
        if not _near_valid(m, dd, ref):
            dropped += 1
            continue
        held += 1
        out = np.ones(len(model.arrays.ci), bool)
        out[keep[1:keep[0] + 1]] = False
        assert (lazy[1][out] == 0.0).all() and (lazy[4][out] == 0.0).all()   # skipped: no normal
        before = _geometry(d)
        evaluate_near(m, dd, False, live, ref)   # the list holds: not rebuilt
        np.testing.assert_array_equal(live, keep)
        for x, y in zip(_geometry(d), lazy):
            np.testing.assert_array_equal(x[~out], y[~out])
        for x, y in zip(_geometry(d), before):   # the ones left out are not touched
            np.testing.assert_array_equal(x[out], y[out])
    assert held > 5 and dropped > 5
