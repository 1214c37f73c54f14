"""Timed pushes: the scene's `forces` of type `impulse`, a percussion P (N·s, world frame) applied to a
point of a body at a given time (a push on a walker's torso, issue 12 §3).

The push is a velocity jump at the start of the step nearest its time: M(q) Δv = J(q)ᵀ P, with J the
point's Jacobian (tree models: the loop joints' constraints are not projected). The simulator applies it
between kernel calls (the run is cut there, as for a Python controller), so a state restored from a
snapshot before the push meets it again, and one after does not. The kinetic energy it brings is
booked with the energy balance's origin (as an edited state is, branching.py), so `energy.residual`
stays at round-off; the event log gets a `push` line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrays import to_struct
from .control.model_terms import point_jacobian


@dataclass(frozen=True)
class TimedImpulse:
    name: str
    body: int
    point: tuple
    impulse: tuple
    time: float

    def pending(self, t, dt):
        """Not applied yet at time t (it is applied at the step start within dt/2 of its time)."""
        return self.time >= t - 0.5 * dt

    def due(self, t, dt):
        return abs(t - self.time) <= 0.5 * dt

    def next_time(self, _d):
        return self.time


def scene_pushes(model):
    return [TimedImpulse(f.name, model.body_index[f.body], tuple(f.point), tuple(f.impulse), float(f.time))
            for f in model.scene.forces if f.type == "impulse"]


def velocity_jump(model, q, push):
    """Δv = M(q)⁻¹ J(q)ᵀ P of a push at configuration q."""
    q = np.asarray(q, float)
    J = np.zeros((2, model.nq))
    point_jacobian(model.struct, to_struct(model._kin(q)), push.body, push.point[0], push.point[1], J)
    return np.linalg.solve(model.mass_matrix(q), J.T @ np.asarray(push.impulse, float))
