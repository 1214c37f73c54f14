"""The engine as model + data (issue 9): the compiled model is constant and shared, each simulator's
Data holds its state and scratch, the step reads actuator inputs from Data.u, and SignalLayout is
the one source of the signal columns. Results are compared bit for bit (np.array_equal): none of
these splits may change a number."""

import numpy as np
import pytest

from nsgui.engine import Simulator, codes, compile_scene, simulate
from nsgui.engine.signals import SignalLayout
from nsgui.scene import load_scene
from tests.helpers import scene_path

SCENES = ["bouncing_ball", "double_pendulum_wall", "newtons_cradle", "two_link_arm", "rocking_block",
          "sliding_box"]


def _model(name, **settings):
    scene = load_scene(scene_path(name))
    for k, v in settings.items():
        setattr(scene.settings, k, v)
    return compile_scene(scene)


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("projection", [False, True])
def test_chunked_runs_equal_one_run(name, projection):
    """Data's scratch is kept between kernel calls: 300 steps in one call, in uneven chunks, or one
    at a time give the same rows, bit for bit."""
    model = _model(name, projection=projection)
    whole = Simulator(model).run(300)
    sim = Simulator(model)
    chunks = np.vstack([sim.run(k) for k in (1, 2, 97, 50, 150)])
    sim1 = Simulator(model)
    single = np.vstack([sim1.step() for _ in range(300)])
    assert np.array_equal(whole, chunks) and np.array_equal(whole, single)


@pytest.mark.parametrize("name", ["newtons_cradle", "two_link_arm"])
def test_simulators_of_one_model_are_independent(name):
    """Two simulators stepping one model in turn get what each gets alone; the model's arrays are
    untouched by running (the model is constant, the state lives in each Data)."""
    model = _model(name)
    before = [np.array(a) for a in model.arrays]
    alone = Simulator(model).run(200)
    a, b = Simulator(model), Simulator(model)
    b.run(37)  # b ahead of a: their scratch and state must not mix
    rows = np.vstack([a.run(50) if i % 2 == 0 else (b.run(10), a.run(50))[1] for i in range(4)])
    assert np.array_equal(rows, alone)
    for x, y in zip(before, model.arrays):
        assert np.array_equal(x, np.asarray(y))


def test_python_law_writes_the_input_the_step_reads():
    """The control seam: a Python controller returning the constant the scene's own law holds gives
    the same run, bit for bit, as the built-in constant law (both write Data.u, the step reads it)."""
    scene = load_scene(scene_path("two_link_arm"))
    for a in scene.actuators:
        a.controller.type, a.controller.value = "constant", 0.75
    model = compile_scene(scene)
    builtin = Simulator(model).run(400)
    sim = Simulator(model)
    for name in model.actuator_names:
        sim.set_controller(name, lambda t, q, v, model: 0.75)
    python = sim.run(400)
    assert np.array_equal(builtin, python)
    u = [model.signal_names.index(f"u.{n}") for n in model.actuator_names]
    assert np.all(python[:, u] == 0.75)


@pytest.mark.parametrize("name", SCENES)
def test_signal_layout_matches_the_names(name):
    model = _model(name)
    lay = model.layout
    names = model.signal_names
    nsig = sum(len(b.signals) for b in model.controller_blocks)
    assert lay == SignalLayout.of(model.nq, model.ncontacts, len(model.actuator_names), nsig)
    assert lay.width == len(names) and names[0] == "t"
    for j, c in enumerate(model.coord_names):
        assert names[lay.q + j] == f"q.{c}" and names[lay.v + j] == f"v.{c}"
        assert lay.is_coordinate(lay.q + j) and lay.coordinate_of(lay.v + j) == j
    for e in codes.ENERGY_SIGNALS:
        assert names[lay.energy_column(e)] == f"energy.{e}"
    for s in codes.CONTACT_SIGNALS:
        cols = lay.contact_columns(s)
        assert [names[k] for k in cols] == [f"contact.{c}.{s}" for c in model.contact_names]
        assert all(lay.contact_column(c, s) == k for c, k in enumerate(cols))
    assert [names[lay.actuators + i] for i in range(lay.nactuators)] == [f"u.{a}" for a in model.actuator_names]


def test_recorded_status_uses_the_codes():
    """The bouncing ball's impacts are recorded as codes.IMPACT, and the events name them."""
    r = simulate(load_scene(scene_path("bouncing_ball")), duration=2.0)
    status = r[f"contact.{r.model.contact_names[0]}.status"]
    impacts = [e.t for e in r.events if e.kind == codes.STATUS_NAMES[codes.IMPACT]]
    assert len(impacts) >= 2
    assert np.array_equal(r.t[status == codes.IMPACT], np.array(impacts))
    assert set(np.unique(status)) <= set(codes.STATUS_NAMES)


def test_reset_starts_the_energy_balance_once():
    """reset() evaluates the initial row once: its residual is exactly zero, its total energy the
    model's own potential plus kinetic energy at q0, v0."""
    model = _model("double_pendulum_wall")
    sim = Simulator(model)
    sim.run(100)
    sim.reset()
    row = sim.signal_vector()
    lay = model.layout
    assert row[lay.energy_column("residual")] == 0.0
    T = 0.5 * model.v0 @ model.mass_matrix(model.q0) @ model.v0
    assert row[lay.energy_column("total")] == pytest.approx(T + model.potential_energy(model.q0), rel=1e-12)
