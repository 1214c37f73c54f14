"""The warm start from the last two answers (stepper._warm_gate, _warm_start; docs/benchmarks.md, session 23).

At rest NSGS's answers cycle at the tolerance's scale; once WARM_AFTER steps in a row were solved on the rows
within WARM_QUIET sweeps, a contact loaded in both last steps starts from r_k + WARM_BETA (r_k - r_(k-1)).
Checked here: the warm start is that convex combination (inside the friction cone), it halves a resting
pyramid's swept steps, the heaps still rest (ground = weight, no motion, no creep, no overlap growth), and
the memory it needs (Data.warm) travels in the snapshots: a resumed run is the run not interrupted, bit
for bit, and one resumed without it is not."""
import pickle

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene, stepper as st
from nsgui.engine.codes import ST_MAXITER
from nsgui.examples import example_path
from nsgui.scene import load_scene
from tests.helpers import Run

G = 9.81


def _gate(d):
    """(quiet steps in a row, on) of a Data's warm start memory."""
    nc = d.lamN.shape[0]
    return d.warm[2 * nc], d.warm[2 * nc + 1]


@pytest.fixture(scope="module")
def pyramid15():
    """The 15-box pyramid example stepped one step at a time, each step's sweeps read: (simulator, sweeps)."""
    sim = Simulator(compile_scene(load_scene(example_path("box_pyramid"))))
    d = sim._data
    sweeps = []
    for _ in range(2000):
        d.stats[ST_MAXITER] = 0.0
        sim.run(1, record=False)
        sweeps.append(d.stats[ST_MAXITER])
    return sim, np.array(sweeps)


def test_a_resting_pyramid_takes_the_warm_start_and_half_the_sweeps(pyramid15):
    sim, sweeps = pyramid15
    assert _gate(sim._data) == (st.WARM_AFTER, 1.0)
    # main's plain warm start swept 409 of the last 1000 steps (a period-3 cycle: two steps in five); from the
    # last two answers 259. Neither is a rounding accident: the cycle's fraction is the mechanism's
    swept = np.count_nonzero(sweeps[1000:])
    assert swept < 300, swept
    assert sweeps[1000:].max() <= st.WARM_OFF   # the gate stayed open at rest


def test_the_warm_start_is_the_convex_combination_of_the_last_two_answers(pyramid15):
    """The step problem's rows as _solve_general builds them: each loaded contact's warm start is
    (1 + β) r_k - β r_(k-1), inside the friction cone (μ r_N >= |r_T|), and the laws' signs unchanged."""
    sim, _ = pyramid15
    m, d = sim._args
    D, a = sim._data, sim.model.arrays
    nc = D.lamN.shape[0]
    st.free_velocity(m, d)
    nact, fric = st.activate_contacts(m, d)
    assert fric and nact > 20
    k = 2 * nact
    rcols, rvals, rnnz = D.gp_cols[:k], D.gp_vals[:k], D.gp_nnz[:k]
    qd, r0, mu, act0 = D.gp_vec[0, :k], D.gp_vec[1, :k], D.gp_mu[:nact], D.gp_act0[:k]
    assert st._problem_rows_columns(m, d, nact, rcols, rvals, rnnz, qd, mu, r0, act0, a.mi_diag, D.gp_cptr,
                                    D.gp_ccol, D.gp_cval, D.gp_blk)
    c = D.act[:nact]
    lamN, lamT, prevN, prevT = D.lamN[c], D.lamT[c], D.warm[c], D.warm[nc + c]
    both = (lamN > 0) & (prevN > 0)
    assert both.sum() >= 20   # the resting pyramid's loaded contacts
    b = st.WARM_BETA
    np.testing.assert_array_equal(r0[0::2][both], lamN[both] + b * (lamN[both] - prevN[both]))
    np.testing.assert_array_equal(r0[1::2][both], lamT[both] + b * (lamT[both] - prevT[both]))
    np.testing.assert_array_equal(r0[0::2][~both], lamN[~both])
    np.testing.assert_array_equal(r0[1::2][~both], lamT[~both])
    assert (r0[0::2][both] > 0).all()
    assert (np.abs(r0[1::2]) <= mu * r0[0::2] * (1 + 1e-12)).all()
    # the two answers differ (else the check above proves nothing): they cycle at the tolerance's scale
    assert (lamN[both] != prevN[both]).any()
    np.testing.assert_array_equal(act0[0::2], lamN > 0)  # the first active set: the last loaded contacts


@pytest.mark.parametrize("name", ["box_pyramid", "disk_pile_200"])
def test_the_heaps_rest_with_the_warm_start(name):
    """The examples' 2000-step runs (benchmarks/peers.py's box_pyramid and disk_pile_200): over the last
    second the ground carries the weight, nothing moves (|v| < 1e-8: the packed pile's resting |v|, 4e-9 on
    main, sits closest to it), nothing creeps and no overlap grows."""
    scene = load_scene(example_path(name))
    run = Run(scene, duration=2.0)
    rest = slice(1000, None)
    ground = [k for k, n in enumerate(run.names) if n.split("[")[0].endswith("_ground")]
    weight = sum(b.mass for b in scene.bodies) * G
    np.testing.assert_allclose(run.pn[rest][:, ground].sum(axis=1) / run.h, weight, rtol=1e-8)
    assert np.abs(run.V[rest]).max() < 1e-8
    assert np.abs(run.Q[rest] - run.Q[1000]).max() < 1e-9
    assert run.gap[rest].min() > -1e-9


def test_a_resumed_run_is_the_run_not_interrupted(pyramid15):
    """A snapshot with the gate open carries the warm start's memory: resumed (in this simulator or a new
    one, through pickling) the run goes on bit for bit; resumed without it (a state of an edited model) the
    warm start is plain again until the gate reopens, and the run goes elsewhere."""
    sim, _ = pyramid15
    snap = sim.get_state()
    assert snap.warm is not None and snap.warm[-2] == 1.0
    ref = sim.run(150)
    sim.set_state(snap)
    np.testing.assert_array_equal(sim.run(150), ref)
    other = Simulator(sim.model)
    other.set_state(pickle.loads(pickle.dumps(snap)))
    np.testing.assert_array_equal(other.run(150), ref)
    bare = snap.copy()
    bare.warm = None
    other.set_state(bare)
    assert _gate(other._data) == (0.0, 0.0)
    assert not np.array_equal(other.run(150), ref)


def test_snapshots_inside_a_run_carry_the_warm_start_memory(pyramid15):
    """snapshot_every's kernel rows hold Data.warm as get_state() does, and resuming from one of them
    continues bit for bit."""
    sim, _ = pyramid15
    start = sim.get_state()
    sim.snapshot_every(0.05)
    sim.run(200)
    snaps = sim.pop_snapshots()
    sim.snapshot_every(0)
    assert len(snaps) == 4 and all(s.warm is not None and s.warm[-2] == 1.0 for s in snaps)
    after = sim.run(100)
    sim.set_state(start)
    for _ in range(150):
        sim.run(1)
    ref = sim.get_state()
    np.testing.assert_array_equal(snaps[2].warm, ref.warm)
    np.testing.assert_array_equal(snaps[2].q, ref.q)
    sim.set_state(snaps[3])
    np.testing.assert_array_equal(sim.run(100), after)
