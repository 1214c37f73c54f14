"""Cancelling a data export from its progress dialog: the worker thread stops at the next chunk, no
file is written (an existing one is kept), the dialog closes and the message says so; the GUI keeps
handling events all along (the Cancel click itself comes from a timer while the export runs)."""

import os
import threading

import numpy as np
import pytest

from .test_window import run_to

pytestmark = pytest.mark.gui


class CancelFromDialog:
    """Wraps the engine writers' progress callback: after the first chunk the worker waits until a
    GUI timer has clicked the progress dialog's Cancel button, then asks the real callback (which
    must now answer False). If the GUI thread were blocked waiting for the write, nobody would
    click and the worker would go on after `patience` seconds, writing every chunk."""

    def __init__(self, parent, qtbot, patience=20.0):
        from PySide6.QtCore import QTimer
        self.parent = parent
        self.calls = []
        self.first_chunk = threading.Event()
        self.clicked = threading.Event()
        self.patience = patience
        self.dialog_seen = None
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def wrap(self, progress):
        def hooked(fraction):
            self.calls.append(fraction)
            if len(self.calls) == 1:
                self.first_chunk.set()
                self.clicked.wait(self.patience)
            return progress(fraction)
        return hooked

    def _tick(self):
        from PySide6.QtWidgets import QProgressDialog, QPushButton
        if not self.first_chunk.is_set() or self.clicked.is_set():
            return
        dialogs = self.parent.findChildren(QProgressDialog)
        if not dialogs:
            return
        dlg = dialogs[-1]
        self.dialog_seen = dlg
        dlg.findChild(QPushButton).click()  # the Cancel button
        self.clicked.set()
        self.timer.stop()


@pytest.fixture
def parent(qtbot, monkeypatch):
    from PySide6.QtWidgets import QWidget

    from nsgui.views import exports

    class Parent(QWidget):
        def __init__(self):
            super().__init__()
            self.entries = []

        def post(self, level, text):
            self.entries.append((level, text))

    def no_box(_parent, title, text):  # a failure must show in the test, not wait for a click
        raise AssertionError(f"{title}: {text}")
    monkeypatch.setattr(exports.QMessageBox, "warning", no_box)
    w = Parent()
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.fixture(scope="module")
def big_recorder():
    from nsgui.runtime.history import Recorder
    names = ["t"] + [f"s{j}" for j in range(49)]
    rec = Recorder(names)
    rng = np.random.default_rng(3)
    data = rng.standard_normal((200_000, 50))
    data[:, 0] = np.arange(200_000) * 1e-4
    rec.append(data)
    yield rec
    rec.close()


@pytest.mark.parametrize("fmt", ["csv", "hdf5"])
def test_cancel_in_the_dialog_stops_the_worker_and_writes_nothing(fmt, parent, big_recorder, tmp_path, qtbot):
    from nsgui.engine.export import CHUNK_ROWS
    from nsgui.views import exports
    folder = tmp_path / "exports"
    folder.mkdir()
    target = folder / ("run.csv" if fmt == "csv" else "run.h5")
    target.write_bytes(b"an older export\n")
    hook = CancelFromDialog(parent, qtbot)
    result = exports.run_with_progress(parent, "Exporting data", lambda progress: exports.export_data(
        big_recorder, str(target), fmt, attrs={"scene": "{}"}, progress=hook.wrap(progress)), threaded=True)
    assert result is None
    assert hook.clicked.is_set(), "the GUI did not handle events while the export was running"
    total = -(-len(big_recorder) // CHUNK_ROWS)
    assert len(hook.calls) == 1 < total  # stopped at the first chunk after Cancel
    assert sorted(os.listdir(folder)) == [target.name]  # no temporary file left
    assert target.read_bytes() == b"an older export\n"
    assert parent.entries == [("warning", "Exporting data: cancelled, no file was written")]
    assert not hook.dialog_seen.isVisible()
    assert not [t for t in threading.enumerate() if t.name == "nsgui-export"]


def test_uncancelled_threaded_export_shows_progress_and_writes_the_file(parent, big_recorder, tmp_path):
    from nsgui.engine.export import read_hdf5
    from nsgui.views import exports
    seen = []
    path = str(tmp_path / "run.h5")

    def job(progress):
        return exports.export_data(big_recorder, path, "hdf5",
                                   progress=lambda f: seen.append(f) or progress(f))

    assert exports.run_with_progress(parent, "Exporting data", job, threaded=True) == path
    assert seen == sorted(set(seen)) and seen[-1] == 1.0 and len(seen) > 10
    got = read_hdf5(path)
    rows = big_recorder.rows()
    for j, name in enumerate(big_recorder.names):
        np.testing.assert_array_equal(got[name], rows[:, j])
    assert parent.entries == [("info", "Exporting data: done")]


@pytest.mark.parametrize("fmt", ["csv", "hdf5"])
def test_cancel_an_export_started_from_the_menu(fmt, window, scene_file, tmp_path, qtbot, monkeypatch):
    """File ▸ Export ▸ Data…, the way the menu runs it; small chunks make a short run span many."""
    import nsgui.engine.export as engine_export
    from nsgui.views import main_window as mw
    assert window.open_scene(scene_file)
    run_to(window, 0.2)
    n = len(window.controller.recorder)
    monkeypatch.setattr(engine_export, "CHUNK_ROWS", 16)
    assert n > 4 * 16
    folder = tmp_path / "exports"
    folder.mkdir()
    path = str(folder / ("data.csv" if fmt == "csv" else "data.h5"))
    monkeypatch.setattr(mw.QFileDialog, "getSaveFileName", lambda *a, **k: (path, ""))
    hook = CancelFromDialog(window, qtbot)
    name = "write_csv" if fmt == "csv" else "write_hdf5"
    writer = getattr(engine_export, name)

    def hooked_writer(*args, progress=None, **kw):
        return writer(*args, progress=hook.wrap(progress), **kw)
    monkeypatch.setattr(engine_export, name, hooked_writer)
    window.export_data_dialog(fmt)
    assert hook.clicked.is_set()
    assert len(hook.calls) == 1
    assert os.listdir(folder) == []
    assert "Exporting data: cancelled, no file was written" in [t for _lvl, t in window.messages.entries]


def test_export_asked_during_a_run_pauses_and_writes_the_whole_history(window, scene_file, tmp_path, qtbot,
                                                                       monkeypatch):
    """Export while running: the run pauses, everything it produced is taken into the history, and
    the writer thread reads the history itself (no copy of it on the GUI thread), in chunks."""
    import nsgui.engine.export as engine_export
    from nsgui.engine.export import read_csv
    from nsgui.views import main_window as mw
    assert window.open_scene(scene_file)
    c = window.controller
    window.set_speed(None)
    window.play()
    qtbot.waitUntil(lambda: c.recorder is not None and len(c.recorder) > 3000, timeout=280_000)  # a first run (spawn)
    path = str(tmp_path / "live.csv")
    monkeypatch.setattr(mw.QFileDialog, "getSaveFileName", lambda *a, **k: (path, ""))
    monkeypatch.setattr(engine_export, "CHUNK_ROWS", 256)
    seen = {}
    writer = engine_export.write_csv

    def hooked(p, source, progress=None, **kw):
        seen["source"], seen["n"] = source, len(source)
        return writer(p, source, progress=progress, **kw)
    monkeypatch.setattr(engine_export, "write_csv", hooked)
    window.export_data_dialog("csv")
    assert seen["source"] is c.recorder  # the history itself went to the writer, not a copy
    assert not c.running and not c.runner.busy
    qtbot.waitUntil(lambda: os.path.exists(path), timeout=30000)
    got = read_csv(path)
    assert seen["n"] == len(c.recorder)
    rows = c.recorder.rows()
    for j, name in enumerate(c.recorder.names):
        np.testing.assert_array_equal(got[name], rows[:, j])
