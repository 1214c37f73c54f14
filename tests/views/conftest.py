"""Fixtures of the GUI tests: `window`, a shown main window (closed without a save question)."""

import pytest


@pytest.fixture
def window(qtbot, gl):
    from nsgui.views.main_window import MainWindow
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.document.undo_stack.setClean()
    w.close()
