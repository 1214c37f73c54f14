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

from .schema import CONTROLLER, CONTROLLER_BLOCK, TRAJECTORY, Field, _num


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
    signals=(Signal("target", "coord", "q_d", per_actuator=True),
             Signal("error", "coord", "q_d − q", per_actuator=True)))

__all__ = ["Signal", "Overlay", "SIGNALS", "BLOCK_SIGNALS", "OVERLAYS", "declare", "signals_of"]
