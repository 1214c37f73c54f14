"""Live readouts of the controllers: the signals at the displayed time (the phase by its label) and
the metrics of the last completed cycle, on a synthetic history of the arm's switching scheme whose
metrics are known by construction."""

import os

import numpy as np
import pytest

from .test_window import ROOT

SCENE = os.path.join(ROOT, "resources", "scenes", "two_link_tracking.json")
DT = 0.01


def _cycle(t, start, first_impact, impacts_at, constrained, apex):
    """phase, impacts and y over one cycle [start, start + 5): free, transition before the impact
    (0.5 s), after it (impacts at `impacts_at`), constrained from `constrained`, take-off at 4.5;
    y rises to `apex` between the first and the second impact."""
    s = t - start
    phase = np.select([s < first_impact - 0.5, s < first_impact, s < constrained, s < 4.5], [0, 1, 2, 3], 4)
    impacts = sum((s >= a).astype(float) for a in impacts_at)
    impacts[s < first_impact - 0.5] = 0.0
    y = np.where(s < first_impact - 0.5, 0.05, 0.0)
    bump = (s > impacts_at[0]) & (s < impacts_at[1])
    y[bump] = apex * np.sin(np.pi * (s[bump] - impacts_at[0]) / (impacts_at[1] - impacts_at[0]))
    return phase, impacts, y


@pytest.fixture
def readouts(qtbot):
    from nsgui.engine import compile_scene
    from nsgui.runtime.history import Recorder
    from nsgui.scene import load_scene
    from nsgui.views.readouts import ControllerReadouts
    from nsgui.views.sim_controller import SimulationController
    from tests.runtime.fake_sim import FakeSimulator
    model = compile_scene(load_scene(SCENE))
    assert model.scene.controllers[0].cycle == 5.0
    c = SimulationController(simulator_factory=FakeSimulator)
    c.model = model
    name = model.scene.controllers[0].name
    t = np.arange(int(round(12.0 / DT))) * DT
    p0, i0, y0 = _cycle(t, 0.0, 2.5, (2.5, 2.6, 2.7), 2.8, 0.004)
    p1, i1, y1 = _cycle(t, 5.0, 2.3, (2.3, 2.5), 2.6, 0.002)  # at 7.3, 7.5, 7.6
    second = t >= 5.0
    phase, impacts, y = np.where(second, p1, p0), np.where(second, i1, i0), np.where(second, y1, y0)
    rec = Recorder(model.signal_names)
    rows = np.zeros((len(t), len(model.signal_names)))
    for key, values in (("t", t), ("phase", phase), ("impacts", impacts), ("y", y),
                        ("error", np.full(len(t), 0.01)), ("V", np.exp(-t))):
        rows[:, rec.index(key if key == "t" else f"controller.{name}.{key}")] = values
    rec.append(rows)
    c.recorder = rec
    w = ControllerReadouts(c)
    qtbot.addWidget(w)
    yield w, c, name
    c.shutdown()


def _texts(w):
    out = {}
    for k in range(w.topLevelItemCount()):
        top = w.topLevelItem(k)
        out[top.text(0)] = top.text(1)
        for j in range(top.childCount()):
            out[f"{top.text(0)}/{top.child(j).text(0)}"] = top.child(j).text(1)
    return out


def test_values_at_the_cursor_and_the_last_complete_cycle(readouts):
    w, c, name = readouts
    c.seek_time(7.4)  # in the second cycle's transition, after its first impact
    w.refresh()
    got = _texts(w)
    assert got[f"{name}/phase"] == "transition (impacts) (2)"
    assert got[f"{name}/impacts"] == "1"
    assert got[f"{name}/V"] == f"{np.exp(-7.4):.4g} J"
    assert got[f"{name}/error"] == "0.01 m"
    cyc = f"{name}: last complete cycle"
    assert got[cyc] == "#1 (0–5 s)"
    assert got[f"{cyc}/impacts in the transition"] == "3"
    assert got[f"{cyc}/transition length"] == "0.3 s"     # first impact 2.5 to persistent contact 2.8
    assert got[f"{cyc}/first rebound height"] == f"{0.004 * np.sin(np.pi * 0.5):.4g} m"
    assert got[f"{cyc}/tracking error (RMS)"] == "0.01 m"
    c.seek_time(11.0)  # the second cycle completed
    w.refresh()
    got = _texts(w)
    assert got[cyc] == "#2 (5–10 s)"
    assert got[f"{cyc}/impacts in the transition"] == "2"
    assert got[f"{cyc}/transition length"] == "0.3 s"     # 7.3 to 7.6
    assert float(got[f"{cyc}/first rebound height"].split()[0]) == pytest.approx(0.002, rel=1e-3)
    c.seek_time(3.0)  # no cycle completed yet
    w.refresh()
    got = _texts(w)
    assert got[cyc] == "none yet" and got[f"{cyc}/transition length"] == "—"
    assert got[f"{name}/phase"] == "constrained (3)"


def test_a_scene_without_controller_signals_shows_nothing(readouts):
    w, c, _name = readouts
    c.model = None
    w.refresh()
    assert w.topLevelItemCount() == 0
