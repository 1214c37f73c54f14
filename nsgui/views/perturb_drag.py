"""Ctrl+drag in the 3D view pulls a body with the mouse while the run goes (issue 12 §4).

Press picks the body under the mouse (its shapes, front view) and the grabbed point in its frame at
the displayed pose; each move sends the new target; release lets go. The runner applies the bounded
spring of engine/perturbation.py between batches, and the run records it (perturb.*), so it replays
and exports like the rest. No physics here: picking is the scene's geometry."""
from __future__ import annotations

import numpy as np

from nsgui.scene.geometry import point_in_shape, to_body

PICK_PIXELS = 6  # a press this close to a body's outline grabs it


def pick_body(model, poses, w, tol=0.0):
    """Index of a body that can move whose shapes contain the world point w (within tol), the
    front-most (last drawn) first; None if there is none."""
    shapes = {b.name: b.shapes for b in model.scene.bodies}
    for i in reversed(range(len(model.body_names))):
        if model.arrays.plen[i] == 0:  # fixed to the world: nothing to pull
            continue
        for s in shapes.get(model.body_names[i], ()):
            if point_in_shape(s, poses[i], w, tol):
                return i
    return None


class PerturbDrag:
    """The mouse side of the perturbation for one View3D."""

    def __init__(self, view3d):
        self.v = view3d
        self.active = None  # (body index, point in its frame, target) while dragging
        canvas = view3d.canvas
        canvas.events.mouse_press.connect(self._press)
        canvas.events.mouse_move.connect(self._move)
        canvas.events.mouse_release.connect(self._release)

    def _world(self, pos):
        """World point (x, y) of a canvas pixel, in the front view; None in the orbit view."""
        v = self.v
        if v.orbit:
            return None
        tr = v.canvas.scene.node_transform(v.view.scene)
        p = tr.map([float(pos[0]), float(pos[1]), 0.0, 1.0])
        return np.array([p[0] / p[3], p[1] / p[3]])

    def _metres_per_pixel(self):
        w, h = self.v.view.size
        return self.v.view.camera.scale_factor / max(min(w, h), 1)

    def _press(self, ev):
        from vispy.util import keys
        if ev.button != 1 or keys.CONTROL not in ev.modifiers:
            return
        self.start(self._world(ev.pos), ev)

    def start(self, w, ev=None):
        """Grab the body under world point w (None: no grab); True when one was grabbed."""
        v, c = self.v, self.v.controller
        if w is None:
            v.hint("Perturbation: switch the Orbit view off to drag bodies")
            return False
        if v.model is None:
            return False
        q = v.displayed_q()
        poses = np.asarray(v.model.body_poses(q))
        b = pick_body(v.model, poses, w, PICK_PIXELS * self._metres_per_pixel())
        if b is None:
            return False
        if ev is not None:
            ev.handled = True
        local = to_body(poses[b], w)
        self.active = (b, local, np.asarray(w, float))
        c.perturb(v.model.body_names[b], local, w)
        if not c.running:
            v.hint("Perturbation: the pull acts while the run goes (Space plays)")
        v.show_row()
        return True

    def _move(self, ev):
        if self.active is None:
            return
        ev.handled = True
        self.move_to(self._world(ev.pos))

    def move_to(self, w):
        if self.active is None or w is None:
            return
        b, local, _ = self.active
        self.active = (b, local, np.asarray(w, float))
        self.v.controller.perturb(self.v.model.body_names[b], local, w)
        self.v.show_row()

    def _release(self, ev):
        if self.active is not None:
            ev.handled = True
            self.release()

    def release(self):
        self.active = None
        self.v.controller.release_perturbation()
        self.v.show_row()


__all__ = ["PerturbDrag", "pick_body"]
