"""Check a scene in its JSON form and bring it to canonical form (defaults filled, numbers as float,
axes and normals normalized). Every problem is collected with its path; nothing here raises for bad
input. `scene.py` turns the canonical dict into dataclasses; `validate_scene` goes the other way.
"""
from __future__ import annotations

import difflib
import math
import numbers
import re
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from .mass_properties import body_mass_properties

FORMAT_TAG = "nsgui-scene"
VERSION = 1

# Keys of each object, in file order. Type-dependent objects list their common keys and per-type keys.
SCENE_KEYS = ["format", "version", "name", "description", "gravity", "bodies", "joints", "obstacles",
              "contacts", "forces", "actuators", "initial", "settings"]
BODY_KEYS = ["name", "mass", "inertia", "density", "com", "shapes", "color"]
SHAPE_COMMON = ["name", "type", "offset", "angle"]
SHAPE_KEYS = {"disk": ["radius"], "box": ["width", "height"], "capsule": ["length", "radius"],
              "polygon": ["vertices"], "point": []}
JOINT_KEYS = ["name", "type", "parent", "child", "anchor_parent", "anchor_child", "axis", "angle", "limits"]
JOINT_TYPES = ["revolute", "prismatic", "fixed", "free"]
LIMIT_KEYS = ["lower", "upper", "restitution"]
OBSTACLE_COMMON = ["name", "type"]
OBSTACLE_KEYS = {"ground": ["point", "normal"], "wall": ["point", "normal"], "segment": ["a", "b"]}
CONTACT_KEYS = ["name", "a", "b", "restitution", "friction"]
FORCE_COMMON = ["name", "type"]
FORCE_KEYS = {"spring": ["a", "b", "stiffness", "damping", "rest_length"],
              "joint_spring": ["joint", "stiffness", "damping", "rest"],
              "force": ["body", "point", "force"]}
POINTREF_KEYS = ["body", "point"]
ACTUATOR_KEYS = ["name", "joint", "limit", "controller"]
CONTROLLER_COMMON = ["type"]
CONTROLLER_KEYS = {"none": [], "constant": ["value"],
                   "pd": ["kp", "kd", "target", "target_v", "feedforward", "gravity_compensation", "period"]}
INITIAL_KEYS = ["q", "v"]
SETTINGS_KEYS = ["dt", "duration", "theta", "gamma", "solver", "tolerance", "max_iterations", "projection",
                 "impact_threshold"]
SOLVERS = ["auto", "lemke", "nsgs"]
CONTACT_B_TYPES = ("disk", "box", "capsule", "polygon")
DEFAULT_COLOR = "#4c8bd6"
MAX_MAGNITUDE = 1e12
# Settings ranges: every step of the compiled kernel must end in bounded time (Ctrl-C is checked
# between chunks of steps), and no count may overflow the kernel's 64-bit integers.
MIN_DT = 1e-9              # s; below it t + h == t long before any interesting time
MAX_DURATION = 1e7         # s
MAX_STEPS = 1e12           # duration / dt
MIN_TOLERANCE = 1e-16      # double precision: a smaller residual cannot be reached
MAX_ITERATIONS = 100_000   # NSGS sweeps per step (Lemke's pivots are bounded by the problem size)
MAX_IMPACT_THRESHOLD = 1e3 # m/s
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
            self.add(path, f"must be > {_g(gt)}")
            return _BAD
        if ge is not None and not x >= ge:
            self.add(path, f"must be >= {_g(ge)}")
            return _BAD
        if le is not None and not x <= le:
            self.add(path, f"must be <= {_g(le)}")
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
            self.add(path, f"must be >= {lo}")
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

    def field(self, d, key, path, check, default, **kw):
        """Check `d[key]` with `check` (a method name); absent → default; bad → default (reported)."""
        if key not in d:
            return default, True
        out = getattr(self, check)(d[key], f"{path}.{key}" if path else key, **kw)
        if out is _BAD:
            return default, False
        return out, True


# ---------------------------------------------------------------- objects

def _check_shape(c: _Checker, d, path, index):
    all_extra = sorted({k for ks in SHAPE_KEYS.values() for k in ks})
    if not isinstance(d, dict):
        c.add(path, f"must be an object, not {_kind(d)}")
        return None
    t = d.get("type", _BAD)
    t = c.enum(t, f"{path}.type", list(SHAPE_KEYS)) if "type" in d else _BAD
    extra = SHAPE_KEYS[t] if t is not _BAD else all_extra
    c.obj(d, path, SHAPE_COMMON + extra, ["type"] + (["vertices"] if t == "polygon" else [])
          + (["radius"] if t == "disk" else []) + (["width", "height"] if t == "box" else [])
          + (["length"] if t == "capsule" else []))
    out = {"type": t if t is not _BAD else "point", "ok": t is not _BAD}
    name, ok = c.field(d, "name", path, "name", None)
    out["name"] = name if name is not None else f"{out['type']}{index}"
    out["offset"], _ = c.field(d, "offset", path, "vec2", [0.0, 0.0])
    out["angle"], _ = c.field(d, "angle", path, "num", 0.0)
    good = ok and t is not _BAD
    if t == "disk":
        out["radius"], g = c.field(d, "radius", path, "num", 1.0, gt=0)
        good &= g and "radius" in d
    elif t == "box":
        out["width"], g1 = c.field(d, "width", path, "num", 1.0, gt=0)
        out["height"], g2 = c.field(d, "height", path, "num", 1.0, gt=0)
        good &= g1 and g2 and "width" in d and "height" in d
    elif t == "capsule":
        out["length"], g1 = c.field(d, "length", path, "num", 1.0, gt=0)
        out["radius"], g2 = c.field(d, "radius", path, "num", 0.0, ge=0)
        good &= g1 and g2 and "length" in d
    elif t == "polygon":
        verts = _check_polygon(c, d.get("vertices"), f"{path}.vertices") if "vertices" in d else None
        good &= verts is not None
        out["vertices"] = verts if verts is not None else [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    out["ok"] = good
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


def _check_body(c: _Checker, d, path):
    if c.obj(d, path, BODY_KEYS, ["name"]) is None:
        return None
    out = {}
    out["name"], _ = c.field(d, "name", path, "name", None)
    if out["name"] == "world":
        c.add(f"{path}.name", "'world' is reserved for the fixed frame")
        out["name"] = None
    out["mass"], g1 = c.field(d, "mass", path, "num", None, gt=0, nullable=True)
    out["inertia"], g2 = c.field(d, "inertia", path, "num", None, ge=0, nullable=True)
    out["density"], g3 = c.field(d, "density", path, "num", None, gt=0, nullable=True)
    out["com"], g4 = c.field(d, "com", path, "vec2", None, nullable=True)
    mass_ok = g1 and g2 and g3 and g4  # else the mass checks would repeat what is already reported
    shapes = c.listof(d.get("shapes", []), f"{path}.shapes")
    out["shapes"] = [_check_shape(c, s, f"{path}.shapes[{j}]", j) for j, s in enumerate(shapes)]
    color = d.get("color", DEFAULT_COLOR)
    if not (isinstance(color, str) and _COLOR.match(color)):
        c.add(f"{path}.color", f"must be a colour \"#rrggbb\", not {_short(color)}")
        color = DEFAULT_COLOR
    out["color"] = color
    _unique(c, out["shapes"], f"{path}.shapes", "shape")
    out["_mass_ok"] = mass_ok
    return out


def _check_joint(c: _Checker, d, path):
    if c.obj(d, path, JOINT_KEYS, ["name", "type", "child"]) is None:
        return None
    out = {}
    out["name"], _ = c.field(d, "name", path, "name", None)
    out["type"], _ = c.field(d, "type", path, "enum", None, choices=JOINT_TYPES)
    out["parent"], _ = c.field(d, "parent", path, "string", "world")
    out["child"], _ = c.field(d, "child", path, "string", None)
    out["anchor_parent"], _ = c.field(d, "anchor_parent", path, "vec2", [0.0, 0.0])
    out["anchor_child"], _ = c.field(d, "anchor_child", path, "vec2", [0.0, 0.0])
    out["axis"], _ = c.field(d, "axis", path, "vec2", [1.0, 0.0], nonzero=True)
    out["angle"], _ = c.field(d, "angle", path, "num", 0.0)
    out["limits"] = None
    lim = d.get("limits")
    lpath = f"{path}.limits"
    if lim is not None and c.obj(lim, lpath, LIMIT_KEYS) is not None:
        lo, _ = c.field(lim, "lower", lpath, "num", None, nullable=True)
        hi, _ = c.field(lim, "upper", lpath, "num", None, nullable=True)
        e, _ = c.field(lim, "restitution", lpath, "num", 0.0, ge=0, le=1)
        if lo is not None and hi is not None and lo > hi:
            c.add(lpath, f"lower ({_g(lo)}) > upper ({_g(hi)})")
        if out["type"] in ("fixed", "free"):
            c.add(lpath, f"only 1-dof joints (revolute, prismatic) can have limits, not a {out['type']} joint")
        out["limits"] = {"lower": lo, "upper": hi, "restitution": e}
    return out


def _check_obstacle(c: _Checker, d, path):
    if not isinstance(d, dict):
        c.add(path, f"must be an object, not {_kind(d)}")
        return None
    t = c.enum(d["type"], f"{path}.type", list(OBSTACLE_KEYS)) if "type" in d else _BAD
    extra = OBSTACLE_KEYS[t] if t is not _BAD else ["point", "normal", "a", "b"]
    c.obj(d, path, OBSTACLE_COMMON + extra, ["name", "type"] + (["a", "b"] if t == "segment" else []))
    out = {"type": t if t is not _BAD else None}
    out["name"], _ = c.field(d, "name", path, "name", None)
    if t in ("ground", "wall"):
        out["point"], _ = c.field(d, "point", path, "vec2", [0.0, 0.0])
        out["normal"], _ = c.field(d, "normal", path, "vec2", [0.0, 1.0], nonzero=True)
    elif t == "segment":
        out["a"], g1 = c.field(d, "a", path, "vec2", None)
        out["b"], g2 = c.field(d, "b", path, "vec2", None)
        if out["a"] is not None and out["b"] is not None and math.dist(out["a"], out["b"]) < 1e-12:
            c.add(path, "segment has zero length (a == b)")
    return out


def _check_shaperef(c: _Checker, d, path, allow_obstacle):
    keys = ["body", "shape"] + (["obstacle"] if allow_obstacle else [])
    if c.obj(d, path, keys) is None:
        return None
    if allow_obstacle and "obstacle" in d:
        if "body" in d or "shape" in d:
            c.add(path, "give either 'obstacle' or 'body' and 'shape', not both")
        ob, _ = c.field(d, "obstacle", path, "string", None)
        return {"obstacle": ob, "body": None, "shape": None}
    missing = [k for k in ("body", "shape") if k not in d]
    if missing:
        what = "'obstacle' or " if allow_obstacle and len(missing) == 2 else ""
        c.add(path, f"missing required key {what}{' and '.join(repr(k) for k in missing)}")
    body, _ = c.field(d, "body", path, "string", None)
    shape, _ = c.field(d, "shape", path, "string", None)
    return {"obstacle": None, "body": body, "shape": shape}


def _check_contact(c: _Checker, d, path):
    if c.obj(d, path, CONTACT_KEYS, ["name", "a", "b"]) is None:
        return None
    out = {}
    out["name"], _ = c.field(d, "name", path, "name", None)
    out["a"] = _check_shaperef(c, d["a"], f"{path}.a", False) if "a" in d else None
    out["b"] = _check_shaperef(c, d["b"], f"{path}.b", True) if "b" in d else None
    out["restitution"], _ = c.field(d, "restitution", path, "num", 0.0, ge=0, le=1)
    out["friction"], _ = c.field(d, "friction", path, "num", 0.0, ge=0)
    return out


def _check_pointref(c: _Checker, d, path):
    if c.obj(d, path, POINTREF_KEYS, ["body"]) is None:
        return None
    body, _ = c.field(d, "body", path, "string", None)
    point, _ = c.field(d, "point", path, "vec2", [0.0, 0.0])
    return {"body": body, "point": point}


def _check_force(c: _Checker, d, path):
    if not isinstance(d, dict):
        c.add(path, f"must be an object, not {_kind(d)}")
        return None
    t = c.enum(d["type"], f"{path}.type", list(FORCE_KEYS)) if "type" in d else "spring"
    extra = FORCE_KEYS[t] if t is not _BAD else sorted({k for ks in FORCE_KEYS.values() for k in ks})
    req = {"spring": ["a", "b"], "joint_spring": ["joint"], "force": ["body", "force"]}.get(t, [])
    c.obj(d, path, FORCE_COMMON + extra, ["name"] + req)
    out = {"type": t if t is not _BAD else None}
    out["name"], _ = c.field(d, "name", path, "name", None)
    if t == "spring":
        out["a"] = _check_pointref(c, d["a"], f"{path}.a") if "a" in d else None
        out["b"] = _check_pointref(c, d["b"], f"{path}.b") if "b" in d else None
        out["stiffness"], _ = c.field(d, "stiffness", path, "num", 0.0, ge=0)
        out["damping"], _ = c.field(d, "damping", path, "num", 0.0, ge=0)
        out["rest_length"], _ = c.field(d, "rest_length", path, "num", None, ge=0, nullable=True)
    elif t == "joint_spring":
        out["joint"], _ = c.field(d, "joint", path, "string", None)
        out["stiffness"], _ = c.field(d, "stiffness", path, "num", 0.0, ge=0)
        out["damping"], _ = c.field(d, "damping", path, "num", 0.0, ge=0)
        out["rest"], _ = c.field(d, "rest", path, "num", 0.0)
    elif t == "force":
        out["body"], _ = c.field(d, "body", path, "string", None)
        out["point"], _ = c.field(d, "point", path, "vec2", [0.0, 0.0])
        out["force"], _ = c.field(d, "force", path, "vec2", [0.0, 0.0])
    return out


def _check_controller(c: _Checker, d, path):
    if not isinstance(d, dict):
        c.add(path, f"must be an object, not {_kind(d)}")
        return {"type": "none"}
    t = c.enum(d["type"], f"{path}.type", list(CONTROLLER_KEYS)) if "type" in d else "none"
    extra = CONTROLLER_KEYS[t] if t is not _BAD else sorted({k for ks in CONTROLLER_KEYS.values() for k in ks})
    c.obj(d, path, CONTROLLER_COMMON + extra)
    out = {"type": t if t is not _BAD else "none"}
    if t == "constant":
        out["value"], _ = c.field(d, "value", path, "num", 0.0)
    elif t == "pd":
        out["kp"], _ = c.field(d, "kp", path, "num", 0.0, ge=0)
        out["kd"], _ = c.field(d, "kd", path, "num", 0.0, ge=0)
        out["target"], _ = c.field(d, "target", path, "num", 0.0)
        out["target_v"], _ = c.field(d, "target_v", path, "num", 0.0)
        out["feedforward"], _ = c.field(d, "feedforward", path, "num", 0.0)
        out["gravity_compensation"], _ = c.field(d, "gravity_compensation", path, "boolean", False)
        out["period"], _ = c.field(d, "period", path, "num", None, gt=0, nullable=True)
    return out


def _check_actuator(c: _Checker, d, path):
    if c.obj(d, path, ACTUATOR_KEYS, ["name", "joint"]) is None:
        return None
    out = {}
    out["name"], _ = c.field(d, "name", path, "name", None)
    out["joint"], _ = c.field(d, "joint", path, "string", None)
    out["limit"], _ = c.field(d, "limit", path, "num", None, gt=0, nullable=True)
    out["controller"] = _check_controller(c, d["controller"], f"{path}.controller") \
        if "controller" in d else {"type": "none"}
    return out


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


def _check_settings(c: _Checker, d, path):
    out = {"dt": 0.001, "duration": 5.0, "theta": 0.5, "gamma": 0.5, "solver": "auto", "tolerance": 1e-10,
           "max_iterations": 1000, "projection": True, "impact_threshold": 1e-6}
    if c.obj(d, path, SETTINGS_KEYS) is None:
        return out
    out["dt"], _ = c.field(d, "dt", path, "num", out["dt"], ge=MIN_DT, le=MAX_DURATION)
    out["duration"], _ = c.field(d, "duration", path, "num", out["duration"], gt=0, le=MAX_DURATION)
    out["theta"], _ = c.field(d, "theta", path, "num", out["theta"], ge=0.5, le=1)
    out["gamma"], _ = c.field(d, "gamma", path, "num", out["gamma"], ge=0, le=1)
    out["solver"], _ = c.field(d, "solver", path, "enum", out["solver"], choices=SOLVERS)
    out["tolerance"], _ = c.field(d, "tolerance", path, "num", out["tolerance"], ge=MIN_TOLERANCE, le=1)
    out["max_iterations"], _ = c.field(d, "max_iterations", path, "integer", out["max_iterations"], ge=1,
                                       le=MAX_ITERATIONS)
    out["projection"], _ = c.field(d, "projection", path, "boolean", out["projection"])
    out["impact_threshold"], _ = c.field(d, "impact_threshold", path, "num", out["impact_threshold"], ge=0,
                                         le=MAX_IMPACT_THRESHOLD)
    if "dt" in d and "duration" in d and out["dt"] > out["duration"]:
        c.add(f"{path}.dt", f"time step {_g(out['dt'])} is longer than the duration {_g(out['duration'])}")
    elif out["duration"] / out["dt"] > MAX_STEPS:
        c.add(f"{path}.duration", f"{_g(out['duration'])} s at dt = {_g(out['dt'])} s is "
              f"{out['duration'] / out['dt']:.3g} steps, more than the {MAX_STEPS:.0e} a run may take")
    return out


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
    return (out if not c.problems else None), c.problems


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
    c.obj(d, "scene", SCENE_KEYS, [])
    out = {"format": FORMAT_TAG, "version": VERSION}
    out["name"], _ = c.field(d, "name", "", "string", "")
    out["description"], _ = c.field(d, "description", "", "string", "")
    out["gravity"], _ = c.field(d, "gravity", "", "vec2", [0.0, -9.81])
    for key, fn in (("bodies", _check_body), ("joints", _check_joint), ("obstacles", _check_obstacle),
                    ("contacts", _check_contact), ("forces", _check_force), ("actuators", _check_actuator)):
        items = c.listof(d.get(key, []), key)
        out[key] = [fn(c, it, f"{key}[{i}]") for i, it in enumerate(items)]
        _unique(c, out[key], key, {"bodies": "body", "forces": "force element"}.get(key, key[:-1]))
    ini = d.get("initial", {})
    out["initial"] = {"q": {}, "v": {}}
    if c.obj(ini, "initial", INITIAL_KEYS) is not None:
        out["initial"]["q"] = _check_coord_map(c, ini.get("q", {}), "initial.q")
        out["initial"]["v"] = _check_coord_map(c, ini.get("v", {}), "initial.v")
    out["settings"] = _check_settings(c, d.get("settings", {}), "settings")
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
        elif f["type"] == "force" and f["body"] is not None and f["body"] not in bodies:
            c.add(f"{p}.body", f"no body named {_short(f['body'])}")

    # actuators
    for i, a in enumerate(s["actuators"]):
        if a is not None and a["joint"] is not None:
            _resolve_coordinate(c, a["joint"], f"actuators[{i}].joint", coords, joint_by_name)

    # initial state
    for key in ("q", "v"):
        for name in s["initial"][key]:
            if name not in coords:
                near = difflib.get_close_matches(name, list(coords), n=1)
                hint = f" (did you mean {_short(near[0])}?)" if near else \
                    (f" (coordinates: {', '.join(list(coords)[:8])}{', ...' if len(coords) > 8 else ''})"
                     if coords else " (the scene has no coordinates)")
                c.add(f"initial.{key}[{_short(name)}]", f"unknown coordinate {_short(name)}{hint}")


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
    if not b["_mass_ok"] or any(sh is None or not sh["ok"] for sh in b["shapes"]):
        return  # problems already reported
    if b["mass"] is None and b["density"] is None:
        c.add(path, f"body {_short(b['name'])} needs a mass or a density")
        return
    ns = SimpleNamespace(**{k: b[k] for k in BODY_KEYS if k != "shapes"},
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
