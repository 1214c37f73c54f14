"""The two heaps of resources/scenes/make_heaps.py (a pyramid of boxes, a pile of disks, both with
friction) come to rest and stay at rest: after settling, over a further 2 s nothing moves, the ground
carries the whole weight and no overlap grows. Small generated instances keep the suite fast; the
example files (15 boxes, 200 disks) are the same generators at benchmark sizes (benchmarks/peers.py)."""
import copy
import os
import runpy
from itertools import combinations

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene, simulate
from tests.helpers import ROOT, Run

HEAPS = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_heaps.py"))
G = 9.81
SETTLE, DURATION = 1.0, 3.0
# the friction problems are solved by NSGS to the scene's tolerance 1e-10 (relative): the summed
# ground force meets the weight to ~1e-9, far below any physical error (a missing body: 1/6 of it)
FORCE_RTOL = 1e-8


def _owner(candidate):
    return candidate.split("[")[0]


@pytest.fixture(scope="module")
def pyramid():
    scene = HEAPS["box_pyramid"](3)
    return scene, Run(scene, duration=DURATION)


@pytest.fixture(scope="module")
def pile():
    scene = HEAPS["disk_pile"](4, 4)
    return scene, Run(scene, duration=DURATION)


@pytest.fixture(scope="module")
def hyperstatic_pile():
    """8 disks in a box two disks wide (rows of 2, 1, 2, 1, 2): 26 loaded contact rows at rest on 24
    coordinates. Its landing (t = 0.115 s) has a step NSGS alone cannot solve (it stalls at 1.6e-7); the
    auto solver's Lemke fallback solves it (solvers/fc2d_auto.py). Why this pile and not a wider one
    (docs/benchmarks.md, sessions 21-22): in a box of 3 or more disks a row can arch over a bottom disk,
    which then rolls without slipping in the row's play (the model has no rolling resistance) for
    seconds, in some of the histories that round-off picks; here each bottom disk is held between a wall
    and the disk above it, and the pile rests from every start tried (positions moved by up to 1e-4 m,
    the solver's tolerance halved or divided by 5)."""
    scene = HEAPS["disk_pile"](5, 2)
    run = Run(scene, duration=DURATION)
    # the run's solver counters (simulate() reports the warnings only): the same run again
    sim = Simulator(compile_scene(scene))
    sim.run(round(DURATION / run.h), record=False)
    alone = copy.deepcopy(scene)
    alone.settings.solver = "nsgs"
    return scene, run, sim.stats, simulate(alone, duration=DURATION)


def _assert_at_rest(scene, run):
    rest = slice(round(SETTLE / run.h), None)
    weight = sum(b.mass for b in scene.bodies) * G
    ground = [k for k, name in enumerate(run.names) if _owner(name).endswith("_ground")]
    np.testing.assert_allclose(run.pn[rest][:, ground].sum(axis=1) / run.h, weight, rtol=FORCE_RTOL)
    assert np.abs(run.V[rest]).max() < 1e-8                           # m/s and rad/s
    assert np.abs(run.Q[rest] - run.Q[rest.start]).max() < 1e-9       # no creep over 2 s
    assert run.gap[rest].min() > -1e-9                                # no overlap grows


def test_box_pyramid_settles_and_stays(pyramid):
    scene, run = pyramid
    assert len(scene.bodies) == 6
    _assert_at_rest(scene, run)
    # it settled where it was built: each row dropped its 1 cm (and the penetration), nothing slid
    q0 = run.Q[0]
    rows = np.array([int(c[3]) for c in run.model.coord_names])        # box<row>_<i>.<x|y|theta>
    drop = (rows + 1) * HEAPS["DROP"]
    y = np.array([c.endswith(".y") for c in run.model.coord_names])
    np.testing.assert_allclose(q0[y] - run.Q[-1, y], drop[y], atol=1e-9)
    np.testing.assert_allclose(run.Q[-1, ~y], q0[~y], atol=1e-9)


def _unlisted_pairs(scene):
    """Index arrays (i, j), i < j, of the body pairs the scene lists no contact for."""
    listed = {frozenset((c.a.body, c.b.body)) for c in scene.contacts if c.b.body}
    pairs = [(i, j) for i, j in combinations(range(len(scene.bodies)), 2)
             if frozenset((scene.bodies[i].name, scene.bodies[j].name)) not in listed]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2).T


def test_disk_pile_settles_and_stays(pile):
    scene, run = pile
    assert len(scene.bodies) == 14
    _assert_at_rest(scene, run)


def _assert_lists_every_pair_that_touches(scene, run):
    """nsgui has no broad phase: a pair the generator left out must never come within 2 r, nor a disk within
    r of a wall or the ground the scene lists no contact with."""
    r = HEAPS["R"]
    names = run.model.coord_names
    xy = np.stack([run.Q[:, [names.index(f"{b.name}.x"), names.index(f"{b.name}.y")]] for b in scene.bodies],
                  axis=1)                                             # (steps, disks, 2)
    walls = {(c.a.body, c.b.obstacle) for c in scene.contacts if c.b.obstacle}
    i, j = _unlisted_pairs(scene)
    assert len(i)
    assert np.linalg.norm(xy[:, i] - xy[:, j], axis=2).min() > 2 * r + 0.05
    half = next(o for o in scene.obstacles if o.name == "right").point[0]
    for k, b in enumerate(scene.bodies):
        for wall, gap in (("ground", xy[:, k, 1]), ("left", xy[:, k, 0] + half), ("right", half - xy[:, k, 0])):
            if (b.name, wall) not in walls:
                assert gap.min() > r + 0.05, (b.name, wall)


def test_disk_pile_lists_every_pair_that_touches(pile):
    _assert_lists_every_pair_that_touches(*pile)


def test_hyperstatic_disk_pile_settles_and_stays(hyperstatic_pile):
    scene, run, stats, alone = hyperstatic_pile
    assert len(scene.bodies) == 8
    _assert_at_rest(scene, run)
    _assert_lists_every_pair_that_touches(scene, run)
    # hyperstatic at rest: the loaded contacts' rows of W = H M^-1 H^T are dependent (forces not unique)
    q = run.Q[-1]
    HN, HT = run.model.contact_jacobians(q)
    loaded = run.pn[-1] > 0.0
    friction = {c.name: c.friction for c in scene.contacts}
    mu = np.array([friction[_owner(name)] for name in run.names])
    H = np.vstack([HN[loaded], HT[loaded & (mu > 0.0)]])
    W = H @ np.linalg.solve(run.model.mass_matrix(q), H.T)
    assert np.linalg.matrix_rank(W) < W.shape[0]
    # NSGS alone misses the tolerance on the landing; the auto solver meets it on every step, a step having
    # taken NSGS's whole sweep cap and then Lemke's pivots (iterations = sweeps + pivots)
    assert alone.summary["solver_warnings"] >= 1
    assert all(e.t < SETTLE for e in alone.events if e.kind == "solver_warning")
    assert stats["max_solver_iterations"] > scene.settings.max_iterations
    assert stats["solver_warnings"] == run.result.summary["solver_warnings"] == 0


def test_packed_200_disk_pile_takes_its_weight_and_stays():
    """The 200-disk example (disk_pile_200.json): the disks start touching at rest; the pile takes up its
    weight in its first steps (NSGS from zero forces on a hyperstatic W) and then nothing moves: the ground
    carries the whole weight, no overlap grows, nothing creeps; no pair left out of the scene comes near."""
    from nsgui.engine import Simulator, compile_scene
    scene = HEAPS["disk_pile"](*HEAPS["PACKED_PILE"], packed=True)
    assert len(scene.bodies) == 200
    model = compile_scene(scene)
    sim = Simulator(model)
    sim.run(200, record=False)                                        # 0.2 s: the weight taken up
    q_rest = sim.q.copy()
    gaps = [f"contact.{n}.gap" for n in model.contact_names]
    ground = [f"contact.{n}.pn" for n, owner in zip(model.contact_names, model.contact_owner)
              if scene.contacts[owner].b.obstacle == "ground"]
    rows = sim.run(1300, signals=["t", *gaps, *ground])               # 1.3 s more
    weight = sum(b.mass for b in scene.bodies) * G
    np.testing.assert_allclose(rows[:, 1 + len(gaps):].sum(axis=1) / model.dt, weight, rtol=FORCE_RTOL)
    assert rows[:, 1:1 + len(gaps)].min() > -1e-9                     # no overlap grows
    assert np.abs(sim.v).max() < 1e-8
    assert np.abs(sim.q - q_rest).max() < 1e-9                        # no creep
    # every disk where it was built (the lattice carries its weight without sliding), and no pair left out
    # of the scene came within 2 r: the pairs 2 sqrt(3) r apart stay so
    np.testing.assert_allclose(sim.q, model.q0, atol=1e-9)
    xy = model.body_poses(sim.q)[:, :2]
    i, j = _unlisted_pairs(scene)
    assert np.linalg.norm(xy[i] - xy[j], axis=1).min() > 2 * HEAPS["R"] + 0.05
