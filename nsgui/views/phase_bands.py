"""A controller's phase (a signal declared with `labels`, e.g. free / transition / constrained /
take-off) drawn as coloured bands behind a time plot, with a legend.

The bands come from the recorded history: one run of constant phase per band, decimated so that a
plot never holds more than about `MAX_BANDS` of them however long the run (a run narrower than the
plot's width / MAX_BANDS is drawn as part of the band before it)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

BAND_COLORS = ["#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#fc9272", "#d9d9d9", "#fdd0a2", "#c6dbef"]
BAND_ALPHA = 80  # of 255: the curves stay readable over the bands
MAX_BANDS = 300


def band_color(value: int) -> str:
    return BAND_COLORS[value % len(BAND_COLORS)]


def phase_runs(t, phase, i0=0, i1=None, max_runs=MAX_BANDS):
    """(starts, ends, values): the runs of constant integer phase among rows i0:i1 of the history, a
    run lasting from its first row's time to the next run's (the last one to the last row's time).
    Rows where the phase is not finite belong to no band (value -1). With more than `max_runs` runs,
    those shorter than the span / max_runs join the run before them."""
    i1 = len(t) if i1 is None else i1
    tt = np.asarray(t[i0:i1], float)
    if len(tt) == 0:
        return np.empty(0), np.empty(0), np.empty(0, int)
    p = np.asarray(phase[i0:i1], float)
    p = np.where(np.isfinite(p), np.rint(p), -1).astype(np.int64)
    first = np.concatenate([[0], np.flatnonzero(np.diff(p)) + 1])
    starts, values = tt[first], p[first]
    end = tt[-1]
    if len(starts) > max_runs:
        ends = np.append(starts[1:], end)
        keep = (ends - starts) >= (end - tt[0]) / max_runs
        keep[0] = True
        starts, values = starts[keep], values[keep]
        # neighbours that now touch with the same phase are one band
        new = np.concatenate([[True], values[1:] != values[:-1]])
        starts, values = starts[new], values[new]
    return starts, np.append(starts[1:], end), values


def labelled_signal(model, names):
    """(signal name, labels) of the first recorded controller signal declared with labels, or None."""
    recorded = set(names)
    for block in getattr(model, "controller_blocks", None) or []:
        for name, labels in block.labels.items():
            if name in recorded:
                return name, tuple(labels)
    return None


def legend_html(name: str, labels) -> str:
    """'phase: ■ free ■ transition ...' in the bands' colours."""
    short = name[len("controller."):] if name.startswith("controller.") else name
    return f"{short}: " + "&nbsp; ".join(
        f'<span style="color:{band_color(k)}; font-size: 11pt">■</span>&nbsp;{lab}' for k, lab in enumerate(labels))


class PhaseBands:
    """The bands behind one plot: a pool of LinearRegionItems reused from one refresh to the next."""

    def __init__(self, plot_item):
        self.plot_item = plot_item
        self.items: list[pg.LinearRegionItem] = []
        self.shown = 0
        self.name, self.labels = None, ()

    def set_source(self, source):
        """The labelled signal to draw ((name, labels)) or None."""
        self.name, self.labels = source if source else (None, ())
        if self.name is None:
            self.clear()

    def clear(self):
        for it in self.items[:]:
            it.hide()
        self.shown = 0

    def update(self, t, phase, i0=0, i1=None, max_runs=MAX_BANDS):
        starts, ends, values = phase_runs(t, phase, i0, i1, max_runs)
        drawn = [(a, b, v) for a, b, v in zip(starts, ends, values) if v >= 0]
        while len(self.items) < len(drawn):
            it = pg.LinearRegionItem(orientation="vertical", movable=False, pen=pg.mkPen(None))
            it.setZValue(-100)
            for line in it.lines:
                line.setPen(pg.mkPen(None))
            self.plot_item.addItem(it, ignoreBounds=True)
            self.items.append(it)
        for it, (a, b, v) in zip(self.items, drawn):
            c = QColor(band_color(int(v)))
            c.setAlpha(BAND_ALPHA)
            if getattr(it, "value", None) != int(v):
                it.setBrush(pg.mkBrush(c))
                it.setHoverBrush(pg.mkBrush(c))
                it.value = int(v)
            it.setRegion((float(a), float(b)))
            it.show()
        for it in self.items[len(drawn):self.shown]:
            it.hide()
        self.shown = len(drawn)
        return drawn

    def figure_bands(self):
        """[(t0, t1, colour, label)] as drawn, for an exported figure (plot_figure)."""
        return [(a, b, band_color(v), self.labels[v] if v < len(self.labels) else str(v))
                for a, b, v in self.regions()]

    def regions(self):
        """[(t0, t1, value)] as drawn (tests, figures)."""
        return [(*it.getRegion(), it.value) for it in self.items[:self.shown]]


__all__ = ["phase_runs", "labelled_signal", "legend_html", "PhaseBands", "band_color", "MAX_BANDS"]
