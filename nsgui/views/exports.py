"""Exports: recorded data (CSV, HDF5 via the engine writers), plots (PNG, SVG) and the 3D view as a
video (MP4, GIF). Every file is written to a temporary name next to the target and moved into place
only when complete, so an export is complete or absent, also when cancelled or failing.

Data exports run in a worker thread (`run_with_progress(..., threaded=True)`); the engine writers
write in row chunks and ask the progress callback after each one, so Cancel stops the write at the
next chunk and the temporary file is removed."""

from __future__ import annotations

import os
import tempfile
import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QMessageBox, QProgressDialog, QSpinBox)

from nsgui.engine.export import ExportCancelled
from nsgui.views.video import even_size, video_format, video_frame_times, write_video

Cancelled = ExportCancelled  # every cancelled export (data, video) raises this


def _temp_next_to(path):
    """A temporary file beside `path` with the same extension (writers pick the format from it)."""
    folder = os.path.dirname(os.path.abspath(path))
    base, ext = os.path.splitext(os.path.basename(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{base}.", suffix=f".tmp{ext}")
    os.close(fd)
    return tmp


def _finish(tmp, path):
    os.replace(tmp, path)


def _discard(tmp):
    try:
        os.remove(tmp)
    except OSError:
        pass


def export_data(recorder, path, fmt, attrs=None, progress=None):
    """All recorded signals with the names of `nsgui run` (column per signal). `recorder` may also
    be the dict of signals already taken from it (to write from another thread). The engine writers
    write atomically in row chunks; `progress(fraction)` is called after each chunk and cancels the
    export (raising Cancelled, no file written, an existing file untouched) when it returns False."""
    from nsgui.engine.export import write_csv, write_hdf5
    if fmt == "csv":
        write_csv(path, recorder, progress=progress)
    elif fmt in ("hdf5", "h5"):
        write_hdf5(path, recorder, attrs or {}, progress=progress)
    else:
        raise ValueError(f"unknown data format {fmt!r} (csv or hdf5)")
    return path


def export_plot(card, path):
    """One plot as PNG or SVG (pyqtgraph's exporters)."""
    import pyqtgraph.exporters as pgexp
    ext = os.path.splitext(path)[1].lower()
    item = card.plot.getPlotItem()
    if ext == ".svg":
        exporter = _QtSvgExporter(card.plot)
    elif ext in (".png", ".jpg", ".jpeg", ".bmp"):
        exporter = pgexp.ImageExporter(item)
        w = int(item.sceneBoundingRect().width())
        exporter.parameters()["width"] = max(2 * w, 800)
    else:
        raise ValueError(f"unsupported plot format {ext!r} (use .png or .svg)")
    tmp = _temp_next_to(path)
    try:
        exporter.export(tmp)
        if not os.path.getsize(tmp):
            raise OSError(f"the plot exporter wrote nothing to {path}")
        _finish(tmp, path)
    except BaseException:
        _discard(tmp)
        raise
    return path


class _QtSvgExporter:
    """Vector SVG of a plot widget through Qt's SVG generator (pyqtgraph's SVG exporter fails on
    the path data Qt 6.12 produces)."""

    def __init__(self, widget):
        self.widget = widget

    def export(self, path):
        from PySide6.QtCore import QRect, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator
        size = self.widget.size()
        gen = QSvgGenerator()
        gen.setFileName(path)
        gen.setSize(QSize(size.width(), size.height()))
        gen.setViewBox(QRect(0, 0, size.width(), size.height()))
        gen.setTitle(getattr(self.widget, "windowTitle", lambda: "")() or "nsgui plot")
        painter = QPainter(gen)
        try:
            self.widget.render(painter)
        finally:
            painter.end()


def export_video(view3d, controller, path, fps=30, speed=1.0, t0=None, t1=None, progress=None, size=None):
    """Render the 3D view offscreen at the history's time of each frame, every frame at one size
    (`size` = (w, h), by default the view's; rounded down to even numbers), and encode MP4 or GIF.
    Returns the number of frames."""
    rec = controller.recorder
    video_format(path)
    t0 = rec.t_start if t0 is None else t0
    t1 = rec.t_end if t1 is None else t1
    times = video_frame_times(t0, t1, fps, speed)
    size = even_size(size or view3d.view_size())

    def frames():
        for t in times:
            view3d.show_row(rec.row_at_time(t))
            yield view3d.render_image(size)

    try:
        return write_video(path, frames(), fps, progress=progress, total=len(times))
    finally:
        view3d.show_row(controller.cursor)


def run_with_progress(window, title, job, threaded=False):
    """Run `job(progress)` with a progress dialog that can cancel it; report the outcome in the
    window's messages. `progress(fraction) -> bool` returns False once cancelled."""
    dlg = QProgressDialog(title, "Cancel", 0, 1000, window)
    dlg.setWindowModality(Qt.WindowModal)
    dlg.setMinimumDuration(300)
    dlg.setValue(0)
    state = {"cancel": False, "fraction": None}
    dlg.canceled.connect(lambda: state.__setitem__("cancel", True))  # seen by the worker at once

    def progress(fraction):
        if threading.current_thread() is threading.main_thread():
            dlg.setValue(int(1000 * min(max(fraction, 0.0), 1.0)))
            QApplication.processEvents()
            state["cancel"] = state["cancel"] or dlg.wasCanceled()
        return not state["cancel"]

    try:
        result = _run_threaded(job, dlg, state) if threaded else job(progress)
    except Cancelled:
        window.post("warning", f"{title}: cancelled, no file was written")
        return None
    except Exception as exc:
        window.post("error", f"{title} failed: {exc}")
        QMessageBox.warning(window, title, f"{title} failed:\n{exc}")
        return None
    finally:
        dlg.reset()
        dlg.close()
    window.post("info", f"{title}: done")
    return result


def _run_threaded(job, dlg, state):
    """Run `job(progress)` (a data write) in a thread while the dialog stays live. The worker's
    `progress(fraction)` only records the fraction and answers False once Cancel was pressed: the
    job then stops at its next chunk and removes its temporary file. The GUI thread keeps handling
    events until the worker has ended (at most one chunk after Cancel), so that the outcome it
    reports (done, or cancelled with no file written) is true."""
    box = {}

    def progress(fraction):
        state["fraction"] = fraction
        return not state["cancel"]

    def target():
        try:
            box["result"] = job(progress)
        except BaseException as exc:  # handed to the GUI thread
            box["error"] = exc

    th = threading.Thread(target=target, name="nsgui-export", daemon=True)
    th.start()
    while th.is_alive():
        fraction = state["fraction"]
        if fraction is not None and not state["cancel"]:
            dlg.setValue(min(int(1000 * fraction), 999))  # 1000 would close the dialog early
        QApplication.processEvents()
        state["cancel"] = state["cancel"] or dlg.wasCanceled()
        th.join(0.02)
    if "error" in box:
        raise box["error"]
    return box.get("result")


VIDEO_SIZES = ((1280, 720), (1920, 1080), (640, 480))


class VideoOptionsDialog(QDialog):
    def __init__(self, parent, controller, view_size=(1280, 720)):
        super().__init__(parent)
        self.setWindowTitle("Export video")
        rec = controller.recorder
        form = QFormLayout(self)
        self.fmt = QComboBox()
        self.fmt.addItems(["mp4", "gif"])
        self.fps = QSpinBox(minimum=5, maximum=120, value=30)
        self.speed = QDoubleSpinBox(minimum=0.01, maximum=100.0, value=1.0, decimals=2, singleStep=0.25)
        self.speed.setToolTip("Simulated seconds per second of video")
        self.t0 = QDoubleSpinBox(decimals=3, minimum=rec.t_start, maximum=rec.t_end, value=rec.t_start)
        self.t1 = QDoubleSpinBox(decimals=3, minimum=rec.t_start, maximum=rec.t_end, value=rec.t_end)
        self.size = QComboBox()
        self.size.setToolTip("Every frame is rendered at this size, at full resolution")
        for k, (w, h) in enumerate((even_size(view_size),) + VIDEO_SIZES):
            self.size.addItem(f"{w} × {h}" + (" (the 3D view)" if k == 0 else ""), (w, h))
        form.addRow("format", self.fmt)
        form.addRow("size (pixels)", self.size)
        form.addRow("frames per second", self.fps)
        form.addRow("playback speed", self.speed)
        form.addRow("from t (s)", self.t0)
        form.addRow("to t (s)", self.t1)
        box = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        form.addRow(box)

    def options(self):
        return {"format": self.fmt.currentText(), "fps": self.fps.value(), "speed": self.speed.value(),
                "t0": self.t0.value(), "t1": max(self.t1.value(), self.t0.value()),
                "size": tuple(self.size.currentData())}
