"""A controller's phase (a signal declared with `labels`, e.g. free / transition / constrained /
take-off) drawn as coloured bands behind a time plot, with a legend; for a walker without one, its
support phase (flight / single / double support, runtime/feet.py).

The bands come from the recorded history: one run of constant phase per band, decimated so that a
plot never holds more than about `MAX_BANDS` of them however long the run (a run narrower than the
plot's width / MAX_BANDS is drawn as part of the band before it)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor

from nsgui.runtime.feet import SUPPORT, SUPPORT_LABELS

BAND_COLORS = ["#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#fc9272", "#d9d9d9", "#fdd0a2", "#c6dbef"]
BAND_ALPHA = 80  # of 255: the curves stay readable over the bands
MAX_BANDS = 300


def band_color(value: int) -> str:
    return BAND_COLORS[value % len(BAND_COLORS)]


def _ints(phase):
    p = np.asarray(phase, float)
    return np.where(np.isfinite(p), np.rint(p), -1).astype(np.int64)


class PhaseChanges:
    """The rows where a recorded phase changes, kept up to date incrementally as the history grows
    (a refresh reads only the new rows)."""

    def __init__(self):
        self.n = 0
        self.rows = np.zeros(0, np.int64)    # first row of each run
        self.values = np.zeros(0, np.int64)  # its phase

    def extend(self, phase, n):
        if n < self.n:  # a shorter history: another one
            self.__init__()
        if n == self.n:
            return self
        start = max(self.n - 1, 0)
        p = _ints(phase[start:n])
        if self.n == 0:
            rows = np.concatenate([[0], np.flatnonzero(np.diff(p)) + 1])
        else:
            rows = np.flatnonzero(np.diff(p)) + 1
        rows = rows + start
        self.rows = np.concatenate([self.rows, rows])
        self.values = np.concatenate([self.values, p[rows - start]])
        self.n = n
        return self

    def runs(self, t, i0, i1, max_runs=MAX_BANDS):
        """(starts, ends, values) of rows i0:i1 (see phase_runs)."""
        if i1 <= i0 or self.n == 0:
            return np.empty(0), np.empty(0), np.empty(0, int)
        k0 = max(int(np.searchsorted(self.rows, i0, "right")) - 1, 0)
        k1 = int(np.searchsorted(self.rows, i1, "left"))
        rows, values = self.rows[k0:k1].copy(), self.values[k0:k1]
        rows[0] = i0
        starts, end = np.asarray(t[rows], float), float(t[i1 - 1])
        ends = np.append(starts[1:], end)
        if len(starts) <= max_runs:
            return starts, ends, values
        # more runs than bands: equal intervals, each taking the phase held longest in it (a run counts
        # in the interval it starts in, up to that interval's end); an interval in which no run starts
        # takes the phase of the run covering it
        span = max(end - starts[0], 1e-300)
        bucket = np.minimum(((starts - starts[0]) * (max_runs / span)).astype(np.int64), max_runs - 1)
        lo = int(values.min())
        width = int(values.max()) - lo + 1
        inside = np.minimum(ends, starts[0] + span * (bucket + 1) / max_runs) - starts
        held = np.bincount(bucket * width + (values - lo), weights=inside,
                           minlength=max_runs * width).reshape(max_runs, width)
        filled = np.bincount(bucket, minlength=max_runs) > 0
        st = starts[0] + span * np.arange(max_runs) / max_runs
        covering = values[np.searchsorted(starts, st, "right") - 1]  # the run going on at its start
        first = starts[np.minimum(np.searchsorted(bucket, np.arange(max_runs)), len(starts) - 1)]
        held[np.arange(max_runs), covering - lo] += np.where(filled, first - st, 0.0)
        vals = np.where(filled, held.argmax(axis=1) + lo, covering)
        new = np.concatenate([[True], vals[1:] != vals[:-1]])
        st, vals = st[new], vals[new]
        return st, np.append(st[1:], end), vals


def phase_runs(t, phase, i0=0, i1=None, max_runs=MAX_BANDS):
    """(starts, ends, values): the runs of constant integer phase among rows i0:i1 of the history, a
    run lasting from its first row's time to the next run's (the last one to the last row's time).
    Rows where the phase is not finite belong to no band (value -1). With more than `max_runs` runs,
    the span is cut into `max_runs` equal intervals, each takes the phase held longest in it, and
    neighbours with the same phase are one band."""
    i1 = len(t) if i1 is None else i1
    return PhaseChanges().extend(phase, i1).runs(t, i0, i1, max_runs)


def labelled_signal(model, names):
    """(signal name, labels) of the first recorded controller signal declared with labels, or None."""
    recorded = set(names)
    for block in getattr(model, "controller_blocks", None) or []:
        for name, labels in block.labels.items():
            if name in recorded:
                return name, tuple(labels)
    return None


def band_source(model, names, derived=()):
    """What the bands show: the first labelled controller signal, else a walker's support phase
    (when `derived`, the controller's derived signals, has it), else None."""
    source = labelled_signal(model, names)
    if source is None and SUPPORT in derived:
        source = (SUPPORT, SUPPORT_LABELS)
    return source


def legend_html(name: str, labels) -> str:
    """'phase: ■ free ■ transition ...' in the bands' colours."""
    short = name[len("controller."):] if name.startswith("controller.") else name
    return f"{short}: " + "&nbsp; ".join(
        f'<span style="color:{band_color(k)}; font-size: 11pt">■</span>&nbsp;{lab}' for k, lab in enumerate(labels))


def opaque_band_color(value: int, background=(255, 255, 255)) -> QColor:
    """The band's colour as drawn at BAND_ALPHA over the plot's background, made opaque."""
    c = QColor(band_color(int(value)))
    a = BAND_ALPHA / 255
    return QColor(*(round(bg + (x - bg) * a) for x, bg in zip((c.red(), c.green(), c.blue()), background)))


class BandsItem(pg.GraphicsObject):
    """Every band of one plot in a single item: rectangles across the view's height, filled in one
    call per phase, opaque, behind the grid. (A LinearRegionItem per band, as before, cost about a
    millisecond per band at each refresh and repaint in pyqtgraph's bounding-rect code: a walker's
    hundreds of support phases froze the window for 100-200 ms. And the raster engine blends a
    translucent fill ten times slower than it paints an opaque one: the colour is blended once.)"""

    def __init__(self, plot_item):
        super().__init__()
        self._vb = plot_item.vb
        self.starts, self.ends, self.values = np.empty(0), np.empty(0), np.empty(0, np.int64)
        self._brushes = {}
        self.setZValue(-1001)  # behind the curves and the grid (plots.GridItem)
        self._vb.sigRangeChanged.connect(lambda *_: self.prepareGeometryChange())

    def brush(self, value):
        b = self._brushes.get(value)
        if b is None:
            b = self._brushes[value] = QBrush(opaque_band_color(value))
        return b

    def set_bands(self, starts, ends, values):
        self.prepareGeometryChange()
        self.starts, self.ends = np.asarray(starts, float), np.asarray(ends, float)
        self.values = np.asarray(values, np.int64)
        self.update()

    def boundingRect(self):
        if not len(self.starts):
            return QRectF()
        r = self._vb.viewRect()
        return QRectF(float(self.starts[0]), r.top(), float(self.ends[-1] - self.starts[0]), r.height())

    def paint(self, p, *_):
        if not len(self.starts):
            return
        r = self._vb.viewRect()
        p.setPen(Qt.NoPen)
        for v in np.unique(self.values):
            k = self.values == v
            p.setBrush(self.brush(v))
            p.drawRects([QRectF(a, r.top(), b - a, r.height())
                         for a, b in zip(self.starts[k].tolist(), self.ends[k].tolist())])


class PhaseBands:
    """The bands behind one plot (one BandsItem), found incrementally as the history grows."""

    def __init__(self, plot_item):
        self.plot_item = plot_item
        self.changes, self._source = PhaseChanges(), None
        self.item = BandsItem(plot_item)
        plot_item.addItem(self.item, ignoreBounds=True)
        self.name, self.labels = None, ()

    def set_source(self, source):
        """The labelled signal to draw ((name, labels)) or None."""
        self.name, self.labels = source if source else (None, ())
        if self.name is None:
            self.clear()

    def clear(self):
        self.item.set_bands((), (), ())

    def update(self, t, phase, i0=0, i1=None, max_runs=MAX_BANDS, key=None):
        """Draw the runs of rows i0:i1 of the history; `key` names the history (its changes are then
        found incrementally as it grows)."""
        i1 = len(t) if i1 is None else i1
        if key is None or key != self._source:
            self.changes, self._source = PhaseChanges(), key
        starts, ends, values = self.changes.extend(phase, len(t)).runs(t, i0, i1, max_runs)
        keep = values >= 0
        self.item.set_bands(starts[keep], ends[keep], values[keep])
        return self.regions()

    def figure_bands(self):
        """[(t0, t1, colour, label)] as drawn, for an exported figure (plot_figure)."""
        return [(a, b, band_color(v), self.labels[v] if v < len(self.labels) else str(v))
                for a, b, v in self.regions()]

    def regions(self):
        """[(t0, t1, value)] as drawn (tests, figures)."""
        it = self.item
        return [(float(a), float(b), int(v)) for a, b, v in zip(it.starts, it.ends, it.values)]


__all__ = ["phase_runs", "labelled_signal", "band_source", "legend_html", "PhaseBands", "BandsItem", "band_color", "MAX_BANDS"]
