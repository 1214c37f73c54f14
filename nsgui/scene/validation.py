"""Check a scene in its JSON form and bring it to canonical form (defaults filled, numbers as float,
axes and normals normalized). Every problem is collected with its path; nothing here raises for bad
input. Keys, kinds, defaults and ranges come from schema.py, field by field in file order; what is
written here by hand is the semantic part: names, references, loops, mass, convexity. model.py turns
the canonical dict into dataclasses; `validate_scene` goes the other way.
"""
from __future__ import annotations

import difflib
import math
import numbers
import re
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from .controller_types import PER_ACTUATOR
from .mass_properties import body_mass_properties
from .schema import (WALKER, ACTUATOR, BODY, CONTACT, CONTACT_SWITCH, CONTROLLER, CONTROLLER_BLOCK, FORCE, TRAJECTORY, FORMAT_TAG, INITIAL, JOINT, JOINT_LIMITS, LOOP,
                     MAX_ITERATIONS, MAX_MAGNITUDE, MAX_STEPS, MIN_TOLERANCE, OBSTACLE, POINT_REF, SCENE, SETTINGS,
                     SHAPE, SHAPE_REF, SPECS, VERSION)

__all__ = ["Problem", "SceneError", "check_scene_dict", "joint_coordinates", "topological_order", "FORMAT_TAG",
           "VERSION", "MAX_ITERATIONS", "MIN_TOLERANCE"]

# the shapes the second side (b) of a contact may be: the engine has no gap function against a point
CONTACT_B_TYPES = ("disk", "box", "capsule", "polygon")
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
_BAD = object()  # a value that failed its check (already reported)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scene: where (`bodies[2].mass`) and what (`must be > 0`)."""
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class SceneError(Exception):
    """A scene that cannot be used; `problems` lists every problem, `str()` gives one per line."""

    def __init__(self, problems):
        if isinstance(problems, (str, Problem)):
            problems = [problems]
        self.problems = [p if isinstance(p, Problem) else Problem("", str(p)) for p in problems]
        super().__init__("\n".join(str(p) for p in self.problems))


def joint_coordinates(name: str, jtype: str) -> list[str]:
    """Coordinate names of one joint: `[]` fixed, `[name]` 1-dof, `[name.x, name.y, name.theta]` free."""
    if jtype == "fixed":
        return []
    if jtype == "free":
        return [f"{name}.x", f"{name}.y", f"{name}.theta"]
    return [name]


def topological_order(joints: list[tuple[str, str]]) -> list[int]:
    """Stable parent-first order of joints given as (parent, child): repeatedly take the first joint
    (in list order) whose parent is the world or already placed. Joints in loops go last, in order."""
    placed_bodies = {"world"}
    remaining = list(range(len(joints)))
    order: list[int] = []
    progress = True
    while remaining and progress:
        progress = False
        for k, idx in enumerate(remaining):
            parent, child = joints[idx]
            if parent in placed_bodies:
                order.append(idx)
                placed_bodies.add(child)
                del remaining[k]
                progress = True
                break
    return order + remaining


# ---------------------------------------------------------------- primitive checks

def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, numbers.Real):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _short(v, limit: int = 40) -> str:
    """repr of a value cut to a readable length (messages quote what the file holds)."""
    r = repr(v)
    return r if len(r) <= limit else r[:limit - 3] + "..."


def _g(x: float) -> str:
    return f"{x:g}"


class _Checker:
    def __init__(self):
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    # numbers -----------------------------------------------------------
    def num(self, v, path, *, gt=None, ge=None, le=None, nullable=False):
        if v is None:
            if nullable:
                return None
            self.add(path, "must be a number, not null")
            return _BAD
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            self.add(path, f"must be a number{' or null' if nullable else ''}, not {_kind(v)}")
            return _BAD
        try:
            x = float(v)
        except (OverflowError, ValueError, TypeError):
            self.add(path, "number out of range")
            return _BAD
        if not math.isfinite(x):
            self.add(path, "must be a finite number")
            return _BAD
        lo = ge if ge is not None else gt
        if lo is not None and le is not None and not ((x >= lo if ge is not None else x > lo) and x <= le):
            # name the field's own range, not the global magnitude bound
            self.add(path, f"must be in {'[' if ge is not None else '('}{_g(lo)}, {_g(le)}], not {_g(x)}")
            return _BAD
        if gt is not None and not x > gt:
            self.add(path, f"must be > {_g(gt)}, not {_g(x)}")
            return _BAD
        if ge is not None and not x >= ge:
            self.add(path, f"must be >= {_g(ge)}, not {_g(x)}")
            return _BAD
        if le is not None and not x <= le:
            self.add(path, f"must be <= {_g(le)}, not {_g(x)}")
            return _BAD
        if abs(x) > MAX_MAGNITUDE:  # keeps every derived quantity (areas, moments) finite
            self.add(path, f"must be between -{MAX_MAGNITUDE:g} and {MAX_MAGNITUDE:g}")
            return _BAD
        return x

    def integer(self, v, path, *, gt=None, ge=None, le=None):
        # JSON integers only: 1.0 or 1e3 is a float in the file, and a float where an integer is meant
        # is refused (the canonical form writes integers back as integers)
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            shown = _short(v) if isinstance(v, float) else _kind(v)
            self.add(path, f"must be an integer, not {shown}")
            return _BAD
        v = int(v)
        lo = ge if ge is not None else (gt + 1 if gt is not None else None)
        if lo is not None and le is not None and not lo <= v <= le:
            self.add(path, f"must be an integer from {lo} to {le}, not {_short(v)}")
            return _BAD
        if lo is not None and not v >= lo:
            self.add(path, f"must be >= {lo}, not {v}")
            return _BAD
        return v

    def boolean(self, v, path):
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        self.add(path, f"must be true or false, not {_kind(v)}")
        return _BAD

    def string(self, v, path, *, nullable=False):
        if v is None and nullable:
            return None
        if isinstance(v, str):
            return v
        self.add(path, f"must be a string, not {_kind(v)}")
        return _BAD

    def name(self, v, path):
        s = self.string(v, path)
        if s is _BAD:
            return _BAD
        if not s.strip():
            self.add(path, "must not be empty")
            return _BAD
        bad = sorted({c for c in s if c in ".[]"})
        if bad:
            self.add(path, f"{_short(s)} must not contain {' '.join(repr(c) for c in bad)}")
            return _BAD
        return s

    def enum(self, v, path, choices):
        if isinstance(v, str) and v in choices:
            return v
        shown = ", ".join(choices)
        if isinstance(v, str):
            self.add(path, f"unknown value {_short(v)} (expected one of: {shown})")
        else:
            self.add(path, f"must be one of: {shown}; not {_kind(v)}")
        return _BAD

    def vec2(self, v, path, *, nullable=False, nonzero=False):
        if v is None and nullable:
            return None
        if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
            v = v.tolist()
        if not isinstance(v, (list, tuple)) or len(v) != 2:
            what = f"a list of {len(v)}" if isinstance(v, (list, tuple)) else _kind(v)
            self.add(path, f"must be [x, y]{' or null' if nullable else ''}, not {what}")
            return _BAD
        x = self.num(v[0], f"{path}[0]")
        y = self.num(v[1], f"{path}[1]")
        if x is _BAD or y is _BAD:
            return _BAD
        if nonzero:
            n = math.hypot(x, y)
            if n < 1e-12:
                self.add(path, "must not be zero length")
                return _BAD
            if abs(n - 1.0) > 1e-14:  # normalized on load; already-unit vectors are kept bit for bit
                x, y = x / n, y / n
        return [x, y]

    def listof(self, v, path):
        if isinstance(v, (list, tuple)):
            return list(v)
        self.add(path, f"must be a list, not {_kind(v)}")
        return []

    def obj(self, v, path, allowed, required=()):
        """Check an object's keys. Returns the dict, or None (reported) if it is not an object."""
        if not isinstance(v, dict):
            self.add(path, f"must be an object, not {_kind(v)}")
            return None
        for k in v:
            if k not in allowed:
                hint = difflib.get_close_matches(str(k), allowed, n=1)
                self.add(path, f"unknown key {_short(k)}" + (f" (did you mean {_short(hint[0])}?)" if hint else ""))
        for k in required:
            if k not in v:
                self.add(path, f"missing required key {k!r}")
        return v

    def color(self, v, path):
        if isinstance(v, str) and _COLOR.match(v):
            return v
        self.add(path, f"must be a colour \"#rrggbb\", not {_short(v)}")
        return _BAD

    # one value of a schema field, by its kind ---------------------------
    def value(self, v, path, f):
        """The canonical value of `v` for field `f`, or _BAD (reported)."""
        k = f.kind
        if k == "number":
            return self.num(v, path, gt=f.gt, ge=f.ge, le=f.le, nullable=f.nullable)
        if k == "vec2":
            return self.vec2(v, path, nullable=f.nullable, nonzero=f.nonzero)
        if k == "name":
            return self.name(v, path)
        if k == "string":
            return self.string(v, path, nullable=f.nullable)
        if k == "object":
            return None if v is None and f.nullable else _OBJECT_CHECKS[f.of](self, v, path, f)
        if k == "list":
            check = _OBJECT_CHECKS[f.of]
            return [check(self, it, f"{path}[{i}]", f) for i, it in enumerate(self.listof(v, path))]
        if k == "enum":
            return self.enum(v, path, f.choices)
        if k == "boolean":
            return self.boolean(v, path)
        if k == "integer":
            return self.integer(v, path, gt=f.gt, ge=f.ge, le=f.le)
        if k == "color":
            return self.color(v, path)
        if k == "polygon":
            pts = _check_polygon(self, v, path)
            return _BAD if pts is None else pts
        if k == "map":
            return _check_coord_map(self, v, path)
        if k == "params":
            return _check_params(self, v, path)
        if k == "numbers":
            vals = [self.num(x, f"{path}[{i}]", gt=f.gt, ge=f.ge, le=f.le) for i, x in enumerate(self.listof(v, path))]
            return _BAD if any(x is _BAD for x in vals) else vals
        if k == "names":
            vals = [self.string(x, f"{path}[{i}]") for i, x in enumerate(self.listof(v, path))]
            return _BAD if any(x is _BAD for x in vals) else vals
        raise ValueError(f"{path}: no check for kind {k!r}")

    def field(self, d, path, f):
        """(value, ok) of field `f` in object `d`: absent → its default; bad → its fallback, reported."""
        key = f.key
        if key not in d:
            return self.absent(path, f), True
        out = self.value(d[key], f"{path}.{key}" if path else key, f)
        if out is _BAD:
            return f.fallback(), False
        return out, True

    def absent(self, path, f):
        """The value of an absent field: its default; an object field with default `{}` is an object
        of defaults."""
        if f.kind == "object" and f.default is not None:
            return self.value({}, f"{path}.{f.key}" if path else f.key, f)
        return f.fallback()

    def fill(self, d, path, fields, out) -> dict:
        """Check `fields` of object `d` in order into `out` (as `field`, inlined: the hot loop of
        loading); returns {key: ok}."""
        ok = {}
        value = self.value
        for f in fields:
            key = f.key
            if key in d:
                v = value(d[key], f"{path}.{key}" if path else key, f)
                if v is _BAD:
                    out[key], ok[key] = f.fallback(), False
                    continue
                out[key] = v
            else:
                out[key] = self.absent(path, f)
            ok[key] = True
        return ok

    def typed(self, d, path, spec):
        """The type of a typed object (_BAD if wrong or missing: reported) after checking its keys
        against that type's; None if `d` is not an object (reported)."""
        if not isinstance(d, dict):
            self.add(path, f"must be an object, not {_kind(d)}")
            return None
        tk = spec.type_key
        if tk in d:
            t = self.enum(d[tk], f"{path}.{tk}", spec[tk].choices)
        else:
            t = spec.default_type if spec.default_type is not None else _BAD
        if t is _BAD:
            self.obj(d, path, spec.common_keys + spec.all_type_keys, spec.required)
        else:
            self.obj(d, path, spec.keys_of[t], spec.required_of[t])
        return t


# ---------------------------------------------------------------- objects

def _check_typed(c: _Checker, d, path, spec, fallback):
    """(type, canonical dict, {key: ok}) of a typed object; the type is `fallback` in the dict when
    wrong; (None, None, None) if `d` is not an object."""
    t = c.typed(d, path, spec)
    if t is None:
        return None, None, None
    out = {spec.type_key: t if t is not _BAD else fallback}
    ok = c.fill(d, path, spec.extra_fields, out)
    if t is not _BAD:
        ok.update(c.fill(d, path, spec.types[t].fields, out))
    return t, out, ok


def _check_shape(c: _Checker, d, path, _f=None):
    # a wrong type reads as a point (the name default and the contact-pair message use it); `ok` says
    # whether the shape may be used for the mass properties (its offset and angle never block them)
    t, out, ok = _check_typed(c, d, path, SHAPE, "point")
    if out is None:
        return None
    good = ok["name"] and t is not _BAD
    if good:
        spec = SHAPE.types[t]
        good = all(ok[k] for k in spec.keys) and all(k in d for k in spec.required)
    out["_ok"] = good
    return out


def _check_polygon(c: _Checker, v, path):
    if not isinstance(v, (list, tuple)):
        c.add(path, f"must be a list of [x, y], not {_kind(v)}")
        return None
    pts = [c.vec2(p, f"{path}[{k}]") for k, p in enumerate(v)]
    if any(p is _BAD for p in pts):
        return None
    if len(pts) < 3:
        c.add(path, f"a polygon needs at least 3 vertices, got {len(pts)}")
        return None
    p = np.asarray(pts)
    e = np.roll(p, -1, axis=0) - p
    scale = max(float(np.abs(p).max()), 1e-300)
    if (np.hypot(e[:, 0], e[:, 1]) <= 1e-12 * scale).any():
        k = int(np.argmax(np.hypot(e[:, 0], e[:, 1]) <= 1e-12 * scale))
        c.add(path, f"vertices {k} and {(k + 1) % len(pts)} coincide")
        return None
    en = np.roll(e, -1, axis=0)
    cross = e[:, 0] * en[:, 1] - e[:, 1] * en[:, 0]
    dot = (e * en).sum(axis=1)
    tol = 1e-12 * scale * scale
    if (cross < -tol).all():
        c.add(path, "vertices are clockwise; list them counter-clockwise")
        return None
    if (cross <= tol).any():
        k = (int(np.argmax(cross <= tol)) + 1) % len(pts)
        c.add(path, f"polygon is not convex (at vertex {k}); vertices must be convex and counter-clockwise")
        return None
    turning = float(np.arctan2(cross, dot).sum())
    if abs(turning - 2.0 * math.pi) > 1e-6:  # all left turns but winding twice: a star
        c.add(path, "polygon crosses itself; vertices must be convex and counter-clockwise")
        return None
    return pts


def _check_body(c: _Checker, d, path, _f=None):
    if c.obj(d, path, BODY.keys, BODY.required) is None:
        return None
    out, ok = {}, {}
    for f in BODY.fields:
        out[f.key], ok[f.key] = c.field(d, path, f)
        if f.key == "name" and out["name"] == "world":
            c.add(f"{path}.name", "'world' is reserved for the fixed frame")
            out["name"] = None
        elif f.key == "shapes":
            for j, sh in enumerate(out["shapes"]):
                if sh is not None and sh["name"] is None:
                    sh["name"] = f"{sh['type']}{j}"
    _unique(c, out["shapes"], f"{path}.shapes", SHAPE.label)
    # the mass checks need these; else they would repeat what is already reported
    out["_mass_ok"] = ok["mass"] and ok["inertia"] and ok["density"] and ok["com"]
    return out


def _check_joint(c: _Checker, d, path, _f=None):
    if c.obj(d, path, JOINT.keys, JOINT.required) is None:
        return None
    out = {}
    c.fill(d, path, JOINT.fields, out)
    lim = out["limits"]
    if lim is not None:
        lpath = f"{path}.limits"
        lo, hi = lim["lower"], lim["upper"]
        if lo is not None and hi is not None and lo > hi:
            c.add(lpath, f"lower ({_g(lo)}) > upper ({_g(hi)})")
        if out["type"] in ("fixed", "free"):
            c.add(lpath, f"only 1-dof joints (revolute, prismatic) can have limits, not a {out['type']} joint")
    return out


def _check_plain(spec):
    """The check of an object with fixed keys and no rule of its own: keys, then each field."""
    def check(c: _Checker, d, path, _f=None):
        if c.obj(d, path, spec.keys, spec.required) is None:
            return None
        out = {}
        c.fill(d, path, spec.fields, out)
        return out
    return check


def _check_obstacle(c: _Checker, d, path, _f=None):
    t, out, _ = _check_typed(c, d, path, OBSTACLE, None)
    if t == "segment" and out["a"] is not None and out["b"] is not None and math.dist(out["a"], out["b"]) < 1e-12:
        c.add(path, "segment has zero length (a == b)")
    return out


def _check_shaperef(c: _Checker, d, path, f):
    """A contact side: an obstacle (where the field allows it) or a body and one of its shapes."""
    keys = list(f.keys or SHAPE_REF.keys)
    allow_obstacle = "obstacle" in keys
    if c.obj(d, path, keys) is None:
        return None
    if allow_obstacle and "obstacle" in d:
        if "body" in d or "shape" in d:
            c.add(path, "give either 'obstacle' or 'body' and 'shape', not both")
        ob, _ = c.field(d, path, SHAPE_REF["obstacle"])
        return {"obstacle": ob, "body": None, "shape": None}
    missing = [k for k in ("body", "shape") if k not in d]
    if missing:
        what = "'obstacle' or " if allow_obstacle and len(missing) == 2 else ""
        c.add(path, f"missing required key {what}{' and '.join(repr(k) for k in missing)}")
    body, _ = c.field(d, path, SHAPE_REF["body"])
    shape, _ = c.field(d, path, SHAPE_REF["shape"])
    return {"obstacle": None, "body": body, "shape": shape}


def _check_force(c: _Checker, d, path, _f=None):
    return _check_typed(c, d, path, FORCE, None)[1]


def _check_controller(c: _Checker, d, path, _f=None):
    out = _check_typed(c, d, path, CONTROLLER, CONTROLLER.default_type)[1]
    return out if out is not None else {CONTROLLER.type_key: CONTROLLER.default_type}


def _check_trajectory(c: _Checker, d, path, _f=None):
    out = _check_typed(c, d, path, TRAJECTORY, TRAJECTORY.default_type)[1]
    if out is None:
        return {TRAJECTORY.type_key: TRAJECTORY.default_type, "value": 0.0}
    t = out["type"]
    if t == "cubic" and out["t1"] <= out["t0"]:
        c.add(f"{path}.t1", f"must be > t0 ({_g(out['t0'])}), not {_g(out['t1'])}")
    elif t == "ramp" and out["t1"] is not None and out["t1"] < out["t0"]:
        c.add(f"{path}.t1", f"must be ≥ t0 ({_g(out['t0'])}), not {_g(out['t1'])}")
    elif t == "spline" and out["times"] is not None and out["values"] is not None:
        times, values = out["times"], out["values"]
        if len(times) < 2:
            c.add(f"{path}.times", f"a spline needs at least 2 points, got {len(times)}")
        elif any(b <= a for a, b in zip(times, times[1:])):
            k = next(i for i in range(1, len(times)) if times[i] <= times[i - 1])
            c.add(f"{path}.times[{k}]", f"times must increase: {_g(times[k])} after {_g(times[k - 1])}")
        if len(values) != len(times):
            c.add(f"{path}.values", f"one value per time: {len(values)} values for {len(times)} times")
    return out


def _check_controller_block(c: _Checker, d, path, _f=None):
    return _check_typed(c, d, path, CONTROLLER_BLOCK, None)[1]


def _check_coord_map(c: _Checker, d, path):
    if not isinstance(d, dict):
        c.add(path, f"must be an object {{coordinate: value}}, not {_kind(d)}")
        return {}
    out = {}
    for k, v in d.items():
        if not isinstance(k, str):
            c.add(path, f"coordinate names must be strings, not {_kind(k)}")
            continue
        x = c.num(v, f"{path}[{_short(k)}]")
        if x is not _BAD:
            out[k] = x
    return out


def _check_params(c: _Checker, d, path):
    """A user controller's parameters, {name: JSON value}: only their shape here (loading runs no
    code); names, kinds and ranges are checked against the class when the scene is compiled."""
    if not isinstance(d, dict):
        c.add(path, f"must be an object {{name: value}}, not {_kind(d)}")
        return {}
    out = {}
    for k, v in d.items():
        if not isinstance(k, str):
            c.add(path, f"parameter names must be strings, not {_kind(k)}")
        elif isinstance(v, dict):
            c.add(f"{path}.{k}", "must be a number, boolean, string or list, not an object")
        else:
            out[k] = v
    return out


def _check_initial(c: _Checker, d, path, _f=None):
    out = {f.key: f.fallback() for f in INITIAL.fields}
    if c.obj(d, path, INITIAL.keys) is not None:
        c.fill(d, path, INITIAL.fields, out)
    return out


def _check_settings(c: _Checker, d, path, _f=None):
    out = {f.key: f.fallback() for f in SETTINGS.fields}
    if c.obj(d, path, SETTINGS.keys) is None:
        return out
    c.fill(d, path, SETTINGS.fields, out)
    if "dt" in d and "duration" in d and out["dt"] > out["duration"]:
        c.add(f"{path}.dt", f"time step {_g(out['dt'])} is longer than the duration {_g(out['duration'])}")
    elif out["duration"] / out["dt"] > MAX_STEPS:
        c.add(f"{path}.duration", f"{_g(out['duration'])} s at dt = {_g(out['dt'])} s is "
              f"{out['duration'] / out['dt']:.3g} steps, more than the {MAX_STEPS:.0e} a run may take")
    return out


# the check of each object spec (values of object fields and items of list fields)
_OBJECT_CHECKS = {
    "Shape": _check_shape, "Body": _check_body, "JointLimits": _check_plain(JOINT_LIMITS), "Joint": _check_joint,
    "Obstacle": _check_obstacle, "ShapeRef": _check_shaperef, "Contact": _check_plain(CONTACT),
    "PointRef": _check_plain(POINT_REF), "LoopJoint": _check_plain(LOOP), "ContactSwitch": _check_plain(CONTACT_SWITCH), "ForceElement": _check_force, "Controller": _check_controller,
    "Trajectory": _check_trajectory, "ControllerBlock": _check_controller_block,
    "Actuator": _check_plain(ACTUATOR), "Initial": _check_initial, "Settings": _check_settings,
    "Walker": _check_plain(WALKER),
}
assert set(_OBJECT_CHECKS) == set(SPECS) - {"Scene"}


def _unique(c: _Checker, items, path, what):
    seen: dict[str, int] = {}
    for i, it in enumerate(items):
        if it is None or it.get("name") is None:
            continue
        n = it["name"]
        if n in seen:
            c.add(f"{path}[{i}].name", f"duplicate {what} name {_short(n)} (also {path}[{seen[n]}])")
        else:
            seen[n] = i


# ---------------------------------------------------------------- the whole scene

def check_scene_dict(d) -> tuple[dict | None, list[Problem]]:
    """Check a scene in JSON form. Returns (canonical dict or None, problems)."""
    c = _Checker()
    try:
        out = _check_scene(c, d)
    except RecursionError:
        c.add("scene", "nested too deeply")
        out = None
    if c.problems:
        return None, c.problems
    for b in out["bodies"]:  # what the cross-checks were told, not part of the file
        del b["_mass_ok"]
        for sh in b["shapes"]:
            del sh["_ok"]
    return out, c.problems


def _check_scene(c: _Checker, d):
    if not isinstance(d, dict):
        c.add("scene", f"must be a JSON object, not {_kind(d)}")
        return None
    if "format" not in d:
        c.add("scene", f"missing required key 'format' (a scene file starts with \"format\": \"{FORMAT_TAG}\")")
    elif d["format"] != FORMAT_TAG:
        c.add("format", f"must be {FORMAT_TAG!r}, not {_short(d['format'])}: this is not an nsgui scene")
        return None
    if "version" not in d:
        c.add("scene", "missing required key 'version'")
    else:
        ver = c.integer(d["version"], "version")
        if ver is _BAD:
            return None
        if ver > VERSION:
            c.add("version", f"version {_short(ver)} is newer than this nsgui supports ({VERSION}); update nsgui")
            return None
        if ver < VERSION:
            c.add("version", f"unsupported version {_short(ver)} (this nsgui reads version {VERSION})")
            return None
    c.obj(d, "scene", SCENE.keys, [])
    out = {"format": FORMAT_TAG, "version": VERSION}
    for f in SCENE.fields:
        if f.key not in out:
            out[f.key], _ = c.field(d, "", f)
            if f.kind == "list":
                _unique(c, out[f.key], f.key, SPECS[f.of].label)
    _cross_check(c, out)
    return out


def _cross_check(c: _Checker, s: dict) -> None:
    bodies = {b["name"]: (i, b) for i, b in enumerate(s["bodies"]) if b and b.get("name") is not None}
    obstacles = {o["name"]: o for o in s["obstacles"] if o and o.get("name") is not None}
    joints = [(i, j) for i, j in enumerate(s["joints"]) if j is not None]

    # joints: parents, children, one joint per body, no loops
    parent_joints: dict[str, list[int]] = {}
    for i, j in joints:
        p = f"joints[{i}]"
        if j["parent"] is not None and j["parent"] != "world" and j["parent"] not in bodies:
            c.add(f"{p}.parent", f"no body named {_short(j['parent'])}")
        if j["child"] is not None:
            if j["child"] == "world":
                c.add(f"{p}.child", "the world cannot be a joint's child")
            elif j["child"] not in bodies:
                c.add(f"{p}.child", f"no body named {_short(j['child'])}")
            elif j["child"] == j["parent"]:
                c.add(p, f"joint connects body {_short(j['child'])} to itself")
            else:
                parent_joints.setdefault(j["child"], []).append(i)
    for name, (i, b) in bodies.items():
        js = parent_joints.get(name, [])
        if not js:
            c.add(f"bodies[{i}]", f"body {_short(name)} is not the child of any joint "
                                  "(attach it with a joint; a free joint lets it move freely)")
        elif len(js) > 1:
            c.add(f"bodies[{i}]", f"body {_short(name)} is the child of several joints: "
                                  + ", ".join(f"joints[{k}] ({_short(s['joints'][k]['name'])})" for k in js))
    _check_loops(c, s, bodies, parent_joints)
    _check_loop_joints(c, s, bodies)

    # coordinates
    coords: dict[str, tuple[int, dict]] = {}
    joint_by_name: dict[str, dict] = {}
    for i, j in joints:
        if j["name"] is None or j["type"] is None:
            continue
        joint_by_name[j["name"]] = j
        for q in joint_coordinates(j["name"], j["type"]):
            coords.setdefault(q, (i, j))

    # mass properties and the inertia a rotational degree of freedom needs
    for name, (i, b) in bodies.items():
        _check_body_mass(c, b, f"bodies[{i}]", [s["joints"][k] for k in parent_joints.get(name, [])])

    # contacts
    for i, ct in enumerate(s["contacts"]):
        if ct is None:
            continue
        p = f"contacts[{i}]"
        ta = _resolve_shape(c, ct["a"], f"{p}.a", bodies)
        tb = None
        if ct["b"] is not None and ct["b"]["obstacle"] is not None:
            if ct["b"]["obstacle"] not in obstacles:
                c.add(f"{p}.b.obstacle", f"no obstacle named {_short(ct['b']['obstacle'])}")
        else:
            tb = _resolve_shape(c, ct["b"], f"{p}.b", bodies)
            if tb is not None and tb not in CONTACT_B_TYPES:
                c.add(f"{p}.b.shape", f"unsupported contact pair {ta or '?'} vs {tb}: the second shape (b) "
                                      f"must be one of {', '.join(CONTACT_B_TYPES)} or an obstacle")
        sw = ct.get("switch")
        if sw and sw.get("reference") and sw["reference"]["body"] not in (None, "world") \
                and sw["reference"]["body"] not in bodies:
            c.add(f"{p}.switch.reference.body", f"no body named {_short(sw['reference']['body'])}")
        e, law = ct.get("restitution"), ct.get("impact_law")
        if e is not None and law == "newton" and e > 1.0:
            c.add(f"{p}.restitution", f"Newton's e_N must be in [0, 1], not {_g(e)} "
                                      "(for Moreau's e in [0, 2) set \"impact_law\": \"moreau\")")
        elif e is not None and law == "moreau" and e >= 2.0:
            c.add(f"{p}.restitution", f"Moreau's e must be < 2 (e_N = e/(2 − e)), not {_g(e)}")
        if (ct["a"] and ct["b"] and ct["a"]["body"] is not None and ct["a"]["body"] == ct["b"]["body"]):
            c.add(p, f"a and b are shapes of the same body {_short(ct['a']['body'])}")

    # forces
    for i, f in enumerate(s["forces"]):
        if f is None:
            continue
        p = f"forces[{i}]"
        if f["type"] == "spring":
            for end in ("a", "b"):
                ref = f.get(end)
                if ref and ref["body"] is not None and ref["body"] != "world" and ref["body"] not in bodies:
                    c.add(f"{p}.{end}.body", f"no body named {_short(ref['body'])}")
        elif f["type"] == "joint_spring" and f["joint"] is not None:
            _resolve_coordinate(c, f["joint"], f"{p}.joint", coords, joint_by_name)
        elif f["type"] in ("force", "impulse") and f["body"] is not None and f["body"] not in bodies:
            c.add(f"{p}.body", f"no body named {_short(f['body'])}")

    # walker
    w = s.get("walker")
    if w:
        for key, names in (("torso", [w["torso"]]), ("feet", w["feet"] or [])):
            for k, name in enumerate(names):
                if name is not None and name not in bodies:
                    c.add(f"walker.{key}" + (f"[{k}]" if key == "feet" else ""), f"no body named {_short(name)}")

    # actuators
    for i, a in enumerate(s["actuators"]):
        if a is not None and a["joint"] is not None:
            _resolve_coordinate(c, a["joint"], f"actuators[{i}].joint", coords, joint_by_name)
    _check_controller_blocks(c, s)
    _check_block_references(c, s, coords)

    # initial state
    for key in ("q", "v"):
        for name in s["initial"][key]:
            if name not in coords:
                near = difflib.get_close_matches(name, list(coords), n=1)
                hint = f" (did you mean {_short(near[0])}?)" if near else \
                    (f" (coordinates: {', '.join(list(coords)[:8])}{', ...' if len(coords) > 8 else ''})"
                     if coords else " (the scene has no coordinates)")
                c.add(f"initial.{key}[{_short(name)}]", f"unknown coordinate {_short(name)}{hint}")


def _check_controller_blocks(c, s):
    """Blocks drive existing actuators, each at most once, whose own controller is `none`; block and
    actuator names are one namespace (both name signals); a delay fits the block's queue."""
    actuators = {a["name"]: (i, a) for i, a in enumerate(s["actuators"]) if a and a.get("name") is not None}
    driven: dict[str, str] = {}
    dt = s["settings"]["dt"] or 1.0
    for k, b in enumerate(s["controllers"]):
        if b is None:
            continue
        p = f"controllers[{k}]"
        if b.get("name") in actuators:
            c.add(f"{p}.name", f"{_short(b['name'])} is also an actuator's name (actuators[{actuators[b['name']][0]}]); "
                               "controller and actuator names share the signal namespace")
        for j, name in enumerate(b.get("actuators") or []):
            if name not in actuators:
                near = difflib.get_close_matches(name, list(actuators), n=1)
                c.add(f"{p}.actuators[{j}]", f"no actuator named {_short(name)}"
                      + (f" (did you mean {_short(near[0])}?)" if near else ""))
            elif name in driven:
                c.add(f"{p}.actuators[{j}]", f"actuator {_short(name)} is already driven by controller {_short(driven[name])}")
            else:
                driven[name] = b.get("name")
                i, a = actuators[name]
                if a["controller"] and a["controller"]["type"] != "none":
                    c.add(f"{p}.actuators[{j}]", f"actuator {_short(name)} has its own controller "
                          f"(actuators[{i}].controller.type = {_short(a['controller']['type'])}); set it to \"none\"")
        if b.get("actuators") == []:
            c.add(f"{p}.actuators", "a controller drives at least one actuator")
        period = b.get("period") or dt
        if b.get("delay") and b["delay"] > 64 * period * (1 + 1e-9):
            c.add(f"{p}.delay", f"{_g(b['delay'])} s is more than 64 sampling periods ({_g(64 * period)} s)")
        targets = b.get("targets")
        if targets and b.get("actuators") is not None and len(targets) > len(b["actuators"]):
            c.add(f"{p}.targets", f"{len(targets)} trajectories for {len(b['actuators'])} actuators")


def _check_block_references(c, s, coords):
    """What a block's parameters name exists: its `contact` (a scene contact, or one point of it as
    name[k]) and its `posture` coordinates; per-actuator gains give one value or one per actuator."""
    contacts = [x["name"] for x in s["contacts"] if x and x.get("name") is not None]
    for k, b in enumerate(s["controllers"]):
        if b is None:
            continue
        p = f"controllers[{k}]"
        name = b.get("contact")
        if isinstance(name, str) and name and re.sub(r"\[\d+\]$", "", name) not in contacts:
            near = difflib.get_close_matches(name, contacts, n=1)
            c.add(f"{p}.contact", f"no contact named {_short(name)}"
                  + (f" (did you mean {_short(near[0])}?)" if near else ""))
        force = b.get("force")
        if isinstance(force, (int, float)) and force > 0 and "contact" in b and not name:
            c.add(f"{p}.contact", f"a desired contact force ({_g(force)} N) needs the contact it acts at")
        for coord in b.get("posture") or {}:
            if coord not in coords:
                near = difflib.get_close_matches(coord, list(coords), n=1)
                c.add(f"{p}.posture[{_short(coord)}]", f"unknown coordinate {_short(coord)}"
                      + (f" (did you mean {_short(near[0])}?)" if near else ""))
        n = len(b.get("actuators") or [])
        for key, may_be_empty in PER_ACTUATOR.items():
            vals = b.get(key)
            if isinstance(vals, list) and n and len(vals) not in ((0, 1, n) if may_be_empty else (1, n)):
                c.add(f"{p}.{key}", f"{len(vals)} values for {n} actuators (give one for all, or one each)")


def _check_loops(c, s, bodies, parent_joints):
    parent_of = {}
    for child, js in parent_joints.items():
        parent_of[child] = s["joints"][js[0]]["parent"]
    reported = set()
    for start in bodies:
        path, seen = [], set()
        b = start
        while b in parent_of and b not in seen:
            seen.add(b)
            path.append(b)
            b = parent_of[b]
        if b in seen:  # b is on a loop: list it parent-first, starting from its first body in file order
            loop = path[path.index(b):]
            key = frozenset(loop)
            if key in reported:
                continue
            reported.add(key)
            loop = list(reversed(loop))  # parent → child order
            k = min(range(len(loop)), key=lambda n: bodies[loop[n]][0])
            loop = loop[k:] + loop[:k]
            c.add("joints", "loop body " + " → ".join(repr(n) for n in loop + [loop[0]])
                  + " (joints must form a tree rooted at the world)")


def _check_loop_joints(c, s, bodies):
    """Loop-closing joints join two different bodies of the tree (b may be the world); their names are
    not joint names (both name coordinates or signals)."""
    joint_names = {j["name"]: i for i, j in enumerate(s["joints"]) if j and j.get("name") is not None}
    for i, lj in enumerate(s["loops"]):
        if lj is None:
            continue
        p = f"loops[{i}]"
        if lj.get("name") in joint_names:
            c.add(f"{p}.name", f"{_short(lj['name'])} is also a joint's name (joints[{joint_names[lj['name']]}])")
        for end in ("a", "b"):
            ref = lj.get(end)
            if not ref or ref["body"] is None:
                continue
            if ref["body"] == "world":
                if end == "a":
                    c.add(f"{p}.a.body", "a must be a body of the tree; put the world on side b")
            elif ref["body"] not in bodies:
                near = difflib.get_close_matches(ref["body"], list(bodies), n=1)
                c.add(f"{p}.{end}.body", f"no body named {_short(ref['body'])}"
                      + (f" (did you mean {_short(near[0])}?)" if near else ""))
        if lj.get("a") and lj.get("b") and lj["a"]["body"] is not None and lj["a"]["body"] == lj["b"]["body"]:
            c.add(p, f"loop joint connects body {_short(lj['a']['body'])} to itself")


def _resolve_shape(c, ref, path, bodies):
    """Type of the shape a {body, shape} reference names, or None (reported)."""
    if ref is None or ref["body"] is None:
        return None
    if ref["body"] == "world":
        c.add(f"{path}.body", "the world has no shapes; use an obstacle")
        return None
    if ref["body"] not in bodies:
        c.add(f"{path}.body", f"no body named {_short(ref['body'])}")
        return None
    if ref["shape"] is None:
        return None
    b = bodies[ref["body"]][1]
    for sh in b["shapes"]:
        if sh is not None and sh["name"] == ref["shape"]:
            return sh["type"]
    c.add(f"{path}.shape", f"body {_short(ref['body'])} has no shape {_short(ref['shape'])}")
    return None


def _resolve_coordinate(c, name, path, coords, joint_by_name):
    if name in coords:
        return coords[name]
    j = joint_by_name.get(name)
    if j is not None and j["type"] == "fixed":
        c.add(path, f"joint {_short(name)} is fixed and has no coordinate")
    elif j is not None and j["type"] == "free":
        c.add(path, f"joint {_short(name)} is free and has 3 coordinates; name one of "
                    + ", ".join(joint_coordinates(name, "free")))
    else:
        c.add(path, f"no joint or coordinate named {_short(name)}")
    return None


def _check_body_mass(c, b, path, parent_joints):
    if not b["_mass_ok"] or any(sh is None or not sh["_ok"] for sh in b["shapes"]):
        return  # problems already reported
    if b["mass"] is None and b["density"] is None:
        c.add(path, f"body {_short(b['name'])} needs a mass or a density")
        return
    ns = SimpleNamespace(**{k: b[k] for k in BODY.keys if k != "shapes"},
                         shapes=[SimpleNamespace(**sh) for sh in b["shapes"]])
    try:
        mass, inertia, com = body_mass_properties(ns)
    except (OverflowError, FloatingPointError):
        c.add(path, f"body {_short(b['name'])}: its mass properties overflow; check its sizes")
        return
    except ValueError:
        c.add(f"{path}.density", f"the shapes of body {_short(b['name'])} have no area, so the mass cannot come "
                                 "from the density; give mass")
        return
    if not (math.isfinite(mass) and math.isfinite(inertia)) or mass <= 0:
        c.add(path, f"body {_short(b['name'])}: mass {mass:g} from its density and shapes is not usable")
        return
    if len(parent_joints) != 1 or inertia > 0:
        return
    j = parent_joints[0]
    if j["type"] == "free":
        c.add(f"{path}.inertia", f"must be > 0: body {_short(b['name'])} is on free joint {_short(j['name'])} and can rotate"
              + ("" if b["inertia"] is not None else " (its shapes have no area, so give inertia)"))
    elif j["type"] == "revolute" and math.dist(com, j["anchor_child"]) < 1e-12:
        c.add(f"{path}.inertia", f"must be > 0: body {_short(b['name'])} turns about its centre of mass on revolute "
                                 f"joint {_short(j['name'])}")
