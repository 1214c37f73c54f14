"""Fixtures of the GUI tests: `window`, a shown main window (closed without a save question) with
the QSettings of the `settings` fixture (None: the session's; a test module overrides it with a
file of its own), `class_window`, one such window shared by the tests of a class that each open a
scene first (see `shared_window`), and `scene_file`, the ball-and-box scene written to a file."""

import json

import pytest

from .scenes import BALL_BOX


def close_and_delete(w):
    """Close `w` without a save question and delete it now: a window is kept alive by its own
    connections until Qt deletes it, and a `deleteLater` (as qtbot's) waits for the next test that
    spins the event loop, so windows (their histories, canvases) piled up from test to test."""
    from PySide6.QtCore import QCoreApplication, QEvent
    w.document.undo_stack.setClean()
    w.close()
    w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


def shown_window(qtbot, settings=None):
    """Yields a shown main window, closed and deleted afterwards (for fixtures; not given to qtbot,
    which would close it again after it is deleted)."""
    from nsgui.views.main_window import MainWindow
    w = MainWindow(settings=settings)
    w.show()
    qtbot.waitExposed(w)
    yield w
    close_and_delete(w)


def shared_window(tmp_path_factory, settings=None):
    """Yields a shown main window for several tests of a module (closed and deleted afterwards).

    A window costs 2-4 s to set up (its widgets, a vispy canvas and its EGL context, a spawned
    simulation process that loads the engine's compiled kernels). Tests that share one each start
    with `open_scene`, which replaces the document, the model, the run and its history (the 3D view
    takes the new model and fits its camera to it); what else a test changes it must put back at
    its start (the module's `window` fixture does it). Its recovery files go to a directory of the
    module's own (a test's private one would be gone for the next test)."""
    from PySide6.QtTest import QTest
    from nsgui.views.main_window import MainWindow
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NSGUI_STATE_DIR", str(tmp_path_factory.mktemp("nsgui-state")))
        w = MainWindow(settings=settings)
    w.show()
    assert QTest.qWaitForWindowExposed(w)
    yield w
    close_and_delete(w)


@pytest.fixture(scope="class")
def class_window(qapp, gl, tmp_path_factory):
    """A main window shared by the tests of a class (the session's settings); each opens a scene.
    Class-scoped so that it is closed when the class's tests are done: two windows open at once
    share the display ticks' budget (views/frame_budget.py), and a test of a window of its own
    waiting on its ticks (a replay) could wait on the other's."""
    yield from shared_window(tmp_path_factory)


@pytest.fixture
def settings():
    return None


@pytest.fixture
def window(qtbot, gl, settings):
    yield from shown_window(qtbot, settings)


@pytest.fixture
def scene_file(tmp_path):
    path = tmp_path / "ball_block.json"
    path.write_text(json.dumps(BALL_BOX))
    return str(path)
