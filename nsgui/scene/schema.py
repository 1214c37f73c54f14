"""The scene schema, written once: for every object of the file format, its keys in file order, each
with its kind, default, range or choices, whether it is required, its unit and one line of help.

From it come the dataclasses (model.py), the key, type and range checks with the defaults of the
canonical form (validation.py; the semantic checks stay there by hand), the inspector's choices and
bounds, and the tables of docs/scene-format.md (`python -m nsgui.scene.schema_docs --write`).

A small home-made spec rather than pydantic: the checks must keep their exact messages (every problem,
with its path, in file order, defaults filled even where a sibling is wrong), which pydantic's errors
would have to be translated back into one by one; this is plain data read by a loop.

Type-dependent objects (a `type` key choosing the other keys) are a `TypedSpec` with a registry of
types: a new controller (or shape, force...) type is one `register()` call with its own fields, and
validation, canonical form and docs follow. Types must be registered before nsgui.scene.model is
imported: the dataclass of a typed object holds the attributes of every type known then.
"""
from __future__ import annotations

from dataclasses import dataclass

FORMAT_TAG = "nsgui-scene"
VERSION = 1

# Ranges: every step of the compiled kernel must end in bounded time (Ctrl-C is checked between chunks
# of steps), and no count may overflow the kernel's 64-bit integers.
MAX_MAGNITUDE = 1e12       # every number: keeps derived quantities (areas, moments) finite
MIN_DT = 1e-9              # s; below it t + h == t long before any interesting time
MAX_DURATION = 1e7         # s
MAX_STEPS = 1e12           # duration / dt
MIN_TOLERANCE = 1e-16      # double precision: a smaller residual cannot be reached
MAX_ITERATIONS = 100_000   # NSGS sweeps per step (Lemke's pivots are bounded by the problem size)
MAX_IMPACT_THRESHOLD = 1e3  # m/s

_SAME = object()  # Field.init: the dataclass default is the file default

# The kinds of value a field holds; validation.py has one check per kind.
KINDS = ("const", "number", "integer", "boolean", "string", "name", "enum", "vec2", "color", "polygon",
         "object", "list", "map", "numbers", "names", "params")


@dataclass(frozen=True)
class Field:
    """One key of an object.

    `default` is the value an absent key takes (an object field's `{}` means "an object with every
    default"); `required` keys have none. `init` is the dataclass attribute's default when it differs
    from `default` (required keys: a blank such as "" or None). `of` names the spec of an object field
    or of a list's items; `keys` restricts an object field to some of that spec's keys.
    """
    key: str
    kind: str
    default: object = None
    required: bool = False
    nullable: bool = False
    gt: float | None = None
    ge: float | None = None
    le: float | None = None
    choices: tuple = ()
    nonzero: bool = False          # vec2: not zero, normalized on load
    of: str | None = None
    keys: tuple | None = None
    unit: str = ""
    help: str = ""
    init: object = _SAME
    doc_type: str | None = None    # the docs' type column when the generated text would be unclear
    doc_default: str | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"field {self.key!r}: unknown kind {self.kind!r}")

    @property
    def attr_default(self):
        """The dataclass attribute's default value (shared: copy lists and dicts before use)."""
        return self.default if self.init is _SAME else self.init

    def fallback(self):
        """A fresh value for an absent key (or a bad one): the default, None for required keys."""
        if self.required:
            return None
        v = self.default
        return v[:] if type(v) is list else ({} if type(v) is dict else v)


@dataclass
class FieldList:
    """Fields in file order, by key."""
    name: str
    fields: list
    help: str = ""

    def __post_init__(self):
        self.index()

    def index(self):
        self.by_key = {f.key: f for f in self.fields}
        self.keys = [f.key for f in self.fields]
        self.required = [f.key for f in self.fields if f.required]

    def __getitem__(self, key) -> Field:
        return self.by_key[key]


@dataclass
class TypeSpec(FieldList):
    """The keys one type of a typed object adds to the common ones."""


@dataclass
class ObjectSpec(FieldList):
    """An object with fixed keys. `label` names one item in messages ("duplicate body name")."""
    label: str = ""

    def attr_fields(self) -> list:
        """The dataclass's attributes, in order."""
        return list(self.fields)


class TypedSpec(ObjectSpec):
    """An object whose `type` key chooses its other keys: common fields (the type key among them) plus
    those of a registry of types. The type field's choices are the registered types; `default_type` is
    the type of an object without the key (None: the key is required). `attrs_first` lists attributes
    the dataclass puts first (their order in older versions)."""

    def __init__(self, name, common, *, type_key="type", default_type=None, label="", help="", attrs_first=()):
        self.type_key, self.default_type, self.attrs_first = type_key, default_type, tuple(attrs_first)
        self.types: dict[str, TypeSpec] = {}
        self._common = list(common)
        super().__init__(name, self._common_fields(), label=label, help=help)
        self._refresh()

    def _common_fields(self):
        out = []
        for f in self._common:
            if f.key == self.type_key:
                f = Field(self.type_key, "enum", default=self.default_type, required=self.default_type is None,
                          choices=tuple(self.types), init=f.init, help=f.help)
            out.append(f)
        return out

    def register(self, name: str, fields=(), help: str = "") -> TypeSpec:
        """Add a type with its own fields (a key may appear in several types, with its own range)."""
        if name in self.types:
            raise ValueError(f"{self.name}: type {name!r} is already registered")
        t = TypeSpec(name, list(fields), help=help)
        self.types[name] = t
        self._refresh()
        return t

    def unregister(self, name: str) -> None:
        del self.types[name]
        self._refresh()

    def _refresh(self):
        self.fields = self._common_fields()
        self.index()
        self.common_keys = [f.key for f in self.fields]
        self.extra_fields = [f for f in self.fields if f.key != self.type_key]
        self.all_type_keys = list(dict.fromkeys(k for t in self.types.values() for k in t.keys))
        # keys and required keys for an object of each type, and for an unknown type
        self.keys_of = {n: self.common_keys + t.keys for n, t in self.types.items()}
        self.required_of = {n: self.required + t.required for n, t in self.types.items()}

    def attr_fields(self) -> list:
        """Common fields then every type's (first occurrence of a key), `attrs_first` in front."""
        seen, out = set(), []
        for f in self.fields + [f for t in self.types.values() for f in t.fields]:
            if f.key not in seen:
                seen.add(f.key)
                out.append(f)
        first = [f for k in self.attrs_first for f in out if f.key == k]
        return first + [f for f in out if f.key not in self.attrs_first]


def _vec(key, default=(0.0, 0.0), **kw):
    return Field(key, "vec2", default=list(default) if default is not None else None, **kw)


def _num(key, default=0.0, **kw):
    return Field(key, "number", default=default, **kw)


def _name(help="", **kw):
    return Field("name", "name", required=True, init="", help=help or "unique in its list", **kw)


# ---------------------------------------------------------------- the objects

SHAPE = TypedSpec("Shape", [
    Field("name", "name", init="", doc_default='`"<type><index>"`',
          help="unique in its body; absent: the type and the shape's index in its body, e.g. `disk0`"),
    Field("type", "enum", init="disk", help="the geometry; the other keys depend on it"),
    _vec("offset", unit="m", help="position in the body frame"),
    _num("angle", unit="rad", help="rotation in the body frame"),
], label="shape", attrs_first=("type",), help="geometry for contact and drawing, in the body frame")
SHAPE.register("disk", [
    _num("radius", None, required=True, gt=0, init=None, unit="m"),
], help="circle centred at `offset`")
SHAPE.register("box", [
    _num("width", None, required=True, gt=0, init=None, unit="m"),
    _num("height", None, required=True, gt=0, init=None, unit="m"),
], help="rectangle centred at `offset`, rotated by `angle`")
SHAPE.register("capsule", [
    _num("length", None, required=True, gt=0, init=None, unit="m", help="along the shape's x axis"),
    _num("radius", 0.0, ge=0, init=None, unit="m", help="0 is a thin bar"),
], help="segment of `length` centred at `offset`, swept by `radius` (a bar is a capsule)")
SHAPE.register("polygon", [
    Field("vertices", "polygon", required=True, init=None, unit="m",
          help="≥ 3, convex, counter-clockwise, relative to `offset`, rotated by `angle`"),
], help="convex polygon")
SHAPE.register("point", [], help="a single point at `offset`")

BODY = ObjectSpec("Body", [
    _name(help='unique in its list; not `"world"`'),
    _num("mass", None, nullable=True, gt=0, unit="kg", help="null: from `density` and the shapes' areas"),
    _num("inertia", None, nullable=True, ge=0, unit="kg·m²",
         help="about the centre of mass; null: from density/mass and shapes"),
    _num("density", None, nullable=True, gt=0, unit="kg/m²", help="areal density, used when `mass` or `inertia` is null"),
    _vec("com", None, nullable=True, unit="m",
         help="centre of mass in the body frame; null: the shapes' centroid (`[0, 0]` for points only)"),
    Field("shapes", "list", default=[], of="Shape", help="geometry for contact and drawing, in the body frame"),
    Field("color", "color", default="#4c8bd6", help="drawing colour"),
], label="body", help="a rigid body")

JOINT_LIMITS = ObjectSpec("JointLimits", [
    _num("lower", None, nullable=True, unit="rad or m", help="null: no lower bound"),
    _num("upper", None, nullable=True, unit="rad or m", help="null: no upper bound; `lower` ≤ `upper`"),
    _num("restitution", 0.0, ge=0, le=1, help="Newton's e_N at the stops"),
], help="joint limits as unilateral constraints (1-dof joints only)")

JOINT = ObjectSpec("Joint", [
    _name(help="the joint's coordinate(s) are named after it"),
    Field("type", "enum", required=True, choices=("revolute", "prismatic", "fixed", "free"), init="revolute"),
    Field("parent", "string", default="world", doc_type='body name or `"world"`'),
    Field("child", "string", required=True, init="", doc_type="body name"),
    _vec("anchor_parent", unit="m", help="joint point in the parent frame (world coordinates for `\"world\"`)"),
    _vec("anchor_child", unit="m", help="joint point in the child frame"),
    _vec("axis", (1.0, 0.0), nonzero=True,
         help="prismatic only: slide direction in the parent frame, not zero (normalized on load)"),
    _num("angle", unit="rad", help="revolute/prismatic/fixed: child angle relative to parent when the coordinate is 0"),
    Field("limits", "object", nullable=True, of="JointLimits", help="1-dof joints only"),
], label="joint")

OBSTACLE = TypedSpec("Obstacle", [
    _name(),
    Field("type", "enum", init="ground", help="`ground` and `wall` are the same geometry, drawn differently"),
], label="obstacle", help="fixed, part of the world")
for _t in ("ground", "wall"):
    OBSTACLE.register(_t, [
        _vec("point", unit="m", help="a point on the boundary line"),
        _vec("normal", (0.0, 1.0), nonzero=True, doc_type="[nx, ny]",
             help="the free side's direction (normalized on load); a slope α is `[-sin α, cos α]`"),
    ], help="the half-plane n·(x − point) ≥ 0")
OBSTACLE.register("segment", [
    _vec("a", None, required=True, unit="m", help="end point"),
    _vec("b", None, required=True, unit="m", help="end point (≠ `a`); the free side is to the left of a→b"),
], help="a segment, fixed in the world")

SHAPE_REF = ObjectSpec("ShapeRef", [
    Field("body", "string", doc_default="—", help="a body's name (not the world)"),
    Field("shape", "string", doc_default="—", help="a shape of that body"),
    Field("obstacle", "string", doc_default="—", help="an obstacle's name, instead of `body` and `shape`"),
], help="one side of a contact: a shape of a body, or an obstacle")

CONTACT_SWITCH = ObjectSpec("ContactSwitch", [
    Field("when", "enum", default="ahead", choices=("ahead", "controller"),
          help="`ahead`: the contact may close when its point on `a` is ahead of `reference` along `axis` "
               "(and, with `approaching`, moving toward the surface); `controller`: a controller or "
               "`Simulator.set_contact_enabled` switches it"),
    Field("reference", "object", nullable=True, of="PointRef",
          help="the point the contact point must be ahead of (a body's point moves with it); null: the world origin"),
    _vec("axis", (1.0, 0.0), nonzero=True, help="the direction of \"ahead\", world frame (normalized on load)"),
    Field("approaching", "boolean", default=True, help="also require the contact point to move toward the surface"),
], help="a contact enabled and disabled during a run; a closed contact stays enabled while it is closed")

CONTACT = ObjectSpec("Contact", [
    _name(help="signals `contact.<name>.gap`, `.pn`, `.pt`, `.fn`, `.ft`, `.status`"),
    Field("a", "object", required=True, of="ShapeRef", keys=("body", "shape"), init={},
          doc_type="{`body`, `shape`}", help="a shape of a body, never the world"),
    Field("b", "object", required=True, of="ShapeRef", init={},
          doc_type="{`obstacle`} or {`body`, `shape`}", help="an obstacle or a shape of another body"),
    _num("restitution", ge=0, le=2,
         help="the coefficient of `impact_law`: Newton's e_N in [0, 1], or Moreau's e in [0, 2)"),
    _num("friction", ge=0, help="Coulomb μ"),
    Field("impact_law", "enum", default="newton", choices=("newton", "moreau"),
          help="`newton`: U⁺ = −e_N U⁻; `moreau`: the thesis' weight e, the same law with e_N = e/(2 − e)"),
    _num("tangential_restitution", ge=0, le=1,
         help="e_T of a friction impact: a contact point that sticks through an impact leaves with "
              "U_T⁺ = −e_T U_T⁻ (0: the standard Moreau–Jean law)"),
    Field("switch", "object", nullable=True, of="ContactSwitch",
          help="null: always enabled; else when the contact may close during a run (signal `contact.<name>.enabled`)"),
], label="contact", help="a unilateral contact with restitution and friction")

POINT_REF = ObjectSpec("PointRef", [
    Field("body", "string", required=True, init="world", doc_type='body name or `"world"`'),
    _vec("point", unit="m", help="in that body's frame"),
], help="a point of a body (or of the world)")

LOOP = ObjectSpec("LoopJoint", [
    _name(help="unique among joints and loop joints; signals `loop.<name>.fx`, `.fy`, `.torque`, `.error`"),
    Field("type", "enum", required=True, choices=("revolute", "prismatic"), init="revolute",
          help="`revolute`: the two anchors coincide; `prismatic`: b's anchor slides on the line through a's "
               "anchor along `axis`, with a fixed relative angle"),
    Field("a", "object", required=True, of="PointRef", init=None, doc_type="{`body`, `point`}",
          help="a body of the tree (not the world) and its anchor in its frame"),
    Field("b", "object", required=True, of="PointRef", init=None, doc_type='{`body` or `"world"`, `point`}',
          help="another body of the tree (or the world) and its anchor in its frame"),
    _vec("axis", (1.0, 0.0), nonzero=True,
         help="prismatic only: slide direction in a's frame, not zero (normalized on load)"),
    _num("angle", None, nullable=True, unit="rad",
         help="prismatic only: θ_a − θ_b held by the joint; null: its value at the initial configuration"),
], label="loop joint", help="a joint closing a kinematic loop between two bodies already in the tree, "
                            "solved as a bilateral constraint (docs/numerics.md)")

FORCE = TypedSpec("ForceElement", [
    _name(),
    Field("type", "enum", help="the other keys depend on it"),
], default_type="spring", label="force element", help="springs, dampers and constant forces")
FORCE.register("spring", [
    Field("a", "object", required=True, of="PointRef", init=None),
    Field("b", "object", required=True, of="PointRef", init=None),
    _num("stiffness", ge=0, unit="N/m"),
    _num("damping", ge=0, unit="N·s/m", help="along the line of the spring"),
    _num("rest_length", None, nullable=True, ge=0, unit="m", help="null: the distance at the initial configuration"),
], help="a linear spring–damper between two points")
FORCE.register("joint_spring", [
    Field("joint", "string", required=True, init=None,
          help="a 1-dof joint's name or one coordinate of a free joint (`block.x`)"),
    _num("stiffness", ge=0, unit="N/m or N·m/rad"),
    _num("damping", ge=0, unit="N·s/m or N·m·s/rad"),
    _num("rest", unit="m or rad", help="coordinate value where the spring is relaxed"),
], help="a spring–damper on one coordinate: generalized force −stiffness·(q − rest) − damping·v")
FORCE.register("force", [
    Field("body", "string", required=True, init=None, doc_type="body name", help='not `"world"`'),
    _vec("point", unit="m", help="application point in the body frame"),
    _vec("force", required=True, unit="N", doc_type="[fx, fy]", help="in the world frame"),
], help="a constant force fixed in the world frame, applied at a point of a body (booked as potential energy)")
FORCE.register("impulse", [
    Field("body", "string", required=True, init=None, doc_type="body name", help='not `"world"`'),
    _vec("point", unit="m", help="application point in the body frame"),
    _vec("impulse", required=True, unit="N·s", doc_type="[Px, Py]", help="the percussion, in the world frame"),
    _num("time", ge=0, unit="s", help="when: at the start of the step nearest it"),
], help="a push: a percussion applied to a point of a body at one instant (a velocity jump M Δv = Jᵀ P; "
        "its kinetic energy is booked with the energy balance's origin)")

# Controllers: the types and their parameters are declared in controller_types.py (imported below)
TRAJECTORY = TypedSpec("Trajectory", [
    Field("type", "enum", help="the other keys depend on it"),
], default_type="constant", label="trajectory", help="a desired coordinate as a function of time")
CONTROLLER = TypedSpec("Controller", [
    Field("type", "enum", help="the other keys depend on it"),
], default_type="none", help="what drives one actuator (a controller on several is a `controllers` block)")
CONTROLLER_BLOCK = TypedSpec("ControllerBlock", [
    _name(help="signals `controller.<name>.<signal>`; unique among actuators and controllers"),
    Field("type", "enum", init="slotine_li", help="the law; the other keys depend on it"),
    Field("actuators", "names", required=True, init=None, doc_type="[actuator names]",
          help="the actuators it drives, in the order of its outputs; their own controller must be `none`"),
    _num("period", None, nullable=True, gt=0, unit="s",
         help="sampling period (zero-order hold between samples); null: every step"),
    _num("delay", 0.0, ge=0, unit="s",
         help="measurement-to-actuation delay: a sample's output acts this long after it (≤ 64 periods)"),
], label="controller", help="a controller driving a group of actuators")

ACTUATOR = ObjectSpec("Actuator", [
    _name(help="signal `u.<name>`"),
    Field("joint", "string", required=True, init="",
          help="one coordinate: a 1-dof joint's name or one coordinate of a free joint (`block.x`)"),
    _num("limit", None, nullable=True, gt=0, unit="N or N·m", help="saturation: −limit ≤ u ≤ limit"),
    Field("controller", "object", default={}, of="Controller", doc_default='`{"type": "none"}`'),
], label="actuator", help="a generalized force on one coordinate")

INITIAL = ObjectSpec("Initial", [
    Field("q", "map", default={}, doc_type="{coordinate: value}",
          help="initial coordinates; missing ones are 0; unknown names are errors"),
    Field("v", "map", default={}, doc_type="{coordinate: value}",
          help="initial velocities; missing ones are 0; unknown names are errors"),
])

SETTINGS = ObjectSpec("Settings", [
    _num("dt", 0.001, ge=MIN_DT, le=MAX_DURATION, unit="s",
         help=f"time step h, ≤ `duration`; `duration / dt` at most {MAX_STEPS:.0e} steps"),
    _num("duration", 5.0, gt=0, le=MAX_DURATION, unit="s", help="end time of a headless run"),
    _num("theta", 0.5, ge=0.5, le=1, help="θ of the Moreau–Jean scheme"),
    _num("gamma", 0.5, ge=0, le=1, help="activation: a contact joins the step problem when y + γ h y' ≤ 0"),
    Field("solver", "enum", default="auto", choices=("auto", "lemke", "nsgs"), help="one-step problem solver"),
    _num("tolerance", 1e-10, ge=MIN_TOLERANCE, le=1, help="NSGS tolerance"),
    Field("max_iterations", "integer", default=1000, ge=1, le=MAX_ITERATIONS,
          help="NSGS iteration cap (bounded so that every step ends in bounded time)"),
    Field("projection", "boolean", default=True,
          help="remove penetrations deeper than 1 µm after each step (docs/numerics.md); "
               "`false` is the standard Moreau–Jean scheme"),
    _num("impact_threshold", 1e-6, ge=0, le=MAX_IMPACT_THRESHOLD, unit="m/s",
         help="approach speed above which a step with a positive percussion counts as an impact"),
    Field("integrator", "enum", default="time_stepping", choices=("time_stepping", "event_driven"),
          help="`time_stepping` (Moreau–Jean) or `event_driven` (adaptive Runge–Kutta between events "
               "located in time; docs/numerics.md); rows on the grid of `dt` either way"),
    Field("event_driven_fallback", "enum", default="auto", choices=("auto", "never"),
          help="with `event_driven`, where events crowd (the step size underflows, or more than 64 events "
               "at one instant): `auto` runs time stepping for 0.05 s there and goes on event-driven; "
               "`never` stops the run with an error naming the time and the contact"),
])

WALKER = ObjectSpec("Walker", [
    Field("torso", "string", required=True, init="", doc_type="body name",
          help="its frame's travel along the ground is the distance walked; below `fallen_height` it has fallen"),
    Field("feet", "names", required=True, init=None, doc_type="[body names]",
          help="the bodies whose contacts are the feet: a foot landing after a lift-off is a step"),
    _num("fallen_height", 0.5, gt=0, unit="m",
         help="the walker has fallen once its torso's frame comes below this height above the ground"),
], label="walker", help="what the walker metrics read (steps, distance, mean speed, fallen; docs/walking.md §3)")

SCENE = ObjectSpec("Scene", [
    Field("format", "const", default=FORMAT_TAG, required=True, init=FORMAT_TAG, help="file type tag"),
    Field("version", "integer", default=VERSION, required=True, init=VERSION,
          help=f"format version, `{VERSION}`; a newer version is refused with a clear message"),
    Field("name", "string", default="", help="title shown in the window"),
    Field("description", "string", default="", help="free text"),
    _vec("gravity", (0.0, -9.81), unit="m/s²", doc_type="[gx, gy]", help="gravity acceleration"),
    Field("bodies", "list", default=[], of="Body", help="every body is the `child` of exactly one joint"),
    Field("joints", "list", default=[], of="Joint", help="a tree rooted at the world"),
    Field("loops", "list", default=[], of="LoopJoint",
          help="joints closing kinematic loops between bodies of the tree (four-bars, slider–cranks)"),
    Field("obstacles", "list", default=[], of="Obstacle", help="fixed ground, walls, segments"),
    Field("contacts", "list", default=[], of="Contact", help="unilateral contacts with restitution and friction"),
    Field("forces", "list", default=[], of="ForceElement", help="springs, dampers and constant forces"),
    Field("actuators", "list", default=[], of="Actuator", help="joint actuators with their controllers"),
    Field("controllers", "list", default=[], of="ControllerBlock",
          help="controllers driving groups of actuators (docs/controllers.md)"),
    Field("walker", "object", nullable=True, default=None, of="Walker",
          help="a walker's torso and feet, for the walker metrics; null: not a walker"),
    Field("initial", "object", default={}, of="Initial", help="initial coordinates and velocities"),
    Field("settings", "object", default={}, of="Settings", help="simulation settings"),
], help="the top level of a scene file")

# every spec by name, nested ones first (the order the dataclasses are made in)
SPECS: dict[str, ObjectSpec] = {s.name: s for s in (
    SHAPE, BODY, JOINT_LIMITS, JOINT, OBSTACLE, SHAPE_REF, POINT_REF, CONTACT_SWITCH, CONTACT, LOOP, FORCE, TRAJECTORY, CONTROLLER,
    ACTUATOR, CONTROLLER_BLOCK, INITIAL, SETTINGS, WALKER, SCENE)}

__all__ = ["Field", "FieldList", "ObjectSpec", "TypedSpec", "TypeSpec", "SPECS", "FORMAT_TAG", "VERSION", "SCENE", "BODY",
           "SHAPE", "JOINT", "JOINT_LIMITS", "OBSTACLE", "SHAPE_REF", "CONTACT", "CONTACT_SWITCH", "POINT_REF", "LOOP", "FORCE", "CONTROLLER",
           "TRAJECTORY", "CONTROLLER_BLOCK", "ACTUATOR", "INITIAL", "SETTINGS", "WALKER", "MAX_MAGNITUDE", "MIN_DT", "MAX_DURATION", "MAX_STEPS", "MIN_TOLERANCE",
           "MAX_ITERATIONS", "MAX_IMPACT_THRESHOLD"]

# the controller and trajectory types register themselves (before nsgui.scene.model builds the dataclasses)
from . import controller_types  # noqa: E402,F401
