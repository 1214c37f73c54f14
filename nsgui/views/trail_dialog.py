"""View ▸ Trail points…: choose the points fixed on bodies whose recent paths the 3D view draws.

Candidates per body: its origin, its centre of mass, the anchors of the revolute / prismatic joints
it is the child of, its shapes' centres and vertices, plus custom points typed in the body's frame.
OK applies the choice (and switches the trails on); Cancel changes nothing. The choice is a view
setting: it is not saved with the scene."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QHBoxLayout,
                               QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout)

from nsgui.views.view3d import TRAIL_SECONDS, TrailPoint, trail_point

POINT_ROLE = Qt.UserRole
MATCH = 1e-9  # two points of a body closer than this are the same point


def _shape_points(shape, index):
    """(label, local point) of a shape's centre and vertices, in the body frame."""
    from nsgui.scene.mass_properties import shape_area_properties
    from nsgui.scene.geometry import rot
    from nsgui.views.geometry3d import shape_outline
    name = shape.name or f"{shape.type}{index}"
    try:
        centre = np.asarray(shape_area_properties(shape)[1], float)
    except Exception:
        centre = np.asarray(shape.offset or (0.0, 0.0), float)
    out = [(f"shape {name} centre", centre)]
    if shape.type in ("box", "polygon"):
        for i, v in enumerate(shape_outline(shape)):
            out.append((f"shape {name} vertex {i}", v))
    elif shape.type == "capsule":
        off = np.asarray(shape.offset or (0.0, 0.0), float)
        axis = rot(float(shape.angle or 0.0)) @ np.array([float(shape.length) / 2, 0.0])
        out += [(f"shape {name} end 0", off - axis), (f"shape {name} end 1", off + axis)]
    return out


def candidate_points(scene, body_names) -> dict[str, list[tuple[str, TrailPoint]]]:
    """body name -> [(group, TrailPoint)] with group "body" (origin, centre of mass, joint anchors)
    or "shapes" (shape centres and vertices)."""
    from nsgui.scene import body_mass_properties
    bodies = {b.name: b for b in scene.bodies}
    out = {}
    for name in body_names:
        body = bodies.get(name)
        pts = [("body", trail_point(name, (0.0, 0.0), f"{name} origin"))]
        if body is None:
            out[name] = pts
            continue
        try:
            com = body_mass_properties(body)[2]
            pts.append(("body", trail_point(name, com, f"{name} centre of mass")))
        except Exception:  # no mass yet (a scene being edited): no centre of mass to offer
            pass
        for j in scene.joints:
            if j.type in ("revolute", "prismatic") and j.child == name:
                pts.append(("body", trail_point(name, j.anchor_child, f"{name} joint {j.name} anchor")))
        for i, shape in enumerate(body.shapes):
            try:
                pts += [("shapes", trail_point(name, p, f"{name} {label}"))
                        for label, p in _shape_points(shape, i)]
            except Exception:  # a half-edited shape: leave its points out
                pass
        out[name] = pts
    return out


def _same(a: TrailPoint, b: TrailPoint):
    return a.body == b.body and abs(a.x - b.x) <= MATCH and abs(a.y - b.y) <= MATCH


class TrailPointsDialog(QDialog):
    """Check the points to trail. `view3d` is the View3D (its model gives the bodies, its current
    choice the checks); `trails_action` (optional) is the View ▸ Trails action, triggered on OK
    when the trails are off."""

    def __init__(self, view3d, trails_action=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Trail points")
        self.view3d = view3d
        self.trails_action = trails_action
        model = view3d.model
        self.body_names = list(model.body_names) if model is not None else []
        scene = model.scene if model is not None else None

        layout = QVBoxLayout(self)
        info = QLabel(f"The 3D view draws the paths of the checked points over the last "
                      f"{TRAIL_SECONDS:g} s (View ▸ Trails). Coordinates are in the body's frame. "
                      "With nothing checked, each body's origin is trailed.")
        info.setWordWrap(True)
        layout.addWidget(info)

        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["point", "local x", "local y"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        layout.addWidget(self.tree, 1)
        self._body_items, self._shape_items = {}, {}
        current = view3d.trail_points()
        cands = candidate_points(scene, self.body_names) if scene is not None else {}
        for name in self.body_names:
            top = QTreeWidgetItem(self.tree, [name])
            top.setFlags(Qt.ItemIsEnabled)
            self._body_items[name] = top
            for group, p in cands.get(name, []):
                self._add_item(top if group == "body" else self._shapes_item(name), p, False)
            top.setExpanded(True)
        # the current choice: the first item at each chosen point is checked; chosen points that
        # are no candidate (custom ones) are added
        items = self.point_items()
        for p in current:
            match = next((it for it in items if _same(p, it.data(0, POINT_ROLE))), None)
            if match is None:
                self._add_item(self._body_items[p.body], p, True)
            else:
                self._check(match)
        if not self.body_names:
            QTreeWidgetItem(self.tree, ["(load a scene first)"]).setFlags(Qt.NoItemFlags)
        self.tree.resizeColumnToContents(0)

        # a custom point: body + local coordinates
        row = QHBoxLayout()
        row.addWidget(QLabel("Custom point on"))
        self.body_combo = QComboBox()
        self.body_combo.addItems(self.body_names)
        row.addWidget(self.body_combo, 1)
        self.x_spin, self.y_spin = self._coord_spin(), self._coord_spin()
        row.addWidget(QLabel("x"))
        row.addWidget(self.x_spin)
        row.addWidget(QLabel("y"))
        row.addWidget(self.y_spin)
        self.add_button = QPushButton("Add")
        self.add_button.setToolTip("Add this point (in the body's frame, metres), checked")
        self.add_button.clicked.connect(self._add_custom_from_fields)
        self.add_button.setEnabled(bool(self.body_names))
        row.addWidget(self.add_button)
        layout.addLayout(row)

        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.default_button = self.buttons.addButton("Body origins", QDialogButtonBox.ResetRole)
        self.default_button.setToolTip("Check each body's origin only (the default)")
        self.default_button.clicked.connect(self.check_origins)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(520, 460)

    # ------------------------------------------------------------------ items
    def _coord_spin(self):
        s = QDoubleSpinBox()
        s.setRange(-1e4, 1e4)
        s.setDecimals(4)
        s.setSingleStep(0.01)
        s.setSuffix(" m")
        return s

    def _shapes_item(self, name):
        item = self._shape_items.get(name)
        if item is None:
            item = QTreeWidgetItem(self._body_items[name], ["shape centres and vertices"])
            item.setFlags(Qt.ItemIsEnabled)
            self._shape_items[name] = item
        return item

    def _add_item(self, parent, p: TrailPoint, checked):
        label = p.label[len(p.body) + 1:] if p.label.startswith(p.body + " ") else p.label
        item = QTreeWidgetItem(parent, [label, f"{p.x:.4g}", f"{p.y:.4g}"])
        item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable | Qt.ItemIsSelectable)
        item.setData(0, POINT_ROLE, p)
        item.setCheckState(0, Qt.Unchecked)
        if checked:
            self._check(item)
        return item

    def _check(self, item):
        item.setCheckState(0, Qt.Checked)
        if item.parent() is not None:  # a checked shape point shows its folded group
            item.parent().setExpanded(True)

    def point_items(self):
        """Every checkable item (candidates and custom points)."""
        out = []
        stack = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        while stack:
            it = stack.pop(0)
            if it.data(0, POINT_ROLE) is not None:
                out.append(it)
            stack[:0] = [it.child(i) for i in range(it.childCount())]
        return out

    def add_custom(self, body, x, y):
        """Add (or check, if it is listed already) the point (x, y) of `body`; returns its item."""
        if body not in self._body_items:
            raise KeyError(f"no body {body!r}")
        p = trail_point(body, (x, y), f"{body} custom ({float(x):.4g}, {float(y):.4g})")
        for it in self.point_items():
            if _same(p, it.data(0, POINT_ROLE)):
                self._check(it)
                return it
        return self._add_item(self._body_items[body], p, True)

    def _add_custom_from_fields(self):
        if self.body_combo.currentText():
            self.add_custom(self.body_combo.currentText(), self.x_spin.value(), self.y_spin.value())

    def check_origins(self):
        for it in self.point_items():
            p = it.data(0, POINT_ROLE)
            origin = p.label == f"{p.body} origin" and it.parent() is self._body_items.get(p.body)
            it.setCheckState(0, Qt.Checked if origin else Qt.Unchecked)

    def points(self) -> list[TrailPoint]:
        """The checked points, in the list's order."""
        return [it.data(0, POINT_ROLE) for it in self.point_items() if it.checkState(0) == Qt.Checked]

    # ------------------------------------------------------------------ closing
    def accept(self):
        self.view3d.set_trail_points(self.points())
        if self.trails_action is not None and not self.trails_action.isChecked():
            self.trails_action.trigger()  # checks it and switches the trails on through its slot
        elif not self.view3d.trails_enabled:
            self.view3d.set_trails(True)
        super().accept()
