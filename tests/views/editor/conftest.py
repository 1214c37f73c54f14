"""Editor test fixtures: a stand-in main window with the attributes attach_editor relies on, and
helpers that drive the canvas with simulated mouse events (QTest)."""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMainWindow, QTabWidget, QWidget

from nsgui.views.document import SceneDocument


class StandInWindow(QMainWindow):
    """The main window's contract (issue #3) without the 3D view and the simulator."""
    runningChanged = Signal(bool)

    def __init__(self):
        super().__init__()
        self.document = SceneDocument()
        self.tabs = QTabWidget()
        self.tabs.addTab(QWidget(), "3D view")
        self.setCentralWidget(self.tabs)
        self.menus = {k: self.menuBar().addMenu(k) for k in ("File", "Edit", "View", "Simulation", "Help")}
        self._running = False
        self.setWindowTitle("untitled[*] — nsgui")

    def is_running(self):
        return self._running

    def set_running(self, on):
        self._running = on
        self.runningChanged.emit(on)

    def reset_simulation(self):
        pass

    def resume_from_here(self):
        pass


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    d = tmp_path / "state"
    monkeypatch.setenv("NSGUI_STATE_DIR", str(d))
    return d


@pytest.fixture
def window(qtbot, state_dir):
    from nsgui.views.editor.integration import attach_editor
    w = StandInWindow()
    qtbot.addWidget(w)
    ed = attach_editor(w)
    ed.ask_confirm = lambda title, text: True
    ed.ask_save_changes = lambda: "discard"
    w.resize(1400, 900)
    w.show()
    w.tabs.setCurrentWidget(ed.widget)
    qtbot.waitExposed(w)
    ed.canvas.view.scale = 400.0          # 400 px/m: the grid step is 0.1 m
    ed.canvas.view.center = np.array([0.0, 0.8])
    ed.canvas.update()
    return w


class Mouse:
    """Drive the editor canvas in world coordinates (m)."""

    def __init__(self, canvas):
        self.canvas = canvas

    def px(self, x, y):
        p = self.canvas.view.w2s((x, y))
        return QPoint(round(p.x()), round(p.y()))

    def tool(self, name):
        self.canvas.window().editor.widget.buttons[name].click() if hasattr(self.canvas.window(), "editor") \
            else self.canvas.set_tool(name)

    def click(self, x, y, modifier=Qt.NoModifier):
        QTest.mouseClick(self.canvas, Qt.LeftButton, modifier, self.px(x, y))

    def drag(self, a, b, steps=5, modifier=Qt.NoModifier):
        c = self.canvas
        QTest.mousePress(c, Qt.LeftButton, modifier, self.px(*a))
        for k in range(1, steps + 1):
            t = k / steps
            x, y = a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])
            # QTest.mouseMove does not carry the button state: send a real move event
            from PySide6.QtGui import QMouseEvent
            from PySide6.QtCore import QEvent, QPointF
            pos = QPointF(self.px(x, y))
            ev = QMouseEvent(QEvent.MouseMove, pos, c.mapToGlobal(pos), Qt.NoButton, Qt.LeftButton, modifier)
            c.mouseMoveEvent(ev)
        QTest.mouseRelease(c, Qt.LeftButton, modifier, self.px(*b))


@pytest.fixture
def mouse(window):
    return Mouse(window.editor.canvas)
