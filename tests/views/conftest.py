"""Fixtures of the GUI tests: `window`, a shown main window (closed without a save question) with
the QSettings of the `settings` fixture (None: the session's; a test module overrides it with a
file of its own), and `scene_file`, the ball-and-box scene written to a file."""

import json

import pytest

from .scenes import BALL_BOX


def shown_window(qtbot, settings=None):
    """Yields a shown main window, closed afterwards without a save question (for fixtures)."""
    from nsgui.views.main_window import MainWindow
    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.document.undo_stack.setClean()
    w.close()


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
