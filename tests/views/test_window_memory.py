"""A closed main window is freed with everything it held: its history, controller, 3D view and
vispy canvas (and the canvas's EGL context), so a process that opens window after window does not
grow. Two causes kept every window alive until session 14: two title-updating lambdas connected
to the document's signals (a cycle through Qt's connections, which the collector cannot see), and
vispy's EGL backend, which lists every canvas it makes and never takes one out."""

import gc
import weakref

import numpy as np
import pytest

pytestmark = pytest.mark.gui


def open_and_run(qtbot, scene_file):
    from nsgui.views.main_window import MainWindow
    w = MainWindow()  # (not given to qtbot: these tests delete it themselves)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_scene(scene_file)
    c = w.controller
    c.set_speed(None)
    c.run_until(0.3)
    assert c.flush(timeout=280), "the run did not finish"
    return w


def close_and_delete(qtbot, w):
    from PySide6.QtCore import QCoreApplication, QEvent
    w.document.undo_stack.setClean()
    w.close()
    w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    qtbot.wait(10)


def test_a_closed_window_is_freed_with_its_history_and_canvas(qtbot, gl, scene_file):
    w = open_and_run(qtbot, scene_file)
    c = w.controller
    assert len(c.recorder) == 301
    image = w.view3d.render_image()
    assert image[..., :3].std() > 1
    canvas = w.view3d.canvas
    backend = canvas._backend
    egl_windows = type(backend)._vispy_close.__globals__.get("_VP_EGL_ALL_WINDOWS", [])
    refs = {name: weakref.ref(obj) for name, obj in
            [("window", w), ("controller", c), ("history", c.recorder), ("3D view", w.view3d),
             ("canvas", canvas), ("canvas backend", backend)]}
    del c, canvas
    close_and_delete(qtbot, w)
    del w
    assert backend not in egl_windows
    del backend
    gc.collect()
    alive = [name for name, ref in refs.items() if ref() is not None]
    assert alive == [], f"still alive after the window closed: {alive}"


def test_closing_one_window_leaves_the_other_windows_3d_view_drawing(qtbot, gl, scene_file):
    """Each canvas has its own EGL context, destroyed with its window: the other window's view
    still renders, and its frame still follows the run."""
    first = open_and_run(qtbot, scene_file)
    second = open_and_run(qtbot, scene_file)
    before = second.view3d.render_image()
    close_and_delete(qtbot, first)
    gc.collect()
    again = second.view3d.render_image()
    assert again[..., :3].std() > 1
    np.testing.assert_array_equal(again, before)  # the same state drawn the same way
    second.controller.seek_row(0)
    start = second.view3d.render_image()
    assert np.abs(start.astype(int) - before.astype(int)).sum() > 1000  # the bodies moved since t = 0
    close_and_delete(qtbot, second)
