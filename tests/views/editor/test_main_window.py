"""The editor inside the real main window: File ▸ New, build by mouse, Play locks the canvas,
an edit made while paused is used by Reset."""

import numpy as np
import pytest

from tests.views.editor.conftest import Mouse


@pytest.fixture
def main_window(qtbot, gl, state_dir):
    from nsgui.views.main_window import MainWindow
    w = MainWindow()
    qtbot.addWidget(w)
    w.editor.ask_confirm = lambda title, text: True
    w.editor.ask_save_changes = lambda: "discard"
    w.show()
    qtbot.waitExposed(w)
    yield w
    if w.is_running():
        w.controller.pause()
    w.document.undo_stack.setClean()
    w.close()


def test_build_play_pause_edit_reset(main_window, qtbot):
    w = main_window
    ed = w.editor
    ed.new_action.trigger()
    assert w.document.scene.bodies == []
    w.tabs.setCurrentWidget(ed.widget)
    canvas = ed.canvas
    canvas.view.scale = 300.0
    canvas.view.center = np.array([0.0, 0.6])
    m = Mouse(canvas)
    m.tool("ground")
    m.click(0.0, 0.0)
    m.tool("disk")
    m.click(0.0, 0.5)
    assert w.document.problems() == []
    assert w.windowTitle().endswith("nsgui") and w.isWindowModified()
    w.play()
    qtbot.waitUntil(lambda: w.is_running(), timeout=60000)
    assert canvas.read_only
    m.tool("disk")                      # ignored: the tools are disabled while running
    m.click(0.5, 0.5)
    assert len(w.document.scene.bodies) == 1
    w.controller.pause()
    qtbot.waitUntil(lambda: not w.is_running(), timeout=60000)
    assert not canvas.read_only
    # an edit while paused, taken by Reset
    ed.canvas.set_selection([("body", "ball")])
    f = next(f for f in ed.widget.inspector.fields if f.label == "y")
    f.spin.setValue(0.8)
    assert np.isclose(w.document.scene.initial.q["ball_free.y"], 0.8)
    assert w.reset_simulation()
    assert np.isclose(w.controller.model.scene.initial.q["ball_free.y"], 0.8)


def test_files_opened_or_saved_by_the_editor_are_in_the_windows_recent_list(main_window, qtbot, tmp_path):
    """One recent-files list, the window's: a scene saved by the editor's Save (asked before a
    New, or by the editor's own Save As) or opened by the editor is on top of Open Recent."""
    w, ed = main_window, main_window.editor
    first, second = str(tmp_path / "first.json"), str(tmp_path / "second.json")
    ed.new_action.trigger()
    ed.ask_save_path = lambda: first
    assert ed.save_as()
    assert w._recent()[0] == first
    ed.ask_save_path = lambda: second
    assert ed.save_as()
    assert w._recent()[:2] == [second, first]
    assert ed.open_file(first)
    assert w._recent()[:2] == [first, second]
    w._fill_recent()
    assert [a.text() for a in w.recent_menu.actions()][:2] == [first, second]
