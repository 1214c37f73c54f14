"""The scene tree (every object of the scene) and the inspector (the selected object's fields).

Scalar fields (numbers, booleans, text) are edited in place; each edit is one undoable command on
the document, so the same Scene is drawn, compiled for the next reset / resume, and saved."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QMenu, QSplitter, QTableWidget,
                               QTableWidgetItem, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

SECTIONS = [("bodies", "Bodies"), ("joints", "Joints"), ("loops", "Loop joints"), ("obstacles", "Obstacles"),
            ("contacts", "Contacts"), ("forces", "Forces"), ("actuators", "Actuators"),
            ("controllers", "Controllers")]


def resolve(scene, path):
    obj = scene
    for p in path:
        obj = obj[p] if isinstance(p, int) else getattr(obj, p)
    return obj


class SetFieldCommand(QUndoCommand):
    """Set one scalar field of a scene object (undoable)."""

    def __init__(self, document, path, field, value):
        obj = resolve(document.scene, path)
        super().__init__(f"set {getattr(obj, 'name', path[-1] if path else 'scene')}.{field}")
        self.document, self.path, self.field = document, tuple(path), field
        self.old, self.new = getattr(obj, field), value

    def _apply(self, value):
        setattr(resolve(self.document.scene, self.path), self.field, value)
        self.document.notify_changed()

    def redo(self):
        self._apply(self.new)

    def undo(self):
        self._apply(self.old)


def parse_value(text, old):
    """Parse the text typed for a field whose current value is `old`; ValueError if it does not fit."""
    text = text.strip()
    if isinstance(old, bool):
        if text.lower() in ("true", "1", "yes", "on"):
            return True
        if text.lower() in ("false", "0", "no", "off"):
            return False
        raise ValueError("expected true or false")
    if old is None or isinstance(old, (int, float)):
        if old is None and text.lower() in ("", "null", "none"):
            return None
        if isinstance(old, int) and not isinstance(old, bool):
            try:
                return int(text)
            except ValueError:
                pass
        return float(text)
    return text


class SceneTree(QWidget):
    selectionPathChanged = Signal(tuple)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Vertical)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Scene"])
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["field", "value"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setToolTip("Double-click a value to edit it (undo with Ctrl+Z). Edits apply to "
                              "the next Play (from the displayed time), Resume from here or Reset.")
        split.addWidget(self.tree)
        split.addWidget(self.table)
        split.setSizes([300, 250])
        lay.addWidget(split)
        self._path = None
        self._filling = False
        self.tree.currentItemChanged.connect(self._select)
        self.tree.setContextMenuPolicy(Qt.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(lambda pos: self.context_menu(self.tree.itemAt(pos)).exec(
            self.tree.viewport().mapToGlobal(pos)))
        self.table.itemChanged.connect(self._edited)
        document.changed.connect(self.refresh)
        self.message = None  # callable(level, text), set by the window
        self.refresh()

    def refresh(self):
        scene = self.document.scene
        keep = self._path
        self.tree.blockSignals(True)
        self.tree.clear()
        root = QTreeWidgetItem(self.tree, [scene.name or "scene"])
        root.setData(0, Qt.UserRole, ())
        wanted = root
        for attr, title in SECTIONS:
            items = getattr(scene, attr, [])
            sec = QTreeWidgetItem(root, [f"{title} ({len(items)})"])
            sec.setFlags(sec.flags() & ~Qt.ItemIsSelectable)
            for i, obj in enumerate(items):
                it = QTreeWidgetItem(sec, [f"{obj.name}  ·  {getattr(obj, 'type', '')}".rstrip(" ·")])
                it.setData(0, Qt.UserRole, (attr, i))
                if keep == (attr, i):
                    wanted = it
                for j, shape in enumerate(getattr(obj, "shapes", []) or []):
                    sh = QTreeWidgetItem(it, [f"{shape.name}  ·  {shape.type}"])
                    sh.setData(0, Qt.UserRole, (attr, i, "shapes", j))
                    if keep == (attr, i, "shapes", j):
                        wanted = sh
                ctrl = getattr(obj, "controller", None)
                if ctrl is not None and dataclasses.is_dataclass(ctrl):
                    c = QTreeWidgetItem(it, [f"controller  ·  {getattr(ctrl, 'type', '')}"])
                    c.setData(0, Qt.UserRole, (attr, i, "controller"))
                    if keep == (attr, i, "controller"):
                        wanted = c
        for attr in ("initial", "settings"):
            it = QTreeWidgetItem(root, [attr.capitalize()])
            it.setData(0, Qt.UserRole, (attr,))
            if keep == (attr,):
                wanted = it
        self.tree.expandToDepth(1)
        self.tree.blockSignals(False)
        self.tree.setCurrentItem(wanted)
        self._show(wanted.data(0, Qt.UserRole))

    def context_menu(self, item) -> QMenu:
        """Add a controller block on an actuator (or on every actuator no block drives, from the section),
        remove a block."""
        from nsgui.scene import edits as ops
        from nsgui.scene.schema import CONTROLLER_BLOCK
        menu = QMenu(self)
        path = item.data(0, Qt.UserRole) if item is not None else None
        scene = self.document.scene
        free = [a.name for a in scene.actuators
                if not any(a.name in (b.actuators or []) for b in scene.controllers)]
        if path and path[0] == "actuators" and len(path) >= 2:
            acts = [scene.actuators[path[1]].name]
            acts = [a for a in acts if a in free]
        elif item is not None and item.text(0).startswith("Actuators"):
            acts = free
        else:
            acts = []
        if acts:
            sub = menu.addMenu(f"Add controller on {', '.join(acts)}")
            for t, spec in CONTROLLER_BLOCK.types.items():
                a = sub.addAction(t, lambda t=t: self._edit(f"Add controller {t}",
                                                            lambda s: ops.add_controller_block(s, t, acts)))
                a.setToolTip(spec.help)
        if path and path[0] == "controllers" and len(path) == 2:
            name = scene.controllers[path[1]].name
            menu.addAction(f"Remove controller {name}",
                           lambda: self._edit(f"Remove controller {name}",
                                              lambda s: ops.remove_items(s, {("controller", name)})))
        return menu

    def _edit(self, text, fn):
        from nsgui.views.editor.commands import EditRefused, edit
        try:
            edit(self.document, text, fn)
        except EditRefused as exc:
            if self.message:
                self.message("warning", str(exc))

    def _select(self, item, _prev):
        if item is not None and item.data(0, Qt.UserRole) is not None:
            self._show(item.data(0, Qt.UserRole))

    def select_path(self, path):
        it = self._find(self.tree.invisibleRootItem(), tuple(path))
        if it is not None:
            self.tree.setCurrentItem(it)

    def _find(self, item, path):
        for k in range(item.childCount()):
            ch = item.child(k)
            if ch.data(0, Qt.UserRole) == path:
                return ch
            found = self._find(ch, path)
            if found is not None:
                return found
        return None

    def _show(self, path):
        self._path = tuple(path)
        try:
            obj = resolve(self.document.scene, path)
        except (IndexError, AttributeError, KeyError):
            obj = self.document.scene
            self._path = ()
        self._filling = True
        self.table.setRowCount(0)
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.name in ("bodies", "joints", "loops", "obstacles", "contacts", "forces", "actuators",
                          "shapes", "controller", "initial", "settings", "limits") and not _scalar(value):
                continue
            r = self.table.rowCount()
            self.table.insertRow(r)
            key = QTableWidgetItem(f.name)
            key.setFlags(key.flags() & ~Qt.ItemIsEditable)
            val = QTableWidgetItem(_fmt(value))
            val.setData(Qt.UserRole, f.name)
            if not _scalar(value):
                val.setFlags(val.flags() & ~Qt.ItemIsEditable)
                val.setForeground(Qt.darkGray)
            self.table.setItem(r, 0, key)
            self.table.setItem(r, 1, val)
        self._filling = False
        self.selectionPathChanged.emit(self._path)

    def _edited(self, item):
        if self._filling or item.column() != 1:
            return
        field = item.data(Qt.UserRole)
        obj = resolve(self.document.scene, self._path)
        old = getattr(obj, field)
        try:
            value = parse_value(item.text(), old)
        except ValueError as exc:
            if self.message:
                self.message("warning", f"{field}: {exc} (got {item.text()!r})")
            self._filling = True
            item.setText(_fmt(old))
            self._filling = False
            return
        if value != old:
            self.document.push(SetFieldCommand(self.document, self._path, field, value))

    def set_field(self, path, field, value):
        """Programmatic edit (tests, scripts): the same undoable command as typing in the table."""
        self.document.push(SetFieldCommand(self.document, tuple(path), field, value))


def _scalar(v):
    return v is None or isinstance(v, (bool, int, float, str))


def _fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, float):
        return f"{v:.6g}"
    if dataclasses.is_dataclass(v):
        return "{…}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]" if len(v) <= 6 else f"[{len(v)} items]"
    if isinstance(v, dict):
        return ", ".join(f"{k}={_fmt(x)}" for k, x in v.items()) or "{}"
    return str(v)
