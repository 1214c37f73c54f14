"""One graphics class per scene item type (bodies, obstacles, joints, springs, actuators).

Each draws itself with a QPainter through the canvas's view transform, answers hit tests in
screen pixels and lists its handles. They are rebuilt from the Scene after every change, so what
is drawn is always what is saved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPolygonF

from nsgui.scene.geometry import WORLD, point_in_shape, rot, shape_core, shape_outline, to_world, vec

SELECT_COLOR = QColor("#ff9f1a")
HIT_PX = 7.0


@dataclass
class Handle:
    kind: str              # rotate, resize, anchor, seg_a, seg_b, plane, spring_a, spring_b
    ref: tuple             # (kind, name) of the item it belongs to
    world: np.ndarray      # where it is drawn
    data: dict = field(default_factory=dict)


def _qpoly(view, pts) -> QPolygonF:
    return QPolygonF([view.w2s(p) for p in pts])


def _seg_dist_px(p, a, b) -> float:
    ab = np.array([b.x() - a.x(), b.y() - a.y()])
    ap = np.array([p.x() - a.x(), p.y() - a.y()])
    L2 = float(ab @ ab)
    t = 0.0 if L2 == 0 else min(1.0, max(0.0, float(ap @ ab) / L2))
    d = ap - t * ab
    return float(math.hypot(*d))


class BodyGraphic:
    kind = "body"

    def __init__(self, body, pose):
        self.item, self.pose, self.name = body, pose, body.name

    def paint(self, p, view, selected):
        color = QColor(self.item.color if isinstance(self.item.color, str) else "#4c8bd6")
        fill = QColor(color)
        fill.setAlpha(170)
        for s in self.item.shapes:
            try:
                outline = shape_outline(s)
            except Exception:  # a shape being edited into validity: skip it
                continue
            pts = [to_world(self.pose, v) for v in outline]
            if s.type == "point":
                c = view.w2s(pts[0])
                p.setPen(QPen(color.darker(150), 2))
                p.setBrush(QBrush(color))
                p.drawEllipse(c, 4, 4)
                continue
            if s.type == "capsule" and (s.radius or 0) <= 0:
                core, _ = shape_core(s)
                w = [to_world(self.pose, v) for v in core]
                p.setPen(QPen(color.darker(130), 3))
                p.drawLine(view.w2s(w[0]), view.w2s(w[1]))
            else:
                p.setPen(QPen(color.darker(160), 1.5))
                p.setBrush(QBrush(fill))
                p.drawPolygon(_qpoly(view, pts))
            if s.type == "disk":  # a spoke shows the rotation
                c = to_world(self.pose, vec(s.offset))
                e = to_world(self.pose, vec(s.offset) + rot(s.angle or 0) @ np.array([s.radius, 0.0]))
                p.setPen(QPen(color.darker(160), 1))
                p.drawLine(view.w2s(c), view.w2s(e))
        if selected:
            p.setPen(QPen(SELECT_COLOR, 3))
            p.setBrush(Qt.NoBrush)
            for s in self.item.shapes:
                try:
                    pts = [to_world(self.pose, v) for v in shape_outline(s)]
                except Exception:
                    continue
                if len(pts) >= 2:
                    p.drawPolygon(_qpoly(view, pts))
                else:
                    p.drawEllipse(view.w2s(pts[0]), 6, 6)
        # frame origin
        o = view.w2s(self.pose[:2])
        p.setPen(QPen(QColor(40, 40, 40, 140), 1))
        p.drawLine(o + QPointF(-4, 0), o + QPointF(4, 0))
        p.drawLine(o + QPointF(0, -4), o + QPointF(0, 4))

    def hit(self, view, spt) -> bool:
        w = view.s2w(spt)
        tol = HIT_PX / view.scale
        return any(point_in_shape(s, self.pose, w, tol) for s in self.item.shapes)

    def handles(self, scene, joint):
        out = []
        ext = 0.0
        for s in self.item.shapes:
            core, r = shape_core(s)
            ext = max(ext, float(np.linalg.norm(core, axis=1).max()) + r)
        if joint is not None and joint.type in ("free", "revolute"):
            out.append(Handle("rotate", ("body", self.name),
                              to_world(self.pose, (ext + 0.08, 0.0)), {"extent": ext + 0.08}))
        if self.item.shapes:
            s = self.item.shapes[0]
            local = None
            R = rot(float(s.angle or 0.0))
            if s.type == "disk":
                local = vec(s.offset) + R @ (s.radius * np.array([math.cos(-0.8), math.sin(-0.8)]))
            elif s.type == "box":
                local = vec(s.offset) + R @ np.array([s.width / 2, -s.height / 2])
            elif s.type == "capsule":
                local = vec(s.offset) + R @ np.array([s.length / 2, 0.0])
            if local is not None:
                out.append(Handle("resize", ("body", self.name), to_world(self.pose, local),
                                  {"shape": s.name}))
        return out


class ObstacleGraphic:
    kind = "obstacle"

    def __init__(self, obstacle):
        self.item, self.name = obstacle, obstacle.name

    def _line(self, view):
        o = self.item
        if o.type == "segment":
            return vec(o.a), vec(o.b)
        n = vec(o.normal, (0, 1))
        n = n / (np.linalg.norm(n) or 1.0)
        t = np.array([n[1], -n[0]])
        # only the visible stretch of the infinite line (keeps hatching cheap)
        D = math.hypot(view.width_m(), view.height_m())
        pt = vec(o.point)
        s0 = float((view.center - pt) @ t)
        return pt + (s0 - D) * t, pt + (s0 + D) * t

    def paint(self, p, view, selected):
        a, b = self._line(view)
        o = self.item
        if o.type == "segment":
            d = b - a
            n = np.array([-d[1], d[0]]) / (np.linalg.norm(d) or 1.0)
        else:
            n = vec(o.normal, (0, 1))
            n = n / (np.linalg.norm(n) or 1.0)
        # hatching on the solid side
        sa, sb = view.w2s(a), view.w2s(b)
        depth = 12 / view.scale
        p.setPen(Qt.NoPen)
        p.setBrush(QBrush(QColor(120, 120, 120, 60)))
        p.drawPolygon(_qpoly(view, [a, b, b - n * depth, a - n * depth]))
        p.setPen(QPen(QColor(110, 110, 110), 1))
        L = float(np.linalg.norm(b - a))
        step = 10 / view.scale
        if L / step < 3000:
            t = (b - a) / (L or 1.0)
            k = np.arange(0, L, step)
            for s in k:
                q = a + t * s
                p.drawLine(view.w2s(q), view.w2s(q - n * depth + t * depth * 0.6))
        p.setPen(QPen(SELECT_COLOR if selected else QColor(60, 60, 60), 3 if selected else 2))
        p.drawLine(sa, sb)
        if o.type != "segment":
            c = view.w2s(vec(o.point))
            p.drawEllipse(c, 3, 3)

    def hit(self, view, spt) -> bool:
        a, b = self._line(view)
        return _seg_dist_px(spt, view.w2s(a), view.w2s(b)) <= HIT_PX

    def handles(self, scene, joint=None):
        o = self.item
        ref = ("obstacle", self.name)
        if o.type == "segment":
            return [Handle("seg_a", ref, vec(o.a)), Handle("seg_b", ref, vec(o.b))]
        n = vec(o.normal, (0, 1))
        n = n / (np.linalg.norm(n) or 1.0)
        t = np.array([n[1], -n[0]])
        return [Handle("plane_dir", ref, vec(o.point) + 0.3 * t)]


class JointGraphic:
    kind = "joint"

    def __init__(self, joint, poses):
        self.item, self.name = joint, joint.name
        parent = (0.0, 0.0, 0.0) if joint.parent == WORLD else poses.get(joint.parent, (0.0, 0.0, 0.0))
        self.parent_pose = parent
        self.world = to_world(parent, vec(joint.anchor_parent))
        if joint.type == "free":
            self.world = np.array(poses.get(joint.child, (0, 0, 0))[:2])

    def paint(self, p, view, selected):
        j = self.item
        if j.type == "free":
            return
        c = view.w2s(self.world)
        p.setPen(QPen(SELECT_COLOR if selected else QColor(20, 20, 20), 3 if selected else 1.5))
        if j.type == "revolute":
            p.setBrush(QBrush(QColor("white")))
            p.drawEllipse(c, 5, 5)
            p.setBrush(QBrush(QColor(20, 20, 20)))
            p.drawEllipse(c, 1.5, 1.5)
        elif j.type == "fixed":
            p.setBrush(QBrush(QColor(20, 20, 20)))
            p.drawRect(QRectF(c.x() - 4, c.y() - 4, 8, 8))
        elif j.type == "prismatic":
            axis = rot(self.parent_pose[2]) @ vec(j.axis, (1, 0))
            axis = axis / (np.linalg.norm(axis) or 1.0)
            a, b = self.world - axis * 0.25, self.world + axis * 0.25
            p.setPen(QPen(SELECT_COLOR if selected else QColor(20, 20, 20), 3 if selected else 1.5, Qt.DashLine))
            p.drawLine(view.w2s(a), view.w2s(b))
            p.setPen(QPen(SELECT_COLOR if selected else QColor(20, 20, 20), 2))
            p.setBrush(QBrush(QColor("white")))
            p.drawRect(QRectF(c.x() - 6, c.y() - 4, 12, 8))
        if j.parent == WORLD:  # a little ground mark under world anchors
            p.setPen(QPen(QColor(20, 20, 20), 1))
            p.drawLine(c + QPointF(-7, 9), c + QPointF(7, 9))

    def hit(self, view, spt) -> bool:
        if self.item.type == "free":
            return False
        c = view.w2s(self.world)
        return math.hypot(c.x() - spt.x(), c.y() - spt.y()) <= HIT_PX + 2

    def handles(self, scene, joint=None):
        if self.item.type == "free":
            return []
        return [Handle("anchor", ("joint", self.name), self.world)]


class LoopGraphic:
    """A loop joint: a pin (two rings: it closes a loop) or a slider at its anchor on body a."""
    kind = "loop"

    def __init__(self, loop, poses):
        self.item, self.name = loop, loop.name
        self.pose = poses.get(loop.a.body, (0.0, 0.0, 0.0))
        self.world = to_world(self.pose, vec(loop.a.point))

    def paint(self, p, view, selected):
        lj = self.item
        c = view.w2s(self.world)
        pen = QPen(SELECT_COLOR if selected else QColor(20, 20, 20), 3 if selected else 1.5)
        if lj.type == "prismatic":
            axis = rot(self.pose[2]) @ vec(lj.axis, (1, 0))
            axis = axis / (np.linalg.norm(axis) or 1.0)
            p.setPen(QPen(pen.color(), pen.widthF(), Qt.DashLine))
            p.drawLine(view.w2s(self.world - axis * 0.25), view.w2s(self.world + axis * 0.25))
        p.setPen(pen)
        p.setBrush(QBrush(QColor("white")))
        p.drawEllipse(c, 7, 7)
        p.drawEllipse(c, 4, 4)
        p.setBrush(QBrush(QColor(20, 20, 20)))
        p.drawEllipse(c, 1.5, 1.5)

    def hit(self, view, spt) -> bool:
        c = view.w2s(self.world)
        return math.hypot(c.x() - spt.x(), c.y() - spt.y()) <= HIT_PX + 4

    def handles(self, scene, joint=None):
        return []


def _spring_ends(force, poses):
    def end(ref):
        pose = (0.0, 0.0, 0.0) if ref.body == WORLD else poses.get(ref.body, (0.0, 0.0, 0.0))
        return to_world(pose, vec(ref.point))
    return end(force.a), end(force.b)


class ForceGraphic:
    kind = "force"

    def __init__(self, force, poses):
        self.item, self.name = force, force.name
        self.ends = _spring_ends(force, poses) if force.type == "spring" and force.a and force.b else None

    def paint(self, p, view, selected):
        if self.ends is None:
            return
        a, b = self.ends
        d = b - a
        L = float(np.linalg.norm(d))
        if L < 1e-9:
            return
        t = d / L
        n = np.array([-t[1], t[0]]) * (6 / view.scale)
        color = SELECT_COLOR if selected else QColor("#7a4b1e")
        p.setPen(QPen(color, 2.5 if selected else 1.5))
        p.setBrush(Qt.NoBrush)
        path = QPainterPath(view.w2s(a))
        if self.item.stiffness > 0:  # zig-zag
            coils = 8
            p0, p1 = a + 0.15 * d, a + 0.85 * d
            path.lineTo(view.w2s(p0))
            for k in range(1, 2 * coils):
                q = p0 + (p1 - p0) * k / (2 * coils) + (n if k % 2 else -n)
                path.lineTo(view.w2s(q))
            path.lineTo(view.w2s(p1))
            path.lineTo(view.w2s(b))
            p.drawPath(path)
        if self.item.damping > 0:  # dashpot beside or instead of the coil
            off = n * 2.2 if self.item.stiffness > 0 else 0 * n
            m = a + 0.5 * d + off
            p.drawLine(view.w2s(a + off), view.w2s(m - 0.08 * d))
            p.drawLine(view.w2s(m - 0.08 * d + n), view.w2s(m - 0.08 * d - n))
            p.drawLine(view.w2s(m - 0.12 * d + n), view.w2s(m + 0.08 * d + n))
            p.drawLine(view.w2s(m - 0.12 * d - n), view.w2s(m + 0.08 * d - n))
            p.drawLine(view.w2s(m), view.w2s(b + off))
        if self.item.stiffness <= 0 and self.item.damping <= 0:
            p.setPen(QPen(color, 1, Qt.DotLine))
            p.drawLine(view.w2s(a), view.w2s(b))
        for e in (a, b):
            p.setBrush(QBrush(color))
            p.drawEllipse(view.w2s(e), 2.5, 2.5)

    def hit(self, view, spt) -> bool:
        if self.ends is None:
            return False
        return _seg_dist_px(spt, view.w2s(self.ends[0]), view.w2s(self.ends[1])) <= HIT_PX

    def handles(self, scene, joint=None):
        if self.ends is None:
            return []
        ref = ("force", self.name)
        return [Handle("spring_a", ref, self.ends[0]), Handle("spring_b", ref, self.ends[1])]


class ActuatorGraphic:
    kind = "actuator"

    def __init__(self, actuator, joints: dict):
        self.item, self.name = actuator, actuator.name
        base = actuator.joint.split(".")[0] if actuator.joint else ""
        jg = joints.get(actuator.joint) or joints.get(base)
        self.world = None if jg is None else jg.world

    def paint(self, p, view, selected):
        if self.world is None:
            return
        c = view.w2s(self.world)
        p.setPen(QPen(SELECT_COLOR if selected else QColor("#b0202a"), 3 if selected else 2))
        p.setBrush(Qt.NoBrush)
        r = 12
        p.drawArc(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r), 30 * 16, 240 * 16)
        tip = c + QPointF(r * math.cos(math.radians(270)), -r * math.sin(math.radians(270)))
        p.drawLine(tip, tip + QPointF(-5, -3))
        p.drawLine(tip, tip + QPointF(-4, 4))

    def hit(self, view, spt) -> bool:
        if self.world is None:
            return False
        c = view.w2s(self.world)
        d = math.hypot(c.x() - spt.x(), c.y() - spt.y())
        return abs(d - 12) <= 4

    def handles(self, scene, joint=None):
        return []
