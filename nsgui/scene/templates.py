"""Ready-made mechanisms (pure functions returning a Scene; no Qt).

Each template lists its parameters (name, label, unit, default, min, max, integer?) so that the
dialog that asks for them is generated from the same list.
"""

from __future__ import annotations

import math

from .model import Body, Contact, Joint, Obstacle, Scene, Shape, ShapeRef

COLORS = ["#4c8bd6", "#d6784c", "#5fae5b", "#b45fc2", "#c9a93b", "#4cb8c4", "#d65c7a"]


def _contact(name, body, shape, obstacle=None, other=None, e=0.0, mu=0.0):
    b = ShapeRef(obstacle=obstacle) if obstacle else ShapeRef(body=other[0], shape=other[1])
    return Contact(name=name, a=ShapeRef(body=body, shape=shape), b=b, restitution=e, friction=mu)


def chain(n=5, link_length=0.3, link_radius=0.02, density=50.0, pivot_height=1.5):
    """N bars pinned end to end, the first to the world, released horizontal."""
    s = Scene(name=f"Chain of {n} links")
    for i in range(n):
        name = f"link{i + 1}"
        s.bodies.append(Body(name=name, density=density, color=COLORS[i % len(COLORS)],
                             shapes=[Shape(type="capsule", name="bar", length=link_length, radius=link_radius)]))
        parent = "world" if i == 0 else f"link{i}"
        ap = [0.0, pivot_height] if i == 0 else [link_length / 2, 0.0]
        s.joints.append(Joint(name=f"pin{i + 1}", type="revolute", parent=parent, child=name,
                              anchor_parent=ap, anchor_child=[-link_length / 2, 0.0]))
    # the ground is within reach of the chain's free end, so the chain lands on it
    s.obstacles.append(Obstacle(name="ground", type="ground", point=[0.0, pivot_height - 0.75 * n * link_length]))
    from .reach import can_touch
    for b in s.bodies:
        key = ((b.name, "bar"), ("obstacle", "ground"))
        if can_touch(s, key):
            s.contacts.append(_contact(f"{b.name}_ground", b.name, "bar", obstacle="ground", e=0.2, mu=0.5))
    return s


def newtons_cradle(n=5, radius=0.05, length=0.6, restitution=1.0, lift_deg=30.0, density=1000.0):
    """N balls on strings (pins to the world), touching; the first ball lifted."""
    s = Scene(name=f"Newton's cradle, {n} balls")
    top = length + 0.2
    for i in range(n):
        name = f"ball{i + 1}"
        x = 2 * radius * i
        s.bodies.append(Body(name=name, density=density, color=COLORS[i % len(COLORS)],
                             shapes=[Shape(type="disk", name="disk", radius=radius)]))
        s.joints.append(Joint(name=f"string{i + 1}", type="revolute", parent="world", child=name,
                              anchor_parent=[x, top], anchor_child=[0.0, length]))
        if i > 0:
            s.contacts.append(_contact(f"ball{i}_ball{i + 1}", f"ball{i}", "disk",
                                       other=(name, "disk"), e=restitution))
    s.initial.q["string1"] = -math.radians(lift_deg)
    s.settings.duration = 3.0
    return s


def bead_column(n=4, radius=0.05, gap=0.05, restitution=0.8, density=500.0):
    """N beads threaded on a vertical rod (sliders), dropped onto the ground with gaps between."""
    s = Scene(name=f"Column of {n} beads")
    s.obstacles.append(Obstacle(name="ground", type="ground"))
    for i in range(n):
        name = f"bead{i + 1}"
        y = radius + i * (2 * radius + gap) + gap
        s.bodies.append(Body(name=name, density=density, color=COLORS[i % len(COLORS)],
                             shapes=[Shape(type="disk", name="disk", radius=radius)]))
        s.joints.append(Joint(name=f"rod{i + 1}", type="prismatic", parent="world", child=name,
                              anchor_parent=[0.0, 0.0], axis=[0.0, 1.0]))
        s.initial.q[f"rod{i + 1}"] = y
        if i == 0:
            s.contacts.append(_contact("bead1_ground", name, "disk", obstacle="ground", e=restitution))
        else:
            s.contacts.append(_contact(f"bead{i}_bead{i + 1}", name, "disk", other=(f"bead{i}", "disk"),
                                       e=restitution))
    s.settings.duration = 3.0
    return s


def block_on_slope(angle_deg=30.0, friction=0.3, width=0.2, height=0.1, distance=1.0, density=500.0):
    """A box resting on a slope of angle α, `distance` up from a stop at the bottom."""
    a = math.radians(angle_deg)
    t = (math.cos(a), math.sin(a))
    n = (-math.sin(a), math.cos(a))
    s = Scene(name=f"Block on a {angle_deg:g}° slope")
    s.obstacles.append(Obstacle(name="slope", type="ground", point=[0.0, 0.0], normal=list(n)))
    s.obstacles.append(Obstacle(name="stop", type="wall", point=[0.0, 0.0], normal=list(t)))
    s.bodies.append(Body(name="block", density=density,
                         shapes=[Shape(type="box", name="box", width=width, height=height)]))
    s.joints.append(Joint(name="block", type="free", parent="world", child="block"))
    cx = distance * t[0] + height / 2 * n[0]
    cy = distance * t[1] + height / 2 * n[1]
    s.initial.q.update({"block.x": cx, "block.y": cy, "block.theta": a})
    s.contacts.append(_contact("block_slope", "block", "box", obstacle="slope", mu=friction))
    s.contacts.append(_contact("block_stop", "block", "box", obstacle="stop", e=0.3, mu=friction))
    return s


def double_pendulum_wall(length1=0.5, length2=0.5, wall_distance=0.7, restitution=0.7, bob_radius=0.05,
                         density=200.0):
    """Two pinned bars released horizontal to the left; the second bar's bob hits a wall on the right."""
    s = Scene(name="Double pendulum against a wall")
    pivot = [0.0, 1.2]
    s.bodies.append(Body(name="upper", density=density, color=COLORS[0],
                         shapes=[Shape(type="capsule", name="bar", length=length1, radius=0.02)]))
    s.bodies.append(Body(name="lower", density=density, color=COLORS[1],
                         shapes=[Shape(type="capsule", name="bar", length=length2, radius=0.02),
                                 Shape(type="disk", name="bob", radius=bob_radius, offset=[length2 / 2, 0.0])]))
    s.joints.append(Joint(name="shoulder", type="revolute", parent="world", child="upper",
                          anchor_parent=pivot, anchor_child=[-length1 / 2, 0.0]))
    s.joints.append(Joint(name="elbow", type="revolute", parent="upper", child="lower",
                          anchor_parent=[length1 / 2, 0.0], anchor_child=[-length2 / 2, 0.0]))
    s.obstacles.append(Obstacle(name="wall", type="wall", point=[wall_distance, 0.0], normal=[-1.0, 0.0]))
    s.initial.q["shoulder"] = math.pi  # horizontal, pointing left
    s.contacts.append(_contact("bob_wall", "lower", "bob", obstacle="wall", e=restitution))
    if length1 + 0.02 >= wall_distance:
        s.contacts.append(_contact("upper_wall", "upper", "bar", obstacle="wall", e=restitution))
    s.contacts.append(_contact("lower_wall", "lower", "bar", obstacle="wall", e=restitution))
    return s


# name → (function, [(param, label, unit, default, min, max, integer)])
TEMPLATES = {
    "Chain of N links": (chain, [
        ("n", "Links N", "", 5, 1, 50, True),
        ("link_length", "Link length", "m", 0.3, 0.01, 10, False),
        ("link_radius", "Link radius", "m", 0.02, 0.0, 1, False)]),
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
}


def make_template(name: str, **params) -> Scene:
    fn, _ = TEMPLATES[name]
    return fn(**params)
