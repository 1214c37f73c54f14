"""Bead columns of N = 10, 50, 200 beads: the contact problem is exact at any N (issue 13).

A column stacked at rest carries its weight exactly at every step (ground force N m g, the contact
above bead k the N-1-k beads on it), no overlap appears or grows, and nothing creeps; a column dropped
from the scene's 1 mm gaps comes to rest and stays there. The scenes are those of
resources/scenes/make_bead_columns.py (projection on, as in the scene files).
"""

import runpy

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from tests.helpers import SCENES, example

G = 9.81
_gen = runpy.run_path(f"{SCENES}/make_bead_columns.py")  # no .pyc left behind
bead_column, RADIUS, MASS = _gen["bead_column"], _gen["RADIUS"], _gen["MASS"]


def _signals(model, rows, suffix):
    return rows[:, [i for i, s in enumerate(model.signal_names) if s.endswith(suffix)]]


def _run(scene, steps):
    model = compile_scene(scene)
    sim = Simulator(model)
    q0 = sim.q.copy()
    rows = sim.run(steps)
    return model, rows, q0


@pytest.mark.parametrize("n", [10, 50, 200])
def test_resting_column_is_exact_at_every_step(n):
    model, rows, q0 = _run(bead_column(n, bottom=RADIUS, pitch=2 * RADIUS), 1000)
    names = model.signal_names
    fn = _signals(model, rows, ".fn")   # contact k: bead0_ground, then bead k on bead k-1
    assert [names[i] for i, s in enumerate(names) if s.endswith(".fn")][0] == "contact.bead0_ground.fn"
    carried = (n - np.arange(n)) * MASS * G
    np.testing.assert_allclose(fn, np.broadcast_to(carried, fn.shape), rtol=1e-9, atol=0.0)
    overlap = np.maximum(-_signals(model, rows, ".gap"), 0.0).max(axis=1)
    assert overlap.max() <= 1e-12                     # touching: no overlap at all
    assert overlap[500:].max() <= overlap[:500].max() + 1e-15   # and none grows
    q = _signals(model, rows, "")[:, 1:1 + n]         # q.bead<i> follow t
    assert [names[1 + i] for i in range(n)] == [f"q.bead{i}" for i in range(n)]
    assert np.abs(q - q0).max() <= 1e-12              # no creep
    assert np.abs(rows[:, 1 + n:1 + 2 * n]).max() <= 1e-9


def test_dropped_column_comes_to_rest_and_stays():
    n = 50
    model, rows, _q0 = _run(example("bead_column_50"), 2000)
    fn = _signals(model, rows, ".fn")
    later = slice(1000, None)   # landed within 0.5 s: the last second at rest
    np.testing.assert_allclose(fn[later], np.broadcast_to((n - np.arange(n)) * MASS * G, fn[later].shape),
                               rtol=1e-9, atol=0.0)
    gaps = _signals(model, rows, ".gap")
    assert -gaps.min() <= 1e-6                        # within the projection's tolerance, landing included
    assert -gaps[later].min() <= 1e-12
    q = rows[later, 1:1 + n]
    assert np.abs(q - q[0]).max() <= 1e-12            # no creep over the last second


def test_a_column_started_at_rest_is_solved_in_one_pivoting_pass():
    """No contact was pushed before the first step: every contact not separating starts in the active
    set, and block pivoting solves the column at once (from the empty set it added one bead per pass:
    201 linear solves for 200 beads, O(N²) work), with the same answer."""
    from nsgui.engine.codes import ST_MAXITER
    n = 200
    model = compile_scene(bead_column(n, bottom=RADIUS, pitch=2 * RADIUS))
    sim = Simulator(model)
    rows = sim.run(1)
    assert sim._data.stats[ST_MAXITER] == 1
    fn = _signals(model, rows, ".fn")[0]
    np.testing.assert_allclose(fn, (n - np.arange(n)) * MASS * G, rtol=1e-9, atol=0.0)
