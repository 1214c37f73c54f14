"""Live readouts of the controllers: for every compiled block, its signals' values at the displayed
time (a phase by its label: "transition (impacts)"), and for a tracking scheme with cycles (the
`bno` block, nsgui/engine/control/cycles.py) the metrics of the last cycle completed by then:
impacts, transition length, first rebound height, tracking error (RMS).

Values follow the time cursor (live while running, scrubbing when paused); refreshes are coalesced so
that a fast run or a drag of the history slider costs at most a few updates a second."""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from nsgui.runtime.feet import Touchdowns, feet_of, walker_readouts

REFRESH_INTERVAL = 0.1  # s between two updates at most
METRICS = (("impacts", "impacts in the transition", ""), ("transition_length", "transition length", "s"),
           ("first_rebound_height", "first rebound height", "m"),
           ("tracking_error_rms", "tracking error (RMS)", "m"))


WALKER = (("steps", "steps", ""), ("speed", "speed", "m/s"), ("com_x", "centre of mass x", "m"),
          ("support", "support", ""))


def fmt(value, unit="") -> str:
    if value is None:
        return "—"
    if isinstance(value, (int, np.integer)):
        return f"{value}{f' {unit}' if unit else ''}"
    if not np.isfinite(value):
        return "—"
    return f"{value:.4g}{f' {unit}' if unit else ''}"


def phase_text(value, labels) -> str:
    """A labelled signal's value as its label ("2 transition (impacts)")."""
    if not np.isfinite(value):
        return "—"
    k = int(round(value))
    return f"{labels[k]} ({k})" if 0 <= k < len(labels) else str(k)


def last_complete_cycle(cycles, t_now):
    """The last cycle of `cycle_metrics` that is complete and ended by t_now, or None."""
    done = [c for c in cycles if c["complete"]]
    return done[-1] if done else None


class ControllerReadouts(QTreeWidget):
    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setColumnCount(2)
        self.setHeaderLabels(["controller", "value"])
        self.setRootIsDecorated(True)
        self.setToolTip("The controllers' signals at the displayed time, and the metrics of the last "
                        "completed cycle (docs/controllers.md)")
        self.values = {}       # signal name -> its value item
        self.metric_items = {}  # metric key -> its item
        self.cycle_item = None
        self.walker_items = {}  # walker readout key -> its item (runtime/feet.py)
        self._steps = Touchdowns()  # the walker's steps, counted as the history grows
        self._cycles = None    # CycleRecorder of the model's switching scheme (its block, period, columns)
        self._model = None
        self._last = 0.0
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.refresh)
        controller.historyReset.connect(self.rebuild)
        controller.historyAppended.connect(self.schedule)
        controller.cursorChanged.connect(lambda _row: self.schedule())
        self.rebuild()

    def rebuild(self):
        c = self.controller
        model = c.model
        self._model = model
        self.clear()
        self.values, self.metric_items, self.cycle_item = {}, {}, None
        self._cycles = None
        self.walker_items = {}
        self._steps.reset()
        if feet_of(model):
            top = QTreeWidgetItem(self, ["walker", ""])
            top.setToolTip(0, "The walker's steps (feet touching down), mean speed of the centre of mass "
                              "over the last second, its position, and the support phase")
            for key, text, _unit in WALKER:
                self.walker_items[key] = QTreeWidgetItem(top, [text, ""])
            top.setExpanded(True)
        try:
            from nsgui.engine.control.cycles import CycleRecorder
            self._cycles = CycleRecorder.of(model) if model is not None else None
        except (ImportError, AttributeError, StopIteration, ValueError):
            self._cycles = None
        if self._cycles is not None:
            self.cycle_item = QTreeWidgetItem(self, [f"{self._cycles.block}: last complete cycle", ""])
            for key, text, _unit in METRICS:
                it = QTreeWidgetItem(self.cycle_item, [text, ""])
                self.metric_items[key] = it
            self.cycle_item.setExpanded(True)
        units = getattr(model, "signal_units", None) or {}
        for block in getattr(model, "controller_blocks", None) or []:
            if not block.signals:
                continue
            top = QTreeWidgetItem(self, [f"{block.name}", block.type])
            prefix = f"controller.{block.name}."
            for name in block.signals:
                it = QTreeWidgetItem(top, [name[len(prefix):], ""])
                it.setToolTip(0, name)
                it.setData(0, Qt.UserRole, (name, units.get(name, ""), block.labels.get(name)))
                self.values[name] = it
            top.setExpanded(True)
        self.resizeColumnToContents(0)
        self.setColumnWidth(0, self.columnWidth(0) + 24)
        self.refresh()

    def schedule(self):
        if self._timer.isActive():
            return
        wait = REFRESH_INTERVAL - (time.perf_counter() - self._last)
        self._timer.start(max(0, int(1000 * wait)))

    def refresh(self):
        self._last = time.perf_counter()
        c = self.controller
        if c.model is not self._model:
            self.rebuild()
            return
        rec = c.recorder
        row = c.cursor if rec is not None and len(rec) else None
        for name, it in self.values.items():
            _n, unit, labels = it.data(0, Qt.UserRole)
            if row is None or name not in rec._index:
                it.setText(1, "—")
                continue
            v = float(rec.value(name, row))
            it.setText(1, phase_text(v, labels) if labels else fmt(v, unit))
        if self._cycles is not None:
            self._refresh_cycles(rec, row)
        if self.walker_items:
            self._refresh_walker(row)

    def _refresh_walker(self, row):
        r = None
        if row is not None:
            try:
                r = walker_readouts(self._model, self.controller.column, row, steps=self._steps,
                                    key=id(self.controller.recorder))
            except (KeyError, IndexError, ValueError):
                r = None
        for key, _text, unit in WALKER:
            value = None if r is None else r[key]
            self.walker_items[key].setText(1, value if isinstance(value, str) else fmt(value, unit))

    def _refresh_cycles(self, rec, row):
        from nsgui.engine.control.cycles import cycle_metrics
        last = None
        if row is not None:
            cols = [self.controller.column(rec.names[i])[:row + 1] for i in self._cycles.columns]
            last = last_complete_cycle(cycle_metrics(*cols, self._cycles.period), cols[0][-1])
        if last is None:
            self.cycle_item.setText(1, "none yet")
        else:
            k = last["cycle"]
            self.cycle_item.setText(1, f"#{k + 1} ({fmt(last['start'])}–{fmt(last['start'] + self._cycles.period)} s)")
        for key, _text, unit in METRICS:
            self.metric_items[key].setText(1, fmt(last[key], unit) if last is not None else "—")


__all__ = ["ControllerReadouts", "last_complete_cycle", "phase_text", "fmt"]
