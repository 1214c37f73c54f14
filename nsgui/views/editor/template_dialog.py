"""A dialog generated from a template's parameter list (N and dimensions)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel, QSpinBox

from nsgui.scene.templates import TEMPLATES


class TemplateDialog(QDialog):
    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(name)
        self.template = name
        _, spec = TEMPLATES[name]
        form = QFormLayout(self)
        form.addRow(QLabel(f"<b>{name}</b>"))
        self.inputs = {}
        for key, label, unit, default, lo, hi, integer in spec:
            if integer:
                w = QSpinBox()
                w.setRange(int(lo), int(hi))
                w.setValue(int(default))
            else:
                w = QDoubleSpinBox()
                w.setDecimals(3)
                w.setRange(lo, hi)
                w.setSingleStep(0.05 if hi <= 10 else 1)
                w.setValue(default)
                if unit:
                    w.setSuffix(f" {unit}")
            w.setToolTip(f"{lo:g} … {hi:g} {unit}")
            self.inputs[key] = w
            form.addRow(label, w)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict:
        return {k: w.value() for k, w in self.inputs.items()}
