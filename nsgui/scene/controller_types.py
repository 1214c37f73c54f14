"""Every controller type, declared once: its parameters (key, kind, default, range, unit, help) and the
signals it records. The scene format, its validation messages, the inspector's fields and
docs/scene-format.md come from these declarations; the engine packs the same keys for its compiled
law (nsgui/engine/control) and names the signals from the same list.

Two places hold a controller:
- `actuators[i].controller` drives one actuator (`CONTROLLER` types);
- `controllers[k]` is a block driving a group of actuators (`CONTROLLER_BLOCK` types), with the common
  keys `name`, `actuators`, `period` and `delay` (schema.py).

A new type is one `declare()` call here plus its law in nsgui/engine/control (docs/controllers.md).
"""
from __future__ import annotations

from dataclasses import dataclass

from .schema import CONTROLLER, CONTROLLER_BLOCK, TRAJECTORY, Field, _num, _vec


@dataclass(frozen=True)
class Signal:
    """A signal a controller records, `controller.<name>.<signal>` (with `per_actuator`, one per
    actuator of the block: `controller.<name>.<signal>.<actuator>`). `unit` is a unit, or "coord"
    (the unit of the driven coordinate) or "input" (the actuator's: N or N·m)."""
    name: str
    unit: str = ""
    help: str = ""
    per_actuator: bool = False
    # for a signal that takes a few integer values (a phase), their labels: the views colour by them
    labels: tuple = ()


@dataclass(frozen=True)
class Overlay:
    """Something the 3D view draws for a controller, in world coordinates:
    - `kind="trace"`: the path of the recorded signals (`x`, `y`) (names of the type's signals), e.g.
      an end effector's actual and desired paths;
    - `kind="circle"`: a circle of the controller's parameters `center` (a vec2 key) and `radius`."""
    kind: str
    label: str
    x: str = ""
    y: str = ""
    center: str = ""
    radius: str = ""
    color: str = "#d62728"


# type name -> its signals (and overlays), for CONTROLLER and CONTROLLER_BLOCK types
SIGNALS: dict[str, tuple[Signal, ...]] = {}
BLOCK_SIGNALS: dict[str, tuple[Signal, ...]] = {}
OVERLAYS: dict[str, tuple[Overlay, ...]] = {}


def declare(name: str, fields=(), *, help: str, signals=(), block: bool = False, overlays=()):
    """Declare a controller type: one actuator's (`block=False`) or a block's."""
    (CONTROLLER_BLOCK if block else CONTROLLER).register(name, list(fields), help=help)
    (BLOCK_SIGNALS if block else SIGNALS)[name] = tuple(signals)
    OVERLAYS[name] = tuple(overlays)


def signals_of(type_name: str, block: bool) -> tuple[Signal, ...]:
    return (BLOCK_SIGNALS if block else SIGNALS).get(type_name, ())


# ---------------------------------------------------------------- desired trajectories
TRAJECTORY.register("constant", [_num("value", unit="m or rad")], help="q_d = value")
TRAJECTORY.register("ramp", [
    _num("start", unit="m or rad", help="value at t0 (and before)"),
    _num("rate", unit="m/s or rad/s"),
    _num("t0", ge=0, unit="s"),
    _num("t1", None, nullable=True, ge=0, unit="s", help="held from then on; null: never"),
], help="q_d = start + rate (t − t0) between t0 and t1, held outside")
TRAJECTORY.register("sine", [
    _num("offset", unit="m or rad"),
    _num("amplitude", unit="m or rad"),
    _num("frequency", 1.0, ge=0, unit="Hz"),
    _num("phase", unit="rad"),
], help="q_d = offset + amplitude sin(2π frequency t + phase)")
TRAJECTORY.register("cubic", [
    _num("start", unit="m or rad", help="value until t0"),
    _num("end", unit="m or rad", help="value from t1 on"),
    _num("t0", ge=0, unit="s"),
    _num("t1", 1.0, ge=0, unit="s", help="> t0"),
], help="a cubic from start to end between t0 and t1, with zero velocity at both ends")
TRAJECTORY.register("spline", [
    Field("times", "numbers", required=True, init=None, ge=0, unit="s", help="≥ 2, increasing"),
    Field("values", "numbers", required=True, init=None, unit="m or rad", help="one per time"),
], help="a cubic spline through the points, zero velocity at both ends, held outside")

_TRAJ_FIELD = Field("trajectory", "object", nullable=True, of="Trajectory",
                    help="desired coordinate q_d(t) (with its velocity and acceleration); null: `target`, `target_v`")

# ---------------------------------------------------------------- one actuator
declare("none", help="u = 0")
declare("constant", [_num("value", unit="N or N·m")], help="u = value")
declare("pd", [
    _num("kp", ge=0, unit="N/m or N·m/rad"),
    _num("kd", ge=0, unit="N·s/m or N·m·s/rad"),
    _num("target", unit="m or rad"),
    _num("target_v", unit="m/s or rad/s"),
    _TRAJ_FIELD,
    _num("feedforward", unit="N or N·m", help="a constant added input (e.g. a desired contact force's share)"),
    Field("gravity_compensation", "boolean", default=False, help="adds the coordinate's gravity term g_i(q)"),
    _num("period", None, nullable=True, gt=0, unit="s",
         help="sampling period; null: every step (a sampled controller holds u between samples)"),
    Field("implicit", "boolean", default=True,
          help="sampled every step: kp and kd enter the iteration matrix (stable for any gains); false: explicit"),
], help="u = kp (q_d − q) + kd (v_d − v) + feedforward [− g_i(q)]",
    signals=(Signal("target", "coord", "q_d"), Signal("error", "coord", "q_d − q")))

# ---------------------------------------------------------------- blocks
# the desired position and the error of each actuator's coordinate: every tracking law records them
_TRACKING = (Signal("target", "coord", "q_d", per_actuator=True),
             Signal("error", "coord", "q_d − q", per_actuator=True))
_TARGETS = Field("targets", "list", default=[], of="Trajectory",
                 help="one desired trajectory per actuator, in order (missing ones: hold the initial value)")

declare("computed_torque", [
    _num("kp", 100.0, ge=0, unit="1/s²"),
    _num("kd", 20.0, ge=0, unit="1/s"),
    _TARGETS,
], block=True,
    help="joint-space computed torque u = M(q)(q̈_d + kd ė + kp e) + c(q, q̇) − g(q) on the actuated "
         "coordinates (e = q_d − q); exact only when every coordinate is actuated; fragile at impacts "
         "(docs/controllers.md)",
    signals=_TRACKING)

# ---------------------------------------------------------------- passivity-based tracking (control digest §6-7)
_GAMMA1 = _num("gamma1", 25.0, gt=0, unit="1/s", help="γ₁: damping of the tracking error (multiplies s)")
_GAMMA2 = _num("gamma2", 30.0, gt=0, unit="1/s", help="γ₂: γ₁γ₂ is the stiffness pulling toward the target")
_GRAVITY = Field("gravity_compensation", "boolean", default=True, help="adds g(q) (the modelled gravity)")
_BODY = Field("body", "string", required=True, init="", doc_type="body name", help="the body of the end effector")
_POINT = _vec("point", unit="m", help="the end effector in that body's frame")
_V = Signal("V", "J", "Lyapunov function ½ sᵀMs + γ₁γ₂|error|² (non-increasing in free motion)")
_TASK_SIGNALS = (Signal("x_d", "m", "desired x of the end effector"), Signal("y_d", "m", "desired y"),
                 Signal("x", "m", "end effector x"), Signal("y", "m", "end effector y"))
_TASK_TRACES = (Overlay("trace", "desired path", x="x_d", y="y_d", color="#d62728"),
                Overlay("trace", "end effector path", x="x", y="y", color="#1f77b4"))

declare("slotine_li", [_GAMMA1, _GAMMA2, _TARGETS, _GRAVITY], block=True,
        help="Slotine–Li passivity-based tracking in joint space: u = M q̈_r + C q̇_r [+ g] − γ₁ s with "
             "q̇_r = q̇_d − γ₂ (q − q_d), s = q̇ − q̇_r (Christoffel C); exact when every coordinate is actuated",
        signals=(*_TRACKING, _V))
declare("slotine_li_task", [_GAMMA1, _GAMMA2, _BODY, _POINT,
                            Field("targets", "list", default=[], of="Trajectory",
                                  help="x_d(t) and y_d(t) of the end effector (missing: hold its initial position)"),
                            _GRAVITY], block=True,
        help="Slotine–Li tracking of an end-effector point in task space: u = M J⁻¹Ẍ_r + (C J⁻¹ + M d/dt J⁻¹)Ẋ_r "
             "− γ₁ Jᵀ s [+ g], Ẋ_r = Ẋ_d − γ₂ (X − X_d); two actuators driving all the coordinates",
        signals=_TASK_SIGNALS + (_V,), overlays=_TASK_TRACES)
declare("bno", [
    _GAMMA1, _GAMMA2, _BODY, _POINT, _GRAVITY,
    Field("contact", "string", required=True, init="", doc_type="contact name",
          help="the end effector's contact with the surface (its percussions count the impacts)"),
    _vec("centre", (0.65, 0.0), unit="m", help="centre of the desired circle"),
    _num("radius", 0.1, gt=0, unit="m", help="radius of the circle"),
    _num("cycle", 5.0, gt=0, unit="s", help="the cycle P: one turn of the circle"),
    _num("surface_y", 0.0, unit="m", help="the surface is the line y = surface_y; the circle must cross it"),
    _num("lead", 0.2, gt=0, unit="s", help="the transition starts this long before the circle reaches the surface"),
    _num("stop", 0.3, gt=0, unit="s", help="duration of the smooth stop of the tangential target"),
    _num("descent", 0.3, gt=0, unit="s", help="duration of the cubic of the normal target down to −depth"),
    _num("depth_min", 0.005, ge=0, unit="m", help="the normal target goes depth_min + α√V(τ₀) below the surface"),
    _num("alpha", 0.0, ge=0, unit="m/√J", help="α: depth growing with the tracking error at the switch"),
    _num("contact_force", 5.0, ge=0, unit="N", help="λ_d: the desired contact force along the surface"),
    _num("force_gain", 0.5, ge=0, le=0.95, help="K_f: force feedback (λ − λ_d) in the constrained phase"),
    _num("takeoff", 0.1, gt=0, unit="s", help="blend from the surface back onto the circle after re-entry"),
], block=True,
    help="the Brogliato–Niculescu–Orhant switching scheme of seed 004: task-space Slotine–Li on a circle "
         "that dips below a surface; transition with impacts, constrained motion with force feedback, "
         "take-off (docs/controllers.md)",
    signals=(Signal("phase", "", "0 free, 1 transition before the first impact, 2 after it, 3 constrained, "
                    "4 take-off", labels=("free", "transition", "transition (impacts)", "constrained", "take-off")),
             Signal("impacts", "", "steps with a positive percussion in the current (or last) transition"),
             _V) + _TASK_SIGNALS + (Signal("error", "m", "|X − X_d|, y_d clipped to the surface"),),
    overlays=(Overlay("circle", "desired circle", center="centre", radius="radius", color="#ff7f0e"),) + _TASK_TRACES)

# ---------------------------------------------------------------- the thesis' PD laws (control digest §2, §4)
_GAINS = dict(kind="numbers", ge=0, help="one value for every actuator, or one per actuator (diagonal gains)")
# block keys holding one value per actuator (or one for all; True: may be empty), checked by validation
PER_ACTUATOR = {"W": False, "T": False, "desired_reaction": True}
_IMPLICIT = Field("implicit", "boolean", default=True,
                  help="sampled every step: W and T enter the iteration matrix (stable for any gains); false: explicit")

declare("manipulator", [
    Field("W", default=[100.0], unit="N·m/rad or N/m", **_GAINS),
    Field("T", default=[10.0], unit="N·m·s/rad or N·s/m", **_GAINS),
    _TARGETS,
    Field("gravity_compensation", "boolean", default=True, help="f_u = gravity, compensated: adds −g(q)"),
    Field("contact", "string", nullable=True, default=None,
          help="the contact point whose desired normal force is λ_d (a contact with several points: name[k]); null: none"),
    _num("force", 0.0, ge=0, unit="N", help="λ_d, the desired normal contact force: r_d = H_N(q_d)ᵀ λ_d"),
    _IMPLICIT,
], block=True,
    help="thesis manipulator law (1.1): f_c = −W (q − q_d) − T q̇ − r_d − f_u, r_d = H_N(q_d)ᵀ λ_d "
         "(corrected sign: pushes into the surface; q_d on the surface for the force to be reached)",
    signals=(*_TRACKING,
             Signal("potential", "J", "shaped potential P = ½ (q − q_d)ᵀ W (q − q_d) + r_dᵀ (q − q_d)"),
             Signal("desired_force", "N", "λ_d"),
             Signal("desired_gap", "m", "the contact's gap at q_d (0 when the desired force is consistent)")))

declare("standing", [
    Field("W", default=[300.0], unit="N·m/rad or N/m", **_GAINS),
    Field("T", default=[20.0], unit="N·m·s/rad or N·s/m", **_GAINS),
    Field("posture", "map", default={}, doc_type="{coordinate: value}",
          help="the desired posture q_d, base included; missing coordinates: their initial value"),
    Field("desired_reaction", "numbers", default=[], unit="N·m or N",
          help="r'_μ1d, the desired contact forces' share on each actuated joint (one for all, or one each; "
               "empty: 0); consistent when −[r'_μ1d; g2(q_d)] is in the normal cone at q_d"),
    _IMPLICIT,
], block=True,
    help="thesis biped standing law (6.10): τ = −W (q1 − q1d) + g1(q_d) − r'_μ1d − T q̇1, a PD with "
         "CONSTANT gravity and force pre-compensation at the desired posture q_d",
    signals=(*_TRACKING,
             Signal("precompensation", "input", "g1(q_d) − r'_μ1d", per_actuator=True),
             Signal("potential", "J", "P̃ = ½ (q1 − q1d)ᵀ W (q1 − q1d) + (r'_μ1d − g1(q_d))ᵀ (q1 − q1d)"),
             Signal("desired_normal_min", "N", "the smallest normal force of the contact forces that hold q_d "
                    "(friction-cone monitor; negative: the ground would have to pull)"),
             # no labels: a constant flag would band every plot of the run
             Signal("cone_demand", "", "0: the desired contact forces are inside their friction cones, 1: one "
                    "needs more friction (slip), 2: one pulls (f_N < 0)")))

# ---------------------------------------------------------------- walking (docs/walking.md §3)
def _pair(key, default, unit="rad", help=""):
    """A target of the lift and landing states of a swing, [lift, land]."""
    return Field(key, "numbers", default=list(default), unit=unit, help=help + " ([lift, land] states)")


declare("simbicon", [
    Field("torso", "string", required=True, init="", doc_type="body name",
          help="the torso: its world angle is held by the stance hip"),
    Field("feet", "names", required=True, init=None, doc_type="[left foot, right foot]",
          help="the two foot bodies, left then right; their contacts tell a strike"),
    _num("swing_time", 0.3, gt=0, unit="s", help="duration of the lift state; the landing state ends on a strike"),
    Field("kp", "numbers", default=[300.0, 300.0, 300.0], ge=0, unit="N·m/rad", help="PD stiffness of hip, knee, ankle"),
    Field("kd", "numbers", default=[30.0, 30.0, 30.0], ge=0, unit="N·m·s/rad", help="PD damping of hip, knee, ankle"),
    _num("torso_kp", 1000.0, ge=0, unit="N·m/rad", help="stiffness holding the torso's world angle"),
    _num("torso_kd", 100.0, ge=0, unit="N·m·s/rad", help="damping of the torso's world angle"),
    _num("torso_angle", 0.0, unit="rad", help="the torso's world angle (counter-clockwise: negative leans forward)"),
    _pair("swing_hip", (0.5, -0.1), help="world angle of the swing thigh from the downward vertical, forward positive"),
    _pair("cd", (0.0, 2.2), unit="rad/m", help="balance feedback on the CoM's distance ahead of the stance ankle"),
    _pair("cv", (0.2, 0.0), unit="rad·s/m", help="balance feedback on the CoM's forward velocity"),
    _pair("swing_knee", (-1.1, -0.05), help="swing knee angle (negative: bent)"),
    _pair("swing_ankle", (0.2, 0.2), help="swing ankle angle (positive: toes up)"),
    _pair("stance_knee", (-0.05, -0.1), help="stance knee angle"),
    _pair("stance_ankle", (0.0, 0.0), help="stance ankle angle"),
    Field("start", "integer", default=0, ge=0, le=3,
          help="the first state: 0 left stance with the right foot lifting, 2 right stance with the left foot lifting"),
    Field("implicit", "boolean", default=True,
          help="sampled every step: the PD and torso gains enter the iteration matrix (stable for any gains)"),
], block=True,
    help="SIMBICON walking (Yin, Loken, van de Panne 2007): a four-state machine of swing and stance, PD "
         "joints, the torso held upright by the stance hip, the swing hip placed with balance feedback "
         "φ = swing_hip + cd·d + cv·v (docs/walking.md §3)",
    signals=(Signal("state", "", "0 left stance, right lifts; 1 left stance, right lands; 2 right stance, left "
                    "lifts; 3 right stance, left lands",
                    labels=("left stance, right lifts", "left stance, right lands", "right stance, left lifts",
                            "right stance, left lands")),
             Signal("support", "", "feet on the ground: 0 none, 1 left, 2 right, 3 both",
                    labels=("flight", "single support (left)", "single support (right)", "double support")),
             Signal("steps", "", "strikes that ended a landing state"),
             Signal("balance_d", "m", "d: the centre of mass ahead of the stance ankle"),
             Signal("balance_v", "m/s", "v: the centre of mass's forward velocity"),
             Signal("swing_target", "rad", "φ: the swing thigh's world angle target with the feedback")))

# ---------------------------------------------------------------- user code
# Its parameters and signals are the class's (nsgui.Controller), read when the scene is compiled:
# loading a scene never imports the module (nsgui/engine/control/python_block.py).
declare("python", [
    Field("module", "string", required=True, init="",
          help="the .py file (relative to the scene file's folder) or a dotted module name"),
    Field("class_name", "string", required=True, init="", help="the nsgui.Controller subclass in it"),
    Field("params", "params", default={}, doc_type="{name: value}",
          help="values of the class's declared parameters (checked when the scene is compiled)"),
], block=True,
    help="a controller written in Python (docs/controllers.md); running it needs consent: "
         "`nsgui run --allow-code`, a question in the window")

__all__ = ["Signal", "Overlay", "SIGNALS", "BLOCK_SIGNALS", "OVERLAYS", "PER_ACTUATOR", "declare", "signals_of"]
