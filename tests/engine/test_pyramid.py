"""The box pyramid (make_heaps.box_pyramid) at the benchmark's larger size and with the pivoting solver:
55 boxes come to rest where they were built and stay there (benchmarks/peers.py's box_pyramid_55), and
the example's 15 boxes run with `solver: lemke` (whose tableau used to give up on the pyramid's
rank-deficient step problems at t = 0.089 s)."""
import numpy as np
import pytest

from tests.engine.test_heaps import HEAPS, _assert_at_rest
from tests.helpers import Run, example


def _settled_where_built(run):
    """Each row dropped its DROP per row below it (and nothing slid or turned)."""
    q0, q1 = run.Q[0], run.Q[-1]
    names = run.model.coord_names
    rows = np.array([int(c[3:].split("_")[0]) for c in names])        # box<row>_<i>.<x|y|theta>
    y = np.array([c.endswith(".y") for c in names])
    np.testing.assert_allclose(q0[y] - q1[y], (rows[y] + 1) * HEAPS["DROP"], atol=1e-9)
    np.testing.assert_allclose(q1[~y], q0[~y], atol=1e-9)


@pytest.fixture(scope="module")
def pyramid55():
    scene = HEAPS["box_pyramid"](10)
    return scene, Run(scene, duration=2.0)   # at rest from 1 s on (test_heaps.SETTLE)


def test_box_pyramid_55_settles_and_stays(pyramid55):
    scene, run = pyramid55
    assert len(scene.bodies) == 55
    _assert_at_rest(scene, run)        # from 1 s on: ground force = weight, no motion, no creep, no overlap
    _settled_where_built(run)


def test_box_pyramid_55_lands_within_the_sweep_cap(pyramid55):
    """The rows' landings are slow for NSGS (the error falls 100x per ~250 sweeps): 4 landing steps used
    to reach the cap of 1000 sweeps and go to Lemke (~100 ms each, most of the run). With the
    extrapolation of slow sweeps (solvers/nsgs.py) every step problem is solved by NSGS below the cap."""
    from nsgui.engine import Simulator, compile_scene
    scene, run = pyramid55
    sim = Simulator(compile_scene(scene))
    sim.run(round(0.3 / scene.settings.dt), False)   # the landing (steps 45-150) and after
    stats = sim.stats
    assert stats["max_solver_iterations"] < scene.settings.max_iterations
    assert stats["solver_warnings"] == 0 and run.result.summary["solver_warnings"] == 0
    # the run's summary names its slowest problem: the landing's (> 100 sweeps), none slower at rest
    assert run.result.summary["max_solver_iterations"] == stats["max_solver_iterations"] > 100


def test_box_pyramid_with_lemke_comes_to_rest():
    """The pyramid's step problems have rank-deficient W (each box face rests on two corners): Lemke's
    tableau stops on a ray or on a basis that does not solve them, and NSGS finishes from there."""
    scene = example("box_pyramid")
    run = Run(scene, duration=0.4, solver="lemke")
    assert run.t[-1] == pytest.approx(0.4)
    rest = slice(round(0.3 / run.h), None)
    ground = [k for k, name in enumerate(run.names) if name.split("[")[0].endswith("_ground")]
    weight = sum(b.mass for b in scene.bodies) * 9.81
    # Lemke's answers are kept at the scene's tolerance (1e-10 on percussions of ~0.01 N s) and each
    # step's is another vertex of the redundant corners' forces: the weight is carried to ~1e-8
    np.testing.assert_allclose(run.pn[rest][:, ground].sum(axis=1) / run.h, weight, rtol=1e-7)
    assert np.abs(run.V[rest]).max() < 1e-8
    assert run.result.summary["solver_warnings"] < 10   # (NSGS at its cap, finishing a Lemke answer)
    assert run.gap.min() > -1e-6       # the projection's tolerance while it lands, nothing deeper
    _settled_where_built(run)
