"""The scene: the single source of truth (docs/scene-format.md), as dataclasses whose attribute names
are the file's JSON keys, plus loading, saving (atomic) and validation.

Type-dependent objects (Shape, Obstacle, ForceElement, Controller) carry the attributes of every type;
only the keys of their `type` are written and compared.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path

from nsgui.atomic import atomic_write_text
from .json_positions import duplicate_key_position
from .mass_properties import body_mass_properties
from .validation import (CONTROLLER_COMMON, CONTROLLER_KEYS, FORCE_COMMON, FORCE_KEYS, FORMAT_TAG,
    OBSTACLE_COMMON, OBSTACLE_KEYS, SHAPE_COMMON, SHAPE_KEYS, VERSION, Problem, SceneError, check_scene_dict,
    joint_coordinates, topological_order)

__all__ = [
    "Scene", "Body", "Shape", "Joint", "JointLimits", "Obstacle", "ShapeRef", "Contact", "ForceElement",
    "PointRef", "Actuator", "Controller", "Initial", "Settings", "Problem", "SceneError",
    "scene_from_dict", "scene_to_dict", "load_scene", "loads_scene", "dumps_scene", "save_scene",
    "validate_scene", "coordinate_names", "sorted_joints", "joint_coordinates", "body_mass_properties",
    "FORMAT_TAG", "VERSION",
]


def _v(x=0.0, y=0.0):
    return field(default_factory=lambda: [x, y])


@dataclass
class Shape:
    type: str = "disk"
    name: str = ""
    offset: list = _v()
    angle: float = 0.0
    radius: float | None = None      # disk, capsule
    width: float | None = None       # box
    height: float | None = None      # box
    length: float | None = None      # capsule
    vertices: list | None = None     # polygon: [[x, y], ...] counter-clockwise


@dataclass
class Body:
    name: str = ""
    mass: float | None = None
    inertia: float | None = None
    density: float | None = None
    com: list | None = None
    shapes: list = field(default_factory=list)
    color: str = "#4c8bd6"


@dataclass
class JointLimits:
    lower: float | None = None
    upper: float | None = None
    restitution: float = 0.0


@dataclass
class Joint:
    name: str = ""
    type: str = "revolute"
    parent: str = "world"
    child: str = ""
    anchor_parent: list = _v()
    anchor_child: list = _v()
    axis: list = _v(1.0, 0.0)
    angle: float = 0.0
    limits: JointLimits | None = None


@dataclass
class Obstacle:
    name: str = ""
    type: str = "ground"
    point: list = _v()               # ground, wall
    normal: list = _v(0.0, 1.0)      # ground, wall
    a: list | None = None            # segment
    b: list | None = None            # segment


@dataclass
class ShapeRef:
    """One side of a contact: a shape of a body (`body`, `shape`) or an obstacle (`obstacle`)."""
    body: str | None = None
    shape: str | None = None
    obstacle: str | None = None


@dataclass
class Contact:
    name: str = ""
    a: ShapeRef = field(default_factory=ShapeRef)
    b: ShapeRef = field(default_factory=ShapeRef)
    restitution: float = 0.0
    friction: float = 0.0


@dataclass
class PointRef:
    body: str = "world"
    point: list = _v()


@dataclass
class ForceElement:
    name: str = ""
    type: str = "spring"
    a: PointRef | None = None        # spring
    b: PointRef | None = None        # spring
    stiffness: float = 0.0           # spring, joint_spring
    damping: float = 0.0             # spring, joint_spring
    rest_length: float | None = None  # spring
    joint: str | None = None         # joint_spring: a joint or coordinate name
    rest: float = 0.0                # joint_spring
    body: str | None = None          # force
    point: list = _v()               # force: application point in the body frame
    force: list = _v()               # force: world-frame force (N)


@dataclass
class Controller:
    type: str = "none"
    value: float = 0.0               # constant
    kp: float = 0.0                  # pd ...
    kd: float = 0.0
    target: float = 0.0
    target_v: float = 0.0
    feedforward: float = 0.0
    gravity_compensation: bool = False
    period: float | None = None


@dataclass
class Actuator:
    name: str = ""
    joint: str = ""                  # a 1-dof joint or one coordinate of a free joint ("block.x")
    limit: float | None = None
    controller: Controller = field(default_factory=Controller)


@dataclass
class Initial:
    q: dict = field(default_factory=dict)
    v: dict = field(default_factory=dict)


@dataclass
class Settings:
    dt: float = 0.001
    duration: float = 5.0
    theta: float = 0.5
    gamma: float = 0.5
    solver: str = "auto"
    tolerance: float = 1e-10
    max_iterations: int = 1000
    projection: bool = True
    impact_threshold: float = 1e-6


@dataclass
class Scene:
    format: str = FORMAT_TAG
    version: int = VERSION
    name: str = ""
    description: str = ""
    gravity: list = _v(0.0, -9.81)
    bodies: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    obstacles: list = field(default_factory=list)
    contacts: list = field(default_factory=list)
    forces: list = field(default_factory=list)
    actuators: list = field(default_factory=list)
    initial: Initial = field(default_factory=Initial)
    settings: Settings = field(default_factory=Settings)

    def with_values(self, values: dict) -> "Scene":
        """A new validated scene with `{path: value}` set (nsgui/scene/paths.py); this one is untouched."""
        from .paths import with_values
        return with_values(self, values)


# ---------------------------------------------------------------- dict → dataclasses

def _vec(v):
    return None if v is None else [float(v[0]), float(v[1])]


def _build(d: dict) -> Scene:
    """Dataclasses from the canonical dict made by check_scene_dict (already valid)."""
    def shape(s):
        return Shape(**{k: v for k, v in s.items() if k != "ok"})

    def ref(r):
        return ShapeRef(body=r["body"], shape=r["shape"], obstacle=r["obstacle"])

    def force(f):
        kw = dict(f)
        for end in ("a", "b"):
            if kw.get(end) is not None:
                kw[end] = PointRef(**kw[end])
        return ForceElement(**kw)

    return Scene(
        format=d["format"], version=d["version"], name=d["name"], description=d["description"],
        gravity=d["gravity"],
        bodies=[Body(**{**{k: v for k, v in b.items() if not k.startswith("_")},
                        "shapes": [shape(s) for s in b["shapes"]]}) for b in d["bodies"]],
        joints=[Joint(**{**j, "limits": JointLimits(**j["limits"]) if j["limits"] else None}) for j in d["joints"]],
        obstacles=[Obstacle(**o) for o in d["obstacles"]],
        contacts=[Contact(name=c["name"], a=ref(c["a"]), b=ref(c["b"]), restitution=c["restitution"],
                          friction=c["friction"]) for c in d["contacts"]],
        forces=[force(f) for f in d["forces"]],
        actuators=[Actuator(name=a["name"], joint=a["joint"], limit=a["limit"],
                            controller=Controller(**a["controller"])) for a in d["actuators"]],
        initial=Initial(q=dict(d["initial"]["q"]), v=dict(d["initial"]["v"])),
        settings=Settings(**d["settings"]),
    )


def scene_from_dict(d) -> Scene:
    """A Scene from its JSON form; raises SceneError listing every problem."""
    canonical, problems = check_scene_dict(d)
    if problems:
        raise SceneError(problems)
    return _build(canonical)


# ---------------------------------------------------------------- dataclasses → dict

def _plain(v):
    """JSON-ready copy of a value (dataclasses, lists, numpy values); anything odd passes through."""
    if is_dataclass(v) and not isinstance(v, type):
        return {f.name: _plain(getattr(v, f.name)) for f in fields(v)}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        return v.tolist()
    return v


def _typed(obj, common, per_type):
    """The keys of a type-dependent object: common keys + those of its type (or all set ones if the
    type is unknown, so that validation can still report them)."""
    if not (is_dataclass(obj) and not isinstance(obj, type)):
        return _plain(obj)
    t = getattr(obj, "type", None)
    keys = list(common) + (per_type[t] if isinstance(t, str) and t in per_type else
                           [k for ks in per_type.values() for k in ks])
    out = {}
    for k in dict.fromkeys(keys):
        if hasattr(obj, k):
            val = getattr(obj, k)
            if t in per_type or val is not None:
                out[k] = _plain(val)
    return out


def _ref_dict(r):
    if not isinstance(r, ShapeRef):
        return _plain(r)
    if r.obstacle is not None:
        return {"obstacle": r.obstacle}
    return {"body": r.body, "shape": r.shape}


def _obj_dict(v, convert):
    return convert(v) if is_dataclass(v) and not isinstance(v, type) else _plain(v)


def scene_to_dict(scene: Scene) -> dict:
    """The JSON form of a scene with every key written (defaults included). Never raises on odd
    attribute values: they are copied through so that validation can report them."""
    def body(b):
        d = _plain(b)
        if isinstance(d, dict) and isinstance(b.shapes, (list, tuple)):
            d["shapes"] = [_typed(s, SHAPE_COMMON, SHAPE_KEYS) for s in b.shapes]
        return d

    def contact(c):
        return {"name": c.name, "a": _ref_dict(c.a), "b": _ref_dict(c.b),
                "restitution": _plain(c.restitution), "friction": _plain(c.friction)}

    def actuator(a):
        return {"name": a.name, "joint": a.joint, "limit": _plain(a.limit),
                "controller": _typed(a.controller, CONTROLLER_COMMON, CONTROLLER_KEYS)}

    def lst(v, convert):
        return [_obj_dict(x, convert) for x in v] if isinstance(v, (list, tuple)) else _plain(v)

    return {
        "format": scene.format, "version": scene.version, "name": scene.name,
        "description": scene.description, "gravity": _plain(scene.gravity),
        "bodies": lst(scene.bodies, body),
        "joints": lst(scene.joints, _plain),
        "obstacles": lst(scene.obstacles, lambda o: _typed(o, OBSTACLE_COMMON, OBSTACLE_KEYS)),
        "contacts": lst(scene.contacts, contact),
        "forces": lst(scene.forces, lambda f: _typed(f, FORCE_COMMON, FORCE_KEYS)),
        "actuators": lst(scene.actuators, actuator),
        "initial": _plain(scene.initial),
        "settings": _plain(scene.settings),
    }


def validate_scene(scene: Scene) -> list[Problem]:
    """Every problem of a scene (dataclass or JSON-form dict), [] if it is valid."""
    try:
        d = scene_to_dict(scene) if isinstance(scene, Scene) else scene
    except Exception as exc:  # an object that is not a Scene at all
        return [Problem("", f"not a scene: {exc}")]
    return check_scene_dict(d)[1]


# ---------------------------------------------------------------- text and files

def _dump(v, indent: int) -> str:
    """JSON with short lists of numbers ([x, y], vertices) kept on one line."""
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = [f'{pad}  {json.dumps(k)}: {_dump(x, indent + 1)}' for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list):
        if not v:
            return "[]"
        if not any(isinstance(x, dict) for x in v):
            flat = json.dumps(v)
            if len(flat) <= 100:
                return flat
        return "[\n" + ",\n".join(f"{pad}  {_dump(x, indent + 1)}" for x in v) + "\n" + pad + "]"
    return json.dumps(v)


def dumps_scene(scene: Scene) -> str:
    return _dump(scene_to_dict(scene), 0) + "\n"


class _DuplicateKey(ValueError):
    pass


def _no_duplicate_keys(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _DuplicateKey(k)
        d[k] = v
    return d


def loads_scene(text: str, source: str = "<text>") -> Scene:
    """A Scene from JSON text; raises SceneError (bad JSON or a duplicate key: line and column)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise SceneError([Problem(source, f"expected JSON text, not {type(text).__name__}")])
    try:
        d = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise SceneError([Problem(source, f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}")]) from None
    except _DuplicateKey as e:
        where = duplicate_key_position(text if isinstance(text, str) else text.decode("utf-8", "replace"))
        at = f" at line {where[0]}, column {where[1]}" if where else ""
        raise SceneError([Problem(source, f"invalid JSON{at}: duplicate key {e.args[0]!r}")]) from None
    except ValueError as e:
        raise SceneError([Problem(source, f"invalid JSON: {e}")]) from None
    except RecursionError:
        raise SceneError([Problem(source, "invalid JSON: nested too deeply")]) from None
    return scene_from_dict(d)


def load_scene(path) -> Scene:
    """Read and validate a scene file; raises SceneError naming the file on any problem."""
    try:
        path = Path(path)
        raw = path.read_bytes()
    except TypeError:
        raise SceneError([Problem(str(path), "not a file path")]) from None
    except OSError as e:
        raise SceneError([Problem(str(path), f"cannot read the file: {e.strerror or e}")]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SceneError([Problem(str(path), f"not a UTF-8 text file (byte {e.start})")]) from None
    return loads_scene(text, source=str(path))


def save_scene(scene: Scene, path) -> None:
    """Write atomically: the text goes to a temporary file in the same directory, is flushed to disk,
    then replaces the target in one step, so a failure leaves any old file intact."""
    path = Path(path)
    text = dumps_scene(scene)  # serialize first: an error here touches no file
    atomic_write_text(path, text)


# ---------------------------------------------------------------- coordinates

def sorted_joints(scene: Scene) -> list[Joint]:
    """The joints parent-first (stable: a list already parent-first keeps its order)."""
    order = topological_order([(j.parent, j.child) for j in scene.joints])
    return [scene.joints[i] for i in order]


def coordinate_names(scene: Scene) -> list[str]:
    """Generalized coordinate names in model order: joint by joint, parents first."""
    return [q for j in sorted_joints(scene) for q in joint_coordinates(j.name, j.type)]
