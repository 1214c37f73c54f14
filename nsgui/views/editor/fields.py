"""Small editor widgets bound to one value of the scene through getter/setter functions.

A field reads its value from the current Scene (`refresh`) and writes a change as one undoable
edit (`commit`). Numbers show their unit and are clamped to their valid range; angles are shown
in degrees and stored in radians.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox, QColorDialog, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QListWidget,
    QListWidgetItem, QPushButton, QWidget,
)

from nsgui.scene.schema import BODY

BIG = 1e9
DEFAULT_COLOR = BODY["color"].default


class Field:
    """Binds a widget to get(scene) / set(scene, value)."""

    def __init__(self, inspector, get, set_, label: str):
        self.inspector, self.get, self.set_, self.label = inspector, get, set_, label
        self.widget = None

    def commit(self, value):
        self.inspector.commit(self, value)

    def current(self):
        try:
            return self.get(self.inspector.document.scene)
        except Exception:
            return None


class NumberField(Field):
    def __init__(self, inspector, get, set_, label, unit="", lo=-BIG, hi=BIG, decimals=4, step=0.01,
                 degrees=False, nullable=False, auto_value=None, auto_text="auto"):
        super().__init__(inspector, get, set_, label)
        self.degrees, self.nullable, self.auto_value = degrees, nullable, auto_value
        self.spin = QDoubleSpinBox()
        self.spin.setKeyboardTracking(False)
        self.spin.setDecimals(decimals)
        self.spin.setSingleStep(step)
        self.spin.setRange(lo, hi)
        self.spin.setAccelerated(True)
        self.spin.setMinimumWidth(90)  # a huge range must not make the inspector wider than its dock
        if unit:
            self.spin.setSuffix(f" {unit}")
        self.spin.setToolTip(f"{label}: {self._range_text(lo, hi, unit)}")
        self.spin.valueChanged.connect(self._changed)
        if nullable:
            w = QWidget()
            lay = QHBoxLayout(w)
            lay.setContentsMargins(0, 0, 0, 0)
            self.auto = QCheckBox(auto_text)
            self.auto.setToolTip("computed automatically; untick to enter a value")
            self.auto.toggled.connect(self._auto_toggled)
            lay.addWidget(self.spin, 1)
            lay.addWidget(self.auto)
            self.widget = w
        else:
            self.auto = None
            self.widget = self.spin
        self.refresh()

    @staticmethod
    def _range_text(lo, hi, unit):
        parts = []
        if lo > -BIG:
            parts.append(f"≥ {lo:g}")
        if hi < BIG:
            parts.append(f"≤ {hi:g}")
        return (" and ".join(parts) or "any value") + (f" {unit}" if unit else "")

    def refresh(self):
        v = self.current()
        blockers = [self.spin.blockSignals(True)]
        if self.auto is not None:
            self.auto.blockSignals(True)
            self.auto.setChecked(v is None)
            self.spin.setEnabled(v is not None)
            if v is None and self.auto_value is not None:
                try:
                    v = self.auto_value(self.inspector.document.scene)
                except Exception:
                    v = None
            self.auto.blockSignals(False)
        if v is not None:
            shown = math.degrees(v) if self.degrees else float(v)
            if abs(self.spin.value() - shown) > 10 ** -(self.spin.decimals() + 1):
                self.spin.setValue(shown)
        self.spin.blockSignals(blockers[0])

    def _changed(self, shown):
        if self.auto is not None and self.auto.isChecked():
            return
        self.commit(math.radians(shown) if self.degrees else float(shown))

    def _auto_toggled(self, on):
        if on:
            self.commit(None)
        else:
            shown = self.spin.value()
            self.commit(math.radians(shown) if self.degrees else float(shown))


class TextField(Field):
    def __init__(self, inspector, get, set_, label):
        super().__init__(inspector, get, set_, label)
        self.edit = QLineEdit()
        self.edit.setMinimumWidth(60)
        self.edit.editingFinished.connect(lambda: self.commit(self.edit.text()))
        self.widget = self.edit
        self.refresh()

    def refresh(self):
        v = self.current()
        if not self.edit.hasFocus():
            self.edit.setText("" if v is None else str(v))


class ChoiceField(Field):
    def __init__(self, inspector, get, set_, label, choices):
        super().__init__(inspector, get, set_, label)
        self.combo = QComboBox()
        for value, text in choices:
            self.combo.addItem(text, value)
        self.combo.currentIndexChanged.connect(lambda i: self.commit(self.combo.itemData(i)))
        self.widget = self.combo
        self.refresh()

    def refresh(self):
        v = self.current()
        i = self.combo.findData(v)
        self.combo.blockSignals(True)
        self.combo.setCurrentIndex(max(i, 0))
        self.combo.blockSignals(False)


class BoolField(Field):
    def __init__(self, inspector, get, set_, label, text=""):
        super().__init__(inspector, get, set_, label)
        self.box = QCheckBox()
        self.box.toggled.connect(lambda on: self.commit(bool(on)))
        self.widget = self.box
        if text:  # the explanation wraps instead of widening the inspector; a click on it toggles
            self.text = QLabel(text)
            self.text.setWordWrap(True)
            self.text.setMinimumWidth(40)
            self.text.mousePressEvent = lambda _ev: self.box.isEnabled() and self.box.toggle()
            self.widget = QWidget()
            row = QHBoxLayout(self.widget)
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(self.box)
            row.addWidget(self.text, 1)
        self.refresh()

    def refresh(self):
        self.box.blockSignals(True)
        self.box.setChecked(bool(self.current()))
        self.box.blockSignals(False)


class NamesField(Field):
    """A checkable list of names (e.g. the actuators a controller drives). The value keeps the order in
    which the names were ticked: a name ticked later goes to the end."""

    def __init__(self, inspector, get, set_, label, options):
        super().__init__(inspector, get, set_, label)
        self.list = QListWidget()
        self.list.setMinimumWidth(60)
        for name in options:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Unchecked)
            self.list.addItem(item)
        self.list.setMaximumHeight(22 * max(1, min(len(options), 6)) + 6)
        self.list.itemChanged.connect(self._changed)
        self.widget = self.list
        self.refresh()

    def items(self):
        return [self.list.item(k) for k in range(self.list.count())]

    def _changed(self, _item):
        ticked = [it.text() for it in self.items() if it.checkState() == Qt.Checked]
        current = list(self.current() or [])
        self.commit([n for n in current if n in ticked] + [n for n in ticked if n not in current])

    def refresh(self):
        current = set(self.current() or [])
        self.list.blockSignals(True)
        for it in self.items():
            it.setCheckState(Qt.Checked if it.text() in current else Qt.Unchecked)
        self.list.blockSignals(False)


class ColorField(Field):
    def __init__(self, inspector, get, set_, label):
        super().__init__(inspector, get, set_, label)
        self.button = QPushButton()
        self.button.setMinimumWidth(40)
        self.button.clicked.connect(self._pick)
        self.widget = self.button
        self.refresh()

    def refresh(self):
        v = self.current() or DEFAULT_COLOR
        self.button.setText(v)
        self.button.setStyleSheet(f"background: {v}; color: {'black' if QColor(v).lightness() > 128 else 'white'}")

    def _pick(self):
        c = QColorDialog.getColor(QColor(self.current() or DEFAULT_COLOR), self.button, "Body colour")
        if c.isValid():
            self.commit(c.name())


__all__ = ["Field", "NumberField", "TextField", "ChoiceField", "BoolField", "NamesField", "ColorField",
           "Qt"]
