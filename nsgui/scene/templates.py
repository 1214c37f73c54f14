"""Ready-made mechanisms (pure functions returning a Scene; no Qt).

Each template lists its parameters (name, label, unit, default, min, max, integer?) so that the
dialog that asks for them is generated from the same list.
"""

from __future__ import annotations

import math

from .biped import standing_biped
from .planar_biped import standing_biped7, walking_biped
from .builder import DEFAULT, SceneBuilder
from .model import Scene
from .reach import can_touch
from .walkers import compass_gait, rimless_wheel

COLORS = ["#4c8bd6", "#d6784c", "#5fae5b", "#b45fc2", "#c9a93b", "#4cb8c4", "#d65c7a"]


def chain(n=5, link_length=0.3, link_radius=0.02, density=50.0, pivot_height=1.5):
    """N bars pinned end to end, the first to the world, released horizontal."""
    b = SceneBuilder(f"Chain of {n} links")
    bars, parent = [], b.world
    for i in range(n):
        link = b.body(f"link{i + 1}", density=density, color=COLORS[i % len(COLORS)])
        bars.append(link.capsule(link_length, link_radius, name="bar"))
        b.revolute(f"pin{i + 1}", parent=parent, child=link, anchor_child=(-link_length / 2, 0.0),
                   anchor_parent=(0.0, pivot_height) if i == 0 else (link_length / 2, 0.0))
        parent = link
    # the ground is within reach of the chain's free end, so the chain lands on it
    ground = b.ground(point=(0.0, pivot_height - 0.75 * n * link_length))
    links = b.build()
    for bar in bars:
        if can_touch(links, ((bar.body.name, bar.name), ("obstacle", ground.name))):
            b.contact(bar, ground, restitution=0.2, friction=0.5, name=f"{bar.body.name}_ground")
    return b.build()


def newtons_cradle(n=5, radius=0.05, length=0.6, restitution=1.0, lift_deg=30.0, density=1000.0):
    """N balls on strings (pins to the world), touching; the first ball lifted."""
    b = SceneBuilder(f"Newton's cradle, {n} balls")
    top = length + 0.2
    previous = None
    for i in range(n):
        ball = b.body(f"ball{i + 1}", density=density, color=COLORS[i % len(COLORS)])
        disk = ball.disk(radius, name="disk")
        b.revolute(f"string{i + 1}", child=ball, anchor_parent=(2 * radius * i, top), anchor_child=(0.0, length),
                   q0=-math.radians(lift_deg) if i == 0 else DEFAULT)
        if previous is not None:
            b.contact(previous, disk, restitution=restitution, name=f"ball{i}_ball{i + 1}")
        previous = disk
    b.settings(duration=3.0)
    return b.build()


def bead_column(n=4, radius=0.05, gap=0.05, restitution=0.8, density=500.0):
    """N beads threaded on a vertical rod (sliders), dropped onto the ground with gaps between."""
    b = SceneBuilder(f"Column of {n} beads")
    below = b.ground()
    for i in range(n):
        bead = b.body(f"bead{i + 1}", density=density, color=COLORS[i % len(COLORS)])
        disk = bead.disk(radius, name="disk")
        b.prismatic(f"rod{i + 1}", child=bead, anchor_parent=(0.0, 0.0), axis=(0.0, 1.0),
                    q0=radius + i * (2 * radius + gap) + gap)
        b.contact(disk, below, restitution=restitution, name=f"bead{i + 1}_ground" if i == 0 else f"bead{i}_bead{i + 1}")
        below = disk
    b.settings(duration=3.0)
    return b.build()


def block_on_slope(angle_deg=30.0, friction=0.3, width=0.2, height=0.1, distance=1.0, density=500.0):
    """A box resting on a slope of angle α, `distance` up from a stop at the bottom."""
    a = math.radians(angle_deg)
    t = (math.cos(a), math.sin(a))
    n = (-math.sin(a), math.cos(a))
    b = SceneBuilder(f"Block on a {angle_deg:g}° slope")
    slope = b.ground(point=(0.0, 0.0), normal=n, name="slope")
    stop = b.wall(point=(0.0, 0.0), normal=t, name="stop")
    block = b.body("block", density=density)
    box = block.box(width, height, name="box")
    b.free("block", child=block, q0=(distance * t[0] + height / 2 * n[0], distance * t[1] + height / 2 * n[1], a))
    b.contact(box, slope, friction=friction)
    b.contact(box, stop, restitution=0.3, friction=friction)
    return b.build()


def double_pendulum_wall(length1=0.5, length2=0.5, wall_distance=0.7, restitution=0.7, bob_radius=0.05,
                         density=200.0):
    """Two pinned bars released horizontal to the left; the second bar's bob hits a wall on the right."""
    b = SceneBuilder("Double pendulum against a wall")
    upper = b.body("upper", density=density, color=COLORS[0])
    upper_bar = upper.capsule(length1, 0.02, name="bar")
    lower = b.body("lower", density=density, color=COLORS[1])
    lower_bar = lower.capsule(length2, 0.02, name="bar")
    bob = lower.disk(bob_radius, offset=(length2 / 2, 0.0), name="bob")
    b.revolute("shoulder", child=upper, anchor_parent=(0.0, 1.2), anchor_child=(-length1 / 2, 0.0),
               q0=math.pi)  # horizontal, pointing left
    b.revolute("elbow", parent=upper, child=lower, anchor_parent=(length1 / 2, 0.0),
               anchor_child=(-length2 / 2, 0.0))
    wall = b.wall(point=(wall_distance, 0.0), normal=(-1.0, 0.0))
    b.contact(bob, wall, restitution=restitution, name="bob_wall")
    if length1 + 0.02 >= wall_distance:
        b.contact(upper_bar, wall, restitution=restitution, name="upper_wall")
    b.contact(lower_bar, wall, restitution=restitution, name="lower_wall")
    return b.build()


def two_link_tracking(restitution=0.7, gamma1=25.0, gamma2=30.0, dt=1e-4, cycles=2):
    """Seed 004's two-link arm (control digest §8.2) whose tip tracks a circle that dips below the
    ground, under the switching scheme `bno` (docs/controllers.md): gravity modelled and compensated
    by the controller."""
    period = 5.0
    b = SceneBuilder("Two-link arm tracking a circle", description=(
        "Seed 004's manipulator (control digest §8.2): links of 0.5 m and 1 kg with I = 1 kg m^2 about their "
        "centres, base at the origin, theta(0) = (0.9, -1.6). Its tip tracks the circle of centre (0.65, 0) "
        "and radius 0.1 m (period 5 s), whose lower half lies below the ground y = 0: the switching "
        "controller 'tracking' (Brogliato-Niculescu-Orhant) stops the tangential motion, descends to the "
        "ground through impacts (e = 0.7, frictionless), slides along it pressing with 5 N and takes off "
        "where the circle re-enters. Gravity is modelled and compensated by the controller "
        "(gravity_compensation); the public Siconos example has no gravity at all: --set gravity=[0,0]. "
        "Plain Moreau-Jean (theta = 0.500001, no position projection), h = 1e-4. Plastic joint limits keep theta1 in [0, pi] and theta2 in [-pi + 0.05, -0.05] (elbow down, away "
        "from the singular configurations)."), gravity=(0.0, -9.81))
    link1 = b.body("link1", mass=1.0, inertia=1.0, com=(0.25, 0.0), color=COLORS[0])
    link1.capsule(0.5, 0.03, offset=(0.25, 0.0), name="link")
    link2 = b.body("link2", mass=1.0, inertia=1.0, com=(0.25, 0.0), color=COLORS[2])
    link2.capsule(0.5, 0.03, offset=(0.25, 0.0), name="link")
    tip = link2.point((0.5, 0.0), name="tip")
    shoulder = b.revolute("shoulder", child=link1, limits={"lower": 0.0, "upper": math.pi, "restitution": 0.0},
                          q0=0.9)
    elbow = b.revolute("elbow", parent=link1, child=link2, anchor_parent=(0.5, 0.0),
                       limits={"lower": -math.pi + 0.05, "upper": -0.05, "restitution": 0.0}, q0=-1.6)
    b.contact(tip, b.ground(), restitution=restitution, friction=0.0, name="tip_ground")
    motors = [b.actuator(shoulder), b.actuator(elbow)]
    b.controller("bno", motors, name="tracking", gamma1=gamma1, gamma2=gamma2, gravity_compensation=True,
                 body="link2", point=[0.5, 0.0], contact="tip_ground", centre=[0.65, 0.0], radius=0.1,
                 cycle=period, surface_y=0.0)
    b.settings(dt=dt, duration=cycles * period, theta=0.500001, projection=False)  # plain Moreau–Jean, as 004
    return b.build()


def biped_walking(mass=70.0, height=1.75, slope_deg=0.0, speed=0.6, friction=0.8, push=30.0, push_time=10.0,
                  duration=20.0):
    """The 7-link biped walking under SIMBICON (planar_biped.walking_biped), pushed forward on its torso
    by `push` N·s at `push_time` (0: no push)."""
    return walking_biped(mass=mass, height=height, slope_deg=slope_deg, speed=speed, friction=friction,
                         push=(push, 0.0), push_time=push_time, duration=duration)


def biped_standing(mass=70.0, height=1.75, hip_height=0.88, stance=0.15, W=3000.0, T=150.0, friction=0.8):
    """The 7-link biped standing under law (6.10) (planar_biped.standing_biped7)."""
    return standing_biped7(mass=mass, height=height, hip_height=hip_height, stance=stance, W=W, T=T,
                           friction=friction)


# name → (function, [(param, label, unit, default, min, max, integer)])
TEMPLATES = {
    "Chain of N links": (chain, [
        ("n", "Links N", "", 5, 1, 50, True),
        ("link_length", "Link length", "m", 0.3, 0.01, 10, False),
        ("link_radius", "Link radius", "m", 0.02, 0.005, 1, False)]),  # > 0: the mass comes from the area
    "Newton's cradle": (newtons_cradle, [
        ("n", "Balls N", "", 5, 2, 30, True),
        ("radius", "Ball radius", "m", 0.05, 0.005, 1, False),
        ("length", "String length", "m", 0.6, 0.05, 10, False),
        ("restitution", "Restitution e_N", "", 1.0, 0, 1, False),
        ("lift_deg", "First ball lifted by", "°", 30.0, 0, 90, False)]),
    "Bead column": (bead_column, [
        ("n", "Beads N", "", 4, 1, 30, True),
        ("radius", "Bead radius", "m", 0.05, 0.005, 1, False),
        ("gap", "Gap between beads", "m", 0.05, 0.0, 1, False),
        ("restitution", "Restitution e_N", "", 0.8, 0, 1, False)]),
    "Block on a slope": (block_on_slope, [
        ("angle_deg", "Slope angle", "°", 30.0, 0, 80, False),
        ("friction", "Friction μ", "", 0.3, 0, 5, False),
        ("width", "Block width", "m", 0.2, 0.01, 5, False),
        ("height", "Block height", "m", 0.1, 0.01, 5, False),
        ("distance", "Distance up the slope", "m", 1.0, 0.0, 50, False)]),
    "Double pendulum against a wall": (double_pendulum_wall, [
        ("length1", "Upper bar length", "m", 0.5, 0.05, 10, False),
        ("length2", "Lower bar length", "m", 0.5, 0.05, 10, False),
        ("wall_distance", "Wall distance from pivot", "m", 0.7, 0.05, 20, False),
        ("restitution", "Restitution e_N", "", 0.7, 0, 1, False)]),
    "Two-link arm tracking a circle": (two_link_tracking, [
        ("restitution", "Restitution e_N", "", 0.7, 0, 0.95, False),
        ("gamma1", "Gain γ₁ (damping)", "1/s", 25.0, 0.5, 500, False),
        ("gamma2", "Gain γ₂ (γ₁γ₂: stiffness)", "1/s", 30.0, 0.5, 500, False),
        ("dt", "Time step h", "s", 1e-4, 1e-6, 1e-3, False),
        ("cycles", "Cycles (5 s each)", "", 2, 1, 20, True)]),
    "Biped on point feet (law 6.10)": (standing_biped, [
        ("trunk_mass", "Trunk mass", "kg", 12.0, 0.5, 200, False),
        ("thigh_mass", "Thigh mass", "kg", 3.0, 0.1, 30, False),
        ("shank_mass", "Shank mass", "kg", 1.5, 0.1, 20, False),
        ("hip_height", "Hip height", "m", 0.68, 0.4, 0.7, False),
        ("stance", "Feet at ± (about the centre of mass)", "m", 0.12, 0.0, 0.2, False),
        ("W", "Stiffness W", "N·m/rad", 3000.0, 0, 1e5, False),
        ("T", "Damping T", "N·m·s/rad", 150.0, 0, 1e4, False),
        ("friction", "Friction μ", "", 0.8, 0, 5, False),
        ("spin", "Initial trunk spin", "rad/s", 0.3, -5, 5, False)]),
    "Biped standing": (biped_standing, [
        ("mass", "Mass", "kg", 70.0, 20, 150, False),
        ("height", "Height", "m", 1.75, 1.75, 2.2, False),  # shorter: the posture is out of the legs' reach
        ("hip_height", "Hip height", "m", 0.88, 0.7, 0.88, False),
        ("stance", "Feet at ± (about the centre of mass)", "m", 0.15, 0.05, 0.2, False),
        ("W", "Stiffness W", "N·m/rad", 3000.0, 0, 1e5, False),
        ("T", "Damping T", "N·m·s/rad", 150.0, 0, 1e4, False),
        ("friction", "Friction μ", "", 0.8, 0.1, 5, False)]),
    "Biped walking": (biped_walking, [
        ("mass", "Mass", "kg", 70.0, 20, 150, False),
        ("height", "Height", "m", 1.75, 1.75, 2.2, False),
        ("slope_deg", "Ground slope (rising)", "°", 0.0, -5, 5, False),
        ("speed", "Initial speed", "m/s", 0.6, 0.0, 2.0, False),
        ("friction", "Friction μ", "", 0.8, 0.1, 5, False),
        ("push", "Push on the torso (forward)", "N·s", 30.0, -100, 100, False),
        ("push_time", "Push at", "s", 10.0, 0, 1000, False),
        ("duration", "Duration", "s", 20.0, 1, 1000, False)]),
    "Rimless wheel": (rimless_wheel, [
        ("slope", "Slope γ", "rad", 0.08, 0.0, 0.35, False),
        ("mass", "Hub mass M", "kg", 1.0, 0.1, 100, False),
        ("leg", "Spoke length", "m", 1.0, 0.1, 5, False),
        ("spokes", "Spokes N", "", 8, 5, 20, True)]),
    "Compass gait walker": (compass_gait, [   # slopes and masses where the continuation finds the gait quickly
        ("slope_deg", "Slope γ", "°", 3.0, 0.5, 6.0, False),
        ("hip_mass", "Hip mass m_h", "kg", 10.0, 5.0, 50, False),
        ("leg_mass", "Leg mass m (each)", "kg", 5.0, 0.5, 10, False)]),
}


def make_template(name: str, **params) -> Scene:
    fn, _ = TEMPLATES[name]
    return fn(**params)
