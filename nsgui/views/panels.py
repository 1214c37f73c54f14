"""Small dock panels: the signal picker, the events list and the messages log."""

from __future__ import annotations

import time

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QMenu, QPlainTextEdit, QTableView, QTreeWidget,
                               QTreeWidgetItem)

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


class EventsModel(QAbstractTableModel):
    """The events as a table model: a cell's text is made when the view shows it, so adding a burst
    of events costs nothing per cell (the item per cell of a QTableWidget cost ~20 ms per flush of
    a walker's events, a visible stall every few seconds while running)."""

    HEADERS = ("t (s)", "event", "contact", "detail")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.events = []

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.events)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole and 0 <= section < len(self.HEADERS):
            return self.HEADERS[section]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        e, c = self.events[index.row()], index.column()
        if role == Qt.DisplayRole:
            return e.describe() if c == 3 else (f"{e.t:.4f}", e.kind, str(e.name))[c]
        if role == Qt.ForegroundRole and c == 1:
            return QColor(EVENT_COLORS.get(e.kind, "#333"))
        if role == Qt.UserRole and c == 0:
            return float(e.t)
        return None

    def append(self, events):
        if events:
            n = len(self.events)
            self.beginInsertRows(QModelIndex(), n, n + len(events) - 1)
            self.events.extend(events)
            self.endInsertRows()

    def clear(self):
        self.beginResetModel()
        self.events = []
        self.endResetModel()


class EventsPanel(QTableView):
    """Impacts, stick/slip changes and solver warnings with their times. Picking an event, with a
    click or with the keyboard (↑ ↓, Page Up/Down, Home/End), moves the time cursor there."""

    MAX_ROWS = 20000

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.events_model = EventsModel(self)
        self.setModel(self.events_model)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setStretchLastSection(True)
        self.setColumnWidth(0, 80)
        self.setColumnWidth(1, 90)
        self.setColumnWidth(2, 150)
        # compact rows: the dock shows several events at the default window size
        rows = self.verticalHeader()
        rows.setMinimumSectionSize(self.fontMetrics().height() + 2)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.clicked.connect(lambda index: self._clicked(index.row()))
        self.selectionModel().currentRowChanged.connect(self._current_changed)
        self._pending = []
        self._flush_timer = QTimer(self, singleShot=True, interval=250)
        self._flush_timer.timeout.connect(self._flush)
        controller.eventsAdded.connect(self._queue)
        controller.historyReset.connect(self.reload)
        self.truncated = 0

    def rowCount(self):
        return self.events_model.rowCount()

    def currentRow(self):
        return self.currentIndex().row()

    def event_at(self, row):
        """The event listed in `row`."""
        return self.events_model.events[row]

    def text(self, row, column):
        """A cell's text as shown."""
        return self.events_model.data(self.events_model.index(row, column))

    def row_rect(self, row):
        """Where `row` is drawn in the viewport."""
        return self.visualRect(self.events_model.index(row, 0))

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
        self.events_model.clear()
        self.truncated = 0
        rec = self.controller.recorder
        if rec is not None:
            self.add_events(rec.events)

    def add_events(self, events):
        room = self.MAX_ROWS - self.rowCount()
        if len(events) > room:
            self.truncated += len(events) - max(room, 0)
            events = events[:max(room, 0)]
        self.events_model.append(list(events))
        if events and self.controller.following:
            self.scrollToBottom()

    def _clicked(self, row):
        if 0 <= row < self.rowCount():
            self.controller.seek_time(float(self.event_at(row).t))

    def _current_changed(self, current, previous):
        """Moving through the list with the keyboard goes to each event as a click does (it used
        to leave the time alone while the list kept scrolling to the newest event)."""
        if current.row() >= 0 and current.row() != previous.row():
            self._clicked(current.row())


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
