"""The contact events found in the compiled loop (impact_events.py): numpy's summation order
reproduced, each impact's numbers against an independent computation from the recorded rows
(Model.contact_jacobians at the state before the step, numpy's products), and the same events, every
field, however a run is cut into calls, with a selection of signals, or with a log that fills."""

import functools

import numpy as np
import pytest

from nsgui.engine import Simulator, codes, compile_scene
from nsgui.engine import simulator as simulator_module
from nsgui.engine.impact_events import dense_dot, dense_sum, events_due, log_step_events
from tests.helpers import example

LENGTHS = list(range(0, 300)) + [383, 384, 385, 511, 512, 513, 1000, 1023, 1024, 1025, 2999, 3000, 4097]


def test_dense_sum_is_numpys_sum_bit_for_bit():
    """Terms of magnitudes 1e-8 ... 1e8 and both signs: any other order of the additions (a plain loop,
    other blocks) gives other last bits for most of these lengths."""
    rng = np.random.default_rng(13)
    plain_differs = 0
    for n in LENGTHS:
        for _ in range(3):
            x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
            assert dense_sum(x, n) == x.sum(), n
            plain = 0.0
            for xi in x:
                plain += xi
            plain_differs += plain != x.sum()
    assert plain_differs > len(LENGTHS)  # (the test can tell the orders apart)
    assert str(dense_sum(np.array([-0.0]), 1)) == str(np.array([-0.0]).sum())  # from 0.0: +0.0


def test_dense_dot_is_the_row_sum_of_numpys_product():
    """(H * v).sum(axis=1), the form the simulator computed the impacts' velocities in before."""
    rng = np.random.default_rng(5)
    for n in LENGTHS[::7]:
        H = rng.standard_normal((4, n)) * (rng.random((4, n)) < 0.3)  # sparse rows, zeros of both signs
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)
        want = (H * v).sum(axis=1)
        prod = np.empty(n)
        for i in range(4):
            assert dense_dot(H[i], v, prod) == want[i], n


def _impacts_from_rows(model, rows, start):
    """Each impact of the rows (start: the row of the state before the first), computed from them:
    (t, contact, H v before, H v after, P, −P (after + before)/2) with H = Model.contact_jacobians at
    the q before the step."""
    lay, n = model.layout, model.nq
    status = rows[:, lay.contact_columns("status")]
    pn = rows[:, lay.contact_columns("pn")]
    out = []
    for k, c in zip(*np.nonzero(status == codes.IMPACT)):
        before = rows[k - 1] if k else start
        H = model.contact_jacobians(before[lay.q:lay.q + n])[0][c]
        pre = (H * before[lay.v:lay.v + n]).sum()
        post = (H * rows[k, lay.v:lay.v + n]).sum()
        out.append((rows[k, 0], model.contact_names[c], pre, post, pn[k, c], -pn[k, c] * (post + pre) / 2))
    return out


def _fields(events):
    return [(e.t, e.kind, e.name, e.detail, e.un_pre, e.un_post, e.percussion, e.energy_lost) for e in events]


def _same(a, b):
    """Event fields equal, NaN equal to NaN (repr: bit for bit for the numbers)."""
    return [tuple(map(repr, e)) for e in _fields(a)] == [tuple(map(repr, e)) for e in _fields(b)]


def _cut_run(model, sizes, **kw):
    sim = Simulator(model)
    rows = [sim.run(k, **kw) for k in sizes]
    return np.vstack(rows), sim.pop_events()


# impacts in flight, on a wall, through a chain of touching balls, rocking, a rod's ends, an actuated arm
# (M changes with q), a landing column, a pile of disks, boxes (polygons)
SCENES = {"bouncing_ball": 1500, "double_pendulum_wall": 3000, "newtons_cradle": 600, "rocking_block": 600,
          "falling_rod": 600, "manipulator_on_surface": 400, "bead_column_10": 400, "disk_pile": 300,
          "box_pyramid": 300}


@functools.cache
def _whole_run(scene):
    """The scene's uncut run: (model, the row before it, its rows (read-only), its events, its impacts
    counted). Run once per module: two tests check the same run (the 45-disk pile's takes seconds)."""
    model = compile_scene(example(scene))
    sim = Simulator(model)
    start = sim.signal_vector()
    rows = sim.run(SCENES[scene])
    rows.flags.writeable = False
    return model, start, rows, tuple(sim.pop_events()), sim.stats["impacts"]


@pytest.mark.parametrize("scene", SCENES)
def test_each_impact_is_computed_from_the_state_before_and_after_its_step(scene):
    model, start, rows, events, counted = _whole_run(scene)
    impacts = [(e.t, e.name, e.un_pre, e.un_post, e.percussion, e.energy_lost) for e in events if e.kind == "impact"]
    assert len(impacts) == counted > 0
    assert impacts == _impacts_from_rows(model, rows, start)
    assert all(e.un_pre < 0.0 < e.percussion for e in events if e.kind == "impact")  # approaching, pushed
    # the other events: every change of a contact's status, in step then contact order
    status = np.vstack([start[model.layout.contact_columns("status")],
                        rows[:, model.layout.contact_columns("status")]])
    ks, cs = np.nonzero((status[1:] != status[:-1]) | (status[1:] == codes.IMPACT))
    assert [(e.t, e.kind, e.name) for e in events if e.kind != "solver_warning"] == [
        (rows[k, 0], codes.STATUS_NAMES[status[k + 1, c]], model.contact_names[c]) for k, c in zip(ks, cs)]


def _multiple_impact_step(model, rows):
    """The first step in which two contacts or more have an impact."""
    status = rows[:, model.layout.contact_columns("status")]
    steps = np.nonzero((status == codes.IMPACT).sum(axis=1) >= 2)[0]
    assert len(steps), "no step with two impacts"
    return int(steps[0])


@pytest.mark.parametrize("scene", ["disk_pile", "bead_column_10", "box_pyramid"])
def test_impacts_in_the_first_step_of_a_call_take_the_state_before_that_step(scene):
    """A call that starts with a step where two contacts have an impact: each impact's velocity before
    is that of the state the call started from (the simulator's old numpy path took the second one's
    from the row after the step), and every event equals the uncut run's."""
    model, _, rows, events, _ = _whole_run(scene)
    nsteps = SCENES[scene]
    k = _multiple_impact_step(model, rows)
    cut_rows, cut_events = _cut_run(model, (k, nsteps - k))
    np.testing.assert_array_equal(cut_rows, rows)
    assert _same(cut_events, events)
    first = [e for e in cut_events if e.kind == "impact" and e.t == rows[k, 0]]
    assert len(first) >= 2
    want = {i[1]: i for i in _impacts_from_rows(model, rows[k:k + 1], rows[k - 1])}
    for e in first:
        assert (e.t, e.name, e.un_pre, e.un_post, e.percussion, e.energy_lost) == want[e.name]


@pytest.mark.parametrize("scene", ["bead_column_10", "newtons_cradle", "rocking_block"])
def test_the_events_do_not_depend_on_cuts_selections_or_a_filling_log(scene, monkeypatch):
    model = compile_scene(example(scene))
    nsteps = SCENES[scene]
    ref = Simulator(model)
    ref.snapshot_every(0.05)
    rows = ref.run(nsteps)
    events, snaps = ref.pop_events(), ref.pop_snapshots()
    positions = ["t"] + [n for n in model.signal_names if n.startswith("q.")]
    for sizes in [(1, 2, 97, nsteps - 100), (nsteps // 3, nsteps - nsteps // 3)]:
        cut_rows, cut_events = _cut_run(model, sizes)
        np.testing.assert_array_equal(cut_rows, rows)
        assert _same(cut_events, events), sizes
        sel_rows, sel_events = _cut_run(model, sizes, signals=positions)
        np.testing.assert_array_equal(sel_rows, rows[:, [model.signal_names.index(s) for s in positions]])
        assert _same(sel_events, events), sizes
    # a log with room for one step's events: the kernel stops when it is full (EVENTS_FULL), the
    # simulator empties it into Events, doubles it and calls again
    codes_seen = []
    run_steps = simulator_module.st.run_steps

    def counted(*args):
        out = run_steps(*args)
        codes_seen.append(out[0])
        return out
    monkeypatch.setattr(simulator_module.st, "run_steps", counted)
    monkeypatch.setattr(Simulator, "EVENT_LOG_ROWS", 1 - model.ncontacts)
    sim = Simulator(model)
    sim.snapshot_every(0.05)
    np.testing.assert_array_equal(sim.run(nsteps), rows)
    assert codes.EVENTS_FULL in codes_seen and codes_seen[-1] == codes.OK
    assert _same(sim.pop_events(), events)
    got = sim.pop_snapshots()
    assert [s.step_count for s in got] == [s.step_count for s in snaps] and len(got) > 2
    for a, b in zip(got, snaps):
        np.testing.assert_array_equal(a.q, b.q)
        np.testing.assert_array_equal(a.row, b.row)


def test_a_run_that_records_nothing_logs_no_contact_event():
    """As before the events moved into the kernel: an unrecorded run's steps have no rows, and no
    contact events (its impacts are counted in the statistics)."""
    model = compile_scene(example("bouncing_ball"))
    sim = Simulator(model)
    sim.run(1500, record=False)
    assert sim.stats["impacts"] > 5 and sim.pop_events() == []


def test_events_are_due_exactly_when_the_step_has_an_event_row():
    """events_due (the stepping loop's test before log_step_events) is True exactly when log_step_events
    writes a row: on random statuses before and after a step of the 10-bead column, every contact in the
    problem (an impact's row is looked up in it), including the cases of no change at all."""
    model = compile_scene(example("bead_column_10"))
    sim = Simulator(model)
    sim.run(5)
    m, d = sim._args
    data = sim._data
    nc = model.ncontacts
    data.act[:nc] = np.arange(nc)
    rng = np.random.default_rng(8)
    seen = set()
    for trial in range(400):
        old = rng.integers(0, 4, nc).astype(data.status.dtype)
        changes = trial % 4  # none, one, a few, any: no-change cases are most of a run's steps
        new = old.copy()
        if changes == 1:
            new[rng.integers(nc)] = rng.integers(0, 4)
        elif changes >= 2:
            new = rng.integers(0, 4, nc).astype(data.status.dtype)
        if trial % 8 == 0:
            old[old == codes.IMPACT] = codes.STICK
            new = old.copy()  # statuses unchanged and no impact: nothing to log
        data.status[:] = new
        due = events_due(d, old.copy())
        elog = np.zeros((nc + 2, codes.N_EL))
        n = log_step_events(m, d, nc, old.copy(), np.zeros((3, model.nq)), elog, 0)
        assert due == (n > 0), (old, new)
        seen.add(due)
    assert seen == {True, False}


def test_an_events_detail_in_words_gives_its_own_numbers():
    """Event.describe (the window's Events detail column): an impact's normal velocities, percussion and
    energy lost as logged, the ball's bounce obeying Newton's law u⁺ = -e u⁻ (e = 0.9); a stick or slip
    has no detail; a solver warning keeps its own text; an accumulation gives t*."""
    scene = example("bouncing_ball")
    scene.settings.projection = False  # (Newton's law per step, exact: the time-stepping digest §3.3)
    sim = Simulator(compile_scene(scene))
    sim.run(600)
    events = sim.pop_events()
    hit = next(e for e in events if e.kind == "impact")
    assert hit.un_post == pytest.approx(-0.9 * hit.un_pre, rel=1e-12) and hit.un_pre < -4.0  # from ~0.9 m
    assert hit.describe() == (f"uₙ {hit.un_pre:+.4g} → {hit.un_post:+.4g} m/s, percussion {hit.percussion:.4g} N·s, "
                              f"energy lost {hit.energy_lost:.4g} J")
    assert simulator_module.Event(0.5, "stick", "c").describe() == ""
    assert simulator_module.Event(0.5, "solver_warning", "", "capped").describe() == "capped"
    acc = simulator_module.Event(0.5, "accumulation", "c", t_star=0.51234567)
    assert acc.describe() == "t* ≈ 0.512346 s"
