"""A lazy run's near candidates (near_candidates.py): a candidate left out of the list is one
evaluate_skipping skips at every step until the list is rebuilt, so the steps are those without the list
(test_skipped_geometry.py's full run against the lean one checks the whole run bit for bit)."""
import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import CI_BBODY, CI_BTYPE, FS_ACTIVATION, FS_GAMMA, FS_H, POLYGON, ST_MINGAP
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


def _lists(live, nc):
    """(left out, quiet): the candidates out of reach by the skin, and those in reach but quiet."""
    reach = np.ones(nc, bool)
    reach[live[nc + 2:nc + 2 + live[nc + 1]]] = False
    out = np.ones(nc, bool)
    out[live[1:live[0] + 1]] = False
    return reach, out & ~reach


def test_the_list_leaves_out_far_points_only():
    """At rest most candidate points are left out, each a point against a polygon on a body, not pushed,
    whose exact gap exceeds the skin; and the quiet ones (in reach), whose exact gap exceeds the quiet
    skin and is not the smallest gap."""
    model, sim = _at_rest()
    a, dd = model.arrays, sim._data
    nc = len(a.ci)
    dd.stats[ST_MINGAP] = 0.0   # (a run that records keeps it: the rest's contacts, gap ~ 0)
    live, ref = _built(model, sim)
    far, quiet = _lists(live, nc)
    out = far | quiet
    assert 0 < live[0] < live[nc + 1] < nc and far.sum() > nc // 2 and quiet.sum() >= 10
    for lst in (live[1:live[0] + 1], live[nc + 2:nc + 2 + live[nc + 1]]):
        assert np.all(np.diff(lst) > 0)   # in candidate order: activation's order
    assert (a.ci[out, CI_BTYPE] == POLYGON).all() and (a.ci[out, CI_BBODY] >= 0).all()
    assert (dd.lamN[out] == 0.0).all()
    m, d = sim._args
    evaluate(m, d, False)
    skin, quiet_skin = ref[-1, 0], ref[-1, 1]
    assert 0.0 < quiet_skin < skin and (dd.gap[far] > skin).all() and (dd.gap[quiet] > quiet_skin).all()
    assert (dd.gap[quiet] < skin).any()   # some quiet ones are closer than the skin: the finer tier's gain


def test_no_quiet_candidate_before_a_smallest_gap_is_known():
    """A run that keeps no smallest gap (ST_MINGAP = inf) gets no quiet candidate: one could be it."""
    model, sim = _at_rest()
    nc = len(model.arrays.ci)
    sim._data.stats[ST_MINGAP] = np.inf
    live, ref = _built(model, sim)
    assert live[0] == live[nc + 1] and ref[-1, 1] == ref[-1, 0]


def _spread_and_check(model, sim, live, ref, seed, skin, smallest=1e-5):
    """The pyramid spread apart (positions scaled by 1 + s from the ground: no overlap), each box turned and
    set moving at random (up to 10 s / 0.05 times the speed that crosses the skin in γ h), s from `smallest`
    to 0.05: whenever the list still holds, every point it leaves out of reach is one evaluate_skipping skips;
    while its quiet tier holds too, every quiet point is inactive (its exact gap + γ h U_N above the
    activation threshold) and not the smallest gap, else the list is every candidate in reach again; the
    live ones' geometry is evaluate_skipping's bit for bit. Returns how many times the list held, how many
    times its quiet tier held, and how many times the list did not."""
    m, dd = sim._args
    d = sim._data
    nc = len(model.arrays.ci)
    q0, v0 = d.q.copy(), d.v.copy()
    rng = np.random.default_rng(seed)
    fs = model.arrays.fs
    gh = fs[FS_GAMMA] * fs[FS_H]
    crossing = skin / gh
    held = quiet_held = dropped = 0
    for s in np.geomspace(smallest, 0.05, 40):
        d.q[:] = q0 * (1.0 + s)
        d.q[2::3] = q0[2::3] + rng.uniform(-0.1, 0.1, q0[2::3].shape) * s   # free boxes: x, y, theta
        d.v[:] = v0 + rng.uniform(-1.0, 1.0, v0.shape) * 10.0 * s / 0.05 * crossing
        keep = live.copy()
        far, quiet = _lists(keep, nc)
        evaluate(m, dd, False)
        exact = _geometry(d)
        evaluate_skipping(m, dd, False)
        lazy = _geometry(d)
        valid = _near_valid(m, dd, ref)
        if not valid:
            dropped += 1
            continue
        held += 1
        assert (lazy[1][far] == 0.0).all() and (lazy[4][far] == 0.0).all()   # skipped: no normal
        if valid == 1:
            quiet_held += 1
            assert (exact[0][quiet] + gh * exact[4][quiet] > fs[FS_ACTIVATION]).all(), "a quiet point active"
            assert (exact[0][quiet] > d.stats[ST_MINGAP]).all()
            out = far | quiet
        else:
            out = far
        before = _geometry(d)
        evaluate_near(m, dd, False, live, ref)   # the list holds: not rebuilt
        if valid == 1:
            np.testing.assert_array_equal(live, keep)
        else:   # every candidate in reach live again
            np.testing.assert_array_equal(live[:live[0] + 1], keep[nc + 1:nc + 2 + keep[nc + 1]])
        for x, y in zip(_geometry(d), lazy):
            np.testing.assert_array_equal(x[~out], y[~out])
        for x, y in zip(_geometry(d), before):   # the ones left out are not touched
            np.testing.assert_array_equal(x[out], y[out])
    return held, quiet_held, dropped


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_left_out_points_stay_skipped_while_the_list_holds(seed):
    """_spread_and_check: the list holds for the small spreads, and not past the skin; its quiet tier for
    the smallest."""
    model, sim = _at_rest()
    sim._data.stats[ST_MINGAP] = 0.0
    live, ref = _built(model, sim)
    held, quiet_held, dropped = _spread_and_check(model, sim, live, ref, seed, ref[-1, 0], 1e-8)
    assert held > 5 and dropped > 5 and 3 < quiet_held < held


def test_a_wrong_quiet_candidate_is_caught():
    """The check above fails for a quiet tier holding a candidate that is not quiet (a resting contact's,
    taken out of the live list by hand): it is active while the tier holds."""
    model, sim = _at_rest()
    sim._data.stats[ST_MINGAP] = 0.0
    live, ref = _built(model, sim)
    lst = list(live[1:live[0] + 1])
    pushed = [c for c in lst if sim._data.lamN[c] > 0.0]
    lst.remove(pushed[len(pushed) // 2])
    live[0] = len(lst)
    live[1:len(lst) + 1] = lst
    with pytest.raises(AssertionError, match="a quiet point active"):
        _spread_and_check(model, sim, live, ref, 1, ref[-1, 0], 1e-8)


def test_a_list_kept_past_its_skin_is_caught():
    """The check above fails for a list kept beyond what its build allows (its skin enlarged 20×
    afterwards): a point it leaves out comes within reach while the list still holds."""
    model, sim = _at_rest()
    live, ref = _built(model, sim)
    skin = ref[-1, 0]
    ref[-1, 0] *= 20.0
    with pytest.raises(AssertionError, match="0.0"):   # the first assertion: a left-out point computed
        _spread_and_check(model, sim, live, ref, 1, skin)


def test_the_loops_over_a_list_of_every_candidate_are_those_without_a_list():
    """activate_contacts, projection_due, the normal velocities, the polygons' geometry and the smallest gap
    (live=None: every candidate) give the same results given a list of every candidate in order, and, at
    rest, the activation given the built list is the same as without it (a left-out point is inactive)."""
    from nsgui.engine import stepper as st
    from nsgui.engine.evaluation import _normal_velocities_of, _polygon_geometry
    from nsgui.engine.projection import projection_due
    model, sim = _at_rest()
    m, d = sim._args
    dd = sim._data
    nc = len(model.arrays.ci)
    every = np.arange(-1, nc, dtype=np.int64)
    every[0] = nc
    built, _ = _built(model, sim)
    assert 0 < built[0] < nc
    evaluate(m, d, False)
    dd.v[:] = np.random.default_rng(0).normal(scale=0.01, size=dd.v.shape)  # normal velocities not all zero
    evaluate(m, d, False)

    def activation(*live):
        nact, fric = st.activate_contacts(m, d, *live)
        return nact, fric, dd.act[:nact].copy(), dd.HN[:nact].copy(), dd.HT[:nact].copy()

    ref = activation()
    assert ref[0] > 0
    for live in ((every, nc), (built, built[0])):
        got = activation(*live)
        assert got[:2] == ref[:2] and all(np.array_equal(a, b) for a, b in zip(got[2:], ref[2:]))
    assert projection_due(m, d, every, nc) == projection_due(m, d)
    uns, geometries = [], []
    for live in ((), (every, nc)):
        dd.un[:] = np.nan
        _normal_velocities_of(m, d, *live)
        uns.append(dd.un.copy())
    for live in ((), (every, nc)):   # (after: the skipped points' normals are zeroed)
        dd.gap[:] = np.nan   # (the polygons' candidates only: the others stay NaN)
        flags = _polygon_geometry(m, d, True, *live)
        geometries.append((flags, dd.gap.copy()))
    assert np.isfinite(uns[0]).all() and np.abs(uns[0]).max() > 0.0 and np.array_equal(uns[0], uns[1])
    assert np.isfinite(geometries[0][1]).sum() > nc // 2
    assert geometries[0][0] == geometries[1][0] and np.array_equal(geometries[0][1], geometries[1][1], equal_nan=True)
    evaluate(m, d, False)
    enabled = dd.ctrl[len(model.arrays.ai) + nc:][:nc] != 0.0
    for live in ((), (every, nc)):
        dd.stats[st.ST_MINGAP] = np.inf
        st._keep_min_gap(m, d, *live)
        assert dd.stats[st.ST_MINGAP] == dd.gap[enabled].min()
