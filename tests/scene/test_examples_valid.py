"""Every example scene loads and validates, and holds exactly the parameters the reference tests rely on
(so nobody changes them silently)."""
from __future__ import annotations

import math
import runpy
from pathlib import Path

import numpy as np
import pytest

from nsgui.scene import body_mass_properties, coordinate_names, load_scene, scene_to_dict, validate_scene

SCENES = Path(__file__).resolve().parents[2] / "resources" / "scenes"
EXPECTED = ["bead_column_10", "bead_column_100", "bead_column_50", "biped", "biped_point_feet", "biped_standing",
            "bouncing_ball",
            "box_pyramid",
            "compass_gait", "default", "disk_pile", "disk_pile_200",
            "double_pendulum_wall", "falling_rod", "four_bar", "manipulator_on_surface", "newtons_cradle",
            "rimless_wheel", "rocking_block", "slider_crank",
            "sliding_block",
            "sliding_block_push2", "sliding_block_push5", "sliding_box", "two_link_arm",
            "two_link_tracking"]
approx = pytest.approx


def load(name):
    return load_scene(SCENES / f"{name}.json")


def by_name(items, name):
    found = [x for x in items if x.name == name]
    assert len(found) == 1, name
    return found[0]


def shape_of(scene, ref):
    return by_name(by_name(scene.bodies, ref.body).shapes, ref.shape)


def world_point(scene, q, body_name, local):
    """World position of a body-frame point for a tree of revolute/prismatic/free joints (format doc)."""
    poses = {"world": (np.zeros(2), 0.0)}
    for j in scene.joints:  # the examples list parents first
        p, th = poses[j.parent]
        R = lambda a: np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        if j.type == "free":
            poses[j.child] = (p + R(th) @ [q.get(f"{j.name}.x", 0.0), q.get(f"{j.name}.y", 0.0)],
                              th + q.get(f"{j.name}.theta", 0.0))
            continue
        qi = q.get(j.name, 0.0)
        thc = th + j.angle + (qi if j.type == "revolute" else 0.0)
        ap = np.array(j.anchor_parent) + (qi * np.array(j.axis) if j.type == "prismatic" else 0.0)
        poses[j.child] = (p + R(th) @ ap - R(thc) @ j.anchor_child, thc)
    p, th = poses[body_name]
    return p + np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]]) @ local


def test_the_expected_examples_exist_and_validate():
    assert sorted(p.stem for p in SCENES.glob("*.json")) == EXPECTED
    for name in EXPECTED:
        s = load(name)
        assert validate_scene(s) == []
        assert s.description and s.name, name


def test_bouncing_ball():
    s = load("bouncing_ball")
    b = by_name(s.bodies, "ball")
    assert (b.mass, b.inertia) == (1.0, 0.004)
    assert [(x.type, x.radius) for x in b.shapes] == [("disk", 0.1)]
    j = by_name(s.joints, "ball")
    assert (j.type, j.child) == ("free", "ball")
    assert s.initial.q == {"ball.y": 1.0} and s.initial.v == {}
    g = by_name(s.obstacles, "ground")
    assert (g.type, g.point, g.normal) == ("ground", [0.0, 0.0], [0.0, 1.0])
    c = by_name(s.contacts, "ball_ground")
    assert (c.restitution, c.friction, c.b.obstacle) == (0.9, 0.0, "ground")
    assert s.gravity == [0.0, -9.81] and (s.settings.dt, s.settings.duration) == (0.005, 10.0)


def test_falling_rod():
    s = load("falling_rod")
    b = by_name(s.bodies, "rod")
    assert (b.mass, b.inertia) == (1.0, approx(1 / 12, rel=1e-15))
    assert [(x.type, x.length, x.radius) for x in b.shapes] == [("capsule", 1.0, 0.0)]
    assert by_name(s.joints, "rod").type == "free"
    assert s.initial.q == {"rod.y": 1.0, "rod.theta": 0.5235987755982988} and s.initial.v == {}
    c = by_name(s.contacts, "rod_ground")
    assert (c.restitution, c.friction, shape_of(s, c.a).type) == (0.5, 0.0, "capsule")
    assert s.gravity == [0.0, -9.81] and (s.settings.dt, s.settings.duration) == (1e-3, 3.0)


@pytest.mark.parametrize("name,push,v0", [("sliding_block", None, 2.0), ("sliding_block_push2", 2.0, None),
                                          ("sliding_block_push5", 5.0, None)])
def test_sliding_blocks(name, push, v0):
    s = load(name)
    b = by_name(s.bodies, "block")
    assert (b.mass, b.inertia) == (1.0, 0.1)
    assert [(x.type, x.offset) for x in b.shapes] == [("point", [0.0, 0.0])]
    assert by_name(s.joints, "block").type == "free"
    assert s.initial.q.get("block.y", 0.0) == 0.0 and set(s.initial.q) <= {"block.y"}
    assert s.initial.v == ({"block.x": v0} if v0 else {})
    c = by_name(s.contacts, "block_ground")
    assert (c.restitution, c.friction) == (0.0, 0.3)
    if push is None:
        assert s.forces == []
    else:
        [f] = s.forces
        assert (f.type, f.body, f.point, f.force) == ("force", "block", [0.0, 0.0], [push, 0.0])
    assert s.gravity == [0.0, -9.81] and (s.settings.dt, s.settings.duration) == (1e-3, 1.5)


def test_sliding_box():
    s = load("sliding_box")
    b = by_name(s.bodies, "box")
    assert [(x.type, x.width, x.height, x.offset, x.angle) for x in b.shapes] == [("box", 0.4, 0.2, [0.0, 0.0], 0.0)]
    m, inertia, com = body_mass_properties(b)
    assert m == 1.0 and inertia == approx((0.4**2 + 0.2**2) / 12, rel=1e-14) and list(com) == [0.0, 0.0]
    assert by_name(s.joints, "box").type == "free"
    assert s.initial.q == {"box.y": 0.1} and s.initial.v == {"box.x": 2.0}
    c = by_name(s.contacts, "box_ground")
    assert (c.restitution, c.friction, c.b.obstacle) == (0.0, 0.3, "ground")
    assert (s.settings.dt, s.settings.duration) == (1e-3, 1.5)


def test_double_pendulum_wall():
    s = load("double_pendulum_wall")
    assert s.gravity == [0.0, -10.0]
    for name in ("m1", "m2"):
        b = by_name(s.bodies, name)
        m, inertia, com = body_mass_properties(b)
        assert (m, inertia, list(com)) == (1.0, 0.0, [0.0, 0.0])
        assert by_name(b.shapes, "mass").type == "point" and by_name(b.shapes, "mass").offset == [0.0, 0.0]
    j1, j2 = by_name(s.joints, "theta1"), by_name(s.joints, "theta2")
    assert (j1.type, j1.parent, j1.child, j1.anchor_parent, j1.anchor_child, j1.angle) == \
        ("revolute", "world", "m1", [0.0, 0.0], [0.0, 1.0], 0.0)
    assert (j2.type, j2.parent, j2.child, j2.anchor_parent, j2.anchor_child, j2.angle) == \
        ("revolute", "m1", "m2", [0.0, 0.0], [0.0, 1.0], 0.0)
    assert coordinate_names(s) == ["theta1", "theta2"]
    assert s.initial.q == {"theta1": 0.1, "theta2": 0.1} and s.initial.v == {}
    # q = 0 hangs 1 below the pivot, q > 0 swings to +x
    assert np.allclose(world_point(s, {}, "m2", [0, 0]), [0, -2])
    p1 = world_point(s, s.initial.q, "m1", [0, 0])
    p2 = world_point(s, s.initial.q, "m2", [0, 0])
    assert np.allclose(p1, [math.sin(0.1), -math.cos(0.1)]) and np.allclose(p2 - p1, [math.sin(0.2), -math.cos(0.2)])
    w = by_name(s.obstacles, "wall")
    assert (w.type, w.point, w.normal) == ("wall", [0.0, 0.0], [1.0, 0.0])
    for cname, e, body in (("m1_wall", 1.0, "m1"), ("m2_wall", 0.0, "m2")):
        c = by_name(s.contacts, cname)
        assert (c.a.body, c.a.shape, c.b.obstacle, c.restitution, c.friction) == (body, "mass", "wall", e, 0.0)
    assert (s.settings.dt, s.settings.duration) == (5e-4, 5.0)


def test_newtons_cradle():
    s = load("newtons_cradle")
    r = 0.05
    assert len(s.bodies) == 5 and s.gravity == [0.0, -9.81]
    pivots, rest = [], []
    for i in range(5):
        b = by_name(s.bodies, f"ball{i}")
        assert body_mass_properties(b)[0] == 0.1
        assert by_name(b.shapes, "disk").radius == r
        j = by_name(s.joints, f"ball{i}")
        assert (j.type, j.parent) == ("revolute", "world")
        assert math.dist(j.anchor_child, body_mass_properties(b)[2]) == approx(0.5)  # string length
        pivots.append(j.anchor_parent)
        rest.append(world_point(s, {}, f"ball{i}", [0, 0]))
    # 0.1 mm between neighbours: binary collisions pass the momentum along (touching balls would be
    # one body for a simultaneous-impact law)
    assert np.allclose(np.diff(np.array(pivots)[:, 0]), 2 * r + 1e-4, atol=1e-12, rtol=0)
    assert np.allclose(np.diff(np.array(rest)[:, 0]), 2 * r + 1e-4, atol=1e-12, rtol=0)
    assert len(s.contacts) == 4
    for i in range(4):
        c = by_name(s.contacts, f"ball{i}_ball{i + 1}")
        assert {c.a.body, c.b.body} == {f"ball{i}", f"ball{i + 1}"} and (c.restitution, c.friction) == (1.0, 0.0)
    assert s.initial.q == {"ball0": approx(-math.pi / 6, abs=1e-15)} and s.initial.v == {}
    assert world_point(s, s.initial.q, "ball0", [0, 0])[0] < rest[0][0]  # away from the others
    assert (s.settings.dt, s.settings.duration) == (1e-3, 3.0)


@pytest.mark.parametrize("n", [10, 50, 100])
def test_bead_columns(n):
    s = load(f"bead_column_{n}")
    assert len(s.bodies) == len(s.joints) == len(s.contacts) == n
    for i in range(n):
        b = by_name(s.bodies, f"bead{i}")
        assert (b.mass, b.inertia, [(x.type, x.radius) for x in b.shapes]) == (1.0, 0.004, [("disk", 0.1)])
        j = by_name(s.joints, f"bead{i}")
        assert (j.type, j.parent, j.child, j.axis, j.anchor_parent, j.anchor_child) == \
            ("prismatic", "world", f"bead{i}", [0.0, 1.0], [0.0, 0.0], [0.0, 0.0])
        assert s.initial.q[f"bead{i}"] == approx(0.3 + 0.201 * i, abs=1e-12)
        c = s.contacts[i]
        if i == 0:
            assert (c.name, c.b.obstacle) == ("bead0_ground", "ground")
        else:
            assert (c.name, c.a.body, c.b.body) == (f"bead{i}_bead{i - 1}", f"bead{i}", f"bead{i - 1}")
            assert shape_of(s, c.b).type == "disk"
        assert (c.restitution, c.friction) == (0.5, 0.0)
    assert s.initial.v == {}
    assert (s.settings.dt, s.settings.duration) == (1e-3, 2.0)


def test_bead_columns_are_what_the_generator_writes():
    bead_column = runpy.run_path(str(SCENES / "make_bead_columns.py"))["bead_column"]  # no .pyc left behind
    for n in (10, 50, 100):
        assert scene_to_dict(bead_column(n)) == scene_to_dict(load(f"bead_column_{n}"))


def test_heaps_are_what_the_generator_writes():
    heaps = runpy.run_path(str(SCENES / "make_heaps.py"))
    pyramid = load("box_pyramid")
    assert scene_to_dict(heaps["box_pyramid"]()) == scene_to_dict(pyramid)
    assert len(pyramid.bodies) == 15
    assert {c.friction for c in pyramid.contacts} == {0.5}
    pile = load("disk_pile")
    assert scene_to_dict(heaps["disk_pile"](*heaps["EXAMPLE_PILE"])) == scene_to_dict(pile)
    assert len(pile.bodies) == 45
    assert {c.friction for c in pile.contacts if c.b.body or c.b.obstacle == "ground"} == {0.3}
    assert {c.friction for c in pile.contacts if c.b.obstacle in ("left", "right")} == {0.0}
    packed = load("disk_pile_200")
    assert scene_to_dict(heaps["disk_pile"](*heaps["PACKED_PILE"], packed=True)) == scene_to_dict(packed)
    assert len(packed.bodies) == 200 and not packed.initial.v


def test_rocking_block():
    s = load("rocking_block")
    [b] = s.bodies
    assert [(x.type, x.width, x.height) for x in b.shapes] == [("box", 0.2, 0.6)]
    assert body_mass_properties(b)[0] == 1.0
    assert s.initial.q["block.theta"] == 0.2 and s.initial.v == {}
    corners = [world_point(s, s.initial.q, "block", [sx * 0.1, sy * 0.3]) for sx in (-1, 1) for sy in (-1, 1)]
    ys = sorted(c[1] for c in corners)
    assert ys[0] == approx(0.0, abs=1e-15) and ys[1] > 0.01  # standing on exactly one corner
    [c] = s.contacts
    assert (c.restitution, c.friction, c.b.obstacle) == (0.0, 0.9, "ground")


def test_two_link_arm():
    s = load("two_link_arm")
    for name in ("link1", "link2"):
        b = by_name(s.bodies, name)
        assert (b.mass, b.inertia, b.com) == (1.0, 1.0, [0.25, 0.0])
        cap = [x for x in b.shapes if x.type == "capsule"]
        assert len(cap) == 1 and cap[0].length == 0.5 and cap[0].offset == [0.25, 0.0] and cap[0].angle == 0.0
    tip = by_name(by_name(s.bodies, "link2").shapes, "tip")
    assert (tip.type, tip.offset) == ("point", [0.5, 0.0])
    sh, el = by_name(s.joints, "shoulder"), by_name(s.joints, "elbow")
    assert (sh.type, sh.parent, sh.child, sh.anchor_parent, sh.anchor_child) == \
        ("revolute", "world", "link1", [0.0, 0.0], [0.0, 0.0])
    assert (el.type, el.parent, el.child, el.anchor_parent, el.anchor_child) == \
        ("revolute", "link1", "link2", [0.5, 0.0], [0.0, 0.0])
    assert by_name(s.obstacles, "ground").normal == [0.0, 1.0]
    c = by_name(s.contacts, "tip_ground")
    assert (c.a.body, c.a.shape, c.b.obstacle, c.restitution, c.friction) == ("link2", "tip", "ground", 0.7, 0.0)
    assert world_point(s, s.initial.q, "link2", tip.offset)[1] > 0.2  # starts well above the ground
    targets = {}
    for aname, joint in (("shoulder_motor", "shoulder"), ("elbow_motor", "elbow")):
        a = by_name(s.actuators, aname)
        ctl = a.controller
        assert (a.joint, ctl.type, ctl.kp, ctl.kd, ctl.gravity_compensation) == (joint, "pd", 60.0, 8.0, True)
        targets[joint] = ctl.target
    assert world_point(s, targets, "link2", tip.offset)[1] == approx(-0.1, abs=1e-12)
    assert (s.settings.dt, s.settings.duration) == (1e-3, 3.0)


def test_default_scene_is_lively_but_cheap():
    s = load("default")
    assert len(s.bodies) <= 6
    assert any(c.friction > 0 for c in s.contacts) and any(c.restitution > 0 for c in s.contacts)
    slope = by_name(s.obstacles, "slope")
    angle = math.degrees(math.atan2(slope.a[1] - slope.b[1], slope.b[0] - slope.a[0]))
    assert angle == approx(20.0)
    box_slope = by_name(s.contacts, "box_slope")
    assert box_slope.friction == 0.3 < math.tan(math.radians(20))  # the box slides


def test_two_link_tracking_is_the_scenario_of_seed_004():
    """control digest §8.2: l = 0.5, m = 1, I = 1, θ(0) = (0.9, −1.6), e = 0.7 frictionless at tip_ground,
    plastic joint limits, h = 1e-4, θ = 0.500001, two 5-s cycles of the circle (0.65, 0), r = 0.1."""
    import math
    s = load("two_link_tracking")
    for name in ("link1", "link2"):
        b = by_name(s.bodies, name)
        assert (b.mass, b.inertia, b.com) == (1.0, 1.0, [0.25, 0.0])
    assert by_name(by_name(s.bodies, "link2").shapes, "tip").offset == [0.5, 0.0]
    assert by_name(s.joints, "elbow").anchor_parent == [0.5, 0.0]
    assert dict(s.initial.q) == {"shoulder": 0.9, "elbow": -1.6}
    c = by_name(s.contacts, "tip_ground")
    assert (c.a.body, c.a.shape, c.b.obstacle, c.restitution, c.friction) == ("link2", "tip", "ground", 0.7, 0.0)
    sh, el = by_name(s.joints, "shoulder").limits, by_name(s.joints, "elbow").limits
    assert (sh.lower, sh.upper, sh.restitution) == (0.0, approx(math.pi), 0.0)
    assert -math.pi < el.lower < -1.6 < el.upper < 0.0 and el.restitution == 0.0
    assert (s.settings.dt, s.settings.theta, s.settings.duration) == (1e-4, 0.500001, 10.0)
    [b] = s.controllers
    assert (b.type, b.actuators, b.contact, b.centre, b.radius, b.cycle) == (
        "bno", ["shoulder_motor", "elbow_motor"], "tip_ground", [0.65, 0.0], 0.1, 5.0)
    assert b.gravity_compensation and s.gravity == [0.0, -9.81] and "gravity" in s.description.lower()
