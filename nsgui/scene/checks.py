"""Editor-level checks on top of `validate_scene`: geometry at the start, contacts that cannot act.

Errors block a run (the shapes of a contact pair overlap at t = 0, so the first step would start
with a large penetration); warnings do not (a contact whose shapes can never meet is harmless).
"""

from __future__ import annotations

from dataclasses import dataclass

from .geometry import body_poses, obstacle_gap, shape_gap
from .reach import can_touch, pair_key

OVERLAP_TOLERANCE = 1e-6  # m: touching at start (a bead column, a cradle) is fine


@dataclass(frozen=True)
class EditorProblem:
    path: str
    message: str
    severity: str = "error"  # "error" blocks a run, "warning" does not

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _shape(bodies, body, name):
    b = bodies.get(body)
    return None if b is None else next((s for s in b.shapes if s.name == name), None)


def editor_problems(scene) -> list[EditorProblem]:
    """Overlaps at the start between the two sides of each contact, and contacts whose two sides
    can never touch. Assumes `validate_scene(scene)` found nothing."""
    out = []
    poses = body_poses(scene)
    bodies = {b.name: b for b in scene.bodies}
    obstacles = {o.name: o for o in scene.obstacles}
    for i, c in enumerate(scene.contacts):
        key = pair_key(c)
        (ab, as_), (bk, bs) = key
        sa = _shape(bodies, ab, as_)
        if sa is None:
            continue
        if bk == "obstacle":
            o = obstacles.get(bs)
            if o is None:
                continue
            gap = obstacle_gap(sa, poses[ab], o)
            what = f"obstacle {bs!r}"
        else:
            sb = _shape(bodies, bk, bs)
            if sb is None:
                continue
            gap = shape_gap(sa, poses[ab], sb, poses[bk])
            what = f"body {bk!r}"
        if gap < -OVERLAP_TOLERANCE:
            out.append(EditorProblem(f"contacts[{i}]", f"body {ab!r} overlaps {what} at the start by "
                                     f"{-gap:.3g} m: move it apart"))
        elif not can_touch(scene, key):
            out.append(EditorProblem(f"contacts[{i}]", f"contact {c.name!r} can never touch: "
                                     f"{ab!r} cannot reach {what} (delete the contact?)", "warning"))
    return out
