"""The 2-D editing canvas: draws the scene and turns mouse gestures into undoable edits.

Tools: select (click, shift-click, rubber band, drag to move, handles to rotate/resize), and
placement tools that create items by click or click-drag. Every change goes through
`commands.edit` on the document, so the drawing is rebuilt from the Scene after each edit.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from nsgui.scene import edits as ops
from .commands import EditRefused, edit, new_drag_id
from nsgui.scene.geometry import WORLD, body_poses, joint_of, rot, shape_core, to_body, to_world, vec
from .items import (
    ActuatorGraphic, BodyGraphic, ForceGraphic, JointGraphic, LoopGraphic, ObstacleGraphic, SELECT_COLOR,
)

# tool id → (label, hint shown in the status line)
TOOLS = {
    "select": ("Select", "Click to select, drag to move, shift-click to add to the selection; "
                         "drag empty space to select an area; right-drag pans, wheel zooms"),
    "disk": ("Disk", "Click-drag from the centre to set the radius (a click makes a 0.1 m disk)"),
    "box": ("Box", "Click-drag from corner to corner (a click makes a 0.2 × 0.1 m box)"),
    "bar": ("Bar", "Click-drag from one end to the other (a click makes a 0.5 m bar)"),
    "polygon": ("Polygon", "Click the corners one by one; double-click, Enter or click the first "
                           "corner to finish; Esc cancels"),
    "pin": ("Pin joint", "Click where two bodies overlap to pin them together, or on one body to "
                         "pin it to the world"),
    "slider": ("Slider joint", "Click on a body to let it slide horizontally (on another body or "
                               "the world); change the axis in the inspector"),
    "weld": ("Weld", "Click where two bodies overlap to glue them, or on one body to fix it"),
    "ground": ("Ground", "Click to place a horizontal ground; drag to draw a slope"),
    "wall": ("Wall", "Click to place a vertical wall facing the bodies; drag to tilt it"),
    "segment": ("Segment", "Click-drag from one end to the other"),
    "spring": ("Spring", "Drag from a point on a body (or empty space = world) to another point"),
    "damper": ("Damper", "Drag from a point on a body (or empty space = world) to another point"),
    "actuator": ("Actuator", "Click on a pin or slider joint to drive it with a PD controller"),
}

SNAP_PX = 10.0


class ViewTransform:
    """World (m, y up) ↔ widget pixels (y down)."""

    def __init__(self, widget):
        self.widget = widget
        self.scale = 200.0  # px per m
        self.center = np.array([0.5, 0.5])

    def w2s(self, p) -> QPointF:
        w, h = self.widget.width(), self.widget.height()
        return QPointF(w / 2 + (float(p[0]) - self.center[0]) * self.scale,
                       h / 2 - (float(p[1]) - self.center[1]) * self.scale)

    def s2w(self, s) -> np.ndarray:
        w, h = self.widget.width(), self.widget.height()
        return np.array([(s.x() - w / 2) / self.scale + self.center[0],
                         -(s.y() - h / 2) / self.scale + self.center[1]])

    def width_m(self):
        return self.widget.width() / self.scale

    def height_m(self):
        return self.widget.height() / self.scale


def _nice_step(x):
    e = 10 ** math.floor(math.log10(x))
    for m in (1, 2, 5, 10):
        if m * e >= x:
            return m * e
    return 10 * e


class EditorCanvas(QWidget):
    selectionChanged = Signal()
    message = Signal(str)       # refusals and hints for the status bar
    toolChanged = Signal(str)
    deleteRequested = Signal()  # the Delete key reached the canvas (no window shortcut took it)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.view = ViewTransform(self)
        self.selection: list[tuple[str, str]] = []
        self.tool = "select"
        self.read_only = False
        self.snap_enabled = True
        self._gesture = None        # current mouse gesture (dict)
        self._poly_points: list = []
        self._graphics = []
        self._hover = None
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setMinimumSize(300, 240)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        document.changed.connect(self._on_changed)
        self._rebuild()

    # -- model → graphics -----------------------------------------------------------------------
    def _on_changed(self):
        scene = self.document.scene
        valid = set()
        for kind, lst in (("body", scene.bodies), ("obstacle", scene.obstacles), ("joint", scene.joints),
                          ("loop", scene.loops),
                          ("force", scene.forces), ("actuator", scene.actuators), ("contact", scene.contacts),
                          ("controller", scene.controllers)):
            valid.update((kind, x.name) for x in lst)
        sel = [r for r in self.selection if r in valid]
        self._rebuild()
        if sel != self.selection:
            self.selection = sel
            self.selectionChanged.emit()
        self.update()

    def _rebuild(self):
        scene = self.document.scene
        self.poses = body_poses(scene)
        joints = {j.name: JointGraphic(j, self.poses) for j in scene.joints}
        # drawing order: obstacles, bodies, springs, joints, actuators (hit tests go in reverse)
        self._graphics = ([ObstacleGraphic(o) for o in scene.obstacles]
                          + [BodyGraphic(b, self.poses[b.name]) for b in scene.bodies]
                          + [ForceGraphic(f, self.poses) for f in scene.forces]
                          + list(joints.values())
                          + [LoopGraphic(lj, self.poses) for lj in scene.loops]
                          + [ActuatorGraphic(a, joints) for a in scene.actuators])

    def graphic(self, ref):
        return next((g for g in self._graphics if (g.kind, g.name) == ref), None)

    # -- selection ------------------------------------------------------------------------------
    def set_selection(self, refs):
        refs = list(dict.fromkeys(refs))
        if refs != self.selection:
            self.selection = refs
            self.selectionChanged.emit()
            self.update()

    def select_all(self):
        s = self.document.scene
        self.set_selection([("body", b.name) for b in s.bodies] + [("obstacle", o.name) for o in s.obstacles]
                           + [("force", f.name) for f in s.forces])

    def set_tool(self, tool):
        if tool not in TOOLS:
            raise ValueError(tool)
        self._poly_points = []
        self._gesture = None
        self.tool = tool
        self.setCursor(Qt.ArrowCursor if tool == "select" else Qt.CrossCursor)
        self.message.emit(TOOLS[tool][1])
        self.toolChanged.emit(tool)
        self.update()

    def set_read_only(self, ro: bool):
        self.read_only = ro
        self._gesture = None
        self._poly_points = []
        self.update()

    @property
    def grid_step(self) -> float:
        """Grid spacing (m): a round number about 25 px wide at the current zoom."""
        return _nice_step(25 / self.view.scale)

    # -- view -----------------------------------------------------------------------------------
    def fit_view(self):
        """Zoom to show every body, joint anchor and segment (obstacle lines are infinite)."""
        pts = []
        scene = self.document.scene
        for b in scene.bodies:
            for s in b.shapes:
                core, r = shape_core(s)
                for c in core:
                    w = to_world(self.poses[b.name], c)
                    pts += [w - r, w + r]
        for g in self._graphics:
            if isinstance(g, JointGraphic) and g.item.type != "free":
                pts.append(g.world)
            elif isinstance(g, ForceGraphic) and g.ends is not None:
                pts += list(g.ends)
        for o in scene.obstacles:
            pts += [vec(o.a), vec(o.b)] if o.type == "segment" else [vec(o.point)]
        if not pts:
            self.view.center = np.array([0.5, 0.5])
            self.view.scale = 200.0
        else:
            P = np.array(pts)
            lo, hi = P.min(axis=0), P.max(axis=0)
            size = np.maximum(hi - lo, 0.5) * 1.3
            self.view.center = (lo + hi) / 2
            self.view.scale = float(min(self.width() / size[0], self.height() / size[1]))
        self.update()

    def wheelEvent(self, ev):  # noqa: N802
        w0 = self.view.s2w(ev.position())
        f = 1.15 ** (ev.angleDelta().y() / 120)
        self.view.scale = float(np.clip(self.view.scale * f, 5, 20000))
        w1 = self.view.s2w(ev.position())
        self.view.center = self.view.center + (w0 - w1)
        self.update()

    # -- snapping -------------------------------------------------------------------------------
    def anchor_points(self):
        """Points worth snapping to: shape centres, corners and bar ends, joint anchors, obstacle
        points and segment ends."""
        pts = []
        for b in self.document.scene.bodies:
            pose = self.poses[b.name]
            for s in b.shapes:
                core, _ = shape_core(s)
                pts.extend(to_world(pose, c) for c in core)
                if len(core) > 1:
                    pts.append(to_world(pose, core.mean(axis=0)))
        for g in self._graphics:
            if isinstance(g, JointGraphic) and g.item.type != "free":
                pts.append(g.world)
            elif isinstance(g, ObstacleGraphic):
                o = g.item
                pts += [vec(o.a), vec(o.b)] if o.type == "segment" else [vec(o.point)]
            elif isinstance(g, ForceGraphic) and g.ends is not None:
                pts += list(g.ends)
        return pts

    def snap(self, w, anchors=True, modifiers=Qt.NoModifier):
        """Snap a world point to a nearby anchor (within 10 px), else to the grid. Hold Alt for
        free placement."""
        w = np.asarray(w, float)
        if modifiers & Qt.AltModifier:
            return w
        if anchors:
            best, bd = None, SNAP_PX / self.view.scale
            for p in self.anchor_points():
                d = float(np.linalg.norm(p - w))
                if d < bd:
                    best, bd = p, d
            if best is not None:
                return np.array(best, float)
        if self.snap_enabled:
            g = self.grid_step
            return np.round(w / g) * g
        return w

    # -- hit testing ----------------------------------------------------------------------------
    def item_at(self, spt, kinds=None):
        for g in reversed(self._graphics):
            if kinds is not None and g.kind not in kinds:
                continue
            if g.hit(self.view, spt):
                return (g.kind, g.name)
        return None

    def bodies_at(self, w):
        spt = self.view.w2s(w)
        return [g.name for g in reversed(self._graphics) if isinstance(g, BodyGraphic) and g.hit(self.view, spt)]

    def handles(self):
        if len(self.selection) != 1:
            return []
        ref = self.selection[0]
        g = self.graphic(ref)
        if g is None:
            return []
        joint = joint_of(self.document.scene, g.name) if g.kind == "body" else None
        return g.handles(self.document.scene, joint)

    def handle_at(self, spt):
        for h in self.handles():
            c = self.view.w2s(h.world)
            if math.hypot(c.x() - spt.x(), c.y() - spt.y()) <= 7:
                return h
        return None

    # -- editing helpers ------------------------------------------------------------------------
    def apply(self, text, fn, merge_key=None):
        """Run one edit; a refusal becomes a status message instead of an exception."""
        if self.read_only:
            self.message.emit("Pause the simulation to edit")
            return None
        result = {}

        def run(scene):
            result["value"] = fn(scene)
        try:
            edit(self.document, text, run, merge_key)
        except EditRefused as e:
            self.message.emit(str(e))
            return None
        return result.get("value")

    def _bodies_centroid(self):
        if not self.poses:
            return None
        return np.mean([p[:2] for p in self.poses.values()], axis=0)

    # -- mouse ----------------------------------------------------------------------------------
    def mousePressEvent(self, ev):  # noqa: N802
        self.setFocus()
        pos = ev.position()
        w = self.view.s2w(pos)
        if ev.button() in (Qt.RightButton, Qt.MiddleButton):
            if self.tool == "polygon" and ev.button() == Qt.RightButton and len(self._poly_points) >= 3:
                self._finish_polygon()
                return
            self._gesture = {"kind": "pan", "start": pos, "center": self.view.center.copy()}
            return
        if ev.button() != Qt.LeftButton:
            return
        if self.read_only:
            if self.tool == "select":
                ref = self.item_at(pos)
                self.set_selection([ref] if ref else [])
            self.message.emit("Pause the simulation to edit")
            return
        mods = ev.modifiers()
        if self.tool == "select":
            h = self.handle_at(pos)
            if h is not None:
                self._gesture = {"kind": "handle", "handle": h, "drag": new_drag_id(), "moved": False}
                return
            ref = self.item_at(pos)
            if ref is None:
                if not (mods & Qt.ShiftModifier):
                    self.set_selection([])
                self._gesture = {"kind": "band", "start": pos, "end": pos, "mods": mods}
                return
            if mods & (Qt.ShiftModifier | Qt.ControlModifier):
                sel = list(self.selection)
                sel.remove(ref) if ref in sel else sel.append(ref)
                self.set_selection(sel)
            elif ref not in self.selection:
                self.set_selection([ref])
            self._start_move(ref, w)
            return
        if self.tool == "polygon":
            p = self.snap(w, modifiers=mods)
            first = self._poly_points[0] if self._poly_points else None
            if first is not None and len(self._poly_points) >= 3:
                c = self.view.w2s(first)
                if math.hypot(c.x() - pos.x(), c.y() - pos.y()) <= SNAP_PX:
                    self._finish_polygon()
                    return
            self._poly_points.append(p)
            self.update()
            return
        start = self.snap(w, modifiers=mods)
        self._gesture = {"kind": "place", "start": start, "end": start, "start_px": pos, "mods": mods}
        self.update()

    def _start_move(self, ref, w):
        g = self.graphic(ref)
        gesture = {"kind": "move", "ref": ref, "drag": new_drag_id(), "start": w, "last": w, "moved": False}
        if ref[0] == "body":
            gesture["grab"] = to_body(self.poses[ref[1]], w)
        self._gesture = gesture if g is not None else None

    def mouseMoveEvent(self, ev):  # noqa: N802
        pos = ev.position()
        w = self.view.s2w(pos)
        g = self._gesture
        self._hover = w
        if g is None:
            if self.tool == "polygon" and self._poly_points:
                self.update()
            elif self.tool == "select" and not self.read_only:
                # show what a press here would do
                if self.handle_at(pos) is not None:
                    self.setCursor(Qt.SizeAllCursor)
                elif self.item_at(pos) is not None:
                    self.setCursor(Qt.OpenHandCursor)
                else:
                    self.setCursor(Qt.ArrowCursor)
            return
        if g["kind"] == "pan":
            d = pos - g["start"]
            self.view.center = g["center"] - np.array([d.x(), -d.y()]) / self.view.scale
            self.update()
        elif g["kind"] == "band":
            g["end"] = pos
            self.update()
        elif g["kind"] == "place":
            g["end"] = self.snap(w, modifiers=ev.modifiers())
            self.update()
        elif g["kind"] == "move":
            self._drag_move(g, w, ev.modifiers())
        elif g["kind"] == "handle":
            self._drag_handle(g, w, ev.modifiers())

    def _drag_move(self, g, w, mods):
        kind, name = g["ref"]
        key = ("drag", g["drag"])
        snap = (lambda p: self.snap(p, anchors=False, modifiers=mods)) if self.snap_enabled else None
        if kind == "body" and len(self.selection) <= 1:
            self.apply(f"Move {name}", lambda s: ops.drag_body(s, name, g["grab"], w, snap), key)
        else:
            delta = w - g["last"]
            if self.snap_enabled and not (mods & Qt.AltModifier):
                total = self.snap(w - g["start"], anchors=False)
                delta = total - (g["last"] - g["start"])
            if not np.any(delta):
                return
            g["last"] = g["last"] + delta
            refs = self.selection if g["ref"] in self.selection else [g["ref"]]
            self.apply("Move selection", lambda s: self._translate(s, refs, delta), key)
        g["moved"] = True

    def _translate(self, scene, refs, delta):
        poses = body_poses(scene)
        for kind, name in refs:
            if kind == "obstacle":
                ops.translate_obstacle(ops.find(scene.obstacles, name), delta)
            elif kind == "body":
                j = joint_of(scene, name)
                if j is not None and j.type == "free":
                    x, y, th = poses[name]
                    ops.set_body_world_pose(scene, name, (x + delta[0], y + delta[1], th))
                elif j is not None and j.parent == WORLD and j.type in ("revolute", "fixed", "prismatic"):
                    j.anchor_parent = (vec(j.anchor_parent) + delta).tolist()
            elif kind == "joint":
                j = ops.find(scene.joints, name)
                if j is not None and j.type != "free":
                    ops.move_joint_anchor(scene, name, to_world(
                        (0, 0, 0) if j.parent == WORLD else poses[j.parent], vec(j.anchor_parent)) + delta)
            elif kind == "force":
                f = ops.find(scene.forces, name)
                for end in (f.a, f.b):
                    if end is not None and end.body == WORLD:
                        end.point = (vec(end.point) + delta).tolist()

    def _drag_handle(self, g, w, mods):
        h = g["handle"]
        kind, name = h.ref
        key = ("drag", g["drag"])
        p = self.snap(w, modifiers=mods)
        if h.kind == "rotate":
            pose = self.poses[name]
            ang = math.atan2(w[1] - pose[1], w[0] - pose[0])
            if not (mods & Qt.AltModifier):
                step = math.radians(5)
                ang = round(ang / step) * step
            self.apply(f"Rotate {name}", lambda s: ops.rotate_body(s, name, ang), key)
        elif h.kind == "resize":
            local = to_body(self.poses[name], self.snap(w, anchors=False, modifiers=mods))
            self.apply(f"Resize {name}", lambda s: ops.resize_shape(s, name, h.data["shape"], local), key)
        elif h.kind == "anchor":
            self.apply(f"Move joint {name}", lambda s: ops.move_joint_anchor(s, name, p), key)
        elif h.kind in ("seg_a", "seg_b"):
            end = h.kind[-1]
            self.apply(f"Move {name}", lambda s: setattr(ops.find(s.obstacles, name), end, p.tolist()), key)
        elif h.kind == "plane_dir":
            def turn(s):
                o = ops.find(s.obstacles, name)
                t = p - vec(o.point)
                if np.linalg.norm(t) < 1e-9:
                    return
                t = t / np.linalg.norm(t)
                o.normal = [float(-t[1]), float(t[0])]
            self.apply(f"Turn {name}", turn, key)
        elif h.kind in ("spring_a", "spring_b"):
            end = h.kind[-1]

            def move_end(s):
                f = ops.find(s.forces, name)
                ref = getattr(f, end)
                pose = (0, 0, 0) if ref.body == WORLD else body_poses(s)[ref.body]
                ref.point = to_body(pose, p).tolist()
            self.apply(f"Move {name}", move_end, key)
        g["moved"] = True

    def mouseReleaseEvent(self, ev):  # noqa: N802
        g = self._gesture
        self._gesture = None
        if g is None:
            return
        pos = ev.position()
        if g["kind"] == "band":
            r = QRectF(g["start"], pos).normalized()
            if r.width() > 3 or r.height() > 3:
                hits = []
                for gr in self._graphics:
                    anchor = self._graphic_anchor(gr)
                    if anchor is not None and r.contains(self.view.w2s(anchor)):
                        hits.append((gr.kind, gr.name))
                sel = (self.selection if g["mods"] & Qt.ShiftModifier else []) + hits
                self.set_selection(sel)
            self.update()
        elif g["kind"] == "place":
            g["end"] = self.snap(self.view.s2w(pos), modifiers=ev.modifiers())
            dragged = math.hypot(pos.x() - g["start_px"].x(), pos.y() - g["start_px"].y()) > 4
            self._place(g["start"], g["end"] if dragged else None)
            self.update()

    def _graphic_anchor(self, gr):
        if isinstance(gr, BodyGraphic):
            return np.array(gr.pose[:2])
        if isinstance(gr, JointGraphic) and gr.item.type != "free":
            return gr.world
        if isinstance(gr, ObstacleGraphic):
            o = gr.item
            return (vec(o.a) + vec(o.b)) / 2 if o.type == "segment" else vec(o.point)
        if isinstance(gr, ForceGraphic) and gr.ends is not None:
            return (gr.ends[0] + gr.ends[1]) / 2
        return None

    def mouseDoubleClickEvent(self, ev):  # noqa: N802
        if self.tool == "polygon" and len(self._poly_points) >= 3:
            self._finish_polygon()

    def keyPressEvent(self, ev):  # noqa: N802
        if ev.key() == Qt.Key_Escape:
            if self._poly_points or self._gesture:
                self._poly_points = []
                self._gesture = None
                self.update()
            else:
                self.set_tool("select")
                self.set_selection([])
            return
        if ev.key() in (Qt.Key_Return, Qt.Key_Enter) and self.tool == "polygon":
            self._finish_polygon()
            return
        # the Edit menu's shortcuts normally take these keys first; without an active window
        # (some window managers, tests) they arrive here
        if ev.matches(QKeySequence.Delete):
            self.deleteRequested.emit()
            return
        if not self.read_only and ev.matches(QKeySequence.Undo):
            self.document.undo_stack.undo()
            return
        if not self.read_only and ev.matches(QKeySequence.Redo):
            self.document.undo_stack.redo()
            return
        super().keyPressEvent(ev)

    # -- placement ------------------------------------------------------------------------------
    def _place(self, a, b):
        """Create an item from a click at `a` or a drag from `a` to `b` (None for a click)."""
        t = self.tool
        new = None
        if t == "disk":
            r = 0.1 if b is None else max(0.01, float(np.linalg.norm(b - a)))
            new = ("body", self.apply("Add disk", lambda s: ops.add_body(s, ops.make_shape("disk", radius=r),
                                                                        (a[0], a[1], 0.0))))
        elif t == "box":
            if b is None:
                c, wd, ht = a, 0.2, 0.1
            else:
                c, wd, ht = (a + b) / 2, max(0.01, abs(b[0] - a[0])), max(0.01, abs(b[1] - a[1]))
            new = ("body", self.apply("Add box", lambda s: ops.add_body(
                s, ops.make_shape("box", width=wd, height=ht), (c[0], c[1], 0.0))))
        elif t == "bar":
            if b is None:
                c, L, ang = a, 0.5, 0.0
            else:
                c, L = (a + b) / 2, max(0.01, float(np.linalg.norm(b - a)))
                ang = math.atan2(b[1] - a[1], b[0] - a[0])
            new = ("body", self.apply("Add bar", lambda s: ops.add_body(
                s, ops.make_shape("bar", length=L, radius=0.02), (c[0], c[1], ang))))
        elif t in ("pin", "slider", "weld"):
            jtype = {"pin": "revolute", "slider": "prismatic", "weld": "fixed"}[t]
            under = self.bodies_at(a)
            if not under:
                self.message.emit("Click on a body (where two bodies overlap to join them)")
                return
            other = under[1] if len(under) > 1 else WORLD
            name = self.apply(f"Add {TOOLS[t][0].lower()}", lambda s: ops.add_joint(s, jtype, under[0], other, a))
            # two bodies already in the tree: the pin or slider closes a loop (a loop joint)
            new = ("loop" if ops.find(self.document.scene.loops, name) else "joint", name)
        elif t in ("ground", "wall"):
            new = ("obstacle", self.apply(f"Add {t}", lambda s: ops.add_obstacle(s, t, **self._plane(t, a, b))))
        elif t == "segment":
            if b is None:
                b = a + np.array([0.5, 0.0])
            c = self._bodies_centroid()
            if c is not None:  # free side (left of a→b) faces the bodies
                d = b - a
                if d[0] * (c[1] - a[1]) - d[1] * (c[0] - a[0]) < 0:
                    a, b = b, a
            new = ("obstacle", self.apply("Add segment", lambda s: ops.add_obstacle(s, "segment", a=a, b=b)))
        elif t in ("spring", "damper"):
            if b is None:
                self.message.emit("Drag from one end of the spring to the other")
                return
            ba = (self.bodies_at(a) or [WORLD])[0]
            bb = (self.bodies_at(b) or [WORLD])[0]
            k, c = (100.0, 0.0) if t == "spring" else (0.0, 5.0)
            new = ("force", self.apply(f"Add {t}", lambda s: ops.add_spring(s, ba, a, bb, b, k, c, name=t)))
        elif t == "actuator":
            ref = self.item_at(self.view.w2s(a), kinds={"joint"})
            if ref is None:
                self.message.emit("Click on a pin or slider joint")
                return
            new = ("actuator", self.apply("Add actuator", lambda s: ops.add_actuator(s, ref[1])))
        if new is not None and new[1] is not None:
            self.set_selection([new])

    def _plane(self, t, a, b):
        if b is not None and np.linalg.norm(b - a) > 1e-9:
            d = (b - a) / np.linalg.norm(b - a)
        else:
            d = np.array([1.0, 0.0]) if t == "ground" else np.array([0.0, 1.0])
        n = np.array([-d[1], d[0]])
        c = self._bodies_centroid()
        if c is not None:
            if (c - a) @ n < 0:
                n = -n
        elif t == "ground" and n[1] < 0:
            n = -n
        elif t == "wall" and (a[0] > self.view.center[0]) != (n[0] < 0):
            n = -n
        return {"point": a, "normal": n}

    def _finish_polygon(self):
        pts = self._poly_points
        self._poly_points = []
        if len(pts) < 3:
            self.message.emit("A polygon needs at least 3 corners")
            self.update()
            return

        def add(s):
            c, verts = ops.polygon_from_points(pts)
            return ops.add_body(s, ops.make_shape("polygon", vertices=verts), (c[0], c[1], 0.0))
        name = self.apply("Add polygon", add)
        if name:
            self.set_selection([("body", name)])
        self.update()

    # -- painting -------------------------------------------------------------------------------
    def paintEvent(self, ev):  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), QColor("#f7f7f4") if not self.read_only else QColor("#ececec"))
        self._paint_grid(p)
        sel = set(self.selection)
        for g in self._graphics:
            try:
                g.paint(p, self.view, (g.kind, g.name) in sel)
            except Exception:  # never let one odd item stop the drawing
                continue
        self._paint_contacts(p, sel)
        self._paint_velocities(p)
        for h in self.handles() if not self.read_only else []:
            c = self.view.w2s(h.world)
            p.setPen(QPen(QColor(40, 40, 40), 1))
            p.setBrush(SELECT_COLOR if h.kind != "rotate" else QColor("white"))
            if h.kind == "rotate":
                pose = self.poses.get(h.ref[1])
                if pose is not None:
                    p.setPen(QPen(SELECT_COLOR, 1, Qt.DashLine))
                    p.drawLine(self.view.w2s(pose[:2]), c)
                    p.setPen(QPen(QColor(40, 40, 40), 1))
                p.drawEllipse(c, 6, 6)
            else:
                p.drawRect(QRectF(c.x() - 5, c.y() - 5, 10, 10))
        self._paint_gesture(p)
        if self.read_only:
            self._paint_banner(p, "Simulation running — pause to edit")
        p.end()

    def _paint_grid(self, p):
        step = self.grid_step
        w0 = self.view.s2w(QPointF(0, self.height()))
        w1 = self.view.s2w(QPointF(self.width(), 0))
        for axis in (0, 1):
            k0, k1 = math.floor(w0[axis] / step), math.ceil(w1[axis] / step)
            if k1 - k0 > 2000:
                continue
            for k in range(k0, k1 + 1):
                major = k % 5 == 0
                p.setPen(QPen(QColor(0, 0, 0, 38 if major else 16), 1))
                if axis == 0:
                    x = self.view.w2s((k * step, 0)).x()
                    p.drawLine(QPointF(x, 0), QPointF(x, self.height()))
                else:
                    y = self.view.w2s((0, k * step)).y()
                    p.drawLine(QPointF(0, y), QPointF(self.width(), y))
        o = self.view.w2s((0, 0))
        p.setPen(QPen(QColor(200, 60, 60, 120), 1))
        p.drawLine(o, self.view.w2s((step * 4, 0)))
        p.setPen(QPen(QColor(60, 160, 60, 120), 1))
        p.drawLine(o, self.view.w2s((0, step * 4)))
        # scale bar
        p.setPen(QPen(QColor(60, 60, 60), 1))
        bar = step * 5
        x0, y0 = 12, self.height() - 14
        p.drawLine(QPointF(x0, y0), QPointF(x0 + bar * self.view.scale, y0))
        p.drawText(QPointF(x0, y0 - 4), f"{bar:g} m   (grid {step:g} m)")

    def _paint_contacts(self, p, sel):
        """Dotted lines between the two sides of the contacts of the selected bodies."""
        scene = self.document.scene
        chosen = {n for k, n in sel if k == "body"}
        cs = {n for k, n in sel if k == "contact"}
        p.setPen(QPen(QColor(200, 40, 120, 150), 1, Qt.DotLine))
        for c in scene.contacts:
            if c.a.body not in chosen and c.b.body not in chosen and c.name not in cs:
                continue
            a = self._shape_centre(c.a.body, c.a.shape)
            if a is None:
                continue
            if c.b.obstacle:
                o = ops.find(scene.obstacles, c.b.obstacle)
                if o is None:
                    continue
                if o.type == "segment":
                    b = (vec(o.a) + vec(o.b)) / 2
                else:
                    n = vec(o.normal, (0, 1))
                    n = n / (np.linalg.norm(n) or 1)
                    b = a - n * float((a - vec(o.point)) @ n)
            else:
                b = self._shape_centre(c.b.body, c.b.shape)
                if b is None:
                    continue
            p.drawLine(self.view.w2s(a), self.view.w2s(b))

    def _paint_velocities(self, p):
        """Arrows for the initial velocities of free bodies (length: the distance covered in 0.2 s)."""
        scene = self.document.scene
        p.setPen(QPen(QColor("#2a7d2a"), 2))
        for j in scene.joints:
            if j.type != "free" or j.child not in self.poses:
                continue
            v = np.array([scene.initial.v.get(f"{j.name}.x", 0.0), scene.initial.v.get(f"{j.name}.y", 0.0)])
            if not np.any(v):
                continue
            parent = (0.0, 0.0, 0.0) if j.parent == WORLD else self.poses.get(j.parent, (0.0, 0.0, 0.0))
            v = rot(parent[2]) @ v
            a = np.array(self.poses[j.child][:2])
            b = a + 0.2 * v
            sa, sb = self.view.w2s(a), self.view.w2s(b)
            p.drawLine(sa, sb)
            d = np.array([sb.x() - sa.x(), sb.y() - sa.y()])
            L = float(np.hypot(*d))
            if L > 1e-6:
                u = d / L
                n = np.array([-u[1], u[0]])
                for side in (1, -1):
                    tip = np.array([sb.x(), sb.y()]) - 8 * u + side * 4 * n
                    p.drawLine(sb, QPointF(*tip))

    def _shape_centre(self, body, shape):
        bd = ops.find(self.document.scene.bodies, body)
        s = ops.find(bd.shapes, shape) if bd is not None else None
        if s is None:
            return None
        core, _ = shape_core(s)
        return to_world(self.poses[body], core.mean(axis=0))

    def _paint_gesture(self, p):
        g = self._gesture
        p.setPen(QPen(QColor(30, 90, 200), 1.5, Qt.DashLine))
        p.setBrush(QColor(30, 90, 200, 40))
        if g is not None and g["kind"] == "band":
            p.drawRect(QRectF(g["start"], g["end"]).normalized())
        elif g is not None and g["kind"] == "place":
            a, b = g["start"], g["end"]
            sa, sb = self.view.w2s(a), self.view.w2s(b)
            t = self.tool
            if t == "disk":
                r = float(np.linalg.norm(b - a)) * self.view.scale
                p.drawEllipse(sa, r, r)
            elif t == "box":
                p.drawRect(QRectF(sa, sb).normalized())
            else:
                p.drawLine(sa, sb)
            L = float(np.linalg.norm(b - a))
            p.setPen(QPen(QColor(30, 30, 30)))
            p.drawText(sb + QPointF(8, -8), f"{L:.3g} m")
        if self._poly_points:
            pts = [self.view.w2s(q) for q in self._poly_points]
            hover = getattr(self, "_hover", None)
            if hover is not None:
                pts.append(self.view.w2s(self.snap(hover)))
            for a, b in zip(pts, pts[1:]):
                p.drawLine(a, b)
            for q in pts[:-1]:
                p.drawEllipse(q, 3, 3)

    def _paint_banner(self, p, text):
        f = QFont(self.font())
        f.setPointSize(f.pointSize() + 3)
        f.setBold(True)
        p.setFont(f)
        r = QRectF(0, 0, self.width(), 34)
        p.fillRect(r, QColor(60, 60, 60, 200))
        p.setPen(QColor("white"))
        p.drawText(r, Qt.AlignCenter, text)
