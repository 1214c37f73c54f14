"""Live plots (pyqtgraph): time plots of any recorded signals with a time cursor, impacts marked on
contact-force plots, the previous branch drawn dashed, and a phase portrait (v against q)."""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QMenu, QScrollArea, QSplitter,
                               QToolButton, QVBoxLayout, QWidget)

pg.setConfigOptions(antialias=False, background="w", foreground="#333")

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22"]
CURSOR_PEN = pg.mkPen("#e8a317", width=1.5)
MIN_PLOT_HEIGHT = 190
REFRESH_BUDGET = 0.012  # seconds of plot updates per display tick
CARD_INTERVAL = 0.1  # a live plot is redrawn at most this often


def default_plots(names):
    """The plots a new run opens with: (title, signals) for the signals this run records."""
    names = list(names)
    has = set(names)
    plots = [("Energy", [n for n in ("energy.kinetic", "energy.potential", "energy.total",
                                     "energy.dissipated") if n in has])]
    q = [n for n in names if n.startswith("q.")]
    v = [n for n in names if n.startswith("v.")]
    plots += [("Coordinates", q[:8]), ("Velocities", v[:8])]
    gaps = [n for n in names if n.startswith("contact.") and n.endswith(".gap")]
    forces = [n for n in names if n.startswith("contact.") and (n.endswith(".pn") or n.endswith(".pt"))]
    plots += [("Contact gaps", gaps[:8]), ("Contact forces", forces[:8])]
    u = [n for n in names if n.startswith("u.")]
    if u:
        plots.append(("Actuator torques", u))
    return [(t, s) for t, s in plots if s]


class TimedPlotWidget(pg.PlotWidget):
    """A PlotWidget that measures its repaint time (a smoothed average, seconds)."""
    paint_cost = 0.005

    def paintEvent(self, ev):
        t0 = time.perf_counter()
        super().paintEvent(ev)
        self.paint_cost = 0.7 * self.paint_cost + 0.3 * (time.perf_counter() - t0)


class PlotCard(QWidget):
    """One plot with its title bar; `kind` is "time" or "phase"."""
    closeRequested = Signal(object)
    activated = Signal(object)

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
        self.plot.setMinimumHeight(MIN_PLOT_HEIGHT - 30)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.item = self.plot.getPlotItem()
        # the legend is a line of coloured names above the plot: it never hides the curves
        self.legend_label = QLabel()
        self.legend_label.setWordWrap(True)
        self.legend_label.setStyleSheet("font-size: 8pt")
        lay.addWidget(self.legend_label)
        lay.addWidget(self.plot, 1)
        self.setMinimumHeight(MIN_PLOT_HEIGHT)

    def mousePressEvent(self, ev):
        self.activated.emit(self)
        super().mousePressEvent(ev)


class TimePlot(PlotCard):
    kind = "time"

    def __init__(self, controller, title, signals=(), parent=None):
        super().__init__(controller, title, parent)
        self.item.setLabel("bottom", "t", units="s")
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.previous_curves: dict[str, pg.PlotDataItem] = {}
        self.impacts: dict[str, pg.ScatterPlotItem] = {}
        self.cursor_line = pg.InfiniteLine(angle=90, movable=False, pen=CURSOR_PEN)
        self.item.addItem(self.cursor_line, ignoreBounds=True)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        for s in signals:
            self.add_signal(s)

    @property
    def signals(self):
        return list(self.curves)

    def add_signal(self, name):
        if name in self.curves:
            return
        color = PALETTE[len(self.curves) % len(PALETTE)]
        curve = self.item.plot([], [], pen=pg.mkPen(color, width=1))
        curve.color = color
        curve.setDownsampling(auto=True, method="peak")
        curve.setClipToView(True)
        self.curves[name] = curve
        self._update_legend()
        if name.startswith("contact.") and (name.endswith(".pn") or name.endswith(".pt")):
            sc = pg.ScatterPlotItem(size=7, symbol="t1", pen=pg.mkPen(color), brush=pg.mkBrush(color))
            self.item.addItem(sc)
            self.impacts[name] = sc
        self.refresh()

    def remove_signal(self, name):
        for store in (self.curves, self.previous_curves, self.impacts):
            item = store.pop(name, None)
            if item is not None:
                self.item.removeItem(item)
        self._update_legend()

    def _update_legend(self):
        self.legend_label.setText("&nbsp; ".join(
            f'<span style="color:{c.color}">■</span>&nbsp;{n}' for n, c in self.curves.items()))

    def refresh(self):
        c = self.controller
        rec = c.recorder
        if rec is None:
            for curve in self.curves.values():
                curve.setData([], [])
            return
        t = c.column("t")
        for name, curve in self.curves.items():
            y = c.column(name)
            curve.setData(t, y)
            if name in self.impacts:
                status_name = name.rsplit(".", 1)[0] + ".status"
                if status_name in rec._index:
                    st = c.column(status_name)
                    hit = np.flatnonzero(st == 3)
                    self.impacts[name].setData(t[hit], y[hit])
        self._refresh_previous()

    def _refresh_previous(self):
        c = self.controller
        prev = c.previous
        if prev is None:
            for item in self.previous_curves.values():
                self.item.removeItem(item)
            self.previous_curves.clear()
            return
        t = c.previous_columns.get(prev, "t")
        for name, curve in self.curves.items():
            if name not in self.previous_curves:
                pen = pg.mkPen(curve.opts["pen"].color(), width=1, style=Qt.DashLine)
                item = pg.PlotDataItem([], [], pen=pen)
                item.setDownsampling(auto=True, method="peak")
                item.setClipToView(True)
                item.setOpacity(0.55)
                self.item.addItem(item)
                self.previous_curves[name] = item
            self.previous_curves[name].setData(t, c.previous_columns.get(prev, name))

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
        self.curve.setDownsampling(auto=True, method="subsample")
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
        self.item.setLabel("bottom", f"q.{coord}")
        self.item.setLabel("left", f"v.{coord}")
        self.curve.setData(c.column(f"q.{coord}"), c.column(f"v.{coord}"))
        self.set_cursor(None)

    def set_cursor(self, t):
        c = self.controller
        coord = self.combo.currentText()
        if c.recorder is None or not coord or not len(c.recorder):
            return
        i = c.cursor
        self.marker.setData([c.column(f"q.{coord}")[i]], [c.column(f"v.{coord}")[i]])


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
        self._late = QTimer(self, singleShot=True)
        self._late.timeout.connect(self._refresh_some)
        controller.historyReset.connect(self._on_reset)
        controller.historyAppended.connect(self._on_appended)
        controller.cursorChanged.connect(self._on_cursor)
        controller.branchChanged.connect(self.refresh_all)

    # ------------------------------------------------------------------ plots
    def add_time_plot(self, title, signals=()):
        card = TimePlot(self.controller, title, signals)
        self._add(card)
        return card

    def add_phase_plot(self, coordinate=None):
        card = PhasePlot(self.controller, coordinate)
        self._add(card)
        return card

    def _add(self, card):
        card.closeRequested.connect(self.remove_plot)
        card.activated.connect(self._set_current)
        # time axes are not linked: a linked change would repaint every plot at once, and
        # one refresh per display tick must stay short (they share the time cursor instead)
        self.cards.append(card)
        self.splitter.addWidget(card)
        self.current = card
        self.splitter.setMinimumHeight(len(self.cards) * MIN_PLOT_HEIGHT)

    def remove_plot(self, card):
        if card in self.cards:
            self.cards.remove(card)
            card.setParent(None)
            card.deleteLater()
            if self.current is card:
                self.current = self.cards[-1] if self.cards else None
            self.splitter.setMinimumHeight(len(self.cards) * MIN_PLOT_HEIGHT)

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
        rec = self.controller.recorder
        if rec is None:
            self.refresh_all()
            return
        names = tuple(rec.names)
        if names != self._layout_names:  # a different scene: the default set of plots
            for card in list(self.cards):
                self.remove_plot(card)
            for title, sig in default_plots(names):
                self.add_time_plot(title, sig)
            coords = [n[2:] for n in names if n.startswith("q.")]
            if coords:
                self.add_phase_plot(coords[0])
            self._layout_names = names
        for card in self.cards:
            if isinstance(card, PhasePlot):
                card.update_coordinates()
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

    def _refresh_some(self):
        start = time.perf_counter()
        interval = CARD_INTERVAL if self.controller.running else 0.0
        due = start - interval
        dirty = sorted((c for c in self.cards if getattr(c, "dirty", False)
                        and getattr(c, "refreshed_at", 0.0) <= due),
                       key=lambda c: getattr(c, "refreshed_at", 0.0))
        t_cursor = self.controller.cursor_time
        for card in dirty:
            card.refresh()
            card.set_cursor(t_cursor)
            card.dirty = False
            card.refreshed_at = time.perf_counter()
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
