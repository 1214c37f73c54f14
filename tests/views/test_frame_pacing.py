"""Live redraws while a run goes flat out: the pacing policy as a function of given redraw costs
(no clock involved), the window's flat-out state that selects it, and 3D frames that refill vertex
buffers without compiling shaders again."""

import os

import pytest

from nsgui.views.frame_budget import FLAT_OUT_PACE, PACE, interval, redraw_interval

from .test_window import ROOT, run_to

COSTS = [0.0, 1e-4, 0.001, 0.004, 0.009, 0.02, 0.045, 0.1, 0.3, 2.0]  # seconds per redraw


def test_redraw_interval_keeps_the_share_within_the_rates():
    assert redraw_interval(0.01, 0.25, 0.02, 1.0) == pytest.approx(0.04)  # cost / share
    assert redraw_interval(0.001, 0.25, 0.05, 1.0) == 0.05  # cheap: the fastest rate
    assert redraw_interval(1.0, 0.25, 0.05, 0.5) == 0.5  # dear: still redrawn twice a second


@pytest.mark.parametrize("kind", ["3d", "plots", "tick"])
def test_flat_out_redraws_take_at_most_their_share(kind):
    share, fastest, slowest = FLAT_OUT_PACE[kind]
    for cost in COSTS:
        s = interval(kind, cost, flat_out=True)
        assert fastest <= s <= slowest
        if s < slowest:  # not held at the slowest rate: within the share of the thread
            assert cost / s <= share + 1e-12
        # flat out never redraws more often than otherwise (the run gets the CPU)
        assert s >= interval(kind, cost, flat_out=False)


def test_flat_out_live_rates():
    """A live view at 12 frames/s at most, plots at 8 redraws/s: the issue's 10-15 fps."""
    assert 1 / interval("3d", 0.0, True) == pytest.approx(12)
    assert 1 / interval("plots", 0.0, True) == pytest.approx(8)
    assert 1 / interval("3d", 0.0, False) == pytest.approx(24)  # paused, scrubbing: full rate
    # a 20 ms software-rendered frame: 1/10 s apart flat out (20 % of a core), 20/s otherwise
    assert interval("3d", 0.02, True) == pytest.approx(0.02 / FLAT_OUT_PACE["3d"][0])
    assert interval("3d", 0.02, False) == pytest.approx(0.02 / PACE["3d"][0])
    assert PACE["3d"][0] > FLAT_OUT_PACE["3d"][0]


def test_plot_cards_share_the_plots_budget(window):
    """Every card shown counts against the plots' share: n cards costing c each are redrawn
    n * c / share apart while flat out."""
    panel, c = window.plots, window.controller
    card = panel.add_time_plot("paced", [])
    card.refresh_cost, card.plot.paint_cost = 0.004, 0.002
    c.set_speed(None)
    c._set_running(True)  # the pacing state only: no run is needed to choose the intervals
    try:
        assert c.flat_out
        share = FLAT_OUT_PACE["plots"][0]
        assert panel.card_interval(card, 4) == pytest.approx(4 * 0.006 / share)
        c.set_speed(1.0)
        assert not c.flat_out
        assert panel.card_interval(card, 4) == pytest.approx(4 * 0.006 / PACE["plots"][0])
    finally:
        c._set_running(False)
    assert not c.flat_out


def test_live_frames_do_not_rebuild_shaders(window, gl, monkeypatch):
    """Contact wedges and force-arrow heads change size from frame to frame (contacts open and
    close): their buffers are refilled, the shader programs are not compiled and linked again
    (tens of milliseconds per frame with a software renderer)."""
    from vispy.visuals.shaders import program
    window.open_scene(os.path.join(ROOT, "resources", "scenes", "default.json"))
    run_to(window, 2.0)
    view, rec = window.view3d, window.controller.recorder
    rows = [rec.row_at_time(t) for t in (0.0, 0.55, 1.0, 1.4, 2.0)]
    touching = []
    builds = []
    monkeypatch.setattr(program.ModularProgram, "_build",
                        lambda self, _b=program.ModularProgram._build: (builds.append(1), _b(self))[1])
    for k, row in enumerate(rows * 2):
        view.show_row(row)
        view.render_image((400, 300))
        if k == len(rows) - 1:
            builds.clear()  # every visual has been drawn once: from here on only buffers change
        touching.append(view._heads.visible and view._heads._vertices.size // 3)
    assert len(set(touching)) > 1, "the rows chosen should show different contacts"
    assert not builds
    # the last frame's buffers hold the last row's arrow heads, one triangle each
    arrows = view._arrows.visible and len(view._arrows.pos) // 2
    assert touching[-1] == arrows
