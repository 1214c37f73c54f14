"""Simulator.run(out=...): the rows go into a preallocated array, the same rows as without it."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from tests.helpers import example


def test_rows_written_into_a_reused_buffer_equal_fresh_rows():
    model = compile_scene(example("bouncing_ball"))
    fresh = Simulator(model).run(300)
    sim = Simulator(model)
    buf = np.full((200, len(model.signal_names)), np.nan)
    first = sim.run(150, out=buf)
    assert np.shares_memory(first, buf) and first.shape == (150, len(model.signal_names))
    np.testing.assert_array_equal(first, fresh[:150])
    second = sim.run(150, out=buf)  # the buffer is reused: the caller copies what it keeps
    np.testing.assert_array_equal(second, fresh[150:])
    assert np.isnan(buf[150:]).all()  # rows beyond nsteps untouched


def test_python_controller_chunks_fill_the_buffer_in_order():
    model = compile_scene(example("two_link_arm"))
    name = model.actuator_names[0]
    sims = [Simulator(model), Simulator(model)]
    for s in sims:
        s.set_controller(name, lambda t, q, v, model: 0.5 * np.sin(3 * t), period=0.01)
    fresh = sims[0].run(120)
    buf = np.empty((120, len(model.signal_names)))
    rows = sims[1].run(120, out=buf)
    assert np.shares_memory(rows, buf)
    np.testing.assert_array_equal(rows, fresh)


# wrong buffers for n signals: too narrow, too short, float32, not C-contiguous, not an array
BAD = {"narrow": lambda n: np.empty((10, 3)), "short": lambda n: np.empty((5, n)),
       "float32": lambda n: np.empty((10, n), np.float32), "strided": lambda n: np.empty((n, 10)).T,
       "list": lambda n: [[0.0] * n] * 10}


@pytest.mark.parametrize("bad", BAD)
def test_a_wrong_buffer_is_refused_with_its_shape(bad):
    sim = Simulator(compile_scene(example("bouncing_ball")))
    n = len(sim.signal_names)  # (the row's width grows with the engine's signals)
    with pytest.raises(ValueError, match=rf"out must be .* at least \(10, {n}\)"):
        sim.run(10, out=BAD[bad](n))
    assert sim.step_count == 0


def test_a_failure_keeps_the_rows_made_before_it_in_the_buffer():
    model = compile_scene(example("two_link_arm"))
    sim = Simulator(model)
    sim.set_controller(model.actuator_names[0], lambda t, q, v, model: np.nan if t > 0.05 else 0.0, period=0.01)
    buf = np.empty((1000, len(model.signal_names)))
    with pytest.raises(Exception) as err:
        sim.run(1000, out=buf)
    rows = err.value.rows
    assert 0 < len(rows) < 1000 and np.shares_memory(rows, buf)
    assert rows[-1, 0] == pytest.approx(sim.t) and rows[-1, 0] >= 0.05
