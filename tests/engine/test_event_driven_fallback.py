"""settings.event_driven_fallback: where events crowd, time stepping for a while ("auto", the default)
or a clear error ("never"); the setting is validated like any other."""

import pytest

from nsgui.engine import simulate
from nsgui.scene import SceneError

from tests.helpers import example


def crowded_box(fallback=None):
    """The default example made frictionless: the box slides off the end of the slope segment while
    its corners are closed, which the event-driven integrator cannot follow (test_event_driven.py)."""
    scene = example("default")
    edits = {f"contacts[{i}].friction": 0.0 for i in range(len(scene.contacts))}
    edits["settings.integrator"] = "event_driven"
    if fallback is not None:
        edits["settings.event_driven_fallback"] = fallback
    return scene.with_values(edits)


@pytest.mark.parametrize("fallback", [None, "auto"])
def test_auto_fallback_runs_time_stepping_where_events_crowd(fallback):
    res = simulate(crowded_box(fallback), duration=3.0)
    assert res.summary["failure"] is None
    crowded = [ev for ev in res.events if ev.kind == "time_stepping"]
    assert crowded and all(1.0 < ev.t < 2.5 for ev in crowded)
    assert res["t"][-1] == pytest.approx(3.0)


def test_never_stops_the_run_where_events_crowd_and_says_where():
    auto = simulate(crowded_box("auto"), duration=3.0)
    first = min(ev.t for ev in auto.events if ev.kind == "time_stepping")
    res = simulate(crowded_box("never"), duration=3.0)
    failure = res.summary["failure"]
    assert failure is not None and "events crowd" in failure and "event_driven_fallback" in failure
    assert "\n" not in failure
    assert not any(ev.kind == "time_stepping" for ev in res.events)
    # the rows before it are kept and are those of the "auto" run (identical up to the first fallback)
    t = res["t"]
    assert t[-1] == pytest.approx(first, abs=2 * res.model.dt)
    n = len(t)
    for name in ("q.box.x", "q.box.y", "q.ball.y"):
        if name in res.signals:
            assert (res[name] == auto[name][:n]).all(), name


def test_the_setting_is_validated_with_a_clear_message():
    with pytest.raises(SceneError) as err:
        example("default").with_values({"settings.event_driven_fallback": "sometimes"})
    msg = str(err.value)
    assert "settings.event_driven_fallback" in msg and "auto" in msg and "never" in msg
