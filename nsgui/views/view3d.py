"""The 3D view (vispy): bodies extruded from their planar shapes, obstacles, joints, contact points,
normal-force arrows, friction-cone wedges coloured by contact state, optional trails of chosen
body points, a walker's centre of mass and centre of pressure, and the mouse perturbation (Ctrl+drag
a body: perturb_drag.py; its spring drawn by walker_marks.py).

It draws the history row the controller's cursor points at; it computes no physics (poses and
contact frames come from the compiled model's `body_poses` / `contact_frames`)."""

from __future__ import annotations

import time
import weakref
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QToolButton, QVBoxLayout, QWidget

from nsgui.engine import codes
from nsgui.views import frame_budget
from nsgui.views import geometry3d as geo
from nsgui.views.overlays import overlay_paths, recorder_columns
from nsgui.views.perturb_drag import PerturbDrag
from nsgui.views.walker_marks import WalkerMarks

STATUS_COLORS = {
    codes.OPEN: (0.62, 0.64, 0.67, 1.0),
    codes.STICK: (0.17, 0.63, 0.17, 1.0),
    codes.SLIP: (1.00, 0.50, 0.05, 1.0),
    codes.IMPACT: (0.84, 0.15, 0.16, 1.0),
}
BACKGROUND = "#1e2229"
TRAIL_SECONDS = 2.0
# The default camera looks at the mechanism's plane face-on without perspective (x right, y up), as
# the editor draws it; the orbit view (perspective, rotated by dragging) is one toggle away.
FRONT_VIEW = (90.0, 0.0)  # vispy turntable azimuth, elevation of the front view
ORBIT_VIEW = (70.0, 12.0)  # the orbit view's starting angles
ORBIT_FOV = 30.0
FRAMING = 1.25  # the fitted view shows the scene's bounds with this margin factor
FOLLOW = 0.4  # a fitted view slides after the bodies when their mean leaves this middle share of it
FOLLOW_EDGE = 0.04  # ... or when they would come nearer an edge than this share of its width
GROUND_REACH = 1000.0  # m: grounds are drawn this far beyond the scene (walkers walk on)
ARROW_SHARE = 0.25  # a force equal to the weight resting on contacts: this share of the view height
ARROW_MAX = 0.45  # longest arrow (impacts), as a share of the view height
FORCE_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)  # the user's choices of factor on the arrows' length
TRAIL_POINTS = 160
TRAIL_COLORS = [  # one per trail point, in the order chosen (cycled)
    (1.00, 0.85, 0.30), (0.35, 0.85, 1.00), (1.00, 0.45, 0.85), (0.55, 1.00, 0.40),
    (1.00, 0.55, 0.20), (0.72, 0.58, 1.00), (0.92, 0.92, 0.92), (1.00, 0.38, 0.38),
]


class TrailPoint(NamedTuple):
    """A point fixed on a body, given in the body's frame, whose recent world path is drawn."""
    body: str
    x: float
    y: float
    label: str


def trail_point(body, local=(0.0, 0.0), label=None) -> TrailPoint:
    x, y = float(local[0]), float(local[1])
    if not label:
        label = f"{body} origin" if x == 0.0 and y == 0.0 else f"{body} ({x:.4g}, {y:.4g})"
    return TrailPoint(str(body), x, y, str(label))


def default_trail_points(body_names) -> list[TrailPoint]:
    """Each body's origin: what the trails show when no points were chosen."""
    return [trail_point(n) for n in body_names]


def _planar_camera_class():
    from vispy.scene import TurntableCamera

    class PlanarCamera(TurntableCamera):
        """A turntable camera that, in the front view (`orbit` False), pans with the left button
        instead of rotating, so the mechanism's plane stays face-on; wheel and right button zoom."""

        orbit = False

        def _update_rotation(self, event):
            if self.orbit:
                return super()._update_rotation(event)
            if self._event_value is None or len(self._event_value) != 3:
                self._event_value = tuple(self.center)
            w, h = self._viewbox.size
            per_px = self.scale_factor / max(min(w, h), 1)  # world units per pixel (orthographic)
            d = (event.mouse_event.pos - event.mouse_event.press_event.pos)[:2] * per_px
            c = self._event_value
            self.center = (c[0] - d[0], c[1] + d[1], c[2])

    return PlanarCamera


def _rgba(hex_color, alpha=1.0):
    h = (hex_color or "#4c8bd6").lstrip("#")
    try:
        return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)) + (alpha,)
    except ValueError:
        return (0.3, 0.55, 0.84, alpha)


class View3D(QWidget):
    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.model = None
        self.trails_enabled = False
        self.overlays_enabled = True  # the controllers' overlays (View ▸ Controller overlays)
        self.overlay_paths = []  # OverlayPaths last drawn
        self._trail_choice = None  # chosen TrailPoints, or None: each body's origin
        self.trail_paths = {}  # label -> (k, 2) world path last handed to the trails visual
        self.trail_colors = {}  # label -> rgb of that path
        self.trail_rows = np.zeros(0, int)  # the history rows sampled for those paths
        self._trail_cols = (None, None, None)
        self.error = None
        self._body_nodes = []
        self._static_nodes = []
        self._bodies_mesh = None
        self._bodies_placed = False
        self._marker_data = {}
        self.orbit = False  # front orthographic view; True: perspective, rotated by dragging
        self.force_scale = 1.0  # the user's factor on the automatic force-arrow scale
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.backend = None
        self.display = None  # the widget that shows the frames
        try:
            from vispy import scene
            from nsgui.views.offscreen_canvas import OffscreenCanvasWidget, make_canvas
            self._scene_mod = scene
            self.canvas, self.backend = make_canvas(BACKGROUND)
            self.view = self.canvas.central_widget.add_view()
            self.view.camera = _planar_camera_class()(fov=0.0, up="+y", azimuth=FRONT_VIEW[0],
                                                      elevation=FRONT_VIEW[1])
            # far/near ratio: vispy's default (1e6) leaves too few depth-buffer bits for the faces
            self.view.camera.depth_value = 300.0
            if self.backend == "egl":
                self.display = OffscreenCanvasWidget(self.canvas)
                self.display.before_render = self._frame_scale
                self.display.frame_interval = self._frame_interval
            else:
                self.display = self.canvas.native
                self.canvas.events.draw.connect(self._drawn, position="first")
                self.canvas.events.draw.connect(self._draw_done, position="last")
            layout.addWidget(self.display)
            self._orbit_button = QToolButton(self.display)  # the orbit view is one click away
            self.overlay_legend = QLabel(self.display)  # names the overlays' colours
            self.overlay_legend.setStyleSheet("color: #ddd; background: rgba(30, 34, 41, 180); padding: 3px")
            self.overlay_legend.move(6, 36)
            self.overlay_legend.hide()
            self._make_dynamic_visuals()
            self.marks = WalkerMarks(self)
            self.drag = PerturbDrag(self)
            self.display.setToolTip("Drag: pan · wheel: zoom · Ctrl+drag a body: pull it while the run goes "
                                    "(a bounded spring, recorded as perturb.*)")
            self._camera_fitted = False  # True until the user moves the camera: resizes re-fit
            self._follow_shift, self._follow_axis = 0.0, np.array([1.0, 0.0])  # the camera's slide (_follow)
            self._follow_origin = None
            self._follow_reach = self._follow_start = 0.0  # (_follow_setup)
            self.canvas.events.mouse_press.connect(self._camera_touched)
            self.canvas.events.mouse_wheel.connect(self._camera_touched)
            self.canvas.events.resize.connect(self._canvas_resized, position="last")
        except Exception as exc:  # no OpenGL: keep the app usable without the 3D view
            self.canvas = None
            self.error = f"3D view unavailable: {exc}"
            label = QLabel(self.error + "\n(plots, history and exports still work)")
            label.setAlignment(Qt.AlignCenter)
            label.setWordWrap(True)
            layout.addWidget(label)
        self._settings = None
        self._make_actions()
        self._late = QTimer(self, singleShot=True)
        if self.canvas is not None:
            self._late.timeout.connect(self.canvas.update)
        controller.cursorChanged.connect(self._cursor_changed)
        if hasattr(controller, "runningChanged"):
            controller.runningChanged.connect(lambda _running: self._show_pending())
        controller.historyReset.connect(self._on_history_reset)
        if hasattr(controller, "branchChanged"):  # a previous branch kept or discarded: its paths
            controller.branchChanged.connect(lambda: self.show_row())

    # ------------------------------------------------------------------ camera and arrow choices
    def _make_actions(self):
        self.act_orbit = QAction("Orbit view (perspective)", self, checkable=True)
        self.act_orbit.setToolTip("Perspective view, rotated by dragging (Shift+drag pans).\n"
                                  "Off: the mechanism's plane seen face-on, dragging pans.")
        self.act_orbit.toggled.connect(self._orbit_toggled)
        button = getattr(self, "_orbit_button", None)
        if button is not None:
            button.setDefaultAction(self.act_orbit)
            button.setText("Orbit")
            button.move(6, 6)
        self.act_overlays = QAction("Controller overlays", self, checkable=True, checked=True)
        self.act_overlays.setToolTip("What the controllers declare for the 3D view: desired circles, "
                                     "desired and actual end-effector paths (the previous run's fainter)")
        self.act_overlays.toggled.connect(self._overlays_toggled)
        self.act_follow = QAction("Follow the mechanism", self, checkable=True, checked=True)
        self.act_follow.setToolTip("A front view slides along the ground after a travelling mechanism "
                                   "(every joint to the world free: a walker, a rolling wheel); "
                                   "moving the camera by hand stops it until View ▸ Reset camera")
        self.act_follow.toggled.connect(lambda on: self.show_row())
        self.force_actions = QActionGroup(self)
        for f in FORCE_SCALES:
            a = self.force_actions.addAction(f"× {f:g}")
            a.setCheckable(True)
            a.setChecked(f == 1.0)
            a.setData(f)
        self.force_actions.triggered.connect(self._force_scale_chosen)

    def add_menu_actions(self, menu, settings=None):
        """The camera and force-arrow choices in `menu`, remembered in `settings` (a QSettings)."""
        menu.addAction(self.act_orbit)
        menu.addAction(self.act_overlays)
        menu.addAction(self.act_follow)
        sub = menu.addMenu("Force arrow length")
        sub.setToolTip("Normal-force arrows: the weight resting on contacts is drawn a quarter "
                       "of the view's height, times this factor")
        sub.addActions(self.force_actions.actions())
        self._settings = settings
        if settings is not None:
            self.act_orbit.setChecked(settings.value("view3d/orbit", False, type=bool))
            self.act_overlays.setChecked(settings.value("view3d/overlays", True, type=bool))
            factor = settings.value("view3d/force_scale", 1.0, type=float)
            for a in self.force_actions.actions():
                if abs(a.data() - factor) < 1e-9:
                    a.setChecked(True)
                    self.set_force_scale(factor)

    def _orbit_toggled(self, on):
        self.set_orbit(on)
        if self._settings is not None:
            self._settings.setValue("view3d/orbit", bool(on))

    def _overlays_toggled(self, on):
        self.set_overlays(on)
        if self._settings is not None:
            self._settings.setValue("view3d/overlays", bool(on))

    def set_overlays(self, on):
        self.overlays_enabled = bool(on)
        self.show_row(self.controller.cursor)

    def _force_scale_chosen(self, action):
        self.set_force_scale(action.data())
        if self._settings is not None:
            self._settings.setValue("view3d/force_scale", float(action.data()))

    # ------------------------------------------------------------------ redraw pacing
    # (Qt fallback) With software OpenGL a frame can cost tens of milliseconds: redraws are spaced
    # so that drawing takes at most about a third of the GUI thread's time, and the last state is
    # always drawn (a late redraw is scheduled instead of dropping it).
    _draw_started = 0.0
    _draw_cost = 0.0
    _last_draw = 0.0

    def _drawn(self, _ev):
        self._draw_started = time.perf_counter()

    def _draw_done(self, _ev):
        now = time.perf_counter()
        self._draw_cost = 0.7 * self._draw_cost + 0.3 * (now - self._draw_started)
        self._last_draw = now

    def _frame_interval(self, cost):
        # (nsgui render's playback has no run going flat out)
        return frame_budget.interval("3d", cost, getattr(self.controller, "flat_out", False))

    def _request_update(self):
        if self.backend == "egl":  # the display widget merges and paces the requests
            self.canvas.update()
            return
        wait = self._frame_interval(self._draw_cost) - (time.perf_counter() - self._last_draw)
        if wait <= 0:
            self.canvas.update()
        elif not self._late.isActive():
            self._late.start(int(1000 * wait) + 1)

    # ------------------------------------------------------------------ building
    def _make_dynamic_visuals(self):
        scene = self._scene_mod
        root = self.view.scene
        self._wedges = scene.visuals.Mesh(parent=root)
        self._wedges.set_gl_state("translucent", depth_test=False)
        self._arrows = scene.visuals.Line(parent=root, connect="segments", width=3, antialias=False)
        self._arrows.set_gl_state("translucent", depth_test=False)
        self._heads = scene.visuals.Mesh(parent=root)
        self._heads.set_gl_state("translucent", depth_test=False)
        self._points = scene.visuals.Markers(parent=root)
        self._points.set_gl_state("translucent", depth_test=False)
        self._joints = scene.visuals.Markers(parent=root)
        self._joints.set_gl_state("translucent", depth_test=False)
        self._trails = scene.visuals.Line(parent=root, connect="segments", width=2)
        self._trails.set_gl_state("translucent", depth_test=False)
        self._overlays = scene.visuals.Line(parent=root, connect="segments", width=2)
        self._overlays.set_gl_state("translucent", depth_test=False)
        for v in (self._wedges, self._arrows, self._heads, self._points, self._joints, self._trails,
                  self._overlays):
            v.visible = False
        self._wedges.order = 1
        self._arrows.order = 2
        self._heads.order = 2
        self._overlays.order = 2
        self._joints.order = 3
        self._points.order = 4

    def set_model(self, model):
        """Rebuild the solids for a compiled model (new scene, reset or resume with edits)."""
        self._trail_choice = self._kept_trail_points(self.model, model)
        self.model = model
        if self.canvas is None:
            return
        self.marks.set_model(model)
        if self.drag.active is not None:  # another model: the body held may not exist any more
            self.drag.release()
        scene = self._scene_mod
        for node in self._body_nodes + self._static_nodes:
            node.parent = None
        self._body_nodes, self._static_nodes = [], []
        s = model.scene
        q0 = self._initial_q(model)
        try:
            poses0 = np.asarray(model.body_poses(q0))
        except Exception:
            poses0 = None
        lo, hi = geo.scene_bounds(s, poses0, list(model.body_names))
        self.span = np.maximum(hi - lo, 0.1)
        self.center = (lo + hi) / 2
        self._bottom = float(lo[1]) if any(o.type == "ground" for o in s.obstacles) else None
        self.extent = max(float(np.max(hi - lo)), 0.3)
        self.depth = 0.08 * self.extent
        # bodies are staggered a little in depth (no z-fighting where they overlap) and drawn in
        # front of the obstacles; markers and arrows in front of everything
        stagger = 0.5 * self.depth / max(len(model.body_names) - 1, 1)
        self.front = self.depth + 1e-3 * self.extent
        # All bodies in one mesh whose vertices are placed on the CPU at each frame: one draw call
        # however many bodies (each vispy visual costs about a millisecond per frame).
        bodies = {b.name: b for b in s.bodies}
        parts, colors, owner, sizes = [], [], [], []
        for i, name in enumerate(model.body_names):
            body = bodies.get(name)
            if body is None or not body.shapes:
                continue
            dz = stagger * i
            verts, faces = geo.body_mesh(body, -self.depth / 2 + dz, self.depth / 2 + dz, 0.01 * self.extent)
            parts.append((np.asarray(verts, float), np.asarray(faces)))
            colors.append(np.tile(_rgba(body.color), (len(faces), 1)))
            owner.append(np.full(len(verts), i))
            sizes.append(float(np.ptp(np.asarray(verts)[:, :2], axis=0).max()))
        # friction-cone wedges: about a body's size (a scene's size would hide small bodies)
        self._body_size = float(np.median(sizes)) if sizes else self.extent
        self._wedge_length = min(0.12 * self.extent, self._body_size)
        if parts:
            self._body_local, self._body_faces = geo.merge_meshes(parts)
            self._body_owner = np.concatenate(owner)
            self._body_colors = np.vstack(colors)
            self._bodies_mesh = scene.visuals.Mesh(shading="flat", parent=self.view.scene)
            self._bodies_placed = False
            self._body_nodes.append(self._bodies_mesh)
        else:
            self._bodies_mesh = None
        # Grounds and walls are drawn across the scene's bounds and well beyond (every boundary
        # passes through them), solid on their solid side; grounds in front of walls where they
        # overlap. All obstacles in one mesh: each visual costs ~1 ms of vispy overhead per frame.
        box = (lo - 2.5 * self.extent, hi + 2.5 * self.extent)  # (a wide window shows ~2)
        # grounds much further: a walker walks on and the camera follows it (_follow)
        ground_box = (lo - GROUND_REACH, hi + GROUND_REACH)
        parts, colors = [], []
        for o in s.obstacles:
            back = 0.9 * self.depth if o.type == "wall" else self.depth
            mesh = geo.obstacle_mesh(o, self.extent, -back, 0.4 * back, ground_box if o.type == "ground" else box,
                                     solid=0.5 * self.extent)
            if mesh is None:
                continue
            verts, faces = mesh
            color = (0.42, 0.45, 0.40, 1.0) if o.type == "ground" else (0.50, 0.47, 0.42, 1.0)
            parts.append((np.asarray(verts, float), np.asarray(faces)))
            colors.append(np.tile(color, (len(faces), 1)))
        if parts:
            verts, faces = geo.merge_meshes(parts)
            self._static_nodes.append(scene.visuals.Mesh(
                vertices=verts, faces=faces, face_colors=np.vstack(colors), shading="flat",
                parent=self.view.scene))
        mus = []
        for k in range(len(model.contact_names)):
            owner = model.contact_owner[k]
            mus.append(float(s.contacts[owner].friction) if owner < len(s.contacts) else 0.0)
        self._mus = np.array(mus)
        self._weight = self._supported_weight(model)
        self._follow_setup(model, poses0)
        self._outline = self._outline_points(model)
        self.reset_camera()
        self.show_row(self.controller.cursor)

    def _initial_q(self, model):
        init = model.scene.initial.q if model.scene.initial else {}
        return np.array([float(init.get(n, 0.0)) for n in model.coord_names])

    @staticmethod
    def _supported_weight(model):
        """m g (N) of the bodies that rest on contacts when still: those not hinged (revolute
        joint) to anything; of all bodies when every one is hinged."""
        from nsgui.scene import body_mass_properties
        hinged = {j.child for j in model.scene.joints if j.type == "revolute"}
        masses = {}
        for b in model.scene.bodies:
            try:
                masses[b.name] = body_mass_properties(b)[0]
            except Exception:
                pass
        free = [m for n, m in masses.items() if n not in hinged]
        mass = sum(free) if free else sum(masses.values())
        return mass * (float(np.hypot(*model.scene.gravity)) or 9.81)

    def _fitted_scale(self, w, h):
        """The fitted camera's scale_factor (vispy: the span seen across the view's smaller side)
        for a w x h view: the scene's bounds fill the view in one direction, with a margin."""
        sx, sy = self.span
        return FRAMING * float(max(sy, sx * h / w) if w >= h else max(sx, sy * w / h))

    def _arrow_height(self):
        """The world height the arrows are sized against: that of a fitted 4:3 view (the same
        arrows whatever the window's or video's shape)."""
        return self._fitted_scale(4.0, 3.0)

    def arrow_metres_per_newton(self):
        """Force arrows' scale: the weight resting on contacts is drawn ARROW_SHARE of the fitted
        view's height (whatever the masses), times the user's factor."""
        return self.force_scale * ARROW_SHARE * self._arrow_height() / max(self._weight, 1e-12)

    def set_force_scale(self, factor):
        """The user's factor on the force arrows' automatic length."""
        self.force_scale = float(factor)
        self.show_row(self.controller.cursor)

    def set_orbit(self, on):
        """Orbit view (perspective, left drag rotates) or the front orthographic view (left drag
        pans); either starts from its default angles, fitted to the scene."""
        self.orbit = bool(on)
        if self.act_orbit.isChecked() != self.orbit:
            self.act_orbit.setChecked(self.orbit)  # (toggled comes back here once, no change)
        if self.canvas is None:
            return
        cam = self.view.camera
        cam.orbit = self.orbit
        cam.fov = ORBIT_FOV if self.orbit else 0.0
        self.reset_camera()

    def reset_camera(self):
        if self.canvas is None or self.model is None:
            return
        cam = self.view.camera
        cam.azimuth, cam.elevation = ORBIT_VIEW if self.orbit else FRONT_VIEW
        w, h = self.view.size
        cam.scale_factor = self._fitted_scale(w, h) if w > 0 and h > 0 else self._arrow_height()
        cy = float(self.center[1])
        if self._bottom is not None and w > 0 and h > 0:
            # a scene on the ground in a view taller than it: the ground line low in the view,
            # not half the view filled with ground
            seen = cam.scale_factor * (h / w if h > w else 1.0)
            spare = seen - float(self.span[1])
            cy = self._bottom + float(self.span[1]) / 2 + spare / 2 - min(spare / 2, 0.12 * seen)
        slid = self._follow_shift * self._follow_axis
        cam.center = (float(self.center[0] + slid[0]), cy + float(slid[1]), 0.0)
        self._camera_fitted = True
        cam.distance = None
        self.canvas.update()

    def _follow(self, poses):
        """A fitted front view keeps a travelling mechanism in sight (a walker walks out of its first
        framing): when the bodies' mean has moved along the ground by more than FOLLOW / 2 of the view's
        width from where it started, the camera slides by the excess along the ground (so a ball's
        bounces or a slope never move the view up and down). Only for scenes whose every joint to the
        world is free (pinned mechanisms stay put); a camera the user moved stays where it is."""
        if (self._follow_origin is None or not self._camera_fitted or self.orbit or not len(poses)
                or not self.act_follow.isChecked() or self.drag.active is not None):
            return  # (not while the mouse pulls a body: the view stays where the user grabbed it)
        w, h = self.view.size
        if w <= 0 or h <= 0:
            return
        cam = self.view.camera
        width = cam.scale_factor * (w / h if w > h else 1.0)
        # a function of the displayed pose alone: scrubbing back to the start gives the first framing
        moved = float((poses[:, :2].mean(axis=0) - self._follow_origin) @ self._follow_axis)
        # the mean travels freely up to FOLLOW / 2 of the width, less when the bodies' reach would
        # then leave the view (FOLLOW_EDGE of it kept clear at the edge)
        room = 0.5 * (1.0 - FOLLOW_EDGE) * width - self._follow_reach - np.sign(moved) * self._follow_start
        free = min(0.5 * FOLLOW * width, max(room, 0.0))
        shift = float(np.sign(moved) * max(abs(moved) - free, 0.0))
        if shift != self._follow_shift:
            c = np.array(cam.center, float)
            c[:2] += (shift - self._follow_shift) * self._follow_axis
            self._follow_shift = shift             # kept when a resize re-fits the camera
            cam.center = tuple(float(x) for x in c)

    def _widen(self, poses):
        """A pinned mechanism (no free joint to the world: a crank, a pendulum) that swings out of
        its first framing widens a fitted view to take in every pose shown so far (never narrows it:
        scrubbing back keeps the framing), so no link is cropped."""
        if (self._outline is None or not self._camera_fitted
                or self.orbit or self.drag.active is not None):
            return
        body, local = self._outline
        pts = geo.points_along_poses(poses[None], body, local)[:, 0]
        lo, hi = self.center - self.span / 2, self.center + self.span / 2
        lo2, hi2 = np.minimum(lo, pts.min(axis=0)), np.maximum(hi, pts.max(axis=0))
        if np.any(hi2 - lo2 > (1 + 1e-9) * self.span):
            self.span, self.center = hi2 - lo2, (lo2 + hi2) / 2
            self.reset_camera()

    @staticmethod
    def _outline_points(model):
        """(body indices, body-frame points) of every shape's outline, for _widen; None unless every
        body hangs on a joint and none is free to the world (a mechanism that cannot travel away)."""
        names, joints = list(model.body_names), model.scene.joints
        if not joints or any(j.parent == "world" and j.type == "free" for j in joints) or \
                set(names) - {j.child for j in joints}:
            return None
        return View3D._body_outlines(model)

    @staticmethod
    def _body_outlines(model):
        """(body indices, body-frame points) of every body's shapes' outlines; None without any."""
        names = list(model.body_names)
        body, local = [], []
        for b in model.scene.bodies:
            if b.name not in names:
                continue
            for sh in b.shapes:
                try:
                    pts = np.asarray(geo.shape_outline(sh), float).reshape(-1, 2)
                except Exception:
                    continue
                body += [names.index(b.name)] * len(pts)
                local.append(pts)
        return (np.array(body, int), np.vstack(local)) if local else None

    def _follow_setup(self, model, poses0):
        """Where the bodies start and the direction the camera may slide (the first ground's)."""
        self._follow_shift = 0.0
        roots = [j for j in model.scene.joints if j.parent == "world"]
        self._follow_origin = (poses0[:, :2].mean(axis=0) if poses0 is not None and len(poses0) and roots
                               and all(j.type == "free" for j in roots) else None)
        grounds = [o for o in model.scene.obstacles if o.type == "ground"]
        n = np.array(grounds[0].normal if grounds else (0.0, 1.0), float)
        self._follow_axis = np.array([n[1], -n[0]]) / max(float(np.hypot(*n)), 1e-12)
        # how far the bodies reach from their mean along the ground, and where the mean starts from the
        # fitted centre: _follow keeps the whole mechanism in view, not its mean only (a sliding box
        # nearly as wide as its first framing slid half out of it)
        self._follow_reach = self._follow_start = 0.0
        outlines = self._body_outlines(model) if self._follow_origin is not None else None
        if outlines is not None:
            pts = geo.points_along_poses(poses0[None], *outlines)[:, 0]
            self._follow_reach = float(np.max(np.abs((pts - self._follow_origin) @ self._follow_axis)))
            self._follow_start = float((self._follow_origin - self.center) @ self._follow_axis)

    def _camera_touched(self, ev):
        from vispy.util import keys
        if keys.CONTROL in (getattr(ev, "modifiers", None) or ()):  # Ctrl+drag pulls a body: the
            return  # camera stays fitted (and keeps following)
        self._camera_fitted = False

    def _canvas_resized(self, _ev):
        if self._camera_fitted:
            self.reset_camera()

    def set_trails(self, on):
        self.trails_enabled = bool(on)
        self.show_row(self.controller.cursor)

    # ------------------------------------------------------------------ trail points
    def trail_points(self) -> list[TrailPoint]:
        """The points whose trails are drawn: the chosen ones, or each body's origin."""
        names = list(self.model.body_names) if self.model is not None else []
        if self._trail_choice is None:
            return default_trail_points(names)
        return [p for p in self._trail_choice if p.body in names]

    def trail_points_chosen(self) -> bool:
        return self._trail_choice is not None

    def set_trail_points(self, points):
        """Choose the trail points: (body, (x, y)[, label]) items or TrailPoints; None or an empty
        list goes back to the default (each body's origin). Unknown bodies are dropped."""
        chosen, seen, labels = [], set(), set()
        names = set(self.model.body_names) if self.model is not None else None
        for p in points or []:
            if not isinstance(p, TrailPoint):
                p = trail_point(*p)
            key = (p.body, round(p.x, 12), round(p.y, 12))
            if key in seen or (names is not None and p.body not in names):
                continue
            seen.add(key)
            label, n = p.label, 2
            while label in labels:  # the paths are keyed by label
                label, n = f"{p.label} [{n}]", n + 1
            labels.add(label)
            chosen.append(p._replace(label=label))
        self._trail_choice = chosen or None
        self.show_row(self.controller.cursor)

    def _kept_trail_points(self, old, new):
        """The chosen points carried over to a new model: all of them for the same scene (reset,
        resume), those on bodies that still exist for an edited scene (same name), none (back to
        the default) for a different scene with other body names."""
        if self._trail_choice is None:
            return None
        names = set(new.body_names)
        if old is not None and set(old.body_names) != names and \
                getattr(old.scene, "name", None) != getattr(new.scene, "name", None):
            return None
        kept = [p for p in self._trail_choice if p.body in names]
        return kept or None

    def _on_history_reset(self):
        if self.controller.model is not None and self.controller.model is not self.model:
            self.set_model(self.controller.model)

    # ------------------------------------------------------------------ per frame
    def _q_of_row(self, rec, row):
        vals = rec.row(row)
        return np.array([vals[rec.index("q." + n)] for n in self.model.coord_names]), vals

    def show_row(self, row=None):
        self._pending_row = None  # (the newest state is drawn now)
        if self.canvas is None or self.model is None:
            return
        rec = self.controller.recorder
        if rec is None or not len(rec):
            q, vals = self._initial_q(self.model), None
        else:
            row = self.controller.cursor if row is None else min(row, len(rec) - 1)
            q, vals = self._q_of_row(rec, row)
        try:
            poses = np.asarray(self.model.body_poses(q))
        except Exception:
            return
        self._place_bodies(poses)
        self._follow(poses)
        self._widen(poses)
        self._draw_joints(poses)
        self._draw_contacts(q, vals, rec)
        self._draw_trails(rec, row if vals is not None else None)
        self._draw_overlays(rec, row if vals is not None else None)
        self.marks.draw(q, vals, rec, self.drag.active)
        self._request_update()

    def displayed_q(self):
        """The coordinates drawn (the cursor's row, or the initial state before a run)."""
        rec = self.controller.recorder
        if rec is None or not len(rec):
            return self._initial_q(self.model)
        return self._q_of_row(rec, min(self.controller.cursor, len(rec) - 1))[0]

    def hint(self, text):
        """A short message in the window's status bar (none without a window)."""
        win = self.window()
        bar = getattr(win, "statusBar", None)
        if callable(bar):
            bar().showMessage(text, 6000)

    # Markers and line widths are in canvas pixels; frames drawn at reduced resolution (see
    # offscreen_canvas) scale them so that they keep their size on screen.
    _px_scale = 1.0
    _marker_shrink = 1.0  # < 1 when the bodies look small: markers would hide them

    def _markers(self, visual, pos, **style):
        """set_data of a marker visual with sizes in screen pixels (kept for a rescale)."""
        self._marker_data[visual] = (pos, style)
        s = self._px_scale * self._marker_shrink
        visual.set_data(pos, **{k: (v * s if k in ("size", "edge_width") else v) for k, v in style.items()})

    _pending_row = None  # a live row to draw with the next frame (_cursor_changed)

    def _cursor_changed(self, row):
        """The displayed row moved. While a run or a replay streams rows (~30 a second), the view is
        brought to the newest one only when a frame is drawn (3D frames are paced to ~10-20 a
        second): placing bodies, contacts, marks and the following camera for rows never drawn cost
        more than drawing. Otherwise (scrubbing, stepping, paused) at once."""
        c = self.controller
        live = getattr(c, "running", False) or getattr(c, "replaying", False)
        if live and self.backend == "egl" and self.display.isVisible() and self.model is not None:
            self._pending_row = row
            self._request_update()
            return
        self._pending_row = None
        self.show_row(row)

    def _show_pending(self):
        """The row waiting for a frame, drawn now (before a frame; when a run stops)."""
        row, self._pending_row = self._pending_row, None
        if row is not None:
            self.show_row(row)

    def _frame_scale(self, scale):
        """Called by the offscreen display before each frame with its resolution scale (and the
        live row waiting for this frame is placed)."""
        self._show_pending()
        shrink = self._marker_fit(scale)
        if abs(scale - self._px_scale) < 1e-9 and abs(shrink - self._marker_shrink) < 1e-3:
            return
        self._px_scale, self._marker_shrink = scale, shrink
        for visual, (pos, style) in list(self._marker_data.items()):
            self._markers(visual, pos, **style)
        self._arrows.set_data(width=max(1.0, 3 * scale))

    def _marker_fit(self, scale):
        """Marker size factor: 1, or less when a typical body spans fewer than ~24 screen pixels
        (a column of small beads stays visible under its contact points)."""
        if self.model is None:
            return 1.0
        w, h = self.view.size
        seen = self.view.camera.scale_factor * (h / w if h > w > 0 else 1.0)  # world height shown
        body_px = self._body_size * (h / scale) / max(seen, 1e-12)
        return float(np.clip(body_px / 24.0, 0.4, 1.0))

    def _place_bodies(self, poses):
        if self._bodies_mesh is None:
            return
        pose = poses[self._body_owner]
        c, sn = np.cos(pose[:, 2]), np.sin(pose[:, 2])
        v = self._body_local
        world = np.column_stack([pose[:, 0] + c * v[:, 0] - sn * v[:, 1],
                                 pose[:, 1] + sn * v[:, 0] + c * v[:, 1], v[:, 2]])
        mesh = self._bodies_mesh
        if self._bodies_placed:
            # Only the positions (and normals) move: vispy's set_data would rebuild the colour
            # function and recompile the shaders at every frame.
            try:
                # (flat shading takes its normals from screen-space derivatives: none to update)
                mesh.mesh_data.set_vertices(world)
                mesh._vertices.set_data(world[self._body_faces].astype(np.float32))
                mesh.update()
                return
            except AttributeError:  # another vispy version: the slow, public way
                pass
        mesh.set_data(vertices=world, faces=self._body_faces, face_colors=self._body_colors)
        self._bodies_placed = True

    def _set_triangles(self, mesh, vertices, colors):
        """Separate triangles (3 rows of `vertices` each) with one colour per vertex. Once drawn, only
        the two vertex buffers are refilled: vispy's set_data makes a new colour function, and the
        shaders would be compiled and linked again at every frame (milliseconds with llvmpipe)."""
        vertices = np.ascontiguousarray(vertices, np.float32)
        colors = np.ascontiguousarray(colors, np.float32)
        try:
            color_buffer = mesh.shared_program.vert["base_color"]
            if getattr(mesh, "_data_changed", True) or not hasattr(color_buffer, "set_data"):
                raise AttributeError("not drawn yet")
            mesh._vertices.set_data(vertices)
            color_buffer.set_data(colors)
            mesh.update()
        except (AttributeError, KeyError):  # first time, or another vispy version: the public way
            mesh.set_data(vertices=vertices, faces=np.arange(len(vertices), dtype=np.uint32).reshape(-1, 3),
                          vertex_colors=colors)

    def _draw_joints(self, poses):
        idx = {n: i for i, n in enumerate(self.model.body_names)}
        pts = []
        for j in self.model.scene.joints:
            if j.type not in ("revolute", "prismatic") or j.child not in idx:
                continue
            pts.append(geo.transform_points(np.array([j.anchor_child], float), poses[idx[j.child]])[0])
        if not pts:
            self._joints.visible = False
            return
        p = np.column_stack([np.array(pts), np.full(len(pts), self.front)])
        self._markers(self._joints, p, face_color=(0.95, 0.95, 0.95, 1.0), edge_color=(0.1, 0.1, 0.1, 1.0),
                      size=9, edge_width=2)
        self._joints.visible = True

    def _draw_contacts(self, q, vals, rec):
        names = self.model.contact_names
        if not len(names):
            for v in (self._points, self._arrows, self._heads, self._wedges):
                v.visible = False
            return
        try:
            gap, point, normal = self.model.contact_frames(q)
        except Exception:
            return
        point, normal = np.asarray(point, float).reshape(-1, 2), np.asarray(normal, float).reshape(-1, 2)
        status = np.zeros(len(names), int)
        fn = np.zeros(len(names))  # normal forces (N)
        if vals is not None:
            for k, n in enumerate(names):
                try:
                    status[k] = int(vals[rec.index(f"contact.{n}.status")])
                    fn[k] = float(vals[rec.index(f"contact.{n}.fn")])
                except KeyError:
                    pass
        colors = np.array([STATUS_COLORS.get(s, STATUS_COLORS[codes.OPEN]) for s in status])
        z = self.front
        top = np.argsort(status != codes.OPEN, kind="stable")  # where points coincide, touching ones on top
        self._markers(self._points, np.column_stack([point[top], np.full(len(point), z)]),
                      face_color=colors[top], edge_color=(0, 0, 0, 1), size=8, edge_width=1)
        self._points.visible = True
        # friction-cone wedges of the contacts that touch (half-angle atan mu)
        touching = status != codes.OPEN
        if touching.any():
            tri = geo.cone_wedges(point[touching], normal[touching], self._mus[touching],
                                  self._wedge_length)
            wc = np.repeat(colors[touching] * (1, 1, 1, 0) + (0, 0, 0, 0.35), 3, axis=0)
            self._set_triangles(self._wedges, np.column_stack([tri, np.full(len(tri), z - 1e-4)]), wc)
            self._wedges.visible = True
        else:
            self._wedges.visible = False
        # normal-force arrows, length proportional to the force (clamped for impacts)
        height = self._arrow_height()
        lengths = np.minimum(np.abs(fn) * self.arrow_metres_per_newton(), ARROW_MAX * height)
        show = lengths > 1e-3 * height
        if show.any():
            seg = geo.arrow_segments(point[show], normal[show], lengths[show])
            c = np.repeat(colors[show], 2, axis=0)
            self._arrows.set_data(np.column_stack([seg, np.full(len(seg), z)]), color=c, width=max(1.0, 3 * self._px_scale))
            self._arrows.visible = True
            heads = []
            for p, n, L in zip(point[show], normal[show], lengths[show]):
                tip = p + n * L
                t = np.array([-n[1], n[0]])
                s = min(0.025 * height, 0.4 * L)
                heads += [tip, tip - s * n + 0.5 * s * t, tip - s * n - 0.5 * s * t]
            heads = np.array(heads)
            self._set_triangles(self._heads, np.column_stack([heads, np.full(len(heads), z)]),
                                np.repeat(colors[show], 3, axis=0))
            self._heads.visible = True
        else:
            self._arrows.visible = self._heads.visible = False

    def _draw_trails(self, rec, row):
        self.trail_paths, self.trail_colors, self.trail_rows = {}, {}, np.zeros(0, int)
        points = self.trail_points() if self.trails_enabled else []
        if not points or rec is None or row is None or row < 1:
            self._trails.visible = False
            return
        t_now = rec.time[row]
        first = rec.row_at_time(t_now - TRAIL_SECONDS)
        rows = np.unique(np.linspace(first, row, TRAIL_POINTS).astype(int))
        k = len(rows)
        try:
            if k < 2:
                raise IndexError("one row")
            cols = self._q_columns(rec)
            block = np.array([rec.row(int(r))[cols] for r in rows])
            poses = np.array([np.asarray(self.model.body_poses(q)) for q in block])  # (k, nb, 3)
        except (KeyError, IndexError, ValueError):  # a history of another model (being replaced)
            self._trails.visible = False
            return
        index = {n: i for i, n in enumerate(self.model.body_names)}
        paths = geo.points_along_poses(poses, [index[p.body] for p in points],
                                       [(p.x, p.y) for p in points])  # (m, k, 2)
        rgb = np.array([TRAIL_COLORS[i % len(TRAIL_COLORS)] for i in range(len(points))])
        for p, path, c in zip(points, paths, rgb):
            self.trail_paths[p.label] = path
            self.trail_colors[p.label] = tuple(c)
        self.trail_rows = rows
        # consecutive samples joined by segments, fading toward the past
        seg = np.repeat(paths, 2, axis=1)[:, 1:-1].reshape(-1, 2)
        alpha = np.repeat(np.linspace(0.05, 0.9, k), 2)[1:-1]
        colors = np.concatenate([np.broadcast_to(rgb[:, None, :], (len(points), len(alpha), 3)),
                                 np.broadcast_to(alpha[None, :, None], (len(points), len(alpha), 1))],
                                axis=2).reshape(-1, 4)
        self._trails.set_data(np.column_stack([seg, np.full(len(seg), self.front)]), color=colors)
        self._trails.visible = True

    def _columns(self, rec, previous=False):
        """`column(name)` of the history (or of the previous branch): the window's cached columns
        (no copy per frame), a recorder's own otherwise (nsgui render)."""
        c = self.controller
        if previous:
            rec = getattr(c, "previous", None)
            if rec is None:
                return None
            cache = getattr(c, "previous_columns", None)
            if cache is None:
                return recorder_columns(rec)
            return lambda n: cache.get(rec, n) if n in rec._index else None
        if rec is None or not hasattr(c, "column"):
            return recorder_columns(rec)
        return lambda n: c.column(n) if n in rec._index else None

    def _draw_overlays(self, rec, row):
        """The controllers' overlays (circles, traces up to the displayed row; the previous branch's
        traces fainter), in front of the bodies, and their legend."""
        self.overlay_paths = []
        if self.overlays_enabled:
            try:
                self.overlay_paths = overlay_paths(self.model, self._columns(rec), row,
                                                   self._columns(rec, previous=True))
            except (KeyError, IndexError, ValueError):  # a history of another model (being replaced)
                self.overlay_paths = []
        if not self.overlay_paths:
            self._overlays.visible = False
            self.overlay_legend.hide()
            return
        segs, colors = [], []
        for p in self.overlay_paths:
            seg = np.repeat(p.path, 2, axis=0)[1:-1]
            segs.append(seg)
            colors.append(np.tile(_rgba(p.color, 0.4 if p.previous else 0.95), (len(seg), 1)))
        seg = np.vstack(segs)
        self._overlays.set_data(np.column_stack([seg, np.full(len(seg), self.front)]), color=np.vstack(colors),
                                width=max(1.0, 2 * self._px_scale))
        self._overlays.visible = True
        self.overlay_legend.setText("<br>".join(
            f'<span style="color:{p.color}">━━</span> {p.label}' for p in self.overlay_paths))
        self.overlay_legend.adjustSize()
        self.overlay_legend.show()

    def _q_columns(self, rec):
        """Recorder columns of the model's coordinates (cached per recorder and model)."""
        r, m, cols = self._trail_cols
        if r is None or r() is not rec or m is not self.model:
            cols = np.array([rec.index("q." + n) for n in self.model.coord_names], dtype=int)
            self._trail_cols = (weakref.ref(rec), self.model, cols)
        return cols

    # ------------------------------------------------------------------ images
    def view_size(self):
        """The view's size in device pixels (w, h)."""
        r = self.display.devicePixelRatioF() if self.display is not None else 1.0
        w, h = (self.display.width(), self.display.height()) if self.display is not None else (640, 480)
        return max(1, round(w * r)), max(1, round(h * r))

    def render_image(self, size=None):
        """An RGBA image (h, w, 4) of the current view, rendered offscreen at full resolution:
        exactly `size` = (w, h) pixels, by default the view's own size (the live frames may be
        drawn at reduced resolution, never these)."""
        if self.canvas is None:
            raise RuntimeError(self.error or "3D view unavailable")
        size = tuple(int(v) for v in (size or self.view_size()))
        if self.backend == "egl":
            return self.display.render_frame(size)
        return self.canvas.render(size=size)  # (Qt fallback: the widget's framing, scaled to size)

    def renderer(self):
        """"egl: llvmpipe (...)": how the view is drawn, for the About box and the tests."""
        if self.canvas is None:
            return "none"
        from nsgui.views.offscreen_canvas import gl_renderer
        try:
            return f"{self.backend}: {gl_renderer(self.canvas)}"
        except Exception as exc:
            return f"{self.backend}: unknown ({exc})"
