"""A planar 7-link biped with human proportions: a torso (head, arms and trunk, "HAT") on a free joint
`base` whose frame is at the hip, two thighs, two shanks and two feet; hips, knees and ankles actuated
with torque limits; a heel and a toe point contact with friction on each foot.

Masses and lengths are Winter's anthropometric tables (D. A. Winter, *Biomechanics and Motor Control of
Human Movement*, 4th ed., 2009, Table 4.1: segment mass / body mass, centre of mass / segment length,
radius of gyration / segment length; segment lengths / body height from Drillis & Contini's figure 4.1)
for a body of `mass` kg and `height` m:

| segment | mass fraction | length / H | CoM from the proximal end | radius of gyration |
|---|---|---|---|---|
| HAT (hip to shoulder) | 0.678 | 0.818 − 0.530 = 0.288 | 0.626 | 0.496 |
| thigh (hip to knee) | 0.100 | 0.530 − 0.285 = 0.245 | 0.433 | 0.323 |
| shank (knee to ankle) | 0.0465 | 0.285 − 0.039 = 0.246 | 0.433 | 0.302 |
| foot (ankle to toe) | 0.0145 | ankle height 0.039, foot length 0.152 | 0.50 ankle to ball | 0.475 |

The foot's contact points: the heel 0.22 of the foot length behind the ankle and the ball of the foot
(metatarsal heads, "toe") 0.50 ahead of it, both at the ankle's height below it. Torque limits are
of the order of a person's peak joint torques in walking and rising (hip 150, knee 150, ankle
120 N·m). Angles: from the downward vertical, counter-clockwise (x forward); knee and ankle angles
are relative to the parent segment (knee < 0 is a bent knee, ankle 0 a foot square to its shank).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .builder import SceneBuilder

# Winter (2009) Table 4.1 and Fig. 4.1: (mass fraction, length / height, CoM / length, r_g / length)
HAT = (0.678, 0.288, 0.626, 0.496)
THIGH = (0.100, 0.245, 0.433, 0.323)
SHANK = (0.0465, 0.246, 0.433, 0.302)
FOOT_MASS, ANKLE_HEIGHT, FOOT_LENGTH, FOOT_RG = 0.0145, 0.039, 0.152, 0.475
HEEL_BACK, TOE_FRONT = 0.22, 0.50         # heel and ball of the foot from the ankle, / foot length
LIMITS = {"hip": 150.0, "knee": 150.0, "ankle": 120.0}   # N·m
SIDES = ("l", "r")
JOINTS = ("hip", "knee", "ankle")


@dataclass(frozen=True)
class Body:
    """Segment masses (kg), inertias about the CoM (kg·m²) and lengths (m) of a person."""
    mass: float = 70.0
    height: float = 1.75

    def segment(self, row):
        frac, length, com, rg = row
        L = length * self.height
        m = frac * self.mass
        return m, L, com * L, m * (rg * L) ** 2

    @property
    def hat(self):
        return self.segment(HAT)

    @property
    def thigh(self):
        return self.segment(THIGH)

    @property
    def shank(self):
        return self.segment(SHANK)

    @property
    def foot(self):
        """(mass, inertia, ankle height, heel x, toe x) in the foot frame (origin at the ankle)."""
        lf = FOOT_LENGTH * self.height
        m = FOOT_MASS * self.mass
        return m, m * (FOOT_RG * lf) ** 2, ANKLE_HEIGHT * self.height, -HEEL_BACK * lf, TOE_FRONT * lf


def leg_angles(body: Body, dx: float, drop: float) -> tuple[float, float]:
    """(hip, knee) angles putting the ankle at (dx, −drop) from the hip, knee bent forward (knee < 0)."""
    l1, l2 = body.thigh[1], body.shank[1]
    r2 = dx * dx + drop * drop
    c = (r2 - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    if not -1.0 < c <= 1.0:
        raise ValueError(f"an ankle at ({dx:g}, {-drop:g}) m from the hip is out of the leg's reach "
                         f"({l1 + l2:.3f} m)")
    knee = -math.acos(c)
    hip = math.atan2(dx, drop) - math.atan2(l2 * math.sin(knee), l1 + l2 * math.cos(knee))
    return hip, knee


def _down(angle, length):
    """The vector of a segment of `length` hanging at `angle` from the downward vertical."""
    return np.array([length * math.sin(angle), -length * math.cos(angle)])


def posture_points(body: Body, q: dict):
    """World points of a posture q (coordinates by name, base included): {'com': (x, y), 'mass': m,
    'heel_l': ..., 'toe_l': ..., 'ankle_l': ..., ...}."""
    m_hat, _L_hat, c_hat, _ = body.hat
    m_th, L_th, c_th, _ = body.thigh
    m_sh, L_sh, c_sh, _ = body.shank
    m_ft, _, h_a, x_heel, x_toe = body.foot
    hip = np.array([q["base.x"], q["base.y"]])
    th0 = q.get("base.theta", 0.0)
    masses, coms = [m_hat], [hip - _down(th0, c_hat)]   # the torso points up from the hip
    out = {}
    for s in SIDES:
        a1 = th0 + q[f"hip_{s}"]
        a2 = a1 + q[f"knee_{s}"]
        a3 = a2 + q[f"ankle_{s}"]
        knee = hip + _down(a1, L_th)
        ankle = knee + _down(a2, L_sh)
        rot = np.array([[math.cos(a3), -math.sin(a3)], [math.sin(a3), math.cos(a3)]])
        out[f"ankle_{s}"] = ankle
        out[f"heel_{s}"] = ankle + rot @ (x_heel, -h_a)
        out[f"toe_{s}"] = ankle + rot @ (x_toe, -h_a)
        masses += [m_th, m_sh, m_ft]
        coms += [hip + _down(a1, c_th), knee + _down(a2, c_sh), ankle + rot @ (x_toe / 2, -h_a / 2)]
    m = sum(masses)
    out["mass"] = m
    out["com"] = sum(mi * c for mi, c in zip(masses, coms)) / m
    return out


def standing_posture(body: Body, hip_height: float, stance: float, lead: float = 0.0, x: float = 0.0):
    """The coordinates of a standing posture with flat feet and an upright torso: the hip `hip_height`
    above the ground, the feet's centres (midway between heel and toe) `stance` ahead of and behind a
    point c, the centre of mass `lead` ahead of c (toward the front foot, the left one), c at `x`."""
    _m, _I, h_a, x_heel, x_toe = body.foot
    mid = 0.5 * (x_heel + x_toe)
    drop = hip_height - h_a
    q = {"base.x": 0.0, "base.y": hip_height, "base.theta": 0.0}
    offset = 0.0   # hip x − c: the bent knees and the feet ahead of the ankles move the CoM
    for _ in range(200):
        for s, sign in zip(SIDES, (1.0, -1.0)):
            hip, knee = leg_angles(body, sign * stance - offset - mid, drop)
            q[f"hip_{s}"], q[f"knee_{s}"], q[f"ankle_{s}"] = hip, knee, -(hip + knee)
        xg = posture_points(body, q)["com"][0]    # hip at 0: the CoM is xg ahead of the hip
        new = lead - xg
        if abs(new - offset) < 1e-14:
            break
        offset = new
    q["base.x"] = x + offset
    return q


def foot_centres(points):
    """x of each foot's centre, midway between its heel and toe."""
    return [0.5 * (points[f"heel_{s}"][0] + points[f"toe_{s}"][0]) for s in SIDES]


def static_split(x_com, x_feet, weight):
    """Normal forces of two supports at x_feet carrying `weight` with the CoM at x_com (walking.md
    (W3.6)): λ1 = mg (x_G − x_2)/(x_1 − x_2), λ2 = mg (x_G − x_1)/(x_2 − x_1)."""
    x1, x2 = x_feet
    return weight * (x_com - x2) / (x1 - x2), weight * (x_com - x1) / (x2 - x1)


def desired_reactions(body: Body, q: dict, gravity: float = 9.81):
    """(per-contact normal forces {heel_l: .., toe_l: .., ...}, r'_μ1d per actuator in JOINTS order
    per side): each foot carries its static split (W3.6) with its centre of pressure midway between
    heel and toe (equal heel and toe forces); a vertical force λ at p gives a revolute joint at o the
    generalized force λ (p_x − o_x)."""
    pts = posture_points(body, q)
    lam = static_split(pts["com"][0], foot_centres(pts), pts["mass"] * gravity)
    L_th = body.thigh[1]
    hip = np.array([q["base.x"], q["base.y"]])
    forces, r = {}, []
    for s, lam_s in zip(SIDES, lam):
        knee = hip + _down(q["base.theta"] + q[f"hip_{s}"], L_th)
        ankle = pts[f"ankle_{s}"]
        ps = [pts[f"heel_{s}"][0], pts[f"toe_{s}"][0]]
        forces[f"heel_{s}"] = forces[f"toe_{s}"] = lam_s / 2
        r += [sum(lam_s / 2 * (p - o[0]) for p in ps) for o in (hip, knee, ankle)]
    return forces, r


def biped_model(b: SceneBuilder, body: Body, q: dict, *, friction: float, limits=LIMITS, slope: float = 0.0,
                v0=None):
    """Add the 7-link biped at posture q, base velocity v0 ({x, y, theta}), and a ground tilted by
    `slope` rad (rising forward) to the builder; returns the actuators {joint name: handle} and the
    bodies {name: handle}."""
    m_hat, L_hat, c_hat, I_hat = body.hat
    torso = b.body("torso", mass=m_hat, inertia=I_hat, com=(0.0, c_hat), color="#4c8bd6")
    torso.capsule(L_hat, 0.09, offset=(0.0, L_hat / 2), angle=math.pi / 2, name="body")
    torso.disk(0.1, offset=(0.0, L_hat + 0.12), name="head")
    b.free("base", child=torso, q0={"x": q["base.x"], "y": q["base.y"], "theta": q.get("base.theta", 0.0)},
           v0=v0 or {})
    normal = (-math.sin(slope), math.cos(slope))
    ground = b.ground(normal=normal, name="ground")
    m_th, L_th, c_th, I_th = body.thigh
    m_sh, L_sh, c_sh, I_sh = body.shank
    m_ft, I_ft, h_a, x_heel, x_toe = body.foot
    motors, bodies = {}, {"torso": torso}
    for s, color in zip(SIDES, ("#d6784c", "#5fae5b")):
        thigh = b.body(f"thigh_{s}", mass=m_th, inertia=I_th, com=(0.0, -c_th), color=color)
        thigh.capsule(L_th, 0.06, offset=(0.0, -L_th / 2), angle=math.pi / 2, name="thigh")
        shank = b.body(f"shank_{s}", mass=m_sh, inertia=I_sh, com=(0.0, -c_sh), color=color)
        shank.capsule(L_sh, 0.045, offset=(0.0, -L_sh / 2), angle=math.pi / 2, name="shank")
        foot = b.body(f"foot_{s}", mass=m_ft, inertia=I_ft, com=(x_toe / 2, -h_a / 2), color=color)
        foot.polygon([(0.0, 0.0), (x_heel, -h_a), (x_toe, -h_a)], name="sole")
        bodies[f"foot_{s}"] = foot
        heel = foot.point(offset=(x_heel, -h_a), name="heel")
        toe = foot.point(offset=(x_toe, -h_a), name="toe")
        jh = b.revolute(f"hip_{s}", parent=torso, child=thigh, q0=q[f"hip_{s}"])
        jk = b.revolute(f"knee_{s}", parent=thigh, child=shank, anchor_parent=(0.0, -L_th), q0=q[f"knee_{s}"])
        ja = b.revolute(f"ankle_{s}", parent=shank, child=foot, anchor_parent=(0.0, -L_sh), q0=q[f"ankle_{s}"])
        for pt, where in ((heel, "heel"), (toe, "toe")):
            b.contact(pt, ground, friction=friction, restitution=0.0, name=f"{where}_{s}")
        for j, name in zip((jh, jk, ja), JOINTS):
            motors[f"{name}_{s}"] = b.actuator(j, name=f"{name}_{s}_motor", limit=limits[name])
    return motors, bodies


def standing_biped7(mass=70.0, height=1.75, hip_height=0.88, stance=0.15, lead=0.04, W=3000.0, T=150.0,
                    friction=0.8, spin=0.0, name="Biped standing (7 links, law 6.10)"):
    """The 7-link biped standing under law (6.10) on flat ground, its left foot ahead; the centre of
    mass `lead` ahead of the feet's midpoint, so the front foot carries more (walking.md (W3.6))."""
    body = Body(mass, height)
    q = standing_posture(body, hip_height, stance, lead)
    b = SceneBuilder(name, description=(
        f"A planar 7-link biped of {mass:g} kg and {height:g} m, Winter's anthropometric tables (torso with "
        f"head and arms, thighs, shanks, feet; docs/walking.md §3), a free joint 'base' at the hip. Heel "
        f"and toe contacts on each foot, friction {friction:g}, plastic. Hips, knees and ankles actuated "
        f"(limits hip {LIMITS['hip']:g}, knee {LIMITS['knee']:g}, ankle {LIMITS['ankle']:g} N·m). The "
        f"standing law (6.10) holds the posture (hip {hip_height:g} m high, feet ±{stance:g} m, centre of "
        f"mass {lead:g} m toward the left, front foot) with W = {W:g} N·m/rad, T = {T:g} N·m·s/rad and the "
        f"desired reactions of the static split (W3.6), each foot's centre of pressure midway between "
        f"heel and toe. The torso starts turning at {spin:g} rad/s."))
    motors, _bodies = biped_model(b, body, q, friction=friction, v0={"theta": spin} if spin else None)
    _forces, r = desired_reactions(body, q)
    posture = {k: v for k, v in q.items() if k not in ("base.x", "base.theta")}
    order = [f"{j}_{s}" for s in SIDES for j in JOINTS]
    b.controller("standing", [motors[k] for k in order], name="stand", W=[W], T=[T], posture=posture,
                 desired_reaction=r)
    b.settings(dt=1e-3, duration=3.0, projection=False)
    return b.build()


# SIMBICON's walking gait (Yin et al. 2007, Table 1) as tuned for this body: [lift, land] per state
GAIT = dict(swing_time=0.3, kp=[300.0, 300.0, 300.0], kd=[30.0, 30.0, 30.0], torso_kp=2000.0, torso_kd=200.0,
            torso_angle=-0.1, swing_hip=[0.5, -0.1], cd=[0.0, 2.2], cv=[0.2, 0.0], swing_knee=[-1.1, -0.05],
            swing_ankle=[0.2, 0.2], stance_knee=[-0.05, -0.1], stance_ankle=[0.0, 0.0])


def walking_biped(mass=70.0, height=1.75, slope_deg=0.0, speed=0.6, friction=0.8, duration=20.0, push=(30.0, 0.0),
                  push_time=10.0, dt=2e-3, name="Biped walking (SIMBICON)", **gait):
    """The 7-link biped walking under the SIMBICON law (nsgui/engine/control/simbicon.py) on a ground
    rising by `slope_deg` degrees, started on its left foot with the right one behind, moving forward at
    `speed` m/s; `push` (N·s, world frame) is applied to the torso's centre of mass at `push_time` (none
    if zero). `gait` overrides entries of GAIT."""
    body = Body(mass, height)
    q = standing_posture(body, 0.86, 0.12, 0.1)
    params = dict(GAIT, **gait)
    slope = math.radians(slope_deg)
    # on a slope, lift the robot so that no heel or toe starts below the ground (y = x tan(slope))
    pts = posture_points(body, q)
    q["base.y"] += max(0.0, max(pts[f"{p}_{s}"][0] * math.tan(slope) - pts[f"{p}_{s}"][1]
                                for p in ("heel", "toe") for s in SIDES))
    b = SceneBuilder(name, description=(
        f"The 7-link biped of docs/walking.md §3 ({mass:g} kg, {height:g} m, Winter's proportions) walking "
        f"under SIMBICON (Yin, Loken, van de Panne 2007): a four-state machine of swing and stance, the torso "
        f"held upright by the stance hip, the swing hip placed with balance feedback; on a ground sloping "
        f"{slope_deg:g}°, friction {friction:g}. It starts on its left foot at {speed:g} m/s"
        + (f"; at {push_time:g} s its torso is pushed by ({push[0]:g}, {push[1]:g}) N·s." if any(push) else ".")))
    motors, bodies = biped_model(b, body, q, friction=friction, slope=slope, v0={"x": speed})
    order = [f"{j}_{s}" for s in SIDES for j in JOINTS]
    b.controller("simbicon", [motors[k] for k in order], name="walk", torso="torso", feet=["foot_l", "foot_r"],
                 **params)
    b.walker(bodies["torso"], [bodies["foot_l"], bodies["foot_r"]])
    if any(push):
        b.impulse(bodies["torso"], list(push), time=push_time, point=(0.0, body.hat[2]), name="push")
    b.settings(dt=dt, duration=duration, projection=False)
    return b.build()


__all__ = ["GAIT", "walking_biped", "Body", "leg_angles", "posture_points", "standing_posture", "foot_centres", "static_split",
           "desired_reactions", "biped_model", "standing_biped7", "LIMITS", "SIDES", "JOINTS"]
