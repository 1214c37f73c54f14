"""Exports: recorded data (CSV, HDF5 via the engine writers), plots (PNG, SVG) and the 3D view as a
video (MP4, GIF). Every file is written to a temporary name next to the target and moved into place
only when complete, so an export is complete or absent, also when cancelled or failing.

Data exports run in a worker thread (`run_with_progress(..., threaded=True)`); the engine writers
write in row chunks and ask the progress callback after each one, so Cancel stops the write at the
next chunk and the temporary file is removed."""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QLabel, QMessageBox, QProgressDialog, QSpinBox)

from nsgui.engine.export import ExportCancelled
from nsgui.views.video import even_size, video_format, video_frame_times, write_video

Cancelled = ExportCancelled  # every cancelled export (data, video) raises this


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


def export_plot(card, path, options=None):
    """One plot as a figure (PNG or SVG by the extension): title, legend, axis labels with units
    and tick labels, at `options` (plot_figure.FigureOptions: size in pixels, DPI, font size).
    Written atomically, with the permissions of any new file (the umask)."""
    from nsgui.atomic import atomic_write
    from nsgui.views.plot_figure import Figure, FigureOptions
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".svg"):
        raise ValueError(f"unsupported plot format {ext!r} (use .png or .svg)")
    options = options or FigureOptions()
    options.check()
    figure = Figure(card.figure_content(options.width), options)
    try:
        if ext == ".svg":
            atomic_write(path, lambda tmp: figure.write_svg(tmp, card.title))
        else:
            atomic_write(path, figure.write_png)
    finally:
        figure.close()
    return path


def _form_rows(dialog, form, rows):
    """The labelled rows of an options dialog, then its OK / Cancel buttons."""
    for label, widget in rows:
        form.addRow(label, widget)
    box = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
    box.accepted.connect(dialog.accept)
    box.rejected.connect(dialog.reject)
    form.addRow(box)


class PlotImageDialog(QDialog):
    """Size (pixels), resolution (DPI) and font size (points) of an exported plot; remembered."""
    KEYS = (("width", 1800), ("height", 1200), ("dpi", 300), ("font_pt", 9))

    def __init__(self, parent, settings, titles, current=0):
        from nsgui.views.plot_figure import MAX_SIDE
        super().__init__(parent)
        self.setWindowTitle("Export plot")
        self.settings = settings
        form = QFormLayout(self)
        self.plot = QComboBox()
        self.plot.addItems(titles)
        self.plot.setCurrentIndex(current)
        stored = {k: float(settings.value(f"plot_export/{k}", d)) for k, d in self.KEYS}
        self.width = QSpinBox(minimum=100, maximum=MAX_SIDE, value=int(stored["width"]), suffix=" px")
        self.height = QSpinBox(minimum=100, maximum=MAX_SIDE, value=int(stored["height"]), suffix=" px")
        self.dpi = QSpinBox(minimum=10, maximum=2400, value=int(stored["dpi"]), suffix=" DPI")
        self.font = QDoubleSpinBox(minimum=2.0, maximum=72.0, value=stored["font_pt"], decimals=1, suffix=" pt")
        self.inches = QLabel()
        for w in (self.width, self.height, self.dpi):
            w.valueChanged.connect(self._update_inches)
        _form_rows(self, form, [("plot", self.plot), ("width", self.width), ("height", self.height),
                                ("resolution", self.dpi), ("", self.inches), ("font size", self.font)])
        self._update_inches()

    def _update_inches(self):
        d = self.dpi.value()
        self.inches.setText(f"{self.width.value() / d:.2f} × {self.height.value() / d:.2f} in "
                            f"({25.4 * self.width.value() / d:.0f} × {25.4 * self.height.value() / d:.0f} mm)")

    def options(self):
        from nsgui.views.plot_figure import FigureOptions
        opts = FigureOptions(width=self.width.value(), height=self.height.value(), dpi=float(self.dpi.value()),
                             font_pt=self.font.value())
        for k, _d in self.KEYS:
            self.settings.setValue(f"plot_export/{k}", getattr(opts, k))
        return opts


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
        _form_rows(self, form, [("format", self.fmt), ("size (pixels)", self.size), ("frames per second", self.fps),
                                ("playback speed", self.speed), ("from t (s)", self.t0), ("to t (s)", self.t1)])

    def options(self):
        return {"format": self.fmt.currentText(), "fps": self.fps.value(), "speed": self.speed.value(),
                "t0": self.t0.value(), "t1": max(self.t1.value(), self.t0.value()),
                "size": tuple(self.size.currentData())}
