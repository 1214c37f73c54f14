"""Scene edits and geometry without the GUI: poses agree with the engine, overlaps and reach are
right, joins keep poses and refuse loops, removals free children where they stand."""

import copy
import math

import numpy as np
import pytest

from nsgui.scene import Obstacle, Scene, Shape, validate_scene
from nsgui.scene import edits as ops
from nsgui.scene.checks import editor_problems
from nsgui.scene.edits import EditRefused
from nsgui.scene.geometry import body_poses, obstacle_gap, shape_gap
from nsgui.scene.reach import can_touch, candidate_pairs
from nsgui.scene.templates import TEMPLATES, make_template


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_poses_agree_with_the_engine(name):
    from nsgui.engine import compile_scene
    s = make_template(name)
    s.initial.q.update({q: 0.3 * (k + 1) for k, q in enumerate(compile_scene(s).coord_names)
                        if not q.endswith((".x", ".y"))})
    m = compile_scene(s)
    engine = m.body_poses(m.q0)
    mine = body_poses(s)
    for i, b in enumerate(m.body_names):
        assert np.allclose(engine[i], mine[b], atol=1e-12), b


def disk(r, offset=(0, 0)):
    return Shape(type="disk", name="d", radius=r, offset=list(offset))


def box(w, h, angle=0.0):
    return Shape(type="box", name="b", width=w, height=h, angle=angle)


def test_gaps_exact_cases():
    assert np.isclose(shape_gap(disk(0.1), (0, 0, 0), disk(0.1), (0.3, 0, 0)), 0.1)
    assert np.isclose(shape_gap(disk(0.1), (0, 0, 0), disk(0.1), (0.15, 0, 0)), -0.05)
    # disk above a box's top face; a box corner near a disk
    assert np.isclose(shape_gap(disk(0.1), (0, 0.5, 0), box(1, 0.2), (0, 0, 0)), 0.3)
    assert np.isclose(shape_gap(box(0.2, 0.2), (0, 0, 0), disk(0.1), (0.3, 0.3, 0)),
                      math.hypot(0.2, 0.2) - 0.1)
    # overlapping boxes: minimum translation distance
    assert np.isclose(shape_gap(box(1, 1), (0, 0, 0), box(1, 1), (0.9, 0, 0)), -0.1)
    ground = Obstacle(name="g", type="ground", point=[0, 0], normal=[0, 1])
    # a unit box turned 45° sits on its corner: lowest point at y - sqrt(2)/2
    assert np.isclose(obstacle_gap(box(1, 1, math.pi / 4), (0, 1, 0), ground), 1 - math.sqrt(0.5))
    seg = Obstacle(name="s", type="segment", a=[0, 0], b=[1, 0])
    assert np.isclose(obstacle_gap(disk(0.1), (2, 0, 0), seg), 0.9)
    assert np.isclose(obstacle_gap(disk(0.1), (0.5, 0.05, 0), seg), -0.05)


def pendulum_scene():
    s = Scene()
    bar = ops.add_body(s, ops.make_shape("bar", length=0.5), (-0.25, 1.0, 0.0))
    ops.add_joint(s, "revolute", bar, "world", (0.0, 1.0))
    return s, bar


def test_reach_decides_contacts():
    s, bar = pendulum_scene()
    near = ops.add_obstacle(s, "wall", point=(0.4, 0), normal=(-1, 0))
    far = ops.add_obstacle(s, "wall", point=(0.6, 0), normal=(-1, 0))
    names = {(c.a.body, c.b.obstacle) for c in s.contacts}
    assert names == {(bar, near)}                 # 0.5 + 0.02 reaches x = 0.4, not x = 0.6
    assert not can_touch(s, ((bar, "bar0"), ("obstacle", far)))
    ball = ops.add_body(s, ops.make_shape("disk", radius=0.1), (0.2, 0.2, 0.0))
    # a free ball can reach anything
    assert ((bar, "bar0"), (ball, "disk0")) in candidate_pairs(s)
    assert validate_scene(s) == [] and editor_problems(s) == []


def test_join_keeps_poses_and_closes_loops_with_loop_joints():
    s, bar = pendulum_scene()
    ball = ops.add_body(s, ops.make_shape("disk", radius=0.1), (-0.5, 1.0, 0.3))
    before = body_poses(s)
    ops.add_joint(s, "revolute", bar, ball, (-0.5, 1.0))   # clicked bar first: the free ball is the child
    j = next(j for j in s.joints if j.child == ball)
    assert j.parent == bar and j.type == "revolute"
    after = body_poses(s)
    for k in before:
        assert np.allclose(before[k], after[k])
    assert validate_scene(s) == []
    # both attached already: a weld is refused, a pin closes a loop with a loop joint (issue 11 §2)
    with pytest.raises(EditRefused, match="both attached"):
        ops.add_joint(s, "fixed", ball, bar, (-0.45, 1.0))
    name = ops.add_joint(s, "revolute", bar, "world", (-0.2, 1.0))
    lj = s.loops[0]
    assert lj.name == name and (lj.a.body, lj.b.body) == (bar, "world") and lj.type == "revolute"
    assert np.allclose(lj.b.point, (-0.2, 1.0)) and len(s.joints) == 2
    x, y, th = body_poses(s)[bar]
    assert np.allclose((x + np.cos(th) * lj.a.point[0] - np.sin(th) * lj.a.point[1],
                        y + np.sin(th) * lj.a.point[0] + np.cos(th) * lj.a.point[1]), (-0.2, 1.0))
    assert validate_scene(s) == []
    ops.remove_items(s, {("body", ball)})
    assert len(s.loops) == 1
    ops.remove_items(s, {("body", bar)})
    assert s.loops == []


def test_drag_pinned_body_turns_about_the_pin():
    s, bar = pendulum_scene()
    ops.drag_body(s, bar, (-0.25, 0.0), (0.0, 0.0))    # grab the free end, pull it straight down
    assert np.isclose(s.initial.q["pin_bar"], math.pi / 2)
    x, y, th = body_poses(s)[bar]
    assert np.allclose((x, y), (0.0, 0.75))


def test_remove_middle_link_frees_the_rest_where_they_are():
    s = make_template("Chain of N links", n=3)
    s.initial.q.update({"pin1": -0.4, "pin2": 0.3, "pin3": 0.2})
    poses = body_poses(s)
    ops.remove_items(s, {("body", "link2")})
    assert validate_scene(s) == []
    j3 = next(j for j in s.joints if j.child == "link3")
    assert j3.type == "free"
    assert np.allclose(body_poses(s)["link3"], poses["link3"])
    assert np.allclose(body_poses(s)["link1"], poses["link1"])


def test_rename_joint_updates_coordinates_and_actuators():
    s, bar = pendulum_scene()
    ops.add_actuator(s, "pin_bar")
    s.initial.q["pin_bar"] = 0.2
    ops.rename_item(s, "joint", "pin_bar", "shoulder")
    assert s.initial.q == {"shoulder": 0.2}
    assert s.actuators[0].joint == "shoulder"
    assert validate_scene(s) == []
    with pytest.raises(EditRefused):
        ops.rename_item(s, "body", bar, "bad name")
    with pytest.raises(EditRefused):
        ops.rename_item(s, "body", bar, "shoulder")


def test_paste_is_valid_and_shifted():
    s = make_template("Double pendulum against a wall")
    frag = ops.extract(s, {("body", "upper"), ("body", "lower")})
    refs = ops.paste(s, frag, offset=(0.0, -1.0))
    assert validate_scene(s) == []
    new = [n for k, n in refs if k == "body"]
    p = body_poses(s)
    assert np.allclose(np.array(p[new[1]]) - p["lower"], [0, -1, 0])


def test_delete_dependants_listed():
    s = make_template("Double pendulum against a wall")
    deps = ops.dependants(s, {("body", "upper")})
    assert deps["joint"] == ["shoulder", "elbow"]
    deps = ops.dependants(s, {("obstacle", "wall")})
    assert sorted(deps["contact"]) == ["bob_wall", "lower_wall"]


def test_polygon_must_be_convex():
    with pytest.raises(EditRefused, match="convex"):
        ops.polygon_from_points([(0, 0), (1, 0), (0.5, 0.1), (1, 1), (0, 1)])
    c, verts = ops.polygon_from_points([(0, 0), (1, 0), (1, 1), (0, 1)])
    assert np.allclose(c, (0.5, 0.5))
    v = np.array(verts)
    area = 0.5 * np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1])
    assert np.isclose(area, 1.0)                   # counter-clockwise


def test_overlap_and_unreachable_contact_reported():
    s = Scene()
    g = ops.add_obstacle(s, "ground")
    ball = ops.add_body(s, ops.make_shape("disk", radius=0.1), (0.0, 0.05, 0.0))
    probs = editor_problems(s)
    assert len(probs) == 1 and probs[0].severity == "error" and "by 0.05 m" in probs[0].message
    ops.set_body_world_pose(s, ball, (0.0, 0.5, 0.0))
    assert editor_problems(s) == []
    # pin the ball high above the ground: its contact can never touch (a warning, not an error)
    t = copy.deepcopy(s)
    t.contacts[0].name = "kept"
    ops.add_joint(t, "revolute", ball, "world", (0.0, 0.55))
    assert t.contacts == []                        # pruned when the joint was made
    t.contacts.append(ops.make_contact(t, ((ball, "disk0"), ("obstacle", g))))
    w = editor_problems(t)
    assert [p.severity for p in w] == ["warning"] and "can never touch" in w[0].message


def test_joint_spring_at_rest_where_the_joint_is():
    s, bar = pendulum_scene()
    s.initial.q["pin_bar"] = 0.4
    name = ops.add_joint_spring(s, "pin_bar", stiffness=5.0)
    f = ops.find(s.forces, name)
    assert f.type == "joint_spring" and f.rest == 0.4 and f.stiffness == 5.0
    assert validate_scene(s) == []
    ops.rename_item(s, "joint", "pin_bar", "hinge")
    assert f.joint == "hinge" and validate_scene(s) == []
    ops.remove_items(s, {("joint", "hinge")})
    assert s.forces == [] and validate_scene(s) == []
