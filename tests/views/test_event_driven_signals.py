"""The window shows the event-driven integrator's loop-joint forces and contact-switch states like any
other signal: the same values as a headless run, plotted in a card."""

import numpy as np
import pytest

from nsgui.engine import simulate
from nsgui.scene import save_scene

from tests.engine.test_event_driven_sampling import switched_ball
from tests.helpers import example
from .test_window import run_to

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("make, signals", [
    (lambda: example("slider_crank").with_values({"settings.integrator": "event_driven"}),
     ("loop.guide.fy", "loop.guide.torque", "loop.guide.error")),
    (lambda: switched_ball(approaching=True), ("contact.ball_ground.enabled",)),
])
def test_loop_forces_and_switch_states_are_window_signals(window, tmp_path, make, signals):
    scene = make()
    path = tmp_path / "scene.json"
    save_scene(scene, path)
    assert window.open_scene(str(path))
    run_to(window, 0.5)
    ref = simulate(scene, duration=0.5)
    c = window.controller
    card = window.plots.add_time_plot("Event-driven signals", list(signals))
    window.plots.refresh_all()
    for name in signals:
        got = np.asarray(c.column(name))
        assert len(got) == len(ref[name]) and np.array_equal(got, ref[name]), name
        assert name in card.curves
        x, y = card.curves[name].getData()
        assert len(y) > 0 and np.allclose(y[np.isfinite(y)], np.interp(x[np.isfinite(y)], ref["t"], ref[name]))
