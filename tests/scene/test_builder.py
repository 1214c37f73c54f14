"""SceneBuilder (nsgui/scene/builder.py): the issue's example runs and its pendulum hits the wall when
an independent integration says; example files rebuilt with the builder are equal to the files; every
element of the format is written with the file's keys; a broken scene lists every problem with its
path; handles of another builder and name strings are refused."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nsgui.engine import simulate
from nsgui.scene import SceneBuilder, SceneError, scene_from_dict, scene_to_dict
from nsgui.scene.model import Body, Settings
from tests.helpers import example_dict


def issue_example():
    """The issue's example, verbatim."""
    b = SceneBuilder("Pendulum hitting a wall")
    wall = b.wall(point=(-0.3, 0.0), normal=(1.0, 0.0))
    bob = b.body("bob", mass=1.0, inertia=0.001, com=(0.0, -1.0))
    tip = bob.disk(0.05, offset=(0.0, -1.0))
    b.revolute("pivot", parent=b.world, child=bob, anchor_parent=(0.0, 1.0), q0=0.8)
    b.contact(tip, wall, restitution=0.8, friction=0.2)
    b.settings(dt=1e-3, duration=3.0)
    scene = b.build()
    return scene  # noqa: RET504 (the issue's last line)


def test_issue_example_hits_the_wall_when_the_pendulum_equation_says():
    scene = issue_example()
    # independent prediction: a rigid pendulum about the pivot, m L² + I, released from rest at q0;
    # the tip (L below the pivot, radius r) touches the wall x = -0.3 when sin q = (-0.3 + r) / L
    m, inertia, L, r, g = 1.0, 0.001, 1.0, 0.05, 9.81
    touch = solve_ivp(lambda t, y: [y[1], -m * g * L * math.sin(y[0]) / (inertia + m * L * L)], (0, 3.0),
                      [0.8, 0.0], events=lambda t, y: L * math.sin(y[0]) - r + 0.3, rtol=1e-11, atol=1e-12)
    t_hit = touch.t_events[0][0]

    result = simulate(scene)
    impacts = [e for e in result.events if e.kind == "impact"]
    assert impacts and impacts[0].name == "bob_wall"
    h = scene.settings.dt
    assert abs(impacts[0].t - t_hit) <= 2 * h, (impacts[0].t, t_hit)
    # before the impact the pendulum swings as the same equation says (a check of the model the builder made)
    k = int(0.8 * t_hit / h)
    q_pred = solve_ivp(lambda t, y: [y[1], -m * g * L * math.sin(y[0]) / (inertia + m * L * L)],
                       (0, result.t[k]), [0.8, 0.0], rtol=1e-11, atol=1e-12).y[0, -1]
    assert result["q.pivot"][k] == pytest.approx(q_pred, abs=1e-3)
    # and the tip rebounds from the wall: it never goes through
    assert result["contact.bob_wall.gap"].min() > -1e-6


def rebuilt_bouncing_ball():
    f = example_dict("bouncing_ball")
    b = SceneBuilder("Bouncing ball", description=f["description"])
    ground = b.ground()
    ball = b.body("ball", mass=1.0, inertia=0.004, color="#d64c4c")
    disk = ball.disk(0.1, name="disk")
    b.free("ball", child=ball, q0={"y": 1.0})
    b.contact(disk, ground, restitution=0.9)
    b.settings(dt=0.005, duration=10.0)
    return b.build()


def rebuilt_double_pendulum_wall():
    f = example_dict("double_pendulum_wall")
    b = SceneBuilder(f["name"], description=f["description"], gravity=(0.0, -10.0))
    wall = b.wall(normal=(1.0, 0.0))
    masses = []
    for name, color in (("m1", "#d64c4c"), ("m2", "#4c8bd6")):
        body = b.body(name, mass=1.0, inertia=0.0, com=(0.0, 0.0), color=color)
        mass = body.point(name="mass")
        body.capsule(1.0, 0.0, offset=(0.0, 0.5), angle=math.pi / 2, name="rod")
        masses.append((body, mass))
    (upper, m1), (lower, m2) = masses
    b.revolute("theta1", parent=b.world, child=upper, anchor_child=(0.0, 1.0), q0=0.1)
    b.revolute("theta2", parent=upper, child=lower, anchor_child=(0.0, 1.0), q0=0.1)
    b.contact(m1, wall, restitution=1.0)
    b.contact(m2, wall, restitution=0.0)
    s = f["settings"]
    b.settings(dt=s["dt"], duration=s["duration"])
    return b.build()


def rebuilt_two_link_arm():
    f = example_dict("two_link_arm")
    b = SceneBuilder(f["name"], description=f["description"])
    ground = b.ground()
    link1 = b.body("link1", mass=1.0, inertia=1.0, com=(0.25, 0.0))
    link1.capsule(0.5, 0.03, offset=(0.25, 0.0), name="link")
    link2 = b.body("link2", mass=1.0, inertia=1.0, com=(0.25, 0.0), color="#6a9f3a")
    link2.capsule(0.5, 0.03, offset=(0.25, 0.0), name="link")
    tip = link2.point((0.5, 0.0), name="tip")
    shoulder = b.revolute("shoulder", child=link1, q0=0.9)
    elbow = b.revolute("elbow", parent=link1, child=link2, anchor_parent=(0.5, 0.0), q0=-1.2)
    b.contact(tip, ground, restitution=0.7, name="tip_ground")
    for joint, target in ((shoulder, 0.5), (elbow, -1.2469794330622694)):
        b.actuator(joint, controller={"type": "pd", "kp": 60.0, "kd": 8.0, "target": target,
                                      "gravity_compensation": True})
    b.settings(duration=3.0)
    return b.build()


def rebuilt_sliding_block_push2():
    f = example_dict("sliding_block_push2")
    b = SceneBuilder(f["name"], description=f["description"])
    ground = b.ground()
    block = b.body("block", mass=1.0, inertia=0.1, color="#6a9f3a")
    center = block.point(name="center")
    b.free("block", child=block, q0={"y": 0.0})
    b.contact(center, ground, friction=0.3)
    b.force(block, (2.0, 0.0), name="push")
    b.settings(duration=1.5)
    return b.build()


@pytest.mark.parametrize("name, rebuild", [
    ("bouncing_ball", rebuilt_bouncing_ball), ("double_pendulum_wall", rebuilt_double_pendulum_wall),
    ("two_link_arm", rebuilt_two_link_arm), ("sliding_block_push2", rebuilt_sliding_block_push2)])
def test_example_files_rebuilt_with_the_builder_are_equal(name, rebuild):
    assert scene_to_dict(rebuild()) == example_dict(name)


def every_element_by_builder():
    b = SceneBuilder("Everything", description="every element of the format", gravity=(0.0, -1.62))
    ground = b.ground(point=(0.0, -1.0))
    wall = b.wall(point=(3.0, 0.0), normal=(-1.0, 0.0), name="right")
    ledge = b.segment((-2.0, 0.5), (-1.0, 0.5))
    base = b.body("base", density=100.0, color="#112233")
    base.box(0.4, 0.1, angle=0.1)
    cart = b.body("cart", mass=2.0, inertia=0.05, com=(0.0, 0.01))
    wheel = cart.disk(0.1)
    cart.polygon([(-0.2, -0.1), (0.2, -0.1), (0.0, 0.2)], offset=(0.0, 0.1), name="hull")
    arm = b.body("arm", mass=0.5, inertia=0.0)
    bar = arm.capsule(0.6, offset=(0.3, 0.0))
    tip = arm.point((0.6, 0.0))
    rolling = b.body("rolling", density=50.0)
    ball = rolling.disk(0.2)
    b.fixed("weld", child=base, anchor_parent=(0.0, 1.0), angle=0.2)
    slider = b.prismatic("slide", parent=base, child=cart, axis=(0.0, 2.0), anchor_child=(0.0, -0.1),
                         limits={"lower": -0.5, "upper": 0.5, "restitution": 0.3}, q0=0.1, v0=-0.2)
    pin = b.revolute("pin", parent=cart, child=arm, anchor_parent=(0.1, 0.0), angle=0.5,
                     limits=(-1.0, None), v0=2.0)
    free = b.free("fly", child=rolling, q0=(1.0, 0.5, 0.25), v0={"theta": -3.0})
    b.contact(tip, ground, friction=0.4)
    b.contact(ball, wall, restitution=0.5)
    b.contact(ball, wheel)
    b.contact(bar, ledge, name="bar_on_ledge")
    b.spring(arm.at((0.6, 0.0)), b.world.at((0.0, 2.0)), stiffness=20.0, damping=0.5, rest_length=1.0)
    b.spring(rolling, cart, stiffness=5.0)
    b.joint_spring(free.x, stiffness=3.0, rest=1.0)
    b.joint_spring(pin, damping=0.1)
    b.force(rolling, (0.0, 1.0), point=(0.1, 0.0))
    b.actuator(slider, controller={"type": "pd", "kp": 10.0, "kd": 1.0, "target": 0.2, "period": 0.01}, limit=5.0)
    b.actuator(free.theta, controller={"type": "constant", "value": 0.3})
    b.actuator(pin)
    b.settings(dt=2e-3, duration=1.0, theta=0.6, gamma=0.4, solver="nsgs", tolerance=1e-8, max_iterations=200,
               projection=False, impact_threshold=1e-4)
    return b.build()


EVERY_ELEMENT_FILE = {
    "format": "nsgui-scene", "version": 1, "name": "Everything", "description": "every element of the format",
    "gravity": [0, -1.62],
    "bodies": [
        {"name": "base", "density": 100, "color": "#112233",
         "shapes": [{"type": "box", "name": "box0", "width": 0.4, "height": 0.1, "angle": 0.1}]},
        {"name": "cart", "mass": 2, "inertia": 0.05, "com": [0, 0.01],
         "shapes": [{"type": "disk", "name": "disk0", "radius": 0.1},
                    {"type": "polygon", "name": "hull", "offset": [0, 0.1],
                     "vertices": [[-0.2, -0.1], [0.2, -0.1], [0, 0.2]]}]},
        {"name": "arm", "mass": 0.5, "inertia": 0,
         "shapes": [{"type": "capsule", "name": "capsule0", "length": 0.6, "offset": [0.3, 0]},
                    {"type": "point", "name": "point1", "offset": [0.6, 0]}]},
        {"name": "rolling", "density": 50, "shapes": [{"type": "disk", "name": "disk0", "radius": 0.2}]}],
    "joints": [
        {"name": "weld", "type": "fixed", "child": "base", "anchor_parent": [0, 1], "angle": 0.2},
        {"name": "slide", "type": "prismatic", "parent": "base", "child": "cart", "axis": [0, 2],
         "anchor_child": [0, -0.1], "limits": {"lower": -0.5, "upper": 0.5, "restitution": 0.3}},
        {"name": "pin", "type": "revolute", "parent": "cart", "child": "arm", "anchor_parent": [0.1, 0],
         "angle": 0.5, "limits": {"lower": -1, "upper": None}},
        {"name": "fly", "type": "free", "child": "rolling"}],
    "obstacles": [
        {"name": "ground", "type": "ground", "point": [0, -1]},
        {"name": "right", "type": "wall", "point": [3, 0], "normal": [-1, 0]},
        {"name": "segment", "type": "segment", "a": [-2, 0.5], "b": [-1, 0.5]}],
    "contacts": [
        {"name": "arm_ground", "a": {"body": "arm", "shape": "point1"}, "b": {"obstacle": "ground"}, "friction": 0.4},
        {"name": "rolling_right", "a": {"body": "rolling", "shape": "disk0"}, "b": {"obstacle": "right"},
         "restitution": 0.5},
        {"name": "rolling_cart", "a": {"body": "rolling", "shape": "disk0"}, "b": {"body": "cart", "shape": "disk0"}},
        {"name": "bar_on_ledge", "a": {"body": "arm", "shape": "capsule0"}, "b": {"obstacle": "segment"}}],
    "forces": [
        {"name": "spring", "type": "spring", "a": {"body": "arm", "point": [0.6, 0]},
         "b": {"body": "world", "point": [0, 2]}, "stiffness": 20, "damping": 0.5, "rest_length": 1},
        {"name": "spring2", "type": "spring", "a": {"body": "rolling"}, "b": {"body": "cart"}, "stiffness": 5},
        {"name": "fly_x_spring", "type": "joint_spring", "joint": "fly.x", "stiffness": 3, "rest": 1},
        {"name": "pin_spring", "type": "joint_spring", "joint": "pin", "damping": 0.1},
        {"name": "force", "type": "force", "body": "rolling", "point": [0.1, 0], "force": [0, 1]}],
    "actuators": [
        {"name": "slide_motor", "joint": "slide", "limit": 5,
         "controller": {"type": "pd", "kp": 10, "kd": 1, "target": 0.2, "period": 0.01}},
        {"name": "fly_theta_motor", "joint": "fly.theta", "controller": {"type": "constant", "value": 0.3}},
        {"name": "pin_motor", "joint": "pin"}],
    "initial": {"q": {"slide": 0.1, "fly.x": 1, "fly.y": 0.5, "fly.theta": 0.25},
                "v": {"slide": -0.2, "pin": 2, "fly.theta": -3}},
    "settings": {"dt": 2e-3, "duration": 1, "theta": 0.6, "gamma": 0.4, "solver": "nsgs", "tolerance": 1e-8,
                 "max_iterations": 200, "projection": False, "impact_threshold": 1e-4},
}


def test_every_element_of_the_format_is_written_with_the_file_keys():
    assert scene_to_dict(every_element_by_builder()) == scene_to_dict(scene_from_dict(EVERY_ELEMENT_FILE))


def test_every_element_scene_runs():
    r = simulate(every_element_by_builder(), duration=0.05)
    assert r.summary["failure"] is None and r.summary["steps"] == 25


def test_left_out_arguments_take_the_file_format_defaults():
    b = SceneBuilder()
    body = b.body("b", mass=1.0)
    bar = body.capsule(0.5)
    b.free("j", child=body)
    s = b.build()
    assert s.bodies[0].color == Body().color and s.bodies[0].shapes[0].radius == 0.0
    assert scene_to_dict(s)["settings"] == scene_to_dict(scene_from_dict(
        {"format": "nsgui-scene", "version": 1}))["settings"]
    assert s.settings == Settings() and bar.name == "capsule0" and s.name == ""


def test_default_names_are_unique_and_plain():
    b = SceneBuilder()
    assert [b.wall().name, b.wall().name, b.ground().name, b.wall().name] == ["wall", "wall2", "ground", "wall3"]
    body = b.body("ball", mass=1.0, inertia=0.1)
    d1, d2, d3 = body.disk(0.1), body.disk(0.1, name="disk2"), body.disk(0.1)
    assert [d1.name, d2.name, d3.name] == ["disk0", "disk2", "disk3"]
    j = b.free("ball", child=body)
    assert b.actuator(j.x).name == "ball_x_motor" and b.actuator(j.x).name == "ball_x_motor2"
    assert b.build().bodies[0].shapes[2].name == "disk3"


def test_build_lists_every_problem_with_its_path():
    b = SceneBuilder("Broken", gravity=(0.0, float("nan")))
    wall = b.wall(normal=(0.0, 0.0))
    heavy = b.body("heavy", mass=-1.0, inertia=0.1)
    disk = heavy.disk(0.0)
    plate = b.body("plate", density=10.0)
    plate.polygon([(0, 0), (0, 1), (1, 0)])                     # clockwise
    lonely = b.body("lonely", mass=1.0, inertia=0.1)
    lonely.point()
    b.revolute("pin", child=heavy, limits=(1.0, -1.0))
    b.free("fly", child=plate, q0=(0.0, 1.0, 0.0))
    b.contact(disk, wall, restitution=2.0)
    b.settings(theta=3)
    with pytest.raises(SceneError) as err:
        b.build()
    assert sorted(str(p) for p in err.value.problems) == sorted([
        "gravity[1]: must be a finite number",
        "bodies[0].mass: must be > 0, not -1",
        "bodies[0].shapes[0].radius: must be > 0, not 0",
        "bodies[1].shapes[0].vertices: vertices are clockwise; list them counter-clockwise",
        "joints[0].limits: lower (1) > upper (-1)",
        "obstacles[0].normal: must not be zero length",
        "contacts[0].restitution: Newton's e_N must be in [0, 1], not 2 "
        "(for Moreau's e in [0, 2) set \"impact_law\": \"moreau\")",
        "settings.theta: must be in [0.5, 1], not 3",
        "bodies[2]: body 'lonely' is not the child of any joint (attach it with a joint; a free joint lets it "
        "move freely)",
    ])


def test_handles_of_another_builder_are_refused():
    b, other = SceneBuilder("mine"), SceneBuilder("theirs")
    wall = b.wall()
    bob = b.body("bob", mass=1.0, inertia=0.1)
    foreign_body = other.body("bob", mass=1.0, inertia=0.1)
    foreign_tip = foreign_body.disk(0.1)
    with pytest.raises(ValueError, match=r"contact a: <shape 'disk0' of body 'bob' of SceneBuilder 'theirs'> "
                                         r"belongs to another SceneBuilder; use the handles of SceneBuilder 'mine'"):
        b.contact(foreign_tip, wall)
    with pytest.raises(ValueError, match="revolute\\('pin'\\) parent: .* belongs to another SceneBuilder"):
        b.revolute("pin", parent=other.world, child=bob)
    with pytest.raises(ValueError, match="spring b: .* belongs to another SceneBuilder"):
        b.spring(bob, foreign_body.at((0.0, 1.0)))
    pin = other.revolute("pin", child=foreign_body)
    with pytest.raises(ValueError, match="actuator joint: <joint 'pin' of SceneBuilder 'theirs'> belongs"):
        b.actuator(pin)
    # nothing was added by the refused calls
    assert [len(x) for x in (b._d["contacts"], b._d["joints"], b._d["forces"], b._d["actuators"])] == [0, 0, 0, 0]


def test_names_and_wrong_handles_are_refused_with_what_was_expected():
    b = SceneBuilder()
    wall = b.wall()
    bob = b.body("bob", mass=1.0, inertia=0.1)
    with pytest.raises(TypeError, match=r"contact a: expected a shape, not str 'tip' \(pass the handle the "
                                        r"builder returned, not a name\)"):
        b.contact("tip", wall)
    with pytest.raises(TypeError, match="contact a: expected a shape, not <body 'bob'"):
        b.contact(bob, wall)
    with pytest.raises(TypeError, match="the world has no shapes"):
        b.world.disk(0.1)
    with pytest.raises(ValueError, match="the world cannot be a joint's child"):
        b.revolute("pin", child=b.world)
    with pytest.raises(AttributeError, match="joint 'pin' is revolute: only a free joint has .x"):
        b.revolute("pin", child=bob).x
    with pytest.raises(TypeError, match="settings\\(\\): unknown setting 'dtt' \\(did you mean 'dt'\\?\\)"):
        b.settings(dtt=1e-3)
    with pytest.raises(ValueError, match="free\\('fly'\\) q0: unknown coordinate 'z'"):
        b.free("fly", child=b.body("other", mass=1.0, inertia=0.1), q0={"z": 1.0})


def test_build_again_gives_an_equal_independent_scene():
    b = SceneBuilder("twice")
    body = b.body("ball", mass=1.0, inertia=0.1)
    body.disk(0.1)
    b.free("ball", child=body, q0=np.array([0.0, 1.0, 0.0]))
    s1, s2 = b.build(), b.build()
    assert scene_to_dict(s1) == scene_to_dict(s2) and s1.bodies[0] is not s2.bodies[0]
    s1.bodies[0].mass = 5.0
    assert b.build().bodies[0].mass == 1.0


def test_a_contact_switch_takes_a_point_of_a_body_as_its_reference():
    b = SceneBuilder("switch")
    leg = b.body("leg", mass=1.0, inertia=0.1)
    foot = leg.point((0.0, -1.0), name="foot")
    other = b.body("other", mass=1.0, inertia=0.1)
    b.free("leg", child=leg)
    b.free("other", child=other, q0=(1.0, 0.0, 0.0))
    b.contact(foot, b.ground(), switch={"when": "ahead", "reference": other.at((0.0, -1.0)), "axis": (1.0, 0.0),
                                        "approaching": False})
    sw = scene_to_dict(b.build())["contacts"][0]["switch"]
    assert sw == {"when": "ahead", "reference": {"body": "other", "point": [0.0, -1.0]}, "axis": [1.0, 0.0],
                  "approaching": False}
    with pytest.raises(TypeError, match="contact switch reference"):
        b.contact(foot, b.ground(), switch={"reference": "other"})
