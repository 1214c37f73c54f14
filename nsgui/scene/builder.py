"""Build a scene in Python with handles, as pymunk or MuJoCo's MjSpec do:

    b = SceneBuilder("Pendulum hitting a wall")
    wall = b.wall(point=(-0.3, 0.0), normal=(1.0, 0.0))
    bob = b.body("bob", mass=1.0, inertia=0.001, com=(0.0, -1.0))
    tip = bob.disk(0.05, offset=(0.0, -1.0))
    b.revolute("pivot", parent=b.world, child=bob, anchor_parent=(0.0, 1.0), q0=0.8)
    b.contact(tip, wall, restitution=0.8, friction=0.2)
    b.settings(dt=1e-3, duration=3.0)
    scene = b.build()

Keyword arguments are the file's keys (docs/scene-format.md). The builder writes only the keys it is
given, so every default is the file format's own, filled in by validation; `build()` returns the same
validated Scene a file holds, or raises SceneError listing every problem with its path (the messages
a file gets). Elements refer to each other through the handles the builder returns, never by name:
a handle of another builder, or a name string, is refused at once with a message saying so.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import asdict, fields
from typing import Mapping

from .model import FORMAT_TAG, VERSION, JointLimits, Scene, Settings, scene_from_dict

__all__ = ["SceneBuilder", "DEFAULT", "BodyHandle", "ShapeHandle", "ObstacleHandle", "JointHandle", "CoordinateHandle",
           "ContactHandle", "ForceHandle", "ActuatorHandle", "Anchor"]


class _Default:
    """An argument left out: its key is not written, so the file format's default applies."""

    def __repr__(self):
        return "<default>"


DEFAULT = _Default()
_FREE_COORDINATES = ("x", "y", "theta")


def _given(**kw) -> dict:
    """The keys whose value was given, as JSON-ready values (tuples become lists)."""
    return {k: _json(v) for k, v in kw.items() if v is not DEFAULT}


def _json(v):
    if isinstance(v, tuple):
        return [_json(x) for x in v]
    if isinstance(v, list):
        return [_json(x) for x in v]
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):  # numpy arrays and numbers
        return v.tolist()
    return v


def _unique(names, base: str) -> str:
    """`base` if unused, else base2, base3, ..."""
    names = set(names)
    if base not in names:
        return base
    k = 2
    while f"{base}{k}" in names:
        k += 1
    return f"{base}{k}"


# ---------------------------------------------------------------- handles

class _Handle:
    """A reference to one element of one builder."""
    kind = "element"

    def __init__(self, builder: "SceneBuilder", name: str):
        self._builder = builder
        self.name = name

    def __repr__(self):
        return f"<{self.kind} {self.name!r} of SceneBuilder {self._builder._title!r}>"


class ObstacleHandle(_Handle):
    kind = "obstacle"


class ContactHandle(_Handle):
    kind = "contact"


class ForceHandle(_Handle):
    kind = "force element"


class ActuatorHandle(_Handle):
    kind = "actuator"


class Anchor:
    """A point of a body (or of the world) in its frame: a spring's end, `body.at((x, y))`."""

    def __init__(self, body: "BodyHandle", point):
        self.body = body
        self.point = point

    def __repr__(self):
        return f"<point {tuple(self.point)} of {self.body!r}>"


class BodyHandle(_Handle):
    """A body (or `builder.world`); its methods add shapes in the body frame and return their handles."""
    kind = "body"

    def _shape(self, type_, name, keys) -> "ShapeHandle":
        if self.name == "world":
            raise TypeError("the world has no shapes: add b.ground(...), b.wall(...) or b.segment(...)")
        body = self._builder._body_dict(self)
        shapes = body.setdefault("shapes", [])
        if name is None:  # the file's default name, <type><index>, or the next free index
            taken, k = {s.get("name") for s in shapes}, len(shapes)
            while f"{type_}{k}" in taken:
                k += 1
            name = f"{type_}{k}"
        shapes.append({"name": name, "type": type_, **keys})
        return ShapeHandle(self._builder, name, self)

    def disk(self, radius, *, offset=DEFAULT, angle=DEFAULT, name=None) -> "ShapeHandle":
        return self._shape("disk", name, _given(radius=radius, offset=offset, angle=angle))

    def box(self, width, height, *, offset=DEFAULT, angle=DEFAULT, name=None) -> "ShapeHandle":
        return self._shape("box", name, _given(width=width, height=height, offset=offset, angle=angle))

    def capsule(self, length, radius=DEFAULT, *, offset=DEFAULT, angle=DEFAULT, name=None) -> "ShapeHandle":
        """A segment of `length` along the shape's x axis swept by `radius` (a thin bar when 0)."""
        return self._shape("capsule", name, _given(length=length, radius=radius, offset=offset, angle=angle))

    def polygon(self, vertices, *, offset=DEFAULT, angle=DEFAULT, name=None) -> "ShapeHandle":
        """A convex polygon, vertices counter-clockwise and relative to `offset`."""
        return self._shape("polygon", name, _given(vertices=vertices, offset=offset, angle=angle))

    def point(self, offset=DEFAULT, *, angle=DEFAULT, name=None) -> "ShapeHandle":
        return self._shape("point", name, _given(offset=offset, angle=angle))

    def at(self, point) -> Anchor:
        """The point `point` of this body's frame (world coordinates for the world): a spring's end."""
        return Anchor(self, point)


class ShapeHandle(_Handle):
    kind = "shape"

    def __init__(self, builder, name, body: BodyHandle):
        super().__init__(builder, name)
        self.body = body

    def __repr__(self):
        return f"<shape {self.name!r} of body {self.body.name!r} of SceneBuilder {self._builder._title!r}>"


class CoordinateHandle(_Handle):
    """One coordinate of a free joint (`joint.x`, `joint.y`, `joint.theta`), for actuators and joint springs."""
    kind = "coordinate"


class JointHandle(_Handle):
    kind = "joint"

    def __init__(self, builder, name, type_):
        super().__init__(builder, name)
        self.type = type_

    def _coordinate(self, which):
        if self.type != "free":
            raise AttributeError(f"joint {self.name!r} is {self.type}: only a free joint has .{which}")
        return CoordinateHandle(self._builder, f"{self.name}.{which}")

    x = property(lambda self: self._coordinate("x"))
    y = property(lambda self: self._coordinate("y"))
    theta = property(lambda self: self._coordinate("theta"))


# ---------------------------------------------------------------- the builder

class SceneBuilder:
    """Builds one scene; every method returns the handle of what it adds. `world` is the fixed frame."""

    def __init__(self, name: str = DEFAULT, *, description=DEFAULT, gravity=DEFAULT):
        self._d = {"format": FORMAT_TAG, "version": VERSION,
                   **_given(name=name, description=description, gravity=gravity),
                   "bodies": [], "joints": [], "obstacles": [], "contacts": [], "forces": [], "actuators": [], "controllers": [],
                   "initial": {"q": {}, "v": {}}, "settings": {}}
        self.world = BodyHandle(self, "world")

    # -- checks of the arguments: handles of this builder, of the right kind
    def _own(self, value, kinds, where: str, what: str):
        if not isinstance(value, kinds):
            hint = (" (pass the handle the builder returned, not a name)" if isinstance(value, str) else "")
            raise TypeError(f"{where}: expected {what}, not {_describe(value)}{hint}")
        handle = value.body if isinstance(value, Anchor) else value
        if handle._builder is not self:
            raise ValueError(f"{where}: {value!r} belongs to another SceneBuilder; use the handles of "
                             f"SceneBuilder {self._title!r}")
        return value

    @property
    def _title(self) -> str:
        return self._d.get("name", "")

    def _body_dict(self, handle: BodyHandle) -> dict:
        self._own(handle, BodyHandle, "shape", "a body")
        return next(b for b in self._d["bodies"] if b["name"] == handle.name)

    def _add(self, key: str, item: dict, base: str) -> str:
        items = self._d[key]
        if item.get("name") is None:
            item["name"] = _unique((it["name"] for it in items), base)
        items.append(item)
        return item["name"]

    # -- bodies and obstacles
    def body(self, name: str, *, mass=DEFAULT, inertia=DEFAULT, density=DEFAULT, com=DEFAULT,
             color=DEFAULT) -> BodyHandle:
        """A rigid body; give `mass` or `density` (the rest is computed from the shapes when left out)."""
        self._d["bodies"].append({"name": name, **_given(mass=mass, inertia=inertia, density=density, com=com,
                                                          color=color), "shapes": []})
        return BodyHandle(self, name)

    def ground(self, *, point=DEFAULT, normal=DEFAULT, name=None) -> ObstacleHandle:
        """The half-plane normal·(x − point) ≥ 0 is free (a slope of angle α: normal = (−sin α, cos α))."""
        return self._obstacle("ground", name, _given(point=point, normal=normal))

    def wall(self, *, point=DEFAULT, normal=DEFAULT, name=None) -> ObstacleHandle:
        """The same geometry as a ground, drawn as a wall."""
        return self._obstacle("wall", name, _given(point=point, normal=normal))

    def segment(self, a, b, *, name=None) -> ObstacleHandle:
        """A fixed segment from a to b; its free side is to the left of a→b."""
        return self._obstacle("segment", name, _given(a=a, b=b))

    def _obstacle(self, type_, name, keys):
        return ObstacleHandle(self, self._add("obstacles", {"name": name, "type": type_, **keys}, type_))

    # -- joints
    def revolute(self, name: str, *, child: BodyHandle, parent: BodyHandle = None, anchor_parent=DEFAULT,
                 anchor_child=DEFAULT, angle=DEFAULT, limits=None, q0=DEFAULT, v0=DEFAULT) -> JointHandle:
        """A pin: the anchors coincide, the child turns by q (rad) from `angle` relative to the parent."""
        return self._joint(name, "revolute", parent, child, _given(
            anchor_parent=anchor_parent, anchor_child=anchor_child, angle=angle), limits, q0, v0)

    def prismatic(self, name: str, *, child: BodyHandle, parent: BodyHandle = None, anchor_parent=DEFAULT,
                  anchor_child=DEFAULT, axis=DEFAULT, angle=DEFAULT, limits=None, q0=DEFAULT,
                  v0=DEFAULT) -> JointHandle:
        """A slider: the child moves by q (m) along `axis` (parent frame), at a fixed `angle`."""
        return self._joint(name, "prismatic", parent, child, _given(
            anchor_parent=anchor_parent, anchor_child=anchor_child, axis=axis, angle=angle), limits, q0, v0)

    def fixed(self, name: str, *, child: BodyHandle, parent: BodyHandle = None, anchor_parent=DEFAULT,
              anchor_child=DEFAULT, angle=DEFAULT) -> JointHandle:
        """A weld: no coordinate."""
        return self._joint(name, "fixed", parent, child, _given(
            anchor_parent=anchor_parent, anchor_child=anchor_child, angle=angle), None, DEFAULT, DEFAULT)

    def free(self, name: str, *, child: BodyHandle, parent: BodyHandle = None, q0=DEFAULT,
             v0=DEFAULT) -> JointHandle:
        """Three coordinates `<name>.x`, `.y`, `.theta`: the child frame's position and angle in the
        parent frame. `q0`/`v0` are (x, y, theta) or a mapping of some of them, e.g. {"y": 1.0}."""
        return self._joint(name, "free", parent, child, {}, None, q0, v0)

    def _joint(self, name, type_, parent, child, keys, limits, q0, v0):
        where = f"{type_}({name!r})"
        self._own(child, BodyHandle, f"{where} child", "a body")
        if child.name == "world":
            raise ValueError(f"{where} child: the world cannot be a joint's child")
        item = {"name": name, "type": type_}
        if parent is not None:
            item["parent"] = self._own(parent, BodyHandle, f"{where} parent", "a body or builder.world").name
        item["child"] = child.name
        item.update(keys)
        if limits is not None:
            item["limits"] = _limits(limits, where)
        self._d["joints"].append(item)
        for key, value in (("q", q0), ("v", v0)):
            if value is not DEFAULT:
                self._d["initial"][key].update(_initial(name, type_, value, f"{where} {key}0"))
        return JointHandle(self, name, type_)

    # -- contacts, forces, actuators
    def contact(self, a: ShapeHandle, b, *, restitution=DEFAULT, friction=DEFAULT, impact_law=DEFAULT,
                tangential_restitution=DEFAULT, switch=DEFAULT, name=None) -> ContactHandle:
        """A unilateral contact between shape `a` and an obstacle or a shape of another body `b`
        (name: '<body of a>_<body or obstacle of b>'); `impact_law` "newton" (default) or "moreau"
        says what `restitution` means. `switch`: the file's object, its `reference` a body or
        `body.at((x, y))`, e.g. {"when": "ahead", "reference": leg.at((0, 0)), "axis": (1, 0)}."""
        self._own(a, ShapeHandle, "contact a", "a shape")
        self._own(b, (ShapeHandle, ObstacleHandle), "contact b", "a shape or an obstacle")
        side_b = {"obstacle": b.name} if isinstance(b, ObstacleHandle) else {"body": b.body.name, "shape": b.name}
        base = f"{a.body.name}_{b.name if isinstance(b, ObstacleHandle) else b.body.name}"
        item = {"name": name, "a": {"body": a.body.name, "shape": a.name}, "b": side_b,
                **_given(restitution=restitution, friction=friction, impact_law=impact_law,
                         tangential_restitution=tangential_restitution)}
        if switch is not DEFAULT:
            item["switch"] = self._switch(switch)
        return ContactHandle(self, self._add("contacts", item, base))

    def _switch(self, switch) -> dict:
        if not isinstance(switch, Mapping):
            raise TypeError(f"contact switch: expected the file's object, e.g. {{'when': 'ahead'}}, not {_describe(switch)}")
        item = {k: _json(v) for k, v in switch.items() if k != "reference"}
        if switch.get("reference") is not None:
            item["reference"] = _pointref(self._own(switch["reference"], (BodyHandle, Anchor), "contact switch reference",
                                                    "a body or body.at((x, y))"))
        return item

    def spring(self, a, b, *, stiffness=DEFAULT, damping=DEFAULT, rest_length=DEFAULT, name=None) -> ForceHandle:
        """A linear spring–damper between two points: a body (its origin) or `body.at((x, y))`, the
        world's points too (`builder.world.at((x, y))`)."""
        ends = {end: _pointref(self._own(h, (BodyHandle, Anchor), f"spring {end}",
                                         "a body or body.at((x, y))"))
                for end, h in (("a", a), ("b", b))}
        item = {"name": name, "type": "spring", **ends,
                **_given(stiffness=stiffness, damping=damping, rest_length=rest_length)}
        return ForceHandle(self, self._add("forces", item, "spring"))

    def joint_spring(self, joint, *, stiffness=DEFAULT, damping=DEFAULT, rest=DEFAULT, name=None) -> ForceHandle:
        """A spring–damper on one coordinate: a 1-dof joint, or a free joint's `joint.x` / `.y` / `.theta`."""
        coordinate = self._coordinate(joint, "joint_spring joint")
        item = {"name": name, "type": "joint_spring", "joint": coordinate,
                **_given(stiffness=stiffness, damping=damping, rest=rest)}
        return ForceHandle(self, self._add("forces", item, f"{_plain_name(coordinate)}_spring"))

    def force(self, body: BodyHandle, force, *, point=DEFAULT, name=None) -> ForceHandle:
        """A constant force (world frame, N) applied at `point` of the body's frame."""
        self._own(body, BodyHandle, "force body", "a body")
        item = {"name": name, "type": "force", "body": body.name, **_given(point=point, force=force)}
        return ForceHandle(self, self._add("forces", item, "force"))

    def impulse(self, body: BodyHandle, impulse, *, time, point=DEFAULT, name=None) -> ForceHandle:
        """A push: the percussion `impulse` (world frame, N·s) applied at `point` of the body at `time`."""
        self._own(body, BodyHandle, "impulse body", "a body")
        item = {"name": name, "type": "impulse", "body": body.name, "impulse": _json(impulse), "time": time,
                **_given(point=point)}
        return ForceHandle(self, self._add("forces", item, "push"))

    def actuator(self, joint, *, controller=DEFAULT, limit=DEFAULT, name=None) -> ActuatorHandle:
        """A generalized force on one coordinate (a 1-dof joint or a free joint's `joint.x`, ...), from
        `controller`, the file's object: {"type": "pd", "kp": 60, "kd": 8, "target": 0.5} or
        {"type": "constant", "value": 1.0}; none by default (u = 0). Name: '<joint>_motor'."""
        coordinate = self._coordinate(joint, "actuator joint")
        if controller is not DEFAULT and not isinstance(controller, Mapping):
            raise TypeError(f"actuator controller: expected the file's object, e.g. {{'type': 'pd', 'kp': 10}}, "
                            f"not {_describe(controller)}")
        item = {"name": name, "joint": coordinate, **_given(limit=limit)}
        if controller is not DEFAULT:
            item["controller"] = copy.deepcopy(dict(controller))
        return ActuatorHandle(self, self._add("actuators", item, f"{_plain_name(coordinate)}_motor"))

    def controller(self, type_: str, actuators, *, name=None, period=DEFAULT, delay=DEFAULT, **params) -> str:
        """A controller block driving several actuators (their own controller stays none), with the
        file's keys of its type as keyword arguments, e.g.
        `b.controller("computed_torque", [m1, m2], kp=100, kd=20, targets=[...])`. Returns its name."""
        acts = []
        for a in actuators:
            acts.append(self._own(a, ActuatorHandle, "controller actuators", "an actuator").name)
        item = {"name": name, "type": type_, "actuators": acts, **_given(period=period, delay=delay),
                **copy.deepcopy(params)}
        return self._add("controllers", item, type_)

    def _coordinate(self, joint, where) -> str:
        return self._own(joint, (JointHandle, CoordinateHandle), where,
                         "a joint or a free joint's coordinate (joint.x)").name

    def walker(self, torso: BodyHandle, feet, *, fallen_height=DEFAULT) -> None:
        """Declare the scene a walker (the walker metrics: steps, distance, mean speed, fallen)."""
        self._d["walker"] = {"torso": self._own(torso, BodyHandle, "walker torso", "a body").name,
                             "feet": [self._own(f, BodyHandle, "walker feet", "a body").name for f in feet],
                             **_given(fallen_height=fallen_height)}

    # -- settings and result
    def settings(self, **values) -> None:
        """Simulation settings by their file keys (dt, duration, theta, solver, ...); may be called again."""
        known = [f.name for f in fields(Settings)]
        for key in values:
            if key not in known:
                near = difflib.get_close_matches(key, known, n=1)
                raise TypeError(f"settings(): unknown setting {key!r}"
                                + (f" (did you mean {near[0]!r}?)" if near else f" (settings: {', '.join(known)})"))
        self._d["settings"].update(_given(**values))

    def build(self) -> Scene:
        """The validated Scene; SceneError lists every problem with its path, as for a file. The builder
        can go on and build again."""
        return scene_from_dict(copy.deepcopy(self._d))


def _plain_name(coordinate: str) -> str:
    return coordinate.replace(".", "_")  # names may not contain '.': block.x -> block_x


def _describe(value) -> str:
    return f"{type(value).__name__} {value!r}" if isinstance(value, (str, int, float)) else repr(value)


def _pointref(end) -> dict:
    if isinstance(end, Anchor):
        return {"body": end.body.name, "point": _json(end.point)}
    return {"body": end.name}


def _limits(limits, where):
    if isinstance(limits, JointLimits):
        return asdict(limits)
    if isinstance(limits, Mapping):
        return dict(limits)
    if isinstance(limits, (tuple, list)) and len(limits) == 2:
        return {"lower": limits[0], "upper": limits[1]}
    raise TypeError(f"{where} limits: expected (lower, upper), {{'lower': ..., 'upper': ..., 'restitution': ...}} "
                    f"or JointLimits, not {_describe(limits)}")


def _initial(name, type_, value, where) -> dict:
    """{coordinate: value} of a joint's q0 or v0."""
    if type_ != "free":
        return {name: _json(value)}
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in _FREE_COORDINATES]
        if unknown:
            raise ValueError(f"{where}: unknown coordinate {unknown[0]!r} (a free joint has x, y, theta)")
        return {f"{name}.{k}": _json(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)) or hasattr(value, "tolist"):
        value = _json(value)
        if len(value) == 3:
            return {f"{name}.{k}": v for k, v in zip(_FREE_COORDINATES, value)}
    raise ValueError(f"{where}: a free joint takes (x, y, theta) or a mapping such as {{'y': 1.0}}, "
                     f"not {_describe(value)}")
