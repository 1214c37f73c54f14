"""What the 3D view draws for a walker and for the mouse perturbation, at the displayed row:
- the centre of mass (a cyan disc) and its vertical down to the ground, the centre of
  pressure (a magenta diamond on the ground), both from runtime/feet.py;
- the perturbation's spring: a line from the grabbed body point to the target, with the target
  marked, from the recorded perturb.* signals (scrubbing shows what was applied), or from the
  mouse while a drag is going on (the recorded rows follow a few frames later).
No physics here: positions come from the runtime and the model's geometry queries."""
from __future__ import annotations

import numpy as np

from nsgui.runtime.feet import centre_of_mass, centre_of_pressure, feet_of
from nsgui.scene.geometry import to_world

COM_COLOR = (0.25, 0.9, 1.0, 1.0)
COP_COLOR = (0.93, 0.25, 0.85, 1.0)
SPRING_COLOR = (1.0, 0.84, 0.0, 1.0)


class WalkerMarks:
    def __init__(self, view3d):
        self.v = view3d
        scene, root = view3d._scene_mod, view3d.view.scene
        self.com_line = scene.visuals.Line(parent=root, connect="segments", width=1)
        self.spring = scene.visuals.Line(parent=root, connect="segments", width=2)
        self.com = scene.visuals.Markers(parent=root)
        self.cop = scene.visuals.Markers(parent=root)
        self.ends = scene.visuals.Markers(parent=root)
        for vis in (self.com_line, self.spring, self.com, self.cop, self.ends):
            vis.set_gl_state("translucent", depth_test=False)
            vis.order = 5
            vis.visible = False
        self.feet = []
        self.model = None
        # what was drawn (tests, screenshots): world points or None
        self.com_point = self.cop_point = None
        self.spring_segment = None

    def set_model(self, model):
        self.model = model
        self.feet = feet_of(model)

    def draw(self, q, vals, rec, drag=None):
        """Marks at configuration q (row values `vals` of recorder `rec`, None before the run);
        `drag`: (body index, local point, target) of a mouse drag going on, or None."""
        z = self.v.front + 1e-3 * self.v.extent
        self.com_point = self.cop_point = self.spring_segment = None
        if self.feet:
            self.com_point = centre_of_mass(self.model, q)
            fn = None
            if vals is not None:
                try:
                    fn = np.array([vals[rec.index(f"contact.{n}.fn")] for n in self.model.contact_names])
                except KeyError:
                    fn = None
            if fn is not None:
                self.cop_point = centre_of_pressure(self.model, q, fn, self.feet)
        self._draw_balance(z)
        self._draw_spring(q, vals, rec, drag, z)

    def _draw_balance(self, z):
        v = self.v
        if self.com_point is None:
            self.com.visible = self.cop.visible = self.com_line.visible = False
            return
        c = self.com_point
        v._markers(self.com, np.array([[c[0], c[1], z]]), face_color=COM_COLOR, edge_color=(0, 0, 0, 1),
                   size=15, edge_width=2, symbol="disc")
        self.com.visible = True
        if self.cop_point is not None:
            p = self.cop_point
            v._markers(self.cop, np.array([[p[0], p[1], z]]), face_color=COP_COLOR, edge_color=(0, 0, 0, 1),
                       size=13, edge_width=1, symbol="diamond")
            self.cop.visible = True
            self.com_line.set_data(np.array([[c[0], c[1], z], [c[0], p[1], z]]), color=COM_COLOR[:3] + (0.6,))
            self.com_line.visible = True
        else:
            self.cop.visible = self.com_line.visible = False

    def _draw_spring(self, q, vals, rec, drag, z):
        v = self.v
        held = None
        if drag is not None:
            held = drag
        elif vals is not None:
            try:
                b = int(vals[rec.index("perturb.body")])
                if b >= 0:
                    held = (b, (vals[rec.index("perturb.point_x")], vals[rec.index("perturb.point_y")]),
                            (vals[rec.index("perturb.target_x")], vals[rec.index("perturb.target_y")]))
            except KeyError:
                held = None
        if held is None or held[0] >= len(self.model.body_names):
            self.spring.visible = self.ends.visible = False
            return
        b, local, target = held
        pose = np.asarray(self.model.body_poses(q))[b]
        p, t = to_world(pose, local), np.asarray(target, float)
        self.spring_segment = (p, t)
        self.spring.set_data(np.array([[p[0], p[1], z], [t[0], t[1], z]]), color=SPRING_COLOR,
                             width=max(1.0, 2 * v._px_scale))
        v._markers(self.ends, np.array([[p[0], p[1], z], [t[0], t[1], z]]), face_color=SPRING_COLOR,
                   edge_color=(0, 0, 0, 1), size=8, edge_width=1)
        self.spring.visible = self.ends.visible = True


__all__ = ["WalkerMarks"]
