"""Live plots (pyqtgraph): time plots of any recorded signals with a time cursor, impacts marked on
contact-force plots, the previous branch drawn dashed, and a phase portrait (v against q).

Every value axis names the units of what it shows (from the model's `signal_units`) and time is in
seconds: axes never rescale to SI prefixes (no "ms" on one card and "s" on the next, no radians
shown as thousandths). A card made for a family of signals (coordinates, contacts, ...) draws the
first few and says so in its header, where any of the others can be picked."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QMenu, QScrollArea, QSplitter,
                               QToolButton, QVBoxLayout, QWidget)

from nsgui.engine import codes
from nsgui.views import frame_budget
from nsgui.runtime.feet import foot_plot_signals
from nsgui.views.phase_bands import PhaseBands, band_source, legend_html
from nsgui.runtime.signal_info import (axis_label, contact_points, contacts, per_contact, points_label,
    split_contact, unit_of, units_text)

pg.setConfigOptions(antialias=False, background="w", foreground="#333")

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22"]
CURSOR_PEN = pg.mkPen("#e8a317", width=1.5)
MIN_PLOT_HEIGHT = 160  # of a card's plot, below its title bar and legend
REFRESH_BUDGET = 0.005  # seconds of plot updates per display tick
MAX_MARKERS = 2000  # impact markers drawn per signal (the newest in view)
PHASE_POINTS = 20000  # a phase portrait draws at most about this many samples
MAX_CURVES = 8  # curves a new card draws of its family; the header offers the others
IMPACT_KINDS = ("fn", "ft", "pn", "pt")  # contact signals whose impacts are marked


@dataclass
class PlotSpec:
    """A card of the default set: its title, the signals it draws, and the family they are taken
    from (`choices`, which the card's header offers to pick from; `noun` names them there)."""
    title: str
    signals: list
    choices: list = field(default_factory=list)
    noun: str = "signals"
    flag_cut: bool = True  # orange header count while part of the family is left out


def default_plots(names):
    """The plots a new run opens with, for the signals this run records. Contacts are shown whole
    (a multi-point contact as the total over its points): one curve per contact."""
    names = list(names)
    energy = [n for n in names if n.startswith("energy.")]
    q = [n for n in names if n.startswith("q.")]
    v = [n for n in names if n.startswith("v.")]
    u = [n for n in names if n.startswith("u.")]
    gaps, fn = per_contact(names, "gap"), per_contact(names, "fn")
    specs = [PlotSpec("Energy", [n for n in energy if n.split(".")[1] in ("kinetic", "potential", "total",
                                                                          "dissipated")], energy,
                      "energy terms", flag_cut=False),
             PlotSpec("Coordinates", q[:MAX_CURVES], q, "coordinates"),
             PlotSpec("Velocities", v[:MAX_CURVES], v, "velocities"),
             PlotSpec("Contact gaps", gaps[:MAX_CURVES], gaps, "contacts"),
             PlotSpec("Contact forces", fn[:MAX_CURVES], fn + per_contact(names, "ft"), "contacts"),
             PlotSpec("Actuator torques", u, u, "actuators")]
    return [s for s in specs if s.signals]


def walker_plots(model, names):
    """A walker's per-foot normal and tangential forces (runtime/feet.py), after the default plots."""
    fn, ft = foot_plot_signals(model, names)
    specs = [PlotSpec("Foot normal forces", fn, fn, "feet"), PlotSpec("Foot tangential forces", ft, ft, "feet")]
    return [s for s in specs if s.signals]


class TimedPlotWidget(pg.PlotWidget):
    """A PlotWidget that measures its repaint time (a smoothed average, seconds)."""
    paint_cost = 0.005

    def paintEvent(self, ev):
        t0 = time.perf_counter()
        super().paintEvent(ev)
        self.paint_cost = 0.7 * self.paint_cost + 0.3 * (time.perf_counter() - t0)


class GridItem(pg.GraphicsObject):
    """Grid lines at the axes' major and minor ticks, drawn opaque in one call each.

    pyqtgraph's own grid (translucent lines painted by the axes) cost about 7 ms per repaint of a
    plot in the raster engine; this one costs well under a millisecond."""

    def __init__(self, plot_item):
        super().__init__()
        self._plot = plot_item
        self._pens = []
        for color in ("#e4e4e4", "#f1f1f1"):  # major, minor
            pen = QPen(QColor(color))
            pen.setCosmetic(True)
            pen.setWidth(0)
            self._pens.append(pen)
        self.setZValue(-1000)
        plot_item.vb.sigRangeChanged.connect(lambda *_: self.prepareGeometryChange())

    def boundingRect(self):
        return self._plot.vb.viewRect()

    def paint(self, p, *_):
        vb = self._plot.vb
        r = vb.viewRect()
        levels = [[], []]
        for axis, horizontal, size in (("bottom", False, vb.width()), ("left", True, vb.height())):
            lo, hi = (r.top(), r.bottom()) if horizontal else (r.left(), r.right())
            lo, hi = min(lo, hi), max(lo, hi)
            if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo or size <= 0:
                continue
            for k, (_spacing, values) in enumerate(self._plot.getAxis(axis).tickValues(lo, hi, size)[:2]):
                levels[k] += [QLineF(r.left(), v, r.right(), v) if horizontal else QLineF(v, r.top(), v, r.bottom())
                              for v in values]
        for pen, lines in zip(self._pens[::-1], levels[::-1]):  # minor first, major over it
            if lines:
                p.setPen(pen)
                p.drawLines(lines)


class PlotCard(QWidget):
    """One plot with its title bar; `kind` is "time" or "phase"."""
    closeRequested = Signal(object)
    activated = Signal(object)
    heightChanged = Signal()  # its minimum height (the panel makes room for every card)

    def __init__(self, controller, title, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.title = title
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(0)
        bar = QHBoxLayout()
        self.label = QLabel(f"<b>{title}</b>")
        bar.addWidget(self.label)
        bar.addStretch(1)
        self.header = bar
        close = QToolButton(text="✕", toolTip="Close this plot", autoRaise=True)
        close.clicked.connect(lambda: self.closeRequested.emit(self))
        bar.addWidget(close)
        lay.addLayout(bar)
        self.plot = TimedPlotWidget()
        self.plot.setMinimumHeight(MIN_PLOT_HEIGHT)
        self.item = self.plot.getPlotItem()
        for side in ("left", "bottom"):  # units are named on the axis; values are never rescaled
            self.item.getAxis(side).enableAutoSIPrefix(False)
        self.grid = GridItem(self.item)
        self.item.addItem(self.grid, ignoreBounds=True)
        # The card sets the view range itself (pyqtgraph's auto-range reads every sample at every
        # repaint): while running it grows in steps, so most repaints reuse the axes as drawn.
        # A zoom or pan by the user takes over until the "A" button gives the range back.
        self.item.vb.disableAutoRange()
        self.user_range = False
        self._range = None
        self._x_hi = None
        self.item.vb.sigRangeChangedManually.connect(self._user_moved)
        self.item.autoBtn.clicked.connect(self._auto_clicked)
        # the legend is a line of coloured names above the plot: it never hides the curves
        self.legend_label = QLabel()
        self.legend_label.setWordWrap(True)
        self.legend_label.setStyleSheet("font-size: 8pt")
        lay.addWidget(self.legend_label)
        lay.addWidget(self.plot, 1)
        self.fit_height()

    def mousePressEvent(self, ev):
        self.activated.emit(self)
        super().mousePressEvent(ev)

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        if ev.size().width() != ev.oldSize().width():  # the legend wraps to another number of lines
            self.fit_height()

    def fit_height(self):
        """Room for the title bar, the legend as wrapped at this width and the whole plot (a card
        squeezed below that cut off the plot's time axis)."""
        m = self.layout().contentsMargins()
        legend = self.legend_label
        h = (m.top() + m.bottom() + self.header.sizeHint().height() + MIN_PLOT_HEIGHT
             + (legend.heightForWidth(max(self.width() - m.left() - m.right(), 50)) if legend.text() else 0))
        if h != self.minimumHeight():
            self.setMinimumHeight(h)
            self.heightChanged.emit()

    def set_axis_label(self, side, text):
        axis = self.item.getAxis(side)
        if not text:  # nothing drawn yet: no unit to name
            if axis.label.isVisible():
                axis.showLabel(False)
            return
        if axis.labelText != text or not axis.label.isVisible():
            self.item.setLabel(side, text)
            if side == "bottom":  # pyqtgraph leaves 0.8 of the label's height: its foot was cut off
                axis.setHeight(None)
                axis.setHeight(int(axis.maximumHeight() + 0.25 * axis.label.boundingRect().height()))

    def axis_text(self, side):
        """The axis label as drawn (what a test or a user reads)."""
        axis = self.item.getAxis(side)
        return axis.label.toPlainText().strip() if axis.label.isVisible() else ""

    def unit(self, name):
        c = self.controller
        rec = c.recorder
        return unit_of(getattr(c.model, "signal_units", None) or {}, rec.names if rec is not None else [],
                       name)

    # ------------------------------------------------------------------ view range
    def _user_moved(self, *_):
        self.user_range = True
        self.refresh()  # draw the samples of the new range at its resolution

    def _auto_clicked(self, *_):
        self.item.vb.disableAutoRange()  # (pyqtgraph's handler turned it on)
        self.reset_range()
        self.refresh()

    def reset_range(self):
        """A new history: the range follows the data again."""
        self.user_range = False
        self._range = self._x_hi = None

    def visible_rows(self, t):
        """Rows of `t` to draw: all of them unless the user zoomed or panned."""
        if not self.user_range or not len(t):
            return 0, len(t)
        xa, xb = self.item.vb.viewRange()[0]
        return (max(0, int(np.searchsorted(t, xa)) - 1), min(len(t), int(np.searchsorted(t, xb)) + 1))

    def apply_range(self, x0, x1, y0, y1, time_axis=True):
        """Show [x0, x1] x [y0, y1] (data bounds). While running, a time axis ends 30 % past the
        newest sample and moves only when the data reach it, and value axes only grow, so the
        axes are not redrawn at each tick; paused, the range fits the data."""
        if self.user_range or not (np.isfinite(x0) and np.isfinite(x1)):
            return
        running = self.controller.running
        old = self._range
        if time_axis:
            if running:
                if self._x_hi is None or x1 > self._x_hi:
                    self._x_hi = x0 + 1.3 * max(x1 - x0, 1e-3)
                x1 = self._x_hi
            else:
                self._x_hi = None
                x1 = max(x1, x0 + 1e-9)
        else:
            x0, x1 = _grown(x0, x1, old[:2] if old else None, running)
        y0, y1 = _grown(y0, y1, old[2:] if old else None, running)
        new = (x0, x1, y0, y1)
        if new != old:
            self._range = new
            self.item.vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)


def _grown(lo, hi, current, running):
    """An axis range holding [lo, hi] with a 5 % margin; while running, the current range is kept
    when it holds the data and otherwise grows with 10 % headroom (it never shrinks)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        lo, hi = -1.0, 1.0
    pad = 0.05 * (hi - lo) if hi > lo else max(abs(lo) * 0.05, 1e-3)
    lo, hi = lo - pad, hi + pad
    if not running or current is None:
        return lo, hi
    c0, c1 = current
    if lo >= c0 and hi <= c1:
        return c0, c1
    span = max(hi, c1) - min(lo, c0)
    return (min(lo, c0) - 0.1 * span * (lo < c0), max(hi, c1) + 0.1 * span * (hi > c1))


class TimePlot(PlotCard):
    kind = "time"

    def __init__(self, controller, title, signals=(), parent=None, choices=(), noun="signals", flag_cut=True):
        super().__init__(controller, title, parent)
        self.set_axis_label("bottom", "t (s)")
        self.choices = list(choices)
        self.noun = noun
        self.flag_cut = flag_cut  # a family drawn in part is shown in orange (not the energy terms)
        self.picker = None
        if self.choices:  # the family this card draws from: say how many are drawn, offer the rest
            self.picker = QToolButton(autoRaise=True, popupMode=QToolButton.InstantPopup)
            self.picker.setObjectName("picker")
            self.picker.setMenu(QMenu(self.picker))
            self.picker.menu().aboutToShow.connect(self._fill_picker)
            self.header.insertWidget(1, self.picker)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.previous_curves: dict[str, pg.PlotDataItem] = {}
        self.impacts: dict[str, pg.ScatterPlotItem] = {}
        self._hits: dict[str, tuple] = {}
        self.cursor_line = pg.InfiniteLine(angle=90, movable=False, pen=CURSOR_PEN)
        self.item.addItem(self.cursor_line, ignoreBounds=True)
        self.bands = PhaseBands(self.item)  # a controller's phase, behind the curves
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        for s in signals:
            self.add_signal(s)
        self.update_labels()  # (a card without signals still shows the phase bands' legend)

    @property
    def signals(self):
        return list(self.curves)

    def add_signal(self, name):
        if name in self.curves:
            return
        used = {c.color for c in self.curves.values()}
        color = next((c for c in PALETTE if c not in used), PALETTE[len(self.curves) % len(PALETTE)])
        curve = self.item.plot([], [], pen=pg.mkPen(color, width=1))
        curve.color = color
        self.curves[name] = curve
        self.update_labels()
        parts = split_contact(name)
        if parts is not None and parts[1] in IMPACT_KINDS:
            sc = pg.ScatterPlotItem(size=7, symbol="t1", pen=pg.mkPen(color), brush=pg.mkBrush(color))
            self.item.addItem(sc)
            self.impacts[name] = sc
        self.refresh()

    def remove_signal(self, name):
        for store in (self.curves, self.previous_curves, self.impacts):
            item = store.pop(name, None)
            if item is not None:
                self.item.removeItem(item)
        self.update_labels()

    def update_labels(self):
        """Legend, value-axis label (units) and the header's count of drawn signals."""
        names = self.controller.recorder.names if self.controller.recorder is not None else []
        self.bands.set_source(band_source(self.controller.model, names,
                                          getattr(self.controller.columns, "derived", {})))
        legend = "&nbsp; ".join(f'<span style="color:{c.color}">■</span>&nbsp;{self.legend_name(n, names)}'
                                for n, c in self.curves.items())
        if self.bands.name:
            legend += ("<br>" if legend else "") + legend_html(self.bands.name, self.bands.labels)
        self.legend_label.setText(legend)
        # the card's title names the quantity: its value axis names the units (a figure exported
        # from it says both, see value_label)
        self.set_axis_label("left", units_text(self.units()))
        if self.picker is not None:
            shown, total = self.shown_count()
            self.picker.setText(f"{shown} of {total} {self.noun} ▾")
            cut = shown < total
            self.picker.setStyleSheet("QToolButton::menu-indicator { image: none; }"
                                      + ("QToolButton { color: #c05800; font-weight: bold; }" if cut and self.flag_cut
                                         else ""))
            self.picker.setToolTip(f"Only {shown} of the {total} {self.noun} are drawn: pick which" if cut
                                   else f"All {total} {self.noun} are drawn: pick which")
        self.fit_height()

    def units(self):
        return [self.unit(n) for n in self.curves]

    def value_label(self):
        """'Contact forces (N)': the value axis of a figure made of this card."""
        return axis_label(self.title, self.units())

    @staticmethod
    def legend_name(name, names):
        """A curve's name in the legend: a contact's signals without the "contact." prefix."""
        short = name[len("contact."):] if name.startswith("contact.") else name
        return short + points_label(names, name)

    def shown_count(self):
        """(drawn, of) members of this card's family; contacts are counted whole (fn and ft of a
        contact are one contact)."""
        drawn = [n for n in self.curves if n in self.choices]
        if self.noun == "contacts":
            return len(contacts(drawn)), len(contacts(self.choices))
        return len(drawn), len(self.choices)

    def _fill_picker(self):
        menu = self.picker.menu()
        menu.clear()
        names = self.controller.recorder.names if self.controller.recorder is not None else []
        menu.addAction(f"Draw all {len(self.choices)}", lambda: self.show_only(self.choices))
        menu.addAction("Draw none", lambda: self.show_only([]))
        menu.addSeparator()
        for name in self.choices:
            a = menu.addAction(self.legend_name(name, names))
            a.setCheckable(True)
            a.setChecked(name in self.curves)
            a.toggled.connect(lambda on, n=name: self.add_signal(n) if on else self.remove_signal(n))

    def show_only(self, names):
        for n in [n for n in self.curves if n not in names]:
            self.remove_signal(n)
        for n in names:
            self.add_signal(n)

    def _max_buckets(self):
        return max(100, int(self.item.vb.width()))

    def refresh(self):
        """Hand each curve the samples (or min/max envelope) of the rows in view: about two points
        per pixel column however long the history is."""
        c = self.controller
        rec = c.recorder
        if rec is None or not len(rec):
            for store in (self.curves, self.impacts):
                for item in store.values():
                    item.setData([], [])
            self.bands.clear()
            self._hits.clear()
            self._refresh_previous()
            return
        t = c.column("t")
        i0, i1 = self.visible_rows(t)
        width = self._max_buckets()
        lo, hi = np.inf, -np.inf
        with np.errstate(invalid="ignore"):
            for name, curve in self.curves.items():
                x, y = self._xy(name, width)
                curve.setData(x, y)
                if len(y):
                    lo, hi = np.fmin(lo, np.fmin.reduce(y)), np.fmax(hi, np.fmax.reduce(y))
        for name, sc in self.impacts.items():
            hit = self._impact_rows(name)
            hit = hit[(hit >= i0) & (hit < i1)][-MAX_MARKERS:]
            sc.setData(t[hit], c.column(name)[hit])
        if self.bands.name is not None and (self.bands.name in rec._index
                                            or self.bands.name in getattr(c.columns, "derived", {})):
            self.bands.update(t, c.column(self.bands.name), i0, i1, key=(id(rec), self.bands.name))
        self._refresh_previous()
        self.apply_range(t[0], t[-1], lo, hi)

    def _impact_rows(self, name):
        """Rows where this contact (any of its points, for a contact total) is at an impact, found
        incrementally."""
        c = self.controller
        n = len(c.recorder)
        rec_id, done, rows, status = self._hits.get(name, (None, 0, None, None))
        if rec_id is not id(c.recorder) or done > n:
            point = name[len("contact."):].rpartition(".")[0]
            names = c.recorder._index
            status = ([f"contact.{point}.status"] if f"contact.{point}.status" in names
                      else contact_points(names, point, "status"))
            done, rows = 0, np.empty(0, np.intp)
        if n > done and status:
            hit = np.zeros(n - done, bool)
            for s in status:
                hit |= c.column(s)[done:] == codes.IMPACT
            rows = np.concatenate([rows, done + np.flatnonzero(hit)])
        self._hits[name] = (id(c.recorder), n, rows, status)
        return rows

    def _refresh_previous(self):
        c = self.controller
        prev = c.previous
        if prev is None:
            for item in self.previous_curves.values():
                self.item.removeItem(item)
            self.previous_curves.clear()
            return
        for name, curve in self.curves.items():
            if name not in self.previous_curves:
                pen = pg.mkPen(curve.opts["pen"].color(), width=1, style=Qt.DashLine)
                item = pg.PlotDataItem([], [], pen=pen)
                item.setOpacity(0.55)
                self.item.addItem(item)
                self.previous_curves[name] = item
            self.previous_curves[name].setData(*self._previous_xy(name, self._max_buckets()))

    def _xy(self, name, buckets):
        """The samples of `name` in view, about two per bucket (min/max envelope of long runs)."""
        c = self.controller
        t = c.column("t")
        i0, i1 = self.visible_rows(t)
        return c.envelope(name).decimate(t, c.column(name), i0, i1, buckets)

    def _previous_xy(self, name, buckets):
        c = self.controller
        prev = c.previous
        t = c.previous_columns.get(prev, "t")
        i0, i1 = self.visible_rows(t)
        return c.previous_columns.envelope(prev, name).decimate(t, c.previous_columns.get(prev, name),
                                                                 i0, i1, buckets)

    def figure_content(self, buckets):
        """What a figure of this card shows (plot_figure): its curves at `buckets` columns, the
        previous branch dashed, impacts marked, in the range on screen."""
        from nsgui.views.plot_figure import FigureContent, Series
        c = self.controller
        rec = c.recorder
        series = []
        if rec is not None and len(rec):
            names = rec.names
            for name, curve in self.curves.items():
                series.append(Series(self.legend_name(name, names), *self._xy(name, buckets), curve.color))
            if c.previous is not None:
                for name, curve in self.curves.items():
                    series.append(Series(self.legend_name(name, names) + " (previous run)",
                                         *self._previous_xy(name, buckets), curve.color, dashed=True))
            for name, sc in self.impacts.items():
                x, y = sc.getData()
                if len(x):
                    series.append(Series("", x, y, self.curves[name].color, symbol="t1"))
        (x0, x1), (y0, y1) = self.item.vb.viewRange()
        return FigureContent(self.title, "t (s)", self.value_label(), series, (x0, x1), (y0, y1),
                             bands=self.bands.figure_bands())

    def set_cursor(self, t):
        self.cursor_line.setValue(t)

    def _clicked(self, ev):
        self.activated.emit(self)
        if ev.double():  # double-click: move the time cursor there
            p = self.item.vb.mapSceneToView(ev.scenePos())
            self.controller.seek_time(p.x())


class PhasePlot(PlotCard):
    kind = "phase"

    def __init__(self, controller, coordinate=None, parent=None):
        super().__init__(controller, "Phase portrait", parent)
        self.combo = QComboBox(toolTip="Coordinate q whose velocity v is plotted against it")
        self.combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.header.insertWidget(1, self.combo)
        self.curve = self.item.plot([], [], pen=pg.mkPen(PALETTE[0], width=1.2))
        self.marker = pg.ScatterPlotItem(size=10, brush=pg.mkBrush("#e8a317"), pen=pg.mkPen("k"))
        self.item.addItem(self.marker)
        self._wanted = coordinate
        self.combo.currentTextChanged.connect(lambda _: self.refresh())
        self.update_coordinates()

    @property
    def signals(self):
        c = self.combo.currentText()
        return [f"q.{c}", f"v.{c}"] if c else []

    def update_coordinates(self):
        rec = self.controller.recorder
        coords = [n[2:] for n in (rec.names if rec is not None else []) if n.startswith("q.")]
        current = self.combo.currentText() or self._wanted
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems(coords)
        if current in coords:
            self.combo.setCurrentText(current)
        self.combo.blockSignals(False)
        self.refresh()

    def refresh(self):
        c = self.controller
        coord = self.combo.currentText()
        if c.recorder is None or not coord:
            self.curve.setData([], [])
            return
        x_label, y_label = self.axis_labels()
        self.set_axis_label("bottom", x_label)
        self.set_axis_label("left", y_label)
        q, v = c.column(f"q.{coord}"), c.column(f"v.{coord}")
        step = max(1, -(-len(q) // PHASE_POINTS))  # every step-th sample, and always the newest
        x = np.append(q[::step], q[-1:]) if step > 1 else q
        y = np.append(v[::step], v[-1:]) if step > 1 else v
        self.curve.setData(x, y)
        with np.errstate(invalid="ignore"):
            if len(x):
                self.apply_range(np.fmin.reduce(x), np.fmax.reduce(x), np.fmin.reduce(y),
                                 np.fmax.reduce(y), time_axis=False)
        self.set_cursor(None)

    def set_cursor(self, t):
        c = self.controller
        coord = self.combo.currentText()
        if c.recorder is None or not coord or not len(c.recorder):
            return
        i = c.cursor
        self.marker.setData([c.column(f"q.{coord}")[i]], [c.column(f"v.{coord}")[i]])

    def axis_labels(self):
        coord = self.combo.currentText()
        return (axis_label(f"q.{coord}", [self.unit(f"q.{coord}")]),
                axis_label(f"v.{coord}", [self.unit(f"v.{coord}")]))

    def figure_content(self, buckets):
        """The portrait as drawn, and the state at the time cursor."""
        from nsgui.views.plot_figure import FigureContent, Series
        coord = self.combo.currentText()
        series = []
        if coord:
            x, y = self.curve.getData()
            if x is not None and len(x):
                series.append(Series(coord, x, y, PALETTE[0]))
                mx, my = self.marker.getData()
                series.append(Series(f"t = {self.controller.cursor_time:.4g} s", mx, my, "#e8a317", symbol="o"))
        (x0, x1), (y0, y1) = self.item.vb.viewRange()
        title = f"{self.title}: {coord}" if coord else self.title
        return FigureContent(title, *self.axis_labels(), series, (x0, x1), (y0, y1))


class PlotPanel(QWidget):
    """A scrolling stack of plots; follows the run live, at most a few redraws per second on long
    runs (each redraw costs about the length of the history)."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.cards: list[PlotCard] = []
        self.current: PlotCard | None = None
        self._layout_names = None
        self._last_refresh = 0.0
        self._refresh_cost = 0.0
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.splitter)
        outer.addWidget(self.scroll)
        self.scroll.verticalScrollBar().valueChanged.connect(lambda _: self._refresh_some())
        self._late = QTimer(self, singleShot=True)
        self._late.timeout.connect(self._refresh_some)
        controller.historyReset.connect(self._on_reset)
        controller.historyAppended.connect(self._on_appended)
        controller.cursorChanged.connect(self._on_cursor)
        controller.branchChanged.connect(self.refresh_all)

    # ------------------------------------------------------------------ plots
    def add_time_plot(self, title, signals=(), choices=(), noun="signals", flag_cut=True):
        card = TimePlot(self.controller, title, signals, choices=choices, noun=noun, flag_cut=flag_cut)
        self._add(card)
        return card

    def add_phase_plot(self, coordinate=None):
        card = PhasePlot(self.controller, coordinate)
        self._add(card)
        return card

    def _fit_splitter(self):
        self.splitter.setMinimumHeight(sum(c.minimumHeight() for c in self.cards)
                                       + self.splitter.handleWidth() * max(len(self.cards) - 1, 0))

    def _add(self, card):
        card.closeRequested.connect(self.remove_plot)
        card.heightChanged.connect(self._fit_splitter)
        card.activated.connect(self._set_current)
        # time axes are not linked: a linked change would repaint every plot at once, and
        # one refresh per display tick must stay short (they share the time cursor instead)
        self.cards.append(card)
        self.splitter.addWidget(card)
        self.current = card
        self._fit_splitter()

    def remove_plot(self, card):
        if card in self.cards:
            self.cards.remove(card)
            card.setParent(None)
            card.deleteLater()
            if self.current is card:
                self.current = self.cards[-1] if self.cards else None
            self._fit_splitter()

    def _set_current(self, card):
        self.current = card

    def time_plots(self):
        return [c for c in self.cards if isinstance(c, TimePlot)]

    def plot_named(self, title):
        return next((c for c in self.cards if c.title == title), None)

    def add_signal(self, name, card=None):
        card = card or (self.current if isinstance(self.current, TimePlot) else None)
        if card is None:
            card = self.add_time_plot(name, [])
        card.add_signal(name)
        return card

    # ------------------------------------------------------------------ updates
    def _on_reset(self):
        for card in self.cards:
            card.reset_range()
        rec = self.controller.recorder
        if rec is None:
            self.refresh_all()
            return
        names = tuple(rec.names)
        if names != self._layout_names:  # a different scene: the default set of plots
            for card in list(self.cards):
                self.remove_plot(card)
            for spec in default_plots(names) + walker_plots(self.controller.model, names):
                self.add_time_plot(spec.title, spec.signals, spec.choices, spec.noun, spec.flag_cut)
            coords = [n[2:] for n in names if n.startswith("q.")]
            if coords:
                self.add_phase_plot(coords[0])
            self._layout_names = names
        for card in self.cards:
            if isinstance(card, PhasePlot):
                card.update_coordinates()
            else:
                card.update_labels()  # units and contact totals of this run's model
        self.refresh_all()

    def refresh_all(self):
        t0 = time.perf_counter()
        for card in self.cards:
            card.refresh()
            card.dirty = False
            card.refreshed_at = time.perf_counter()
        self._on_cursor()  # (no argument: always moves the cursors)
        self._last_refresh = time.perf_counter()
        self._refresh_cost = self._last_refresh - t0

    def _on_appended(self):
        """New rows: redraw the plots a few at a time, stalest first, within a small time budget
        per display tick, so the event loop never waits long for the plots."""
        for card in self.cards:
            card.dirty = True
        self._refresh_some()

    def card_interval(self, card, shown):
        """Seconds between live redraws of `card` while running: the `shown` cards together
        spend at most the plots' share of the GUI thread (frame_budget), each redraw costing about
        the card's last refresh plus repaint."""
        cost = getattr(card, "refresh_cost", 0.0) + card.plot.paint_cost
        return frame_budget.interval("plots", shown * cost, self.controller.flat_out)

    def _refresh_some(self):
        start = time.perf_counter()
        running = self.controller.running
        shown = [c for c in self.cards if not (running and c.visibleRegion().isEmpty())]  # not scrolled out
        dirty = sorted((c for c in shown if getattr(c, "dirty", False)
                        and (not running or getattr(c, "refreshed_at", 0.0)
                             <= start - self.card_interval(c, len(shown)))),
                       key=lambda c: getattr(c, "refreshed_at", 0.0))
        t_cursor = self.controller.cursor_time
        for card in dirty:
            t0 = time.perf_counter()
            card.refresh()
            card.set_cursor(t_cursor)
            card.dirty = False
            card.refreshed_at = time.perf_counter()
            card.refresh_cost = 0.7 * getattr(card, "refresh_cost", 0.0) + 0.3 * (card.refreshed_at - t0)
            if card.refreshed_at - start > REFRESH_BUDGET:
                break
        # while running the next display tick continues; once paused the rest is drawn soon after
        if (not self.controller.running and any(getattr(c, "dirty", False) for c in self.cards)
                and not self._late.isActive()):
            self._late.start(20)

    def _on_cursor(self, *_):
        if self.controller.following and self.controller.running and _ != ():
            return  # live: the cursor sits at the newest sample; moved at the next refresh
        t = self.controller.cursor_time
        for card in self.cards:
            card.set_cursor(t)
