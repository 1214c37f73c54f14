"""What the window shows of a walker, computed from the recorded history without Qt (issue 12 §3):
its feet (the ground contacts grouped by foot), each foot's normal and tangential force, the support
phase (flight, single or double support) from which feet are loaded, and the centre of mass and the
centre of pressure at a row.

A scene that declares a `walker` (torso and feet, engine/walker.py) has those feet. Otherwise a *foot*
is a body touching a ground obstacle (all its ground contacts together: a heel and a toe are one foot);
when a single body touches the ground at several scene contacts (a rimless wheel's spokes), each of
those contacts is a foot; and the scene is a *walker* when one articulated mechanism (one tree of
bodies) has at least two feet. The steps, distance and speed are the walker metrics' (engine/walker.py).
The views only draw what this module gives.

Derived signals (not recorded, read from the recorded columns like contact totals):
  foot.<foot>.fn, foot.<foot>.ft  the foot's total normal and tangential force (N)
  walker.support                  0 flight, 1 single support, 2 double support (≥ 2 feet loaded)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

SUPPORT = "walker.support"
SUPPORT_LABELS = ("flight", "single support", "double support")
LOADED_N = 1e-6  # a foot carrying more than this normal force (N) is on the ground


class Foot(NamedTuple):
    name: str        # the body's name, or the scene contact's for the spokes of one body
    body: str
    points: tuple    # indices of its contact points (model.contact_names)


def _ground_points(model):
    """(point index, body of side a, scene contact name) of every contact point against a ground."""
    scene = model.scene
    grounds = {o.name for o in scene.obstacles if o.type == "ground"}
    out = []
    for k, owner in enumerate(model.contact_owner):
        if owner is None or owner < 0 or owner >= len(scene.contacts):
            continue
        c = scene.contacts[owner]
        a, b = c.a, c.b
        body_a, obst_b = getattr(a, "body", None), getattr(b, "obstacle", None)
        body_b, obst_a = getattr(b, "body", None), getattr(a, "obstacle", None)
        if body_a and obst_b in grounds:
            out.append((k, body_a, c.name))
        elif body_b and obst_a in grounds:
            out.append((k, body_b, c.name))
    return out


def _root(scene, body):
    parent = {j.child: j.parent for j in scene.joints}
    seen = set()
    while body in parent and parent[body] not in (None, "world", "") and body not in seen:
        seen.add(body)
        body = parent[body]
    return body


def feet_of(model) -> list[Foot]:
    """The model's feet if it is a walker (one tree of bodies with ≥ 2 feet), else []."""
    if model is None:
        return []
    points = _ground_points(model)
    declared = getattr(model.scene, "walker", None)
    if declared is not None:  # the scene says which bodies are its feet
        return [Foot(b, b, tuple(k for k, bb, _c in points if bb == b)) for b in declared.feet
                if any(bb == b for _k, bb, _c in points)]
    bodies = list(dict.fromkeys(b for _k, b, _c in points))
    if len(bodies) == 1:  # one body on several feet (spokes): each scene contact is a foot
        groups = {}
        for k, b, c in points:
            groups.setdefault(c, (b, []))[1].append(k)
        feet = [Foot(c, b, tuple(ks)) for c, (b, ks) in groups.items()]
    else:
        feet = [Foot(b, b, tuple(k for k, bb, _c in points if bb == b)) for b in bodies]
        roots = {_root(model.scene, f.body) for f in feet}
        if len(roots) != 1:  # several separate mechanisms (a ball and a box): not one walker
            return []
    return feet if len(feet) >= 2 else []


def foot_signal_members(model, names, feet=None):
    """{derived signal name: the recorded signals it is made of}: foot.<f>.fn/ft (sums) and
    walker.support (the normal forces of every foot, in feet order)."""
    feet = feet_of(model) if feet is None else feet
    if not feet:
        return {}
    cn = model.contact_names
    out = {}
    for f in feet:
        for kind in ("fn", "ft"):
            out[f"foot.{f.name}.{kind}"] = [f"contact.{cn[k]}.{kind}" for k in f.points]
    missing = [m for ms in out.values() for m in ms if m not in names]
    if missing:
        return {}
    out[SUPPORT] = [f"foot.{f.name}.fn" for f in feet]
    return out


def support_phase(foot_normal_forces) -> np.ndarray:
    """0 / 1 / 2 per row: how many feet carry load (capped at 2), from the feet's normal forces
    (a list of columns)."""
    loaded = sum((np.asarray(f, float) > LOADED_N).astype(np.int64) for f in foot_normal_forces)
    return np.minimum(loaded, 2).astype(float)


def derived_column(name, members, read):
    """The derived signal `name` from its members (`read(name)` gives a recorded or derived column)."""
    cols = [read(m) for m in members]
    if name == SUPPORT:
        return support_phase(cols)
    out = np.array(cols[0], float)
    for c in cols[1:]:
        out += c
    return out


def foot_plot_signals(model, names):
    """(normal, tangential) derived force signals of the feet, for the window's plot."""
    members = foot_signal_members(model, names)
    fn = [n for n in members if n.endswith(".fn") and n.startswith("foot.")]
    ft = [n for n in members if n.endswith(".ft") and n.startswith("foot.")]
    return fn, ft


# ------------------------------------------------------------------ at one row
def centre_of_mass(model, q) -> np.ndarray:
    """World position of the whole mechanism's centre of mass at q."""
    from nsgui.engine.codes import BF_MASS
    masses = np.asarray(model.arrays.bf[:, BF_MASS], float)
    com = np.asarray(model.com_positions(np.asarray(q, float)), float).reshape(-1, 2)
    return masses @ com / masses.sum()


def centre_of_pressure(model, q, fn, feet=None):
    """World point where the resultant of the ground's normal forces acts: Σ fₙ p / Σ fₙ over the
    ground contact points (fn: every contact point's normal force, model order), None when no foot
    is loaded."""
    feet = feet_of(model) if feet is None else feet
    ks = [k for f in feet for k in f.points]
    if not ks:
        return None
    w = np.asarray(fn, float)[ks]
    total = w.sum()
    if not total > LOADED_N:
        return None
    _gap, points, _normal = model.contact_frames(np.asarray(q, float))
    return np.asarray(points, float).reshape(-1, 2)[ks].T @ w / total


# ------------------------------------------------------------------ live readouts
SPEED_WINDOW = 1.0  # s: the speed readout is the centre of mass's mean forward speed over this


def touchdowns(t, foot_fn_columns, stop):
    """Steps up to row `stop` (excluded), as the walker metrics count them (engine/walker.py: a foot
    landing after ≥ 50 ms in the air; a foot's first landing steps only if another foot stood at row 1). Row 0 (the initial state: no force
    yet) is left out."""
    from nsgui.engine.walker import walker_metrics
    if stop < 2:
        return 0
    loaded = np.column_stack([np.asarray(f[1:stop], float) > 0.0 for f in foot_fn_columns])
    return walker_metrics(t[1:stop], np.zeros((stop - 1, 2)), loaded)["steps"]


class Touchdowns:
    """`touchdowns(t, feet, stop)` of a growing history, kept up to date incrementally: the rows where
    a step lands are found once (only the new rows are read, and only the feet's lift-offs and
    landings go through Python), so a readout at any row is a search, not a pass over the whole
    history (that pass cost ~10 ms per readout after a minute of a walker's run)."""

    def __init__(self):
        self.reset()

    def reset(self, key=None):
        self.key, self.n = key, 0
        self.rows = np.zeros(0, np.int64)  # rows of the steps found so far, increasing
        self._state = None  # per foot: [loaded at row n - 1, was on, time of the last lift-off]

    def count(self, t, foot_fn_columns, stop, key=None):
        """touchdowns(t, foot_fn_columns, stop); `key` names the history (another one starts over)."""
        from nsgui.engine.walker import MIN_AIR
        n = min([len(t)] + [len(f) for f in foot_fn_columns])
        if key != self.key or n < self.n or (self._state is not None and len(self._state) != len(foot_fn_columns)):
            self.reset(key)
        if n > max(self.n, 1):
            first = self._state is None  # row 0 is left out; row 1 starts each foot's state
            a = 1 if first else self.n
            if first:  # as walker._landings: a foot in the air while another stands lifted off at row 1
                supported = any(f[1] > 0.0 for f in foot_fn_columns)
                self._state = [[bool(f[1] > 0.0), supported or bool(f[1] > 0.0),
                                t[1] if supported and not f[1] > 0.0 else None] for f in foot_fn_columns]
            found = []
            for f, st in zip(foot_fn_columns, self._state):
                on = np.concatenate([[st[0]], np.asarray(f[a:n], float) > 0.0]).astype(np.int8)
                changes = np.flatnonzero(np.diff(on)) + a  # rows where the foot lands or lifts off
                for r in changes.tolist():
                    if on[r - a + 1]:  # lands
                        if st[1] and st[2] is not None and t[r] - st[2] >= MIN_AIR - 1e-12:
                            found.append(r)
                        st[1], st[2] = True, None
                    else:
                        st[2] = t[r]
                st[0] = bool(on[-1])
            if found:
                self.rows = np.concatenate([self.rows, np.sort(np.array(found, np.int64))])
            self.n = n
        return int(np.searchsorted(self.rows, stop, "left"))


def walker_readouts(model, column, row, feet=None, steps=None, key=None):
    """The live readouts of a walker at history row `row`: steps so far (the walker metrics'), the
    centre of mass's mean forward speed over the last SPEED_WINDOW seconds, its position, the
    support phase. `column(name)` gives a recorded or derived column (the window's column cache);
    `steps`, a Touchdowns kept by the caller, counts the steps incrementally (`key`: the history's)."""
    feet = feet_of(model) if feet is None else feet
    if not feet or row is None:
        return None
    t = column("t")
    fn = [column(f"foot.{f.name}.fn") for f in feet]
    q_cols = [column(f"q.{c}") for c in model.coord_names]
    first = int(np.searchsorted(t[:row + 1], t[row] - SPEED_WINDOW))
    x_now = centre_of_mass(model, [c[row] for c in q_cols])
    x_then = centre_of_mass(model, [c[first] for c in q_cols])
    dt = t[row] - t[first]
    return {"steps": touchdowns(t, fn, row + 1) if steps is None else steps.count(t, fn, row + 1, key=key),
            "speed": (x_now[0] - x_then[0]) / dt if dt > 0 else float("nan"),
            "com_x": float(x_now[0]), "com_y": float(x_now[1]),
            "support": SUPPORT_LABELS[int(support_phase([f[row:row + 1] for f in fn])[0])]}


__all__ = ["touchdowns", "Touchdowns", "walker_readouts", "Foot", "feet_of", "foot_signal_members", "support_phase", "derived_column", "foot_plot_signals",
           "centre_of_mass", "centre_of_pressure", "SUPPORT", "SUPPORT_LABELS"]
