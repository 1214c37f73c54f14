"""The Problems panel: what is wrong with the scene, live; clicking a problem selects its item."""

from __future__ import annotations

import re

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

LISTS = {"bodies": "body", "joints": "joint", "loops": "loop", "obstacles": "obstacle", "contacts": "contact",
         "forces": "force", "actuators": "actuator"}
_PATH = re.compile(r"^(bodies|joints|loops|obstacles|contacts|forces|actuators)\[(\d+)\]")


def ref_for_path(scene, path: str):
    """The item a problem path points at: "bodies[2].mass" → ("body", name); None if none."""
    m = _PATH.match(path or "")
    if not m:
        return None
    lst = getattr(scene, m.group(1))
    i = int(m.group(2))
    if i >= len(lst):
        return None
    return LISTS[m.group(1)], lst[i].name


class ProblemsPanel(QWidget):
    problemActivated = Signal(object)  # the ref of the item to select (or None)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.summary = QLabel()
        self.list = QListWidget()
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.summary)
        lay.addWidget(self.list, 1)
        # validation after a burst of edits (a drag) runs once, not per mouse move
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.refresh)
        document.changed.connect(self._timer.start)
        self.refresh()

    def refresh(self):
        self._timer.stop()
        problems = self.document.all_problems()
        self.list.clear()
        errors = [p for p in problems if getattr(p, "severity", "error") == "error"]
        warnings = [p for p in problems if p not in errors]
        for p in errors + warnings:
            warn = p in warnings
            item = QListWidgetItem(("⚠ " if warn else "✖ ") + str(p))
            item.setForeground(QColor("#8a6d00" if warn else "#b00020"))
            item.setData(256, p.path)
            item.setToolTip("click to select the item")
            self.list.addItem(item)
        if not problems and not self.document.scene.bodies:  # (File > New, or a file that failed to open)
            self.summary.setText("The scene is empty: draw bodies in the Editor, or open a scene (File > Open).")
            self.summary.setStyleSheet("color: #555")
        elif not problems:
            self.summary.setText("✔ No problems: the scene is ready to run.")
            self.summary.setStyleSheet("color: #2e7d32")
        else:
            self.summary.setText(f"{len(errors)} error(s), {len(warnings)} warning(s)"
                                 + (" — Play is refused until the errors are fixed" if errors else ""))
            self.summary.setStyleSheet("color: #b00020" if errors else "color: #8a6d00")

    def _clicked(self, item):
        self.problemActivated.emit(ref_for_path(self.document.scene, item.data(256)))
