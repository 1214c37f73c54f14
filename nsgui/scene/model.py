"""The scene: the single source of truth (docs/scene-format.md), as dataclasses whose attribute names
are the file's JSON keys, plus loading, saving (atomic) and validation. The dataclasses are made from
the schema (schema.py): their attributes, order and defaults are its fields'.

Type-dependent objects (Shape, Obstacle, ForceElement, Controller) carry the attributes of every type;
only the keys of their `type` are written and compared.
"""
from __future__ import annotations

import json
from dataclasses import field, fields, is_dataclass, make_dataclass
from pathlib import Path

from nsgui.atomic import atomic_write_text
from .json_positions import duplicate_key_position
from .mass_properties import body_mass_properties
from .schema import FORMAT_TAG, SPECS, VERSION, TypedSpec
from .validation import Problem, SceneError, check_scene_dict, joint_coordinates, topological_order

__all__ = [
    "Scene", "Body", "Shape", "Joint", "JointLimits", "Obstacle", "ShapeRef", "Contact", "ForceElement",
    "PointRef", "ContactSwitch", "Actuator", "Controller", "ControllerBlock", "Trajectory", "Initial", "Settings", "Walker", "Problem", "SceneError",
    "scene_from_dict", "scene_to_dict", "load_scene", "loads_scene", "dumps_scene", "save_scene",
    "validate_scene", "LoopJoint", "coordinate_names", "sorted_joints", "joint_coordinates", "body_mass_properties",
    "FORMAT_TAG", "VERSION",
]


# ---------------------------------------------------------------- the dataclasses, made from the schema

_TYPE_NAMES = {"number": "float", "integer": "int", "boolean": "bool", "string": "str", "name": "str",
               "enum": "str", "color": "str", "const": "str", "vec2": "list", "polygon": "list", "list": "list",
               "map": "dict", "numbers": "list", "names": "list", "params": "dict"}


def _attribute(f, classes):
    """(name, annotation, dataclasses.field) of one schema field: plain values as defaults, fresh
    copies for lists and dicts, a new object for an object field whose default is `{}`."""
    d = f.attr_default
    ann = f.of if f.kind == "object" else _TYPE_NAMES[f.kind]
    if d is None:
        return f.key, f"{ann} | None", field(default=None)
    if isinstance(d, list):
        if any(isinstance(x, (list, dict)) for x in d):
            raise ValueError(f"{f.key}: a default list must be flat")
        return f.key, ann, field(default_factory=d.copy)
    if isinstance(d, dict):
        if d:
            raise ValueError(f"{f.key}: a default object must be empty")
        return f.key, ann, field(default_factory=classes[f.of] if f.kind == "object" else dict)
    return f.key, ann, field(default=d)


class _SceneMethods:
    def with_values(self, values: dict) -> "Scene":
        """A new validated scene with `{path: value}` set (nsgui/scene/paths.py); this one is untouched."""
        from .paths import with_values
        return with_values(self, values)


_BASES = {"Scene": (_SceneMethods,)}  # methods of the dataclasses (their fields come from the schema)


def _make_classes() -> dict:
    classes = {}
    for name, spec in SPECS.items():  # nested specs come first
        cls = make_dataclass(name, [_attribute(f, classes) for f in spec.attr_fields()],
                             bases=_BASES.get(name, ()))
        cls.__module__ = __name__  # pickle and repr find them here
        cls.__doc__ = spec.help or cls.__doc__
        classes[name] = cls
    return classes


_CLASSES = _make_classes()
Shape = _CLASSES["Shape"]
Body = _CLASSES["Body"]
JointLimits = _CLASSES["JointLimits"]
Joint = _CLASSES["Joint"]
LoopJoint = _CLASSES["LoopJoint"]
Obstacle = _CLASSES["Obstacle"]
ShapeRef = _CLASSES["ShapeRef"]
Contact = _CLASSES["Contact"]
ContactSwitch = _CLASSES["ContactSwitch"]
PointRef = _CLASSES["PointRef"]
ForceElement = _CLASSES["ForceElement"]
Controller = _CLASSES["Controller"]
ControllerBlock = _CLASSES["ControllerBlock"]
Trajectory = _CLASSES["Trajectory"]
Actuator = _CLASSES["Actuator"]
Initial = _CLASSES["Initial"]
Settings = _CLASSES["Settings"]
Walker = _CLASSES["Walker"]
Scene = _CLASSES["Scene"]


# ---------------------------------------------------------------- dict → dataclasses

def _builder(spec):
    """dataclass from a canonical dict of `spec` (the dict is used up: its nested values are replaced)."""
    cls = _CLASSES[spec.name]
    nested = [(f.key, f.of, f.kind == "list") for f in spec.attr_fields() if f.kind in ("object", "list")]

    def build(d):
        for key, of, many in nested:
            v = d.get(key)
            if v is not None:
                make = _BUILDERS[of]
                d[key] = [make(x) for x in v] if many else make(v)
        return cls(**d)
    return build


_BUILDERS = {name: _builder(spec) for name, spec in SPECS.items()}


def scene_from_dict(d) -> Scene:
    """A Scene from its JSON form; raises SceneError listing every problem."""
    canonical, problems = check_scene_dict(d)
    if problems:
        raise SceneError(problems)
    return _BUILDERS["Scene"](canonical)


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


def _typed(obj, spec):
    """The keys of a type-dependent object: common keys + those of its type (or all set ones if the
    type is unknown, so that validation can still report them)."""
    if not (is_dataclass(obj) and not isinstance(obj, type)):
        return _plain(obj)
    t = getattr(obj, spec.type_key, None)
    known = isinstance(t, str) and t in spec.types
    keys = spec.keys_of[t] if known else spec.common_keys + spec.all_type_keys
    fields_of = {f.key: f for f in spec.fields}
    if known:
        fields_of.update(spec.types[t].by_key)
    out = {}
    for k in keys:
        if hasattr(obj, k):
            val = getattr(obj, k)
            if known or val is not None:
                f = fields_of.get(k)
                if f is not None and f.kind == "object" and val is not None:
                    out[k] = _WRITERS[f.of](val)
                elif f is not None and f.kind == "list" and isinstance(val, (list, tuple)):
                    out[k] = [_WRITERS[f.of](x) for x in val]
                else:
                    out[k] = _plain(val)
    return out


def _ref_dict(r):
    """A contact side as the file holds it: {obstacle} or {body, shape}."""
    if r.obstacle is not None:
        return {"obstacle": r.obstacle}
    return {"body": r.body, "shape": r.shape}


def _writer(spec):
    """JSON form of a dataclass of `spec`, field by field; anything else (an odd value an editor put
    there) is copied through so that validation reports it."""
    cls = _CLASSES[spec.name]
    if isinstance(spec, TypedSpec):
        return lambda v: _typed(v, spec)
    if spec.name == "ShapeRef":
        return lambda v: _ref_dict(v) if isinstance(v, cls) else _plain(v)
    plan = [(f.key, f.kind, f.of) for f in spec.attr_fields()]

    def write(v):
        if not isinstance(v, cls):
            return _plain(v)
        out = {}
        for key, kind, of in plan:
            x = getattr(v, key)
            if kind == "object":
                out[key] = _WRITERS[of](x)
            elif kind == "list" and isinstance(x, (list, tuple)):
                w = _WRITERS[of]
                out[key] = [w(item) for item in x]
            else:
                out[key] = _plain(x)
        return out
    return write


_WRITERS = {name: _writer(spec) for name, spec in SPECS.items()}


def scene_to_dict(scene: Scene) -> dict:
    """The JSON form of a scene with every key written (defaults included). Never raises on odd
    attribute values: they are copied through so that validation can report them."""
    return _WRITERS["Scene"](scene)


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
