"""Play runs the scene the user sees (issue 8 §1.1): after File ▸ New and building in the editor,
also when a run of another scene (or of the empty scene) was played and paused before; after an
edit in the middle of a run, Play continues the run with the edit."""

import numpy as np
import pytest

from tests.views.editor.conftest import Mouse

from .test_window import DEFAULT

pytestmark = pytest.mark.gui


def build_bar_on_pin_by_wall(window):
    """With the mouse: a 0.5 m bar from (-0.5, 1) to (0, 1) pinned at its right end, a wall at
    x = 0.3 m. Released horizontal, the bar swings down."""
    ed = window.editor
    window.tabs.setCurrentWidget(ed.widget)
    canvas = ed.canvas
    canvas.view.scale = 300.0
    canvas.view.center = np.array([0.0, 0.8])
    canvas.update()
    m = Mouse(canvas)
    m.tool("bar")
    m.drag((-0.5, 1.0), (0.0, 1.0))
    m.tool("pin")
    m.click(0.0, 1.0)
    m.tool("wall")
    m.click(0.3, 0.5)
    m.tool("select")
    s = window.document.scene
    assert [b.name for b in s.bodies] == ["bar"] and [j.type for j in s.joints] == ["revolute"]
    assert [o.type for o in s.obstacles] == ["wall"] and window.document.problems() == []


def play_until(window, qtbot, t):
    """Press Play, wait until the run passes simulated time t, press Pause (as a user does)."""
    c = window.controller
    window.act_play.trigger()
    assert c.running
    qtbot.waitUntil(lambda: c.recorder is not None and c.recorder.t_end > t, timeout=280_000)  # the first run may compile (numba)
    window.act_play.trigger()
    assert not c.running
    c.flush()


def file_new(window):
    window.editor.ask_save_changes = lambda: "discard"
    window.editor.new_action.trigger()
    assert window.document.scene.bodies == []


def assert_bar_swings(window, qtbot, empty_image):
    c = window.controller
    rec = c.recorder
    assert c.model.body_names == ["bar"]
    q = rec.column("q.pin_bar")
    assert abs(q[-1] - q[0]) > 0.1, "the bar must swing down"
    assert rec.column("energy.kinetic").max() > 0.1
    assert window.view3d.model is c.model
    window.tabs.setCurrentWidget(window.view3d)
    img = window.view3d.render_image()
    assert np.abs(img.astype(int) - empty_image.astype(int)).sum() > 1000  # the bar is drawn


def test_play_after_pause_new_and_build_runs_the_new_scene(window, qtbot):
    """The sequence of the report: default scene, Play, Pause, File ▸ New, build, Play."""
    assert window.open_scene(DEFAULT)
    play_until(window, qtbot, 0.2)
    file_new(window)
    empty = window.view3d.render_image()
    build_bar_on_pin_by_wall(window)
    play_until(window, qtbot, 0.4)
    assert window.controller.recorder.t_start == 0.0
    assert_bar_swings(window, qtbot, empty)


def test_play_after_the_empty_scene_was_played_runs_what_was_built(window, qtbot):
    """File ▸ New, Play and Pause on the still empty scene (its clock runs), then build and Play:
    the built scene runs (it used to go on with the empty one: nothing moved, energy 0)."""
    file_new(window)
    empty = window.view3d.render_image()
    play_until(window, qtbot, 0.2)
    build_bar_on_pin_by_wall(window)
    play_until(window, qtbot, 0.4)
    assert window.controller.recorder.t_start == 0.0  # nothing of the empty run could go on
    assert_bar_swings(window, qtbot, empty)
    level, text = window.messages.entries[-1]
    assert level == "warning" and "starts from t = 0" in text


def test_play_after_an_edit_mid_run_continues_with_it(window, qtbot):
    from nsgui.scene import edits as ops
    from nsgui.views.editor.commands import edit
    assert window.open_scene(DEFAULT)
    c = window.controller
    play_until(window, qtbot, 0.3)
    t_pause = c.cursor_time
    t0 = c.recorder.snapshot_at_or_before(t_pause).t  # the saved state the run goes on from
    assert t_pause - t0 < 0.021  # states are saved every 20 ms (and where a run pauses)
    old = c.recorder.rows()
    old_names = list(c.recorder.names)
    # the editor drops a new ball at (1, 2) while paused
    edit(window.document, "Add", lambda s: ops.add_body(s, ops.make_shape("disk", radius=0.1), (1.0, 2.0, 0.0),
                                                        name="drop"))
    play_until(window, qtbot, t_pause + 0.2)
    rec = c.recorder
    assert "drop" in c.model.body_names
    k = rec.row_at_time(t0)
    assert rec.time[k] == pytest.approx(t0, abs=1e-12)
    for j, n in enumerate(old_names):  # the run before the pause is kept
        np.testing.assert_array_equal(rec.column(n, 0, k), old[:k, j])
    y = rec.column("q.drop_free.y", k)
    # the new ball falls from where it was put (read 0.2 s on: the run may go on much longer on a
    # busy machine, and the ball has bounced back up by then)
    assert y[0] == 2.0 and y[rec.row_at_time(t0 + 0.2) - k] < 2.0 - 0.1
    assert rec.column("q.box.x", k)[-1] != old[-1, old_names.index("q.box.x")]  # the rest goes on


def test_play_after_an_edit_the_run_cannot_continue_starts_it_over(window, qtbot):
    from nsgui.scene import edits as ops
    from nsgui.views.editor.commands import edit
    assert window.open_scene(DEFAULT)
    c = window.controller
    play_until(window, qtbot, 0.3)
    # pin the flying ball to the world where it starts: the free ball becomes a pendulum
    edit(window.document, "Pin", lambda s: ops.add_joint(s, "revolute", "ball", "world", (2.5, 1.8)))
    play_until(window, qtbot, 0.1)
    assert c.recorder.t_start == 0.0 and "pin_ball" in c.model.coord_names
    level, text = window.messages.entries[-1]
    assert level == "warning" and "body 'ball' hangs from free joint" in text and "starts from t = 0" in text
