"""Per-pair contact list: every pair of shapes that can touch (geometry only), a tick to make it a
contact, and its restitution (Newton e_N and Moreau e) and friction μ."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QDoubleSpinBox, QHeaderView, QTableWidget, QTableWidgetItem,
)

from nsgui.scene import edits as ops
from .commands import edit
from nsgui.scene.reach import candidate_pairs, pair_key

COLUMNS = ["on", "pair", "e_N", "Moreau e", "μ"]


def _pair_text(key):
    (ab, as_), (bk, bs) = key
    right = f"obstacle {bs}" if bk == "obstacle" else f"{bk}.{bs}"
    return f"{ab}.{as_} ↔ {right}"


def pairs_for(scene, body=None, obstacle=None):
    """Candidate pairs plus existing contacts, restricted to a body or an obstacle if given."""
    keys = list(candidate_pairs(scene))
    seen = {ops._norm(k) for k in keys}
    for c in scene.contacts:
        k = pair_key(c)
        if ops._norm(k) not in seen:
            seen.add(ops._norm(k))
            keys.append(k)

    def involves(k):
        (ab, _), (bk, bs) = k
        if body is not None:
            return ab == body or (bk != "obstacle" and bk == body)
        if obstacle is not None:
            return bk == "obstacle" and bs == obstacle
        return True
    return [k for k in keys if involves(k)]


class ContactTable(QTableWidget):
    def __init__(self, document, body=None, obstacle=None, on_commit=None, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.document, self.body, self.obstacle = document, body, obstacle
        self.on_commit = on_commit or (lambda text, fn: edit(self.document, text, fn))
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setSelectionMode(QAbstractItemView.NoSelection)
        h = self.horizontalHeader()
        h.setSectionResizeMode(1, QHeaderView.Stretch)
        for c in (0, 2, 3, 4):
            h.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        self._keys = None
        self._stale = True
        self.setMinimumHeight(120)
        # refreshed once after a burst of edits (a drag), and only while shown
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(60)
        self._timer.timeout.connect(self.refresh)
        self.refresh()

    def schedule(self):
        self._stale = True
        if self.isVisible():
            self._timer.start()

    def showEvent(self, ev):  # noqa: N802
        super().showEvent(ev)
        if self._stale:
            self.refresh()

    def refresh(self):
        self._timer.stop()
        self._stale = False
        scene = self.document.scene
        keys = pairs_for(scene, self.body, self.obstacle)
        if keys != self._keys:
            self._keys = keys
            self._build(keys)
        index = ops.contact_index(scene)
        for row, key in enumerate(keys):
            c = ops.find_contact(scene, key, index)
            box = self.cellWidget(row, 0)
            box.blockSignals(True)
            box.setChecked(c is not None)
            box.blockSignals(False)
            for col, value in ((2, ops.newton_e(c) if c else 0.0), (3, ops.moreau_e(c) if c else 0.0),
                               (4, c.friction if c else 0.0)):
                sp = self.cellWidget(row, col)
                sp.blockSignals(True)
                sp.setValue(value)
                sp.setEnabled(c is not None)
                sp.blockSignals(False)
        h = self.horizontalHeader().height() + sum(self.rowHeight(r) for r in range(self.rowCount())) + 4
        self.setMinimumHeight(min(max(h, 60), 320))

    def _build(self, keys):
        self.setRowCount(len(keys))
        for row, key in enumerate(keys):
            box = QCheckBox()
            box.setToolTip("collide: make this pair a contact")
            box.toggled.connect(lambda on, k=key: self.on_commit(
                "Enable contact" if on else "Disable contact",
                lambda s: ops.set_contact_enabled(s, k, on)))
            self.setCellWidget(row, 0, box)
            item = QTableWidgetItem(_pair_text(key))
            item.setFlags(Qt.ItemIsEnabled)
            self.setItem(row, 1, item)
            for col, (lo, hi, setter, tip) in {
                2: (0, 1, ops.set_newton_e, "Newton restitution e_N: U⁺ = −e_N U⁻"),
                3: (0, 1, ops.set_moreau_e, "Moreau e = 2e_N/(1+e_N)"),
                4: (0, 100, lambda c, v: setattr(c, "friction", v), "Coulomb friction coefficient μ"),
            }.items():
                sp = QDoubleSpinBox()
                sp.setRange(lo, hi)
                sp.setDecimals(3)
                sp.setSingleStep(0.05)
                sp.setKeyboardTracking(False)
                sp.setToolTip(tip)
                sp.valueChanged.connect(lambda v, k=key, f=setter: self.on_commit(
                    "Set contact", lambda s: f(ops.find_contact(s, k), v)))
                self.setCellWidget(row, col, sp)
