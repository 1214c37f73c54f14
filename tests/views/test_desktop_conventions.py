"""Desktop conventions (issue 8 §1.11): unsaved changes offer Save / Discard / Cancel before another
file is opened; the keyboard moves through the Events list as clicks do; at the default window
size the Events panel shows several rows and the editor's canvas and inspector have room."""

import json
import os

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from .conftest import shown_window
from .scenes import BALL_BOX
from .test_window import DEFAULT, run_to

pytestmark = pytest.mark.gui


@pytest.fixture
def fresh_window(qtbot, gl, tmp_path):
    """A main window at its default size and layout (no saved geometry or dock state)."""
    yield from shown_window(qtbot, QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


def edited_scene_file(window, tmp_path):
    """A saved scene, opened and then edited (the restitution of its first contact)."""
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(BALL_BOX))
    assert window.open_scene(str(path))
    window.scene_tree.set_field(("contacts", 0), "restitution", 0.2)
    assert window.document.modified
    return path


def answer_when_asked(button):
    """Click `button` of the question box as soon as it is shown; returns what the box offered."""
    offered = []

    def answer():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        offered.append(box.standardButtons())
        choice = box.button(button)
        choice.click() if choice is not None else box.reject()  # not offered: close the box
    QTimer.singleShot(0, answer)
    return offered


def test_opening_another_file_with_unsaved_changes_offers_save(window, tmp_path, monkeypatch):
    path = edited_scene_file(window, tmp_path)
    monkeypatch.delenv("NSGUI_TEST")  # the real question, answered by a click
    offered = answer_when_asked(QMessageBox.Save)
    assert window.open_scene(DEFAULT)
    [buttons] = offered
    for b in (QMessageBox.Save, QMessageBox.Discard, QMessageBox.Cancel):
        assert buttons & b
    assert json.loads(path.read_text())["contacts"][0]["restitution"] == 0.2  # saved first
    assert window.document.path == os.path.abspath(DEFAULT) and not window.document.modified


def test_cancel_keeps_the_edited_scene_and_discard_drops_it(window, tmp_path, monkeypatch):
    path = edited_scene_file(window, tmp_path)
    monkeypatch.delenv("NSGUI_TEST")
    answer_when_asked(QMessageBox.Cancel)
    assert not window.open_scene(DEFAULT)
    assert window.document.path == str(path) and window.document.modified
    answer_when_asked(QMessageBox.Discard)
    assert window.open_scene(DEFAULT)
    assert json.loads(path.read_text())["contacts"][0]["restitution"] == BALL_BOX["contacts"][0]["restitution"]


def test_keyboard_in_the_events_list_moves_the_time_cursor_like_a_click(window, qtbot):
    assert window.open_scene(DEFAULT)
    run_to(window, 3.0)
    events = window.events
    window.events._flush()
    times = [events.event_at(r).t for r in range(events.rowCount())]
    assert len(times) > 20
    c = window.controller
    events.setFocus()
    QTest.mouseClick(events.viewport(), Qt.LeftButton, Qt.NoModifier,
                     events.row_rect(0).center())
    assert c.cursor_time == pytest.approx(times[0], abs=1e-12)
    for row in range(1, 8):
        QTest.keyClick(events, Qt.Key_Down)
        assert events.currentRow() == row
        assert c.cursor_time == pytest.approx(times[row], abs=1e-12)  # the cursor follows the list
        # the list stays where the user is (it used to keep jumping to the newest event)
        assert events.viewport().rect().intersects(events.row_rect(row))
    QTest.keyClick(events, Qt.Key_End, Qt.ControlModifier)
    assert (events.currentRow(), c.cursor_time) == (len(times) - 1, pytest.approx(times[-1], abs=1e-12))
    QTest.keyClick(events, Qt.Key_Home, Qt.ControlModifier)
    assert (events.currentRow(), c.cursor_time) == (0, pytest.approx(times[0], abs=1e-12))
    assert not c.running


def test_default_size_shows_several_events_and_a_usable_editor(fresh_window, qtbot):
    from nsgui.engine.simulator import Event
    w = fresh_window
    assert (w.width(), w.height()) == (1500, 920)
    assert w.open_scene(DEFAULT)
    events = w.events
    events.add_events([Event(0.1 * k, "impact", f"c{k}") for k in range(20)])
    QApplication.processEvents()
    shown = events.rowAt(events.viewport().height() - 1) - events.rowAt(0)
    assert shown + 1 >= 4, f"the Events panel shows {shown + 1} rows"
    # the editor: a canvas to draw in beside an inspector whose fields are not cut off
    ed = w.editor
    w.tabs.setCurrentWidget(ed.widget)
    QApplication.processEvents()
    canvas = ed.canvas
    assert canvas.width() >= 400 and canvas.height() >= 400, canvas.size()
    insp = ed.widget.inspector
    for selection in ([], [("body", "ball")], [("joint", "pendulum")], [("contact", "ball_box")]):
        canvas.set_selection(selection)
        QApplication.processEvents()
        content = insp.scroll.widget()
        assert content.minimumSizeHint().width() <= insp.scroll.viewport().width(), selection
    img = w.grab().toImage()
    assert not img.isNull() and np.array([img.width(), img.height()]).min() > 800
