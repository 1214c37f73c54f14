"""Walker metrics (docs/walking.md §3): how many steps, how far, how fast, and whether it fell, for a
scene that declares a `walker` (its torso and feet). Qt-free: `nsgui run --summary-json` writes them
as `walker.*` and the window's readouts show the same numbers.

Definitions, on recorded signals:
- a foot is loaded when the normal forces of its contacts sum above zero (`contact.<c>.fn`);
- a step is a foot's landing after a lift-off: loaded, then unloaded for at least `min_air` (50 ms,
  so that a heel–toe roll or a one-step chatter is no step), then loaded again. A foot that starts
  in the air while another foot carries the walker (a compass gait's swing leg) steps when it first
  lands ≥ min_air after the start; a walker that starts wholly in the air does not count its first
  landings;
- the distance is the torso frame's travel along the ground (its tangent, forward = +x side), from
  the first sample to the last, and the mean speed that distance over the elapsed time;
- fallen: the torso's frame came below `fallen_height` above the ground (the scene's first ground
  obstacle's line) at some sample, or one of the torso's own contacts carried a force.
"""

from __future__ import annotations

import numpy as np

MIN_AIR = 0.05   # s


def _landings(t, on, min_air, supported=False):
    """Landings of one foot (on: loaded flags) after a lift-off of at least min_air; `supported`: the
    walker stood on some foot at t[0], so a foot in the air then had lifted off at t[0]."""
    n = 0
    was_on = bool(on[0]) or supported
    off_since = t[0] if supported and not on[0] else None
    for k in range(1, len(on)):
        if on[k] and not on[k - 1]:
            if was_on and off_since is not None and t[k] - off_since >= min_air - 1e-12:
                n += 1
            was_on, off_since = True, None
        elif on[k - 1] and not on[k]:
            off_since = t[k]
    return n


def walker_metrics(t, torso_xy, loaded, ground_point=(0.0, 0.0), ground_normal=(0.0, 1.0), fallen_height=0.5,
                   min_air=MIN_AIR, torso_touches=()):
    """{steps, distance, mean_speed, fallen} from the sample times t (n), the torso frame's world
    positions (n, 2), the feet's loaded flags (n, feet) and whether the torso touched something (flags
    of any length)."""
    t = np.asarray(t, float)
    xy = np.asarray(torso_xy, float).reshape(-1, 2)
    loaded = np.asarray(loaded, bool).reshape(len(t), -1)
    nrm = np.asarray(ground_normal, float)
    nrm = nrm / np.linalg.norm(nrm)
    tangent = np.array([nrm[1], -nrm[0]])
    if tangent[0] < 0:
        tangent = -tangent
    if len(t) == 0:
        return {"steps": 0, "distance": 0.0, "mean_speed": 0.0, "fallen": False}
    steps = _steps(t, loaded, min_air)
    distance = float((xy[-1] - xy[0]) @ tangent)
    elapsed = float(t[-1] - t[0])
    height = (xy - np.asarray(ground_point, float)) @ nrm
    return {"steps": int(steps), "distance": distance, "mean_speed": distance / elapsed if elapsed > 0 else 0.0,
            "fallen": bool(np.any(height < fallen_height) or np.any(torso_touches))}


def _steps(t, loaded, min_air):
    """Every foot's landings (loaded: (n, feet) flags, row 0 the first with forces)."""
    supported = bool(loaded.shape[0] and loaded[0].any())
    return int(sum(_landings(t, loaded[:, f], min_air, supported) for f in range(loaded.shape[1])))


class WalkerRecorder:
    """Collects what the metrics need from signal rows as a run goes (every row's foot loads; the
    torso's position every 10 ms and at the last row, from the model's kinematics)."""

    @classmethod
    def of(cls, model):
        return cls(model) if getattr(model.scene, "walker", None) is not None else None

    def __init__(self, model):
        scene, w = model.scene, model.scene.walker
        self.model = model
        self.torso = model.body_names.index(w.torso)
        self.fallen_height = w.fallen_height
        names = model.signal_names
        self.t_col = names.index("t")
        self.q_cols = [names.index(f"q.{c}") for c in model.coord_names]
        self.foot_cols = []
        for foot in w.feet:
            cs = [c.name for c in scene.contacts if getattr(c.a, "body", None) == foot or getattr(c.b, "body", None) == foot]
            cols = [names.index(f"contact.{n}.fn") for n in model.contact_names
                    if any(n == c or n.startswith(c + "[") for c in cs)]
            self.foot_cols.append(cols)
        self.torso_cols = [names.index(f"contact.{n}.fn") for n in model.contact_names
                           if any(n == c.name or n.startswith(c.name + "[") for c in scene.contacts
                                  if w.torso in (getattr(c.a, "body", None), getattr(c.b, "body", None)))]
        self._touched = False
        ground = next((o for o in scene.obstacles if o.type == "ground"), None)
        self.ground = (tuple(ground.point), tuple(ground.normal)) if ground is not None else ((0.0, 0.0), (0.0, 1.0))
        self.stride = max(1, int(round(0.01 / model.dt)))
        self._t, self._loaded, self._pos_t, self._pos = [], [], [], []
        self._last = None
        self._seen = 0

    def append(self, rows):
        rows = np.asarray(rows)
        if rows.size == 0:
            return
        self._t.append(rows[:, self.t_col])
        self._loaded.append(np.column_stack([rows[:, cols].sum(axis=1) > 0.0 for cols in self.foot_cols]))
        if self.torso_cols:
            self._touched |= bool(np.any(rows[:, self.torso_cols] > 0.0))
        for k in range((-self._seen) % self.stride, len(rows), self.stride):
            self._pos_t.append(rows[k, self.t_col])
            self._pos.append(self._torso(rows[k]))
        self._seen += len(rows)
        self._last = rows[-1].copy()

    def _torso(self, row):
        return self.model.body_poses(row[self.q_cols])[self.torso, :2]

    def summary(self):
        if self._last is None:
            return walker_metrics([], [], [])
        t = np.concatenate(self._t)
        loaded = np.concatenate(self._loaded)
        pos_t, pos = list(self._pos_t), list(self._pos)
        if pos_t[-1] != self._last[self.t_col]:
            pos_t.append(self._last[self.t_col])
            pos.append(self._torso(self._last))
        m = walker_metrics(pos_t, pos, np.zeros((len(pos_t), 0), bool), *self.ground, self.fallen_height,
                           torso_touches=[self._touched])
        m["steps"] = _steps(t[1:], loaded[1:], MIN_AIR)  # row 0, the initial state, carries no force
        return m


__all__ = ["walker_metrics", "WalkerRecorder", "MIN_AIR"]
