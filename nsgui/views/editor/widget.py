"""The Editor tab: palette | canvas | inspector and contact list, with a hint line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup, QCheckBox, QFrame, QHBoxLayout, QLabel, QPushButton, QSplitter, QTabWidget, QToolButton,
    QVBoxLayout, QWidget,
)

from .canvas import TOOLS, EditorCanvas
from .contacts_panel import ContactTable
from .inspector import Inspector

PALETTE = [
    ("", ["select"]),
    ("Bodies", ["disk", "box", "bar", "polygon"]),
    ("Joints", ["pin", "slider", "weld"]),
    ("World", ["ground", "wall", "segment"]),
    ("Forces", ["spring", "damper", "actuator"]),
]


class EditorWidget(QWidget):
    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.canvas = EditorCanvas(document)
        self.inspector = Inspector(document, self.canvas)
        self.contacts = ContactTable(document)
        self.buttons: dict[str, QToolButton] = {}

        palette = QWidget()
        pl = QVBoxLayout(palette)
        pl.setContentsMargins(4, 4, 4, 4)
        pl.setSpacing(2)
        group = QButtonGroup(self)
        group.setExclusive(True)
        for title, tools in PALETTE:
            if title:
                lab = QLabel(title)
                lab.setStyleSheet("color: #666; font-size: 11px; margin-top: 6px")
                pl.addWidget(lab)
            for t in tools:
                b = QToolButton()
                b.setText(TOOLS[t][0])
                b.setToolTip(TOOLS[t][1])
                b.setCheckable(True)
                b.setToolButtonStyle(Qt.ToolButtonTextOnly)
                b.setMinimumWidth(84)
                b.clicked.connect(lambda _=False, t=t: self.canvas.set_tool(t))
                group.addButton(b)
                pl.addWidget(b)
                self.buttons[t] = b
        self.buttons["select"].setChecked(True)
        line = QFrame()
        line.setFrameShape(QFrame.HLine)
        pl.addWidget(line)
        self.snap_box = QCheckBox("Snap")
        self.snap_box.setChecked(True)
        self.snap_box.setToolTip("snap to the grid and to anchors (hold Alt to place freely)")
        self.snap_box.toggled.connect(lambda on: setattr(self.canvas, "snap_enabled", on))
        pl.addWidget(self.snap_box)
        fit = QPushButton("Fit view")
        fit.clicked.connect(self.canvas.fit_view)
        pl.addWidget(fit)
        pl.addStretch(1)

        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("padding: 3px; color: #333; background: #fff7d6")
        centre = QWidget()
        cl = QVBoxLayout(centre)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.canvas, 1)
        cl.addWidget(self.hint)

        self.side = QTabWidget()
        self.side.setMinimumWidth(270)
        self.side.addTab(self.inspector, "Inspector")
        self.side.addTab(self.contacts, "Contacts")
        split = QSplitter(Qt.Horizontal)
        split.addWidget(centre)
        split.addWidget(self.side)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)
        split.setSizes([900, 270])  # the canvas gets what the window can spare
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(palette)
        lay.addWidget(split, 1)

        self.canvas.message.connect(self.show_hint)
        self.inspector.message.connect(self.show_hint)
        self.canvas.toolChanged.connect(lambda t: self.buttons[t].setChecked(True))
        document.changed.connect(self.contacts.schedule)
        self.show_hint(TOOLS["select"][1])

    def show_hint(self, text):
        self.hint.setText(text)

    def set_read_only(self, ro: bool):
        self.canvas.set_read_only(ro)
        self.inspector.set_read_only(ro)
        self.contacts.setEnabled(not ro)
        for b in self.buttons.values():
            b.setEnabled(not ro or b is self.buttons["select"])
        if ro:
            self.canvas.set_tool("select")
            self.show_hint("The simulation is running: pause it to edit. Play then continues the "
                           "run with the edits; Reset starts them from t = 0.")
        else:
            self.show_hint(TOOLS[self.canvas.tool][1])
