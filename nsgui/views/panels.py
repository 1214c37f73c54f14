"""Small dock panels: the signal picker, the events list and the messages log."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QMenu, QPlainTextEdit, QTableWidget,
                               QTableWidgetItem, QTreeWidget, QTreeWidgetItem)

EVENT_COLORS = {"impact": "#d62728", "stick": "#2ca02c", "slip": "#ff7f0e", "open": "#7f7f7f",
                "solver_warning": "#9467bd"}


class SignalTree(QTreeWidget):
    """Every recorded signal, grouped by kind; double-click adds it to the current plot, the
    context menu adds it to any plot or a new one."""

    def __init__(self, controller, plots, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.plots = plots
        self.setHeaderLabels(["Signal"])
        self.setToolTip("Double-click: add to the current plot. Right-click: choose a plot.")
        self.setContextMenuPolicy(Qt.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.itemDoubleClicked.connect(self._double_clicked)
        self._names = None
        controller.historyReset.connect(self.rebuild)

    def rebuild(self):
        rec = self.controller.recorder
        names = tuple(rec.names) if rec is not None else ()
        if names == self._names:
            return
        self._names = names
        self.clear()
        groups = {}
        for n in names:
            if n == "t":
                continue
            parts = n.split(".")
            if parts[0] in ("contact", "loop") and len(parts) >= 3:
                key = (parts[0], ".".join(parts[1:-1]))
            else:
                key = (parts[0],)
            groups.setdefault(key, []).append(n)
        tops = {}
        titles = {"q": "coordinates (q)", "v": "velocities (v)", "energy": "energy",
                  "contact": "contacts", "loop": "loop joints", "u": "actuators (u)"}
        for key, members in groups.items():
            top = tops.get(key[0])
            if top is None:
                top = tops[key[0]] = QTreeWidgetItem(self, [titles.get(key[0], key[0])])
            parent = top
            if len(key) > 1:
                parent = QTreeWidgetItem(top, [key[1]])
            for m in members:
                item = QTreeWidgetItem(parent, [m])
                item.setData(0, Qt.UserRole, m)
        self.expandToDepth(0)

    def _double_clicked(self, item, _col):
        name = item.data(0, Qt.UserRole)
        if name:
            self.plots.add_signal(name)

    def _menu(self, pos):
        item = self.itemAt(pos)
        name = item.data(0, Qt.UserRole) if item else None
        if not name:
            return
        menu = QMenu(self)
        for card in self.plots.time_plots():
            menu.addAction(f"Add to “{card.title}”", lambda c=card: self.plots.add_signal(name, c))
        menu.addSeparator()
        menu.addAction("New plot with this signal", lambda: self.plots.add_time_plot(name, [name]))
        menu.exec(self.viewport().mapToGlobal(pos))


class EventsPanel(QTableWidget):
    """Impacts, stick/slip changes and solver warnings with their times. Picking an event, with a
    click or with the keyboard (↑ ↓, Page Up/Down, Home/End), moves the time cursor there."""

    MAX_ROWS = 20000

    def __init__(self, controller, parent=None):
        super().__init__(0, 4, parent)
        self.controller = controller
        self.setHorizontalHeaderLabels(["t (s)", "event", "contact", "detail"])
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setStretchLastSection(True)
        self.setColumnWidth(0, 80)
        self.setColumnWidth(1, 90)
        self.setColumnWidth(2, 150)
        # compact rows: the dock shows several events at the default window size
        rows = self.verticalHeader()
        rows.setMinimumSectionSize(self.fontMetrics().height() + 2)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.cellClicked.connect(self._clicked)
        self.currentCellChanged.connect(self._current_changed)
        self._pending = []
        self._flush_timer = QTimer(self, singleShot=True, interval=250)
        self._flush_timer.timeout.connect(self._flush)
        controller.eventsAdded.connect(self._queue)
        controller.historyReset.connect(self.reload)
        self.truncated = 0

    def _queue(self, events):
        """Events arrive in bursts while running: add them to the table a few times a second."""
        self._pending.extend(events)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _flush(self):
        events, self._pending = self._pending, []
        self.add_events(events)

    def reload(self):
        self._pending = []
        self.setRowCount(0)
        self.truncated = 0
        rec = self.controller.recorder
        if rec is not None:
            self.add_events(rec.events)

    def add_events(self, events):
        room = self.MAX_ROWS - self.rowCount()
        if len(events) > room:
            self.truncated += len(events) - max(room, 0)
            events = events[:max(room, 0)]
        self.setUpdatesEnabled(False)
        r0 = self.rowCount()
        self.setRowCount(r0 + len(events))
        for r, e in enumerate(events, start=r0):
            cells = [f"{e.t:.4f}", e.kind, str(e.name), str(getattr(e, "detail", "") or "")]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                if c == 1:
                    it.setForeground(QColor(EVENT_COLORS.get(e.kind, "#333")))
                if c == 0:
                    it.setData(Qt.UserRole, float(e.t))
                self.setItem(r, c, it)
        self.setUpdatesEnabled(True)
        if events and self.controller.following:
            self.scrollToBottom()

    def _clicked(self, row, _col):
        item = self.item(row, 0)
        if item is not None:
            self.controller.seek_time(item.data(Qt.UserRole))

    def _current_changed(self, row, _col, previous_row, _previous_col):
        """Moving through the list with the keyboard goes to each event as a click does (it used
        to leave the time alone while the list kept scrolling to the newest event)."""
        if row >= 0 and row != previous_row:
            self._clicked(row, 0)


class MessagesPanel(QPlainTextEdit):
    """A log of what happened: loads, errors, refused actions."""
    posted = Signal(str, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumBlockCount(5000)
        self.entries: list[tuple[str, str]] = []

    def post(self, level, text):
        self.entries.append((level, text))
        color = {"error": "#c0392b", "warning": "#b9770e"}.get(level, "#333")
        stamp = time.strftime("%H:%M:%S")
        html_text = (text.replace("&", "&amp;").replace("<", "&lt;").replace("\n", "<br>"))
        self.appendHtml(f'<span style="color:#888">{stamp}</span> '
                        f'<span style="color:{color}">{html_text}</span>')
        self.posted.emit(level, text)
