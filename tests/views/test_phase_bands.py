"""A controller's phase (a signal declared with labels) as coloured bands behind every time plot:
runs of the recorded history, decimated, redrawn as the history grows, with a legend."""

import os
from types import SimpleNamespace

import numpy as np
import pytest

from nsgui.engine.control.build import ControllerInfo
from nsgui.views.phase_bands import band_color, labelled_signal, phase_runs

LABELS = ("free", "transition", "constrained", "take-off")
PHASE = "controller.bno.phase"


def _history():
    """1 s at h = 1e-3: free until 0.3, transition until 0.45, constrained until 0.9, take-off."""
    t = np.arange(1000) * 1e-3
    phase = np.select([t < 0.3, t < 0.45, t < 0.9], [0, 1, 2], 3).astype(float)
    return t, phase


def test_runs_of_constant_phase_from_each_change_to_the_next():
    t, phase = _history()
    starts, ends, values = phase_runs(t, phase)
    np.testing.assert_allclose(starts, [0.0, 0.3, 0.45, 0.9])
    np.testing.assert_allclose(ends, [0.3, 0.45, 0.9, 0.999])
    assert values.tolist() == [0, 1, 2, 3]
    # a window of rows: the runs it holds, cut at its ends
    starts, ends, values = phase_runs(t, phase, 400, 500)
    np.testing.assert_allclose(starts, [0.4, 0.45])
    np.testing.assert_allclose(ends, [0.45, 0.499])
    assert values.tolist() == [1, 2]


def test_many_short_runs_are_decimated_to_the_phase_held_longest():
    t, phase = _history()
    # the transition chatters: 1, 1, 2, 1, 1, 2 ... between 0.3 and 0.45 (100 runs)
    chatter = (t >= 0.3) & (t < 0.45)
    phase[chatter] = np.where(np.arange(chatter.sum()) % 3 == 2, 2, 1)
    starts, ends, values = phase_runs(t, phase)
    assert len(starts) == 102  # (the last 2 of the chatter runs on into the constrained phase)
    starts, ends, values = phase_runs(t, phase, max_runs=20)
    # 20 intervals of 0.05 s: those of the chatter show the phase held longest (1), the long runs
    # keep their places to within one interval
    assert values.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(starts, [0.0, 0.3, 0.45, 0.9], atol=1 / 20)
    assert starts[0] == 0.0 and ends[-1] == t[-1] and np.all(ends > starts)
    np.testing.assert_array_equal(ends[:-1], starts[1:])


def test_the_changes_are_found_incrementally_as_the_history_grows():
    from nsgui.views.phase_bands import PhaseChanges
    t, phase = _history()
    pc = PhaseChanges()
    for n in (1, 2, 299, 300, 301, 700, 1000):
        pc.extend(phase, n)
        got = pc.runs(t, 0, n)
        want = phase_runs(t[:n], phase[:n])
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    assert pc.rows.tolist() == [0, 300, 450, 900]
    pc.extend(phase, 10)  # a shorter history is another one
    assert pc.rows.tolist() == [0] and pc.n == 10


def test_rows_without_a_phase_belong_to_no_band():
    t, phase = _history()
    phase[:100] = np.nan
    starts, ends, values = phase_runs(t, phase)
    assert values.tolist() == [-1, 0, 1, 2, 3]
    np.testing.assert_allclose(starts[:2], [0.0, 0.1])


def test_the_labelled_signal_is_found_in_the_compiled_blocks():
    info = ControllerInfo("bno", "bno_tracking", ["a", "b"], signals=[PHASE, "controller.bno.V"],
                          labels={PHASE: LABELS})
    model = SimpleNamespace(controller_blocks=[ControllerInfo("pd1", "pd", ["a"]), info])
    assert labelled_signal(model, ["t", PHASE]) == (PHASE, LABELS)
    assert labelled_signal(model, ["t"]) is None and labelled_signal(None, ["t", PHASE]) is None


@pytest.fixture
def panel(qtbot):
    from nsgui.runtime.history import Recorder
    from nsgui.views.plots import PlotPanel
    from nsgui.views.sim_controller import SimulationController
    from tests.runtime.fake_sim import FakeSimulator
    c = SimulationController(simulator_factory=FakeSimulator)
    c.recorder = Recorder(["t", "q.y", PHASE])
    c.model = SimpleNamespace(signal_units={"q.y": "m"}, controller_blocks=[
        ControllerInfo("bno", "bno_tracking", ["a"], signals=[PHASE], labels={PHASE: LABELS})])
    p = PlotPanel(c)
    qtbot.addWidget(p)
    p.resize(600, 500)
    p.show()
    yield p
    c.shutdown()


def test_every_time_plot_draws_the_bands_behind_its_curves_and_names_them(panel):
    c = panel.controller
    t, phase = _history()
    c.recorder.append(np.column_stack([t[:500], np.sin(t[:500]), phase[:500]]))
    a = panel.add_time_plot("Coordinates", ["q.y"])
    b = panel.add_time_plot("Empty", [])
    panel.refresh_all()
    for card in (a, b):
        regions = card.bands.regions()
        assert [r[2] for r in regions] == [0, 1, 2]
        np.testing.assert_allclose([r[:2] for r in regions], [(0.0, 0.3), (0.3, 0.45), (0.45, 0.499)])
        assert card.bands.item.zValue() < card.curves["q.y"].zValue() if card.curves else True
        legend = card.legend_label.text()
        assert "bno.phase:" in legend and all(lab in legend for lab in LABELS)
        assert band_color(3) in legend
    # what is drawn: each band's colour, as if translucent over the white background, across its span
    for t0, t1, v in a.bands.regions():
        assert _same_color(_drawn_color(a, 0.5 * (t0 + t1)), _over_white(band_color(v))), (t0, t1, v)
    # the history grows: the bands follow (the last run extends, a new one starts)
    c.recorder.append(np.column_stack([t[500:], np.sin(t[500:]), phase[500:]]))
    c.columns.extend(c.recorder, 500)  # (what the controller does with new rows)
    panel.refresh_all()
    assert [r[2] for r in a.bands.regions()] == [0, 1, 2, 3]
    np.testing.assert_allclose(a.bands.regions()[-1][:2], (0.9, 0.999))
    # zoomed in: only the runs in view
    a.item.vb.setRange(xRange=(0.5, 0.6), padding=0)
    a._user_moved()
    assert [r[2] for r in a.bands.regions()] == [2]
    assert _same_color(_drawn_color(a, 0.55), _over_white(band_color(2)))


def _same_color(a, b):
    return max(abs(x - y) for x, y in zip(a, b)) <= 2


def _over_white(color):
    from nsgui.views.phase_bands import BAND_ALPHA
    return tuple(round(255 + (int(color[k:k + 2], 16) - 255) * BAND_ALPHA / 255) for k in (1, 3, 5))


def _drawn_color(card, t):
    """The colour drawn most often in a column of the plot at time t, low in the view (below the
    curve), as the plot is shown (grid lines and curve pixels are outvoted)."""
    from collections import Counter
    from PySide6.QtCore import QPointF
    img = card.plot.grab().toImage()
    vb = card.item.vb
    y0, y1 = vb.viewRange()[1]
    seen = Counter()
    for f in np.linspace(0.01, 0.08, 8):
        p = card.plot.mapFromScene(vb.mapViewToScene(QPointF(t, y0 + f * (y1 - y0))))
        for dx in (-2, 0, 2):
            c = img.pixelColor(p.x() + dx, p.y())
            seen[(c.red(), c.green(), c.blue())] += 1
    got = seen.most_common(1)[0][0]
    return tuple(int(x) for x in got)


def test_an_exported_figure_of_a_time_plot_has_the_bands_and_their_legend(panel):
    from PySide6.QtCore import QPointF
    from nsgui.views.phase_bands import BAND_ALPHA
    from nsgui.views.plot_figure import Figure, FigureOptions
    c = panel.controller
    t, phase = _history()
    c.recorder.append(np.column_stack([t, np.sin(t), phase]))
    card = panel.add_time_plot("Coordinates", ["q.y"])
    panel.refresh_all()
    content = card.figure_content(300)
    assert [(round(a, 6), round(b, 6), col, lab) for a, b, col, lab in content.bands] == [
        (0.0, 0.3, band_color(0), "free"), (0.3, 0.45, band_color(1), "transition"),
        (0.45, 0.9, band_color(2), "constrained"), (0.9, 0.999, band_color(3), "take-off")]
    fig = Figure(content, FigureOptions(width=800, height=500, dpi=100))
    try:
        assert [fig.legend.items[k][1].text for k in range(len(fig.legend.items))][:4] == list(LABELS)
        img = fig.image()
        if os.environ.get("NSGUI_SAVE_FIGURE"):
            img.save(os.environ["NSGUI_SAVE_FIGURE"])
        for (a, b, color, _label) in content.bands:
            # a pixel in the band, away from the curve (sin t ≤ 0.85 here): the band's colour over white
            p = fig.plot.vb.mapViewToScene(QPointF(0.5 * (a + b), content.y_range[0] + 0.03 * np.ptp(content.y_range)))
            got = img.pixelColor(int(p.x()), int(p.y()))
            want = [255 + (int(color[k:k + 2], 16) - 255) * BAND_ALPHA / 255 for k in (1, 3, 5)]
            assert np.abs(np.array([got.red(), got.green(), got.blue()]) - want).max() <= 3, (color, got.name())
    finally:
        fig.close()


def test_a_long_phase_with_brief_blips_keeps_its_band():
    """Constrained (2) from 0.45 to 0.9 with a one-step blip of 1 every 0.05 s: the decimated bands
    are the long phases; no interval is given to the blips."""
    t, phase = _history()
    blips = (t > 0.46) & (t < 0.89) & (np.round(t * 1000) % 50 == 25)
    phase[blips] = 1
    starts, ends, values = phase_runs(t, phase, max_runs=20)
    assert values.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(starts, [0.0, 0.3, 0.45, 0.9], atol=1 / 20)


def test_many_bands_are_one_graphics_item_of_the_plot(panel):
    """A walker's support phase changes hundreds of times: the plot holds as many graphics items
    whatever the number of bands (an item per band made each refresh and repaint cost ~1 ms per band)."""
    c = panel.controller
    t = np.arange(20000) * 1e-3
    phase = (np.floor(t / 0.05) % 3).astype(float)  # 400 runs: MAX_BANDS bands drawn
    c.recorder.append(np.column_stack([t[:200], np.sin(t[:200]), phase[:200]]))
    card = panel.add_time_plot("Coordinates", ["q.y"])
    panel.refresh_all()
    few = len(card.item.vb.addedItems), len(card.item.scene().items())
    assert len(card.bands.regions()) == 4
    c.recorder.append(np.column_stack([t[200:], np.sin(t[200:]), phase[200:]]))
    c.columns.extend(c.recorder, 200)
    panel.refresh_all()
    assert len(card.bands.regions()) > 100
    assert (len(card.item.vb.addedItems), len(card.item.scene().items())) == few
