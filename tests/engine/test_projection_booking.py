"""One call of the position projection: what it books is the change of K + U it makes (computed here
from the model's M(q) and U(q)), and a call with nothing to move changes nothing (its kinetic energy
and displacement are only computed once it moves)."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import ACC_PROJECTION
from nsgui.engine.evaluation import evaluate
from nsgui.engine.projection import project_positions, projection_due
from tests.helpers import example


def energy(model, q, v):
    return 0.5 * v @ model.mass_matrix(q) @ v + model.potential_energy(q)


def state(name, q, v):
    model = compile_scene(example(name))
    sim = Simulator(model)
    d = sim._data
    d.q[:], d.v[:] = q, v
    m, ds = sim._args
    return model, d, m, ds, evaluate(m, ds, True)


@pytest.mark.parametrize("name, q, v", [
    ("bouncing_ball", [0.0, 0.1 - 2e-3, 0.0], [0.3, -1.0, 0.5]),            # 2 mm deep, falling
    ("sliding_box", [0.0, 0.1 - 1e-3, 0.05], [1.0, -0.2, 0.3]),             # tilted: one corner 11 mm deep
])
def test_a_moving_projection_books_the_change_of_k_plus_u(name, q, v):
    model, d, m, ds, upot = state(name, q, v)
    q0, v0, booked0 = d.q.copy(), d.v.copy(), d.energy[ACC_PROJECTION]
    assert d.gap.min() < -1e-3
    upot1 = project_positions(m, ds, upot)
    assert not np.array_equal(d.q, q0)
    assert d.gap.min() > -1e-5   # (the tolerance is 1e-6 m: a few linearized passes)
    assert upot1 == pytest.approx(model.potential_energy(d.q), abs=1e-12)
    change = energy(model, d.q, d.v) - energy(model, q0, v0)
    assert d.energy[ACC_PROJECTION] - booked0 == pytest.approx(change, abs=1e-12)


@pytest.mark.parametrize("steps", [0, 1200])
def test_a_projection_with_nothing_to_move_changes_nothing(steps):
    """In the air (no contact deep), and at rest on both corners after the slide (persistent contacts
    that the step's own projection already put back)."""
    model = compile_scene(example("sliding_box"))
    sim = Simulator(model)
    if steps:
        sim.run(steps)
        assert (sim._data.lamN > 0).sum() == 2 and abs(sim.v).max() < 1e-9
    else:
        sim._data.q[1] += 1e-3
    d, (m, ds) = sim._data, sim._args
    upot = evaluate(m, ds, True)
    before = [a.copy() for a in (d.q, d.v, d.energy, d.gap)]
    assert project_positions(m, ds, upot) == upot
    for a, b in zip(before, (d.q, d.v, d.energy, d.gap)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, steps", [("sliding_box", 300), ("sliding_box", 1200), ("box_pyramid", 400),
                                         ("rocking_block", 200)])
def test_projection_due_is_false_exactly_when_a_projection_would_change_nothing(name, steps):
    """projection_due (the stepper's test before it calls project_positions) against project_positions
    itself: at a run's state and at that state moved by 1e-12 to 1e-4 m (persistent contacts drifted
    or not, bodies pushed into the ground), the projection changes q, v or the energy if and only if
    projection_due said it would."""
    model = compile_scene(example(name))
    sim = Simulator(model)
    sim.run(steps)
    d, (m, ds) = sim._data, sim._args
    q0, v0, e0 = d.q.copy(), d.v.copy(), d.energy.copy()
    rng = np.random.default_rng(13)
    seen = set()
    for size in (0.0, 1e-12, 1e-11, 1e-9, 1e-7, 1e-5, 1e-4):
        for _ in range(3):
            d.q[:], d.v[:], d.energy[:] = q0, v0, e0
            d.q[:] += size * rng.standard_normal(q0.shape[0])
            upot = evaluate(m, ds, True)
            due = projection_due(m, ds)
            before = [a.copy() for a in (d.q, d.v, d.energy)]
            upot1 = project_positions(m, ds, upot)
            changed = any(not np.array_equal(a, b) for a, b in zip(before, (d.q, d.v, d.energy)))
            assert changed == due, (size, due)
            if not due:
                assert upot1 == upot
            seen.add(due)
    assert seen == {False, True}
