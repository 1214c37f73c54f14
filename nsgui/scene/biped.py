"""A planar biped standing under the thesis law (6.10) (docs/controllers.md): a trunk on a free joint
`base` (its frame at the hip), two legs with a hip and a knee, point feet on a frictional ground.

The desired posture puts the hip at `hip_height`, the trunk upright, the knees bent forward and the
feet `stance` ahead of and behind the point under the centre of mass. The desired reactions r'_μ1d are the consistent ones (control.md (C4.1)): the
feet's normal forces that hold the robot still at q_d with no friction (the whole robot's vertical
force and moment balance), as generalized forces on the joints. A vertical force λ at a foot p gives
the revolute joint at o the generalized force λ (p_x − o_x). With them q_d is an equilibrium with
foot forces `standing_forces(...)`; with r'_μ1d = 0 it would settle elsewhere (control.md §4).
"""

from __future__ import annotations

import math

from .builder import SceneBuilder
from .model import Scene

SEGMENT = 0.4        # thigh and shank length (m)


def leg_angles(dx: float, height: float, length: float = SEGMENT) -> tuple[float, float]:
    """(hip, knee) angles putting the foot at (dx, −height) from the hip, knee forward (knee < 0).
    Angles from the downward vertical, counter-clockwise; the knee angle is the shank's relative one."""
    r2 = dx * dx + height * height
    c = (r2 - 2 * length * length) / (2 * length * length)
    if not -1.0 < c <= 1.0:
        raise ValueError(f"a foot at ({dx:g}, {-height:g}) m from the hip is out of a {2 * length:g} m leg's reach")
    knee = -math.acos(c)
    hip = math.atan2(dx, height) - math.atan2(length * math.sin(knee), length + length * math.cos(knee))
    return hip, knee


def _points(dx, height):
    """(knee, foot) positions relative to the hip, for the leg reaching (dx, −height)."""
    hip, knee = leg_angles(dx, height)
    kx, ky = SEGMENT * math.sin(hip), -SEGMENT * math.cos(hip)
    return (kx, ky), (kx + SEGMENT * math.sin(hip + knee), ky - SEGMENT * math.cos(hip + knee))


def _com_x(trunk_mass, thigh_mass, shank_mass, trunk_length, feet_dx, hip_height):
    """(total mass, x of the centre of mass, [(knee, foot) per leg]) with the hip at the origin."""
    legs, coms, masses = [], [(0.0, trunk_length / 2)], [trunk_mass]
    for dx in feet_dx:
        (kx, ky), (fx, fy) = _points(dx, hip_height)
        legs.append(((kx, ky), (fx, fy)))
        coms += [(kx / 2, ky / 2), ((kx + fx) / 2, (ky + fy) / 2)]
        masses += [thigh_mass, shank_mass]
    m = sum(masses)
    return m, sum(mi * c[0] for mi, c in zip(masses, coms)) / m, legs


def feet_offsets(trunk_mass, thigh_mass, shank_mass, trunk_length, stance, hip_height):
    """The feet's x from the hip, (c + stance, c − stance), with the centre of mass above their
    midpoint c (the bent knees move it forward): then the posture stands with equal foot forces."""
    c = 0.0
    for _ in range(100):  # x_G(c) varies slowly with c: a fixed point
        _m, xg, _legs = _com_x(trunk_mass, thigh_mass, shank_mass, trunk_length, (c + stance, c - stance),
                               hip_height)
        if abs(xg - c) < 1e-15:
            break
        c = xg
    return c + stance, c - stance


def standing_forces(trunk_mass, thigh_mass, shank_mass, trunk_length, stance, hip_height, gravity=9.81):
    """(λ_left, λ_right, r'_μ1d per actuator [hip_l, knee_l, hip_r, knee_r]) of the desired posture:
    the feet's normal forces balancing the robot's weight and moment, and their joint torques."""
    feet_dx = feet_offsets(trunk_mass, thigh_mass, shank_mass, trunk_length, stance, hip_height)
    m, xg, legs = _com_x(trunk_mass, thigh_mass, shank_mass, trunk_length, feet_dx, hip_height)
    (_, (x1, _)), (_, (x2, _)) = legs
    lam1 = m * gravity * ((xg - x2) / (x1 - x2) if abs(x1 - x2) > 1e-12 else 0.5)
    lam2 = m * gravity - lam1
    r = []
    for lam, ((kx, _), (fx, _)) in zip((lam1, lam2), legs):
        r += [lam * fx, lam * (fx - kx)]
    return lam1, lam2, r


def standing_biped(trunk_mass=12.0, thigh_mass=3.0, shank_mass=1.5, trunk_length=0.5, stance=0.12,
                   hip_height=0.68, W=3000.0, T=150.0, friction=0.8, spin=0.3, drop=0.0, implicit=True,
                   name="Biped on point feet (law 6.10)") -> Scene:
    """The biped at its desired posture, `drop` metres above the ground, its trunk turning at `spin`
    rad/s (a push to recover from), under the standing law."""
    b = SceneBuilder(name, description=(
        f"A planar biped (nsgui's own parameters): trunk {trunk_mass:g} kg, {trunk_length:g} m on a free joint "
        f"'base' whose frame is at the hip; thighs {thigh_mass:g} kg and shanks {shank_mass:g} kg of {SEGMENT:g} m "
        f"(uniform rods); point feet on the ground, friction {friction:g}, plastic. The standing law (6.10) holds "
        f"the desired posture (hip {hip_height:g} m high, feet ±{stance:g} m about the centre of mass, trunk upright) with W = {W:g} N·m/rad, "
        f"T = {T:g} N·m·s/rad, gravity pre-compensated at the posture and the consistent desired reactions "
        f"(docs/controllers.md). It starts {drop:g} m above the ground, its trunk turning at {spin:g} rad/s. "
        f"Projection is off: with it, a foot left a few nm above the ground chatters between steps."))
    trunk = b.body("trunk", mass=trunk_mass, inertia=trunk_mass * trunk_length ** 2 / 12,
                   com=(0.0, trunk_length / 2), color="#4c8bd6")
    trunk.capsule(trunk_length, 0.05, offset=(0.0, trunk_length / 2), angle=math.pi / 2, name="body")
    b.free("base", child=trunk, q0={"x": 0.0, "y": hip_height + drop, "theta": 0.0}, v0={"theta": spin})
    ground = b.ground(name="ground")
    motors, posture = [], {}
    feet_dx = feet_offsets(trunk_mass, thigh_mass, shank_mass, trunk_length, stance, hip_height)
    for side, dx, color in zip("lr", feet_dx, ("#d6784c", "#5fae5b")):
        hip, knee = leg_angles(dx, hip_height)
        thigh = b.body(f"thigh_{side}", mass=thigh_mass, inertia=thigh_mass * SEGMENT ** 2 / 12,
                       com=(0.0, -SEGMENT / 2), color=color)
        thigh.capsule(SEGMENT, 0.035, offset=(0.0, -SEGMENT / 2), angle=math.pi / 2, name="thigh")
        shank = b.body(f"shank_{side}", mass=shank_mass, inertia=shank_mass * SEGMENT ** 2 / 12,
                       com=(0.0, -SEGMENT / 2), color=color)
        shank.capsule(SEGMENT, 0.03, offset=(0.0, -SEGMENT / 2), angle=math.pi / 2, name="shank")
        foot = shank.point(offset=(0.0, -SEGMENT), name="foot")
        jh = b.revolute(f"hip_{side}", parent=trunk, child=thigh, q0=hip)
        jk = b.revolute(f"knee_{side}", parent=thigh, child=shank, anchor_parent=(0.0, -SEGMENT), q0=knee)
        b.contact(foot, ground, friction=friction, restitution=0.0, name=f"foot_{side}")
        motors += [b.actuator(jh, name=f"hip_{side}_motor"), b.actuator(jk, name=f"knee_{side}_motor")]
        posture[f"hip_{side}"], posture[f"knee_{side}"] = hip, knee
    posture["base.y"] = hip_height
    _l1, _l2, r = standing_forces(trunk_mass, thigh_mass, shank_mass, trunk_length, stance, hip_height)
    b.controller("standing", motors, name="stand", W=[W], T=[T], posture=posture, desired_reaction=r,
                 implicit=implicit)
    b.settings(dt=1e-3, duration=3.0, projection=False)
    return b.build()
