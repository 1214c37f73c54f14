"""The inspector's controller forms, made from the declarations (nsgui/scene/controller_types.py): an
actuator's own controller and the controller blocks, every parameter with its unit, range and help.

Each field kind has one kind of row (numbers with unit and range, check boxes, choices, x/y pairs,
nested trajectories with their own type, one target per driven actuator, the block's actuators as a
checkable list), so a type declared later appears here with no change. Every change goes through the
inspector's undoable edit and is checked by the scene's validation: a change that makes the edited
controller invalid is refused with the validation's message.
"""
from __future__ import annotations

import json
import re

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QPushButton, QWidget

from nsgui.scene import edits as ops
from nsgui.scene import model, validate_scene
from nsgui.scene.controller_types import signals_of
from nsgui.scene.schema import CONTROLLER, CONTROLLER_BLOCK, SPECS, TypedSpec

from .commands import EditRefused
from .fields import BIG, BoolField, ChoiceField, NamesField, NumberField, TextField

HOLD = "(hold the initial value)"
# a string parameter naming an item of the scene (its declared doc_type): chosen from those items
NAMED = {"body name": lambda s: [b.name for b in s.bodies], "contact name": lambda s: [c.name for c in s.contacts],
         "joint name": lambda s: [j.name for j in s.joints], "actuator name": lambda s: [a.name for a in s.actuators]}
NONE = "(none)"


# -- helpers that know nothing of Qt -------------------------------------------------------------
def null_text(f) -> str:
    """What null means for a nullable field, from its help ("…; null: every step") or "none"."""
    if "null:" in f.help:
        return f.help.split("null:", 1)[1].split(";")[0].split(",")[0].strip() or "none"
    return "none"


def pick_unit(unit: str, rotational) -> str:
    """"m or rad" for a revolute joint is "rad", for a slider "m" (either order; "N·m" is the angular
    one of "N or N·m"); unknown (None): as declared."""
    if rotational is None or " or " not in unit:
        return unit
    parts = [p.strip() for p in unit.split(" or ")]
    angular = [p for p in parts if "rad" in p or ("N·m" in p and "/m" not in p)]
    linear = [p for p in parts if p not in angular]
    if not angular or not linear:
        return unit
    return angular[0] if rotational else linear[0]


def shown_for_null(f, scene) -> float:
    """The value a nullable number shows while null (and takes when the user unticks it): its default,
    a time step for a time (a sampling period), else a value its range allows."""
    if isinstance(f.default, (int, float)):
        return float(f.default)
    if f.unit == "s":
        return float(scene.settings.dt)
    return max(0.0, f.ge if f.ge is not None else 0.0, (f.gt + 1.0) if f.gt is not None else 0.0)


def signal_unit(unit: str, rotational) -> str:
    """A declared signal unit with "coord" (the driven coordinate's) and "input" (the actuator's)
    resolved for a block whose joints all turn (or all slide)."""
    if unit == "coord":
        return pick_unit("m or rad", rotational)
    if unit == "input":
        return pick_unit("N or N·m", rotational)
    return unit


def problems_at(scene, prefix: str) -> list:
    """The validation problems of the object at `prefix` (e.g. `controllers[0]`) and inside it."""
    return [p for p in validate_scene(scene)
            if p.path == prefix or p.path.startswith(prefix + ".") or p.path.startswith(prefix + "[")]


def checked(setter, path_of):
    """`setter(scene, value)` refused (EditRefused, the validation's message) when it leaves a problem
    at the edited object that was not there before."""
    def run(scene, value):
        before = problems_at(scene, path_of(scene))
        setter(scene, value)
        prefix = path_of(scene)
        new = [p for p in problems_at(scene, prefix) if p not in before]
        if new:
            where = new[0].path[len(prefix):].lstrip(".")
            raise EditRefused(f"{where}: {new[0].message}" if where else new[0].message)
    return run


def new_object(spec: TypedSpec, type_name: str, **values):
    """An object of a typed spec (a trajectory) of `type_name`, every key of the type at its default."""
    obj = getattr(model, spec.name)(**{spec.type_key: type_name})
    for f in spec.types[type_name].fields:
        setattr(obj, f.key, values.get(f.key, ops.new_value(f)))
    return obj


def set_type(obj, spec: TypedSpec, type_name: str) -> None:
    """Switch a typed object's type; the keys of the new type it lacks get their defaults (those of
    the old type are kept for switching back, as the file writes only the keys of its type)."""
    setattr(obj, spec.type_key, type_name)
    for f in spec.types[type_name].fields:
        if not hasattr(obj, f.key) or (getattr(obj, f.key) is None and f.required):
            setattr(obj, f.key, ops.new_value(f))


def structure(obj, spec) -> tuple:
    """What the form's rows depend on: the object's type and those of its nested typed objects."""
    if obj is None:
        return ()
    out = [getattr(obj, spec.type_key, None)] if isinstance(spec, TypedSpec) else []
    for f in _fields_of(obj, spec):
        nested = SPECS.get(f.of) if f.of else None
        if nested is None:
            continue
        v = getattr(obj, f.key, None)
        if f.kind == "object":
            out.append((f.key, structure(v, nested)))
        elif f.kind == "list":
            out.append((f.key, tuple(structure(x, nested) for x in (v or []))))
    return tuple(out)


def _fields_of(obj, spec):
    if isinstance(spec, TypedSpec):
        t = spec.types.get(getattr(obj, spec.type_key, None))
        return spec.extra_fields + (t.fields if t else [])
    return spec.fields


def driven_by(scene, actuator: str):
    """The block driving an actuator, or None."""
    return next((b for b in scene.controllers if actuator in (b.actuators or [])), None)


def rotational(scene, actuators) -> bool | None:
    """True if every actuator turns a revolute joint, False if every one slides, None if mixed."""
    kinds = set()
    for name in actuators:
        a = ops.find(scene.actuators, name)
        j = ops.find(scene.joints, a.joint.split(".")[0]) if a and a.joint else None
        kinds.add(None if j is None else (j.type == "revolute" if "." not in a.joint
                                          else a.joint.endswith(".theta")))
    return kinds.pop() if len(kinds) == 1 else None


def initial_value(scene, actuator: str) -> float:
    a = ops.find(scene.actuators, actuator)
    return float(scene.initial.q.get(a.joint, 0.0)) if a else 0.0


# -- rows ----------------------------------------------------------------------------------------
class Rows:
    """Builds the rows of one object into an Inspector (its `_add`, `_section`, `_note`, `form`).
    `obj_of(scene)` finds the object in any copy of the scene, `path_of(scene)` its validation path."""

    def __init__(self, inspector, obj_of, path_of, rotational=None):
        self.ins, self.obj_of, self.path_of, self.rot = inspector, obj_of, path_of, rotational

    def scene(self):
        return self.ins.document.scene

    def add(self, field, f=None, unit=""):
        self.ins._add(field)
        if f is not None:
            tip = f.help + (f"\nunit: {unit}" if unit else "") + _range_text(f)
            label = self.ins.form.labelForField(field.widget)
            for w in (field.widget, label):
                if w is not None:
                    w.setToolTip(tip.strip())
        return field

    def setter(self, fn):
        return checked(fn, self.path_of)

    def fields(self, fields, entries=None):
        for f in fields:
            self.field(f, entries=entries)

    def field(self, f, label=None, entries=None):
        label = label or f.key.replace("_", " ")
        key, obj_of = f.key, self.obj_of
        get = lambda sc: getattr(obj_of(sc), key, f.fallback())  # noqa: E731
        put = self.setter(lambda sc, v: setattr(obj_of(sc), key, v))
        unit = pick_unit(f.unit, self.rot)
        if f.kind in ("number", "integer"):
            integer = f.kind == "integer"
            lo = f.ge if f.ge is not None else (f.gt if f.gt is not None else -BIG)
            hi = f.le if f.le is not None else BIG
            self.add(NumberField(self.ins, get, (lambda sc, v: put(sc, None if v is None else int(round(v))))
                                 if integer else put, label, unit=unit, lo=lo, hi=hi, decimals=0 if integer else (6 if unit == "s" else 4),
                                 step=1 if integer else 0.1, nullable=f.nullable, auto_text=null_text(f),
                                 auto_value=lambda sc: shown_for_null(f, sc)),
                     f, unit)
        elif f.kind == "boolean":
            self.add(BoolField(self.ins, get, put, label), f)
        elif f.kind == "enum":
            self.add(ChoiceField(self.ins, get, put, label, [(c, c) for c in f.choices]), f)
        elif f.kind == "string" and f.doc_type in NAMED:
            names = NAMED[f.doc_type](self.scene())
            current = get(self.scene())
            names += [current] if current and current not in names else []
            self.add(ChoiceField(self.ins, get, put, label, [(n, n) for n in names]), f)
        elif f.kind in ("string", "name"):
            self.add(TextField(self.ins, get, (lambda sc, v: put(sc, v.strip() or None)) if f.nullable else put,
                               label), f)
        elif f.kind in ("map", "params"):
            self.add(TextField(self.ins, lambda sc: ", ".join(f"{k} = {json.dumps(v)}" for k, v in (get(sc) or {}).items()),
                               lambda sc, text: put(sc, _mapping(text)), label), f)
        elif f.kind == "vec2":
            for k, axis in enumerate("xy"):
                def put_k(sc, v, k=k):
                    vec = list(get(sc) or [0.0, 0.0])
                    vec[k] = v
                    put(sc, vec)
                self.add(NumberField(self.ins, lambda sc, k=k: (get(sc) or [0.0, 0.0])[k], put_k, f"{label} {axis}",
                                     unit=unit, decimals=6), f, unit)
        elif f.kind == "numbers":
            self.add(TextField(self.ins, lambda sc: ", ".join(f"{x:g}" for x in (get(sc) or [])),
                               lambda sc, text: put(sc, _numbers(text)),
                               f"{label} (list{f', {unit}' if unit else ''})"), f, unit)
        elif f.kind == "object" and isinstance(SPECS.get(f.of), TypedSpec):
            self.typed_object(f, label)
        elif f.kind == "list" and isinstance(SPECS.get(f.of), TypedSpec):
            self.typed_list(f, label, entries or [])
        else:
            self.ins._note(f"{label}: edit it in the scene file ({f.kind})")

    def type_choice(self, spec, label="type", none=None):
        """The drop-down of a typed object's type (with `none`: an extra first choice "")."""
        obj_of = self.obj_of
        choices = ([("", none)] if none else []) + [(t, t) for t in spec.types]
        return self.add(ChoiceField(self.ins, lambda sc: getattr(obj_of(sc), spec.type_key, "") or "",
                                    self.setter(lambda sc, t: set_type(obj_of(sc), spec, t)), label, choices),
                        spec[spec.type_key])

    def typed_object(self, f, label):
        """A nested typed object (a trajectory): its type (or none, if nullable) and its fields."""
        spec, key, owner_of = SPECS[f.of], f.key, self.obj_of

        def put(sc, t):
            owner = owner_of(sc)
            if not t:
                setattr(owner, key, None)
            elif getattr(owner, key, None) is None:
                setattr(owner, key, new_object(spec, t))
            else:
                set_type(getattr(owner, key), spec, t)
        choices = ([("", NONE)] if f.nullable else []) + [(t, t) for t in spec.types]
        self.add(ChoiceField(self.ins, lambda sc: getattr(getattr(owner_of(sc), key, None), spec.type_key, ""),
                             self.setter(put), label, choices), f)
        obj = getattr(owner_of(self.scene()), key, None)
        if obj is not None:
            sub = Rows(self.ins, lambda sc: getattr(owner_of(sc), key),
                       lambda sc: f"{self.path_of(sc)}.{key}", self.rot)
            sub.fields(spec.types[obj.type].fields)

    def typed_list(self, f, label, entries):
        """A list of typed objects, one per entry (label, rotational, hold): a block's targets, one per
        actuator. An entry without an object holds its initial value (`hold()` makes the object that
        stands for that when a later entry is set)."""
        spec, key, owner_of = SPECS[f.of], f.key, self.obj_of
        current = getattr(owner_of(self.scene()), key, None) or []
        entries = entries or [(f"{label} {k}", self.rot, None) for k in range(len(current))]
        for k, (name, rot, hold) in enumerate(entries):
            self.ins._section(f"{label} · {name}")

            def put(sc, t, k=k):
                owner = owner_of(sc)
                lst = list(getattr(owner, key, None) or [])
                holds = [e[2] for e in entries]
                if not t:
                    if k == len(lst) - 1:
                        lst.pop()
                    elif k < len(lst):
                        lst[k] = holds[k](sc)
                else:
                    while len(lst) < k:
                        lst.append(holds[len(lst)](sc))
                    if k < len(lst):
                        set_type(lst[k], spec, t)
                    else:
                        lst.append(new_object(spec, t))
                setattr(owner, key, lst)
            get = lambda sc, k=k: (lambda lst: lst[k].type if k < len(lst) else "")(  # noqa: E731
                getattr(owner_of(sc), key, None) or [])
            self.add(ChoiceField(self.ins, get, self.setter(put), "type",
                                 [("", HOLD)] + [(t, t) for t in spec.types]), f)
            if k < len(current):
                sub = Rows(self.ins, lambda sc, k=k: getattr(owner_of(sc), key)[k],
                           lambda sc, k=k: f"{self.path_of(sc)}.{key}[{k}]", rot)
                sub.fields(spec.types[current[k].type].fields)


def _numbers(text: str) -> list:
    try:
        return [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"expected numbers separated by commas, got {text!r}") from None


_KEY = re.compile(r'(^|,)\s*([A-Za-z_][\w.\-\[\]]*)\s*[=:]')


def _mapping(text: str) -> dict:
    """{name: value} from "a = 1, b = [1, 2], c = \"text\"" (values in JSON, names bare)."""
    if not text.strip():
        return {}
    try:
        out = json.loads("{" + _KEY.sub(lambda m: f'{m.group(1)}"{m.group(2)}":', text) + "}")
    except ValueError:
        raise ValueError(f"expected name = value pairs separated by commas (values in JSON), got {text!r}") from None
    return out


def _range_text(f) -> str:
    parts = [f"{op} {v:g}" for op, v in ((">", f.gt), ("≥", f.ge), ("≤", f.le)) if v is not None]
    return ("\nrange: " + " and ".join(parts)) if parts else ""


# -- the forms -----------------------------------------------------------------------------------
def actuator_controller_rows(ins, name):
    """An actuator's controller: the block driving it, or its own controller's type and parameters;
    then "Add controller" for a block on this actuator."""
    s = ins.document.scene
    a = ops.find(s.actuators, name)
    block = driven_by(s, name)
    if block is not None:
        btn = QPushButton(f"{block.name} ({block.type})")
        btn.setToolTip("select this controller")
        btn.clicked.connect(lambda: ins.canvas.set_selection([("controller", block.name)]))
        ins.form.addRow("Driven by", btn)
        return
    A = lambda sc: ops.find(sc.actuators, name).controller  # noqa: E731
    rows = Rows(ins, A, lambda sc: f"actuators[{sc.actuators.index(ops.find(sc.actuators, name))}].controller",
                rotational(s, [name]))
    rows.type_choice(CONTROLLER, "Type")
    spec = CONTROLLER.types.get(a.controller.type)
    if spec is not None:
        ins._note(spec.help)
        rows.fields(spec.fields)
    add_block_row(ins, [name])


def add_block_row(ins, actuators):
    """A drop-down of block types and a button that adds a block driving `actuators`."""
    if not CONTROLLER_BLOCK.types:
        return
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    combo = QComboBox()
    for t, spec in CONTROLLER_BLOCK.types.items():
        combo.addItem(t, t)
        combo.setItemData(combo.count() - 1, spec.help, 3)  # Qt.ToolTipRole
    btn = QPushButton("Add")
    btn.setToolTip(f"a controller block driving {', '.join(actuators)}")
    lay.addWidget(combo, 1)
    lay.addWidget(btn)
    ins.add_controller_combo = combo

    def add():
        out = {}

        def run(sc):
            out["name"] = ops.add_controller_block(sc, combo.currentData(), actuators)
        ins._contact_commit(f"Add controller {combo.currentData()}", run)
        if out.get("name"):
            ins.canvas.set_selection([("controller", out["name"])])
    btn.clicked.connect(add)
    ins.form.addRow("Add controller…", w)


def block_rows(ins, name):
    """A controller block: name, type, actuators, sampling, the type's parameters (targets: one per
    actuator), the signals it records, and a button that removes it."""
    s = ins.document.scene
    b = ops.find(s.controllers, name)
    B = lambda sc: ops.find(sc.controllers, name)  # noqa: E731
    path_of = lambda sc: f"controllers[{sc.controllers.index(B(sc))}]"  # noqa: E731
    ins._name("controller", name, lambda sc: sc.controllers)
    acts = list(b.actuators or [])
    rows = Rows(ins, B, path_of, rotational(s, acts))
    rows.type_choice(CONTROLLER_BLOCK, "Type")
    spec = CONTROLLER_BLOCK.types.get(b.type)
    if spec is not None:
        ins._note(spec.help)

    def set_actuators(sc, names):  # the block takes them over: their own controllers become none
        B(sc).actuators = list(names)
        for n in names:
            ops.find(sc.actuators, n).controller = model.Controller(type="none")
    rows.add(NamesField(ins, lambda sc: B(sc).actuators, rows.setter(set_actuators), "Actuators",
                        [a.name for a in s.actuators]), CONTROLLER_BLOCK["actuators"])
    rows.fields([CONTROLLER_BLOCK[k] for k in ("period", "delay")])
    if spec is None:
        return
    ins._section("Parameters")

    def hold(k):
        return lambda sc: new_object(SPECS["Trajectory"], "constant",
                                     value=initial_value(sc, B(sc).actuators[k]))
    entries = [(a, rotational(s, [a]), hold(k)) for k, a in enumerate(acts)]
    rows.fields(spec.fields, entries=entries)
    sigs = signals_of(b.type, block=True)
    if sigs:
        ins._section("Signals")
        ins._note("\n".join(f"controller.{name}.{g.name}{'.<actuator>' if g.per_actuator else ''}"
                            f"{f' [{u}]' if (u := signal_unit(g.unit, rows.rot)) else ''}"
                            f"{f' — {g.help}' if g.help else ''}" for g in sigs))
    remove = QPushButton("Remove this controller")
    remove.setToolTip("the actuators it drives stay, with no controller")
    remove.clicked.connect(lambda: ins._contact_commit(f"Remove controller {name}",
                                                       lambda sc: ops.remove_items(sc, {("controller", name)})))
    ins.form.addRow(remove)


def signature(scene, kind, name) -> tuple:
    """What an actuator's or a block's form is built from (a change rebuilds it)."""
    if kind == "actuator":
        a = ops.find(scene.actuators, name)
        block = driven_by(scene, name)
        return (structure(a.controller, CONTROLLER) if a else None, block.name if block else None,
                a.joint if a else None, tuple(CONTROLLER.types), tuple(CONTROLLER_BLOCK.types))
    b = ops.find(scene.controllers, name)
    return (structure(b, CONTROLLER_BLOCK) if b else None, tuple(b.actuators or []) if b else None,
            tuple(a.name for a in scene.actuators), tuple(CONTROLLER_BLOCK.types))


__all__ = ["actuator_controller_rows", "block_rows", "add_block_row", "signature", "Rows", "checked",
           "new_object", "pick_unit", "null_text"]
