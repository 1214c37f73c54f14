"""The Gait analysis panel: the analysis runs in a child process (the window keeps handling events
meanwhile) and its results reach the plots; a scene with problems or without strikes is a one-line
message in the panel."""

import math

from nsgui.examples import example_path
from nsgui.scene import load_scene, scene_to_dict
from nsgui.views.gait_panel import GaitPanel


def wheel_dict():
    return scene_to_dict(load_scene(example_path("rimless_wheel")))


def test_analysis_reaches_the_plots_while_the_window_stays_responsive(qtbot):
    panel = GaitPanel(wheel_dict)
    qtbot.addWidget(panel)
    panel.show()
    ticks = []
    from PySide6.QtCore import QTimer
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    with qtbot.waitSignal(panel.finished, timeout=300_000) as blocker:
        panel.start()
        assert not panel.analyse_button.isEnabled() and panel.stop_button.isEnabled()
    timer.stop()
    out = blocker.args[0]
    assert ticks, "the event loop ran while the analysis did"
    # the same figures as the analysis in this process (closed form: tests/engine/test_gait_rimless_wheel.py)
    assert out["residual"] < 1e-10 and out["stable"]
    assert panel.coord_combo.currentText() == "v.wheel.theta"
    assert "stable" in panel.status.text() and "period" in panel.status.text()
    # eigenvalue marker and unit circle, iterates, cobweb, the cycle with its impact jump
    assert len(panel.eig_plot.getPlotItem().items) >= 2
    assert len(panel.iter_plot.getPlotItem().items) >= 2
    assert len(panel.cobweb_plot.getPlotItem().items) >= 3
    cyc = out["cycle"]
    assert len(cyc["jumps"]) == 1 and cyc["bodies"] == ["wheel"]
    # the strike keeps the angle and scales the rate: ω⁺ = r ω⁻
    (pa, pw), (qa, qw) = cyc["jumps"][0]["pre"], cyc["jumps"][0]["post"]
    assert abs(qa[0] - pa[0]) < 1e-9 and math.isclose(qw[0] / pw[0], out["eigenvalues"][0][0] ** 0.5, rel_tol=1e-6)
    assert panel.analyse_button.isEnabled()


def test_a_scene_without_strikes_is_a_message(qtbot):
    d = wheel_dict()
    d["obstacles"][0]["normal"] = [0.0, 1.0]    # flat ground: the wheel rolls back and forth, then stops
    panel = GaitPanel(lambda: d)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.failed, timeout=300_000) as blocker:
        panel.start()
    assert "\n" not in blocker.args[0]
    assert "failed" in panel.status.text()
    assert panel.analyse_button.isEnabled()


def test_the_window_has_the_panel(window):
    assert window.tabs.indexOf(window.gait_panel) >= 0
    assert window._scene_for_analysis()["format"] == "nsgui-scene"
