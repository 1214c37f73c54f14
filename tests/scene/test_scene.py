"""Scene model: round trips, validation messages, mass properties, atomic save, coordinate order, fuzz."""
from __future__ import annotations

import copy
import json
import math
import os
import random
from pathlib import Path

import numpy as np
import pytest

from nsgui.scene import model as scene_mod
from nsgui.scene.mass_properties import shape_area_properties
from nsgui.scene import (Actuator, Body, Contact, Controller, ForceElement, Initial, Joint, JointLimits,
    Obstacle, PointRef, Problem, Scene, SceneError, Settings, Shape, ShapeRef, body_mass_properties,
    coordinate_names, dumps_scene, load_scene, loads_scene, save_scene, scene_from_dict, scene_to_dict,
    sorted_joints, validate_scene)

SCENES = Path(__file__).resolve().parents[2] / "resources" / "scenes"
EXAMPLES = sorted(SCENES.glob("*.json"))


# ---------------------------------------------------------------- helpers

def base() -> dict:
    """A small valid scene touching most features."""
    return {
        "format": "nsgui-scene", "version": 1, "name": "t",
        "bodies": [
            {"name": "a", "mass": 1.0, "inertia": 0.1, "shapes": [{"type": "disk", "radius": 0.1}]},
            {"name": "b", "density": 2.0, "shapes": [{"type": "box", "name": "bx", "width": 0.2, "height": 0.1},
                                                     {"type": "point", "name": "tip", "offset": [0.1, 0]}]},
            {"name": "c", "mass": 1.0, "shapes": [{"type": "polygon", "vertices": [[0, 0], [1, 0], [0, 1]]}]},
        ],
        "joints": [
            {"name": "ja", "type": "free", "child": "a"},
            {"name": "jb", "type": "revolute", "parent": "a", "child": "b", "anchor_child": [0.5, 0]},
            {"name": "jc", "type": "prismatic", "parent": "world", "child": "c", "axis": [0, 2],
             "limits": {"lower": -1, "upper": 1}},
        ],
        "obstacles": [{"name": "ground", "type": "ground"},
                      {"name": "seg", "type": "segment", "a": [0, 0], "b": [1, 0]}],
        "contacts": [{"name": "a_ground", "a": {"body": "a", "shape": "disk0"}, "b": {"obstacle": "ground"},
                      "restitution": 0.5, "friction": 0.3},
                     {"name": "tip_c", "a": {"body": "b", "shape": "tip"}, "b": {"body": "c", "shape": "polygon0"}}],
        "forces": [{"name": "s", "type": "spring", "a": {"body": "world", "point": [0, 1]}, "b": {"body": "a"},
                    "stiffness": 10},
                   {"name": "js", "type": "joint_spring", "joint": "jb", "stiffness": 1},
                   {"name": "push", "type": "force", "body": "a", "force": [1, 0]}],
        "actuators": [{"name": "m", "joint": "jb", "controller": {"type": "pd", "kp": 5, "kd": 1}},
                      {"name": "mx", "joint": "ja.x", "limit": 3, "controller": {"type": "constant", "value": 1}}],
        "initial": {"q": {"ja.y": 1.0, "jb": 0.2}, "v": {"jc": 0.1}},
        "settings": {"dt": 0.002, "duration": 1.0},
    }


def problems(d) -> list[str]:
    with pytest.raises(SceneError) as exc:
        scene_from_dict(d)
    msgs = [str(p) for p in exc.value.problems]
    assert str(exc.value) == "\n".join(msgs)
    assert validate_scene(d) == exc.value.problems
    return msgs


def one_problem(d) -> str:
    msgs = problems(d)
    assert len(msgs) == 1, msgs
    return msgs[0]


def random_scene(rng: random.Random) -> Scene:
    """A random valid scene: a random tree of bodies with random shapes, contacts, forces, actuators."""
    nb = rng.randint(0, 6)
    bodies, joints, coords = [], [], []
    for i in range(nb):
        shapes = []
        for j in range(rng.randint(0, 3)):
            t = rng.choice(["disk", "box", "capsule", "polygon", "point"])
            off = [rng.uniform(-1, 1), rng.uniform(-1, 1)]
            if t == "disk":
                shapes.append(Shape(type=t, name=f"s{j}", offset=off, radius=rng.uniform(0.01, 1)))
            elif t == "box":
                shapes.append(Shape(type=t, name=f"s{j}", offset=off, angle=rng.uniform(-3, 3),
                                    width=rng.uniform(0.01, 1), height=rng.uniform(0.01, 1)))
            elif t == "capsule":
                shapes.append(Shape(type=t, name=f"s{j}", offset=off, angle=rng.uniform(-3, 3),
                                    length=rng.uniform(0.01, 1), radius=rng.choice([0.0, rng.uniform(0.01, 1)])))
            elif t == "polygon":
                n = rng.randint(3, 7)
                rad = rng.uniform(0.1, 1)
                verts = [[rad * math.cos(2 * math.pi * k / n), rad * math.sin(2 * math.pi * k / n)] for k in range(n)]
                shapes.append(Shape(type=t, name=f"s{j}", offset=off, angle=rng.uniform(-3, 3), vertices=verts))
            else:
                shapes.append(Shape(type=t, name=f"s{j}", offset=off))
        bodies.append(Body(name=f"b{i}", mass=rng.uniform(0.1, 5), inertia=rng.uniform(0.01, 1), shapes=shapes,
                           com=rng.choice([None, [rng.uniform(-1, 1), 0.5]]), color="#%06x" % rng.randrange(1 << 24)))
        jt = rng.choice(["revolute", "prismatic", "fixed", "free"])
        parent = rng.choice(["world"] + [f"b{k}" for k in range(i)])
        lim = None
        if jt in ("revolute", "prismatic") and rng.random() < 0.5:
            lo = rng.uniform(-2, 0)
            lim = JointLimits(lower=rng.choice([None, lo]), upper=rng.choice([None, lo + 1]),
                              restitution=rng.uniform(0, 1))
        joints.append(Joint(name=f"j{i}", type=jt, parent=parent, child=f"b{i}",
                            anchor_parent=[rng.uniform(-1, 1), rng.uniform(-1, 1)],
                            anchor_child=[rng.uniform(-1, 1), rng.uniform(-1, 1)],
                            axis=[1.0, 0.0], angle=rng.uniform(-1, 1), limits=lim))
        coords += {"fixed": [], "free": [f"j{i}.x", f"j{i}.y", f"j{i}.theta"]}.get(jt, [f"j{i}"])
    rng.shuffle(joints)  # any order: the coordinate order comes from the topological sort
    obstacles = [Obstacle(name="g", type="ground", point=[0.0, rng.uniform(-1, 0)], normal=[0.0, 1.0]),
                 Obstacle(name="w", type="wall", point=[2.0, 0.0], normal=[-1.0, 0.0]),
                 Obstacle(name="seg", type="segment", a=[0.0, 0.0], b=[1.0, rng.uniform(-1, 1)])]
    contacts = []
    shaped = [(b.name, s) for b in bodies for s in b.shapes]
    for k in range(rng.randint(0, 4) if shaped else 0):
        ba, sa = rng.choice(shaped)
        others = [(bn, s) for bn, s in shaped if bn != ba and s.type != "point"]
        b = ShapeRef(obstacle=rng.choice(["g", "w", "seg"])) if not others or rng.random() < 0.5 else \
            ShapeRef(body=others[0][0], shape=others[0][1].name)
        contacts.append(Contact(name=f"c{k}", a=ShapeRef(body=ba, shape=sa.name), b=b,
                                restitution=rng.uniform(0, 1), friction=rng.uniform(0, 1)))
    forces, actuators = [], []
    if bodies:
        forces.append(ForceElement(name="sp", type="spring", a=PointRef(body="world", point=[0.0, 1.0]),
                                   b=PointRef(body=bodies[0].name, point=[0.1, 0.0]), stiffness=rng.uniform(0, 9),
                                   rest_length=rng.choice([None, 0.5])))
        forces.append(ForceElement(name="f", type="force", body=bodies[-1].name, point=[0.0, 0.1], force=[1.0, -2.0]))
    if coords:
        forces.append(ForceElement(name="js", type="joint_spring", joint=rng.choice(coords), stiffness=1.0, rest=0.3))
        actuators.append(Actuator(name="u0", joint=rng.choice(coords), limit=rng.choice([None, 4.0]),
                                  controller=Controller(type="pd", kp=3.0, kd=1.0, target=0.2,
                                                        gravity_compensation=rng.random() < 0.5,
                                                        period=rng.choice([None, 0.01]))))
        actuators.append(Actuator(name="u1", joint=rng.choice(coords),
                                  controller=Controller(type=rng.choice(["none", "constant"]), value=2.0)))
    return Scene(name=f"random {rng.random()}", description="ünïcode ✓", gravity=[0.0, -rng.uniform(0, 10)],
                 bodies=bodies, joints=joints, obstacles=obstacles, contacts=contacts, forces=forces,
                 actuators=actuators,
                 initial=Initial(q={c: rng.uniform(-1, 1) for c in coords if rng.random() < 0.5},
                                 v={c: rng.uniform(-1, 1) for c in coords if rng.random() < 0.5}),
                 settings=Settings(dt=rng.choice([1e-3, 5e-4]), duration=rng.uniform(1, 5),
                                   theta=rng.uniform(0.5, 1), solver=rng.choice(["auto", "lemke", "nsgs"]),
                                   projection=rng.random() < 0.5, max_iterations=rng.randint(1, 5000)))


# ---------------------------------------------------------------- round trips

@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip(path, tmp_path):
    s = load_scene(path)
    out = tmp_path / "again.json"
    save_scene(s, out)
    s2 = load_scene(out)
    assert scene_to_dict(s2) == scene_to_dict(s)
    assert s2 == s
    # saving again gives the same bytes: the text form is canonical
    assert dumps_scene(s2) == out.read_text(encoding="utf-8")


def test_random_valid_scenes_round_trip(tmp_path):
    rng = random.Random(1234)
    for k in range(150):
        s = random_scene(rng)
        assert validate_scene(s) == [], (k, validate_scene(s))
        s2 = loads_scene(dumps_scene(s))
        assert scene_to_dict(s2) == scene_to_dict(s)
        assert scene_to_dict(scene_from_dict(scene_to_dict(s2))) == scene_to_dict(s)
    save_scene(s, tmp_path / "r.json")
    assert scene_to_dict(load_scene(tmp_path / "r.json")) == scene_to_dict(s)


def test_defaults_are_written_and_filled():
    s = scene_from_dict({"format": "nsgui-scene", "version": 1})
    d = scene_to_dict(s)
    assert d["gravity"] == [0.0, -9.81]
    assert d["settings"] == {"dt": 0.001, "duration": 5.0, "theta": 0.5, "gamma": 0.5, "solver": "auto",
                             "tolerance": 1e-10, "max_iterations": 1000, "projection": True,
                             "impact_threshold": 1e-6, "integrator": "time_stepping",
                             "event_driven_fallback": "auto"}
    assert d["initial"] == {"q": {}, "v": {}}
    s = scene_from_dict(base())
    d = scene_to_dict(s)
    assert d["bodies"][0]["shapes"][0] == {"name": "disk0", "type": "disk", "offset": [0.0, 0.0], "angle": 0.0,
                                           "radius": 0.1}
    assert d["bodies"][2]["shapes"][0]["name"] == "polygon0"
    assert d["joints"][2]["axis"] == [0.0, 1.0]  # normalized on load
    assert d["joints"][2]["limits"] == {"lower": -1.0, "upper": 1.0, "restitution": 0.0}
    assert d["forces"][2] == {"name": "push", "type": "force", "body": "a", "point": [0.0, 0.0], "force": [1.0, 0.0]}
    assert d["forces"][0]["b"] == {"body": "a", "point": [0.0, 0.0]}
    assert d["actuators"][1]["controller"] == {"type": "constant", "value": 1.0}
    assert d["contacts"][1]["b"] == {"body": "c", "shape": "polygon0"}
    assert isinstance(s.bodies[0].mass, float) and isinstance(s.settings.max_iterations, int)


def test_deepcopy_is_independent():
    s = scene_from_dict(base())
    s2 = copy.deepcopy(s)
    s2.bodies[0].shapes[0].radius = 0.5
    s2.initial.q["ja.y"] = 3.0
    assert s.bodies[0].shapes[0].radius == 0.1 and s.initial.q["ja.y"] == 1.0
    assert scene_to_dict(s) != scene_to_dict(s2)


def test_numpy_values_from_an_editor_are_accepted():
    s = scene_from_dict(base())
    s.bodies[0].mass = np.float64(2.0)
    s.joints[0].anchor_parent = np.array([0.5, 0.25])
    s.settings.max_iterations = np.int64(50)
    assert validate_scene(s) == []
    s2 = loads_scene(dumps_scene(s))
    assert s2.joints[0].anchor_parent == [0.5, 0.25] and s2.settings.max_iterations == 50


# ---------------------------------------------------------------- validation messages

def test_valid_base():
    assert validate_scene(scene_from_dict(base())) == []


def test_wrong_types():
    d = base()
    d["bodies"][0]["mass"] = "heavy"
    d["gravity"] = [0, "down"]
    d["settings"]["projection"] = 1
    d["settings"]["max_iterations"] = 2.5
    d["bodies"][1]["color"] = "red"
    d["joints"] = {"name": "x"}
    assert problems(d) == [
        "gravity[1]: must be a number, not a string",
        "bodies[0].mass: must be a number or null, not a string",
        'bodies[1].color: must be a colour "#rrggbb", not \'red\'',
        "joints: must be a list, not an object",
        "settings.max_iterations: must be an integer, not 2.5",
        "settings.projection: must be true or false, not a number",
        # with its joints gone, every body is reported once
        "bodies[0]: body 'a' is not the child of any joint (attach it with a joint; a free joint lets it move freely)",
        "bodies[1]: body 'b' is not the child of any joint (attach it with a joint; a free joint lets it move freely)",
        "bodies[2]: body 'c' is not the child of any joint (attach it with a joint; a free joint lets it move freely)",
        "forces[1].joint: no joint or coordinate named 'jb'",
        "actuators[0].joint: no joint or coordinate named 'jb'",
        "actuators[1].joint: no joint or coordinate named 'ja.x'",
        "initial.q['ja.y']: unknown coordinate 'ja.y' (the scene has no coordinates)",
        "initial.q['jb']: unknown coordinate 'jb' (the scene has no coordinates)",
        "initial.v['jc']: unknown coordinate 'jc' (the scene has no coordinates)",
    ]


def test_booleans_and_non_finite_numbers_are_not_numbers():
    d = base()
    d["bodies"][0]["mass"] = True
    d["bodies"][0]["inertia"] = float("nan")
    d["obstacles"][0]["point"] = [float("inf"), 0]
    assert problems(d) == ["bodies[0].mass: must be a number or null, not a boolean",
                           "bodies[0].inertia: must be a finite number",
                           "obstacles[0].point[0]: must be a finite number"]


def test_missing_required_keys():
    d = base()
    del d["bodies"][0]["name"]
    del d["joints"][1]["type"]
    del d["contacts"][0]["b"]
    del d["bodies"][1]["shapes"][0]["width"]
    msgs = problems(d)
    for m in ["bodies[0]: missing required key 'name'", "joints[1]: missing required key 'type'",
              "contacts[0]: missing required key 'b'", "bodies[1].shapes[0]: missing required key 'width'"]:
        assert m in msgs
    assert one_problem({"version": 1}) == \
        "scene: missing required key 'format' (a scene file starts with \"format\": \"nsgui-scene\")"


def test_unknown_keys_at_every_level():
    d = base()
    d["joints"][1]["axsi"] = [0, 1]
    d["bodies"][0]["shapes"][0]["width"] = 1.0  # a box key on a disk
    d["settings"]["step"] = 0.1
    d["contacts"][0]["a"]["obstacle"] = "ground"
    d["colour"] = 1
    d["actuators"][0]["controller"]["value"] = 3  # a constant key on a pd controller
    assert problems(d) == [
        "scene: unknown key 'colour'",
        "bodies[0].shapes[0]: unknown key 'width'",
        "joints[1]: unknown key 'axsi' (did you mean 'axis'?)",
        "contacts[0].a: unknown key 'obstacle'",
        "actuators[0].controller: unknown key 'value'",
        "settings: unknown key 'step'",
    ]


def test_bad_json_reports_line_and_column():
    with pytest.raises(SceneError) as exc:
        loads_scene('{"format": "nsgui-scene",\n  "version": 1,,\n}')
    assert str(exc.value) == "<text>: invalid JSON at line 2, column 16: Expecting property name enclosed in double quotes"
    with pytest.raises(SceneError) as exc:
        loads_scene('{"format": "nsgui-scene", "version": 1, "name": "a", "name": "b"}')
    assert str(exc.value) == "<text>: invalid JSON at line 1, column 54: duplicate key 'name'"
    with pytest.raises(SceneError) as exc:
        loads_scene("[" * 100000)
    assert "invalid JSON" in str(exc.value)


def test_load_scene_file_errors(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(SceneError) as exc:
        load_scene(missing)
    assert str(exc.value) == f"{missing}: cannot read the file: No such file or directory"
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"format": "nsgui-scene", \xff}')
    with pytest.raises(SceneError) as exc:
        load_scene(bad)
    assert str(exc.value) == f"{bad}: not a UTF-8 text file (byte 26)"
    with pytest.raises(SceneError) as exc:
        load_scene(tmp_path)
    assert str(exc.value) == f"{tmp_path}: cannot read the file: Is a directory"
    with pytest.raises(SceneError) as exc:
        loads_scene(None)
    assert str(exc.value) == "<text>: expected JSON text, not NoneType"
    bad.write_text('{"format": "nsgui-scene", "version": 1}\n}', encoding="utf-8")
    with pytest.raises(SceneError) as exc:
        load_scene(bad)
    assert str(exc.value) == f"{bad}: invalid JSON at line 2, column 1: Extra data"


def test_versions_and_format_tag():
    d = base()
    d["version"] = 2
    d["bodies"] = "whatever a newer version holds"
    assert one_problem(d) == "version: version 2 is newer than this nsgui supports (1); update nsgui"
    d["version"] = 0
    assert one_problem(d) == "version: unsupported version 0 (this nsgui reads version 1)"
    d = base()
    d["format"] = "other"
    assert one_problem(d) == "format: must be 'nsgui-scene', not 'other': this is not an nsgui scene"
    assert one_problem([1, 2]) == "scene: must be a JSON object, not a list"


def test_duplicate_and_bad_names():
    d = base()
    d["bodies"][2]["name"] = "a"
    d["joints"][2]["child"] = "a"
    d["obstacles"][1]["name"] = "ground"
    d["bodies"][1]["shapes"][1]["name"] = "bx"
    d["contacts"][1]["a"]["shape"] = "bx"
    msgs = problems(d)
    assert "bodies[2].name: duplicate body name 'a' (also bodies[0])" in msgs
    assert "obstacles[1].name: duplicate obstacle name 'ground' (also obstacles[0])" in msgs
    assert "bodies[1].shapes[1].name: duplicate shape name 'bx' (also bodies[1].shapes[0])" in msgs
    d = base()
    d["joints"][0]["name"] = "j.x"
    d["contacts"][0]["name"] = ""
    d["bodies"][1]["name"] = "world"
    msgs = problems(d)
    assert "joints[0].name: 'j.x' must not contain '.'" in msgs
    assert "contacts[0].name: must not be empty" in msgs
    assert "bodies[1].name: 'world' is reserved for the fixed frame" in msgs


def test_masses_and_inertia():
    d = base()
    d["bodies"][2]["mass"] = -1
    assert one_problem(d) == "bodies[2].mass: must be > 0, not -1"
    d = base()
    d["bodies"][0]["mass"] = None
    assert one_problem(d) == "bodies[0]: body 'a' needs a mass or a density"
    d = base()
    d["bodies"][1]["shapes"] = [{"type": "point", "name": "tip"}]
    assert one_problem(d) == ("bodies[1].density: the shapes of body 'b' have no area, so the mass cannot come "
                              "from the density; give mass")
    d = base()
    d["bodies"][0]["inertia"] = 0  # free joint: needs rotational inertia
    assert one_problem(d) == "bodies[0].inertia: must be > 0: body 'a' is on free joint 'ja' and can rotate"
    d["bodies"][0]["inertia"] = None
    d["bodies"][0]["shapes"] = [{"type": "point", "name": "disk0"}]
    assert one_problem(d) == ("bodies[0].inertia: must be > 0: body 'a' is on free joint 'ja' and can rotate "
                              "(its shapes have no area, so give inertia)")
    d["bodies"][0]["inertia"] = -0.5
    assert one_problem(d) == "bodies[0].inertia: must be >= 0, not -0.5"


def test_point_mass_on_revolute_joint():
    d = base()
    # a point mass 0.5 m from its revolute joint: inertia 0 is fine
    d["bodies"][1] = {"name": "b", "mass": 1.0, "inertia": 0, "shapes": [{"type": "point", "name": "tip"}]}
    assert validate_scene(d) == []
    d["joints"][1]["anchor_child"] = [0, 0]  # now it turns about its own centre of mass
    assert one_problem(d) == ("bodies[1].inertia: must be > 0: body 'b' turns about its centre of mass on "
                              "revolute joint 'jb'")


def test_polygons():
    d = base()
    d["bodies"][2]["shapes"][0]["vertices"] = [[0, 0], [0, 1], [1, 0]]
    assert one_problem(d) == "bodies[2].shapes[0].vertices: vertices are clockwise; list them counter-clockwise"
    d["bodies"][2]["shapes"][0]["vertices"] = [[0, 0], [2, 0], [1, 0.2], [2, 1], [0, 1]]
    assert one_problem(d) == ("bodies[2].shapes[0].vertices: polygon is not convex (at vertex 2); vertices must "
                              "be convex and counter-clockwise")
    d["bodies"][2]["shapes"][0]["vertices"] = [[0, 0], [1, 0]]
    assert one_problem(d) == "bodies[2].shapes[0].vertices: a polygon needs at least 3 vertices, got 2"
    d["bodies"][2]["shapes"][0]["vertices"] = [[0, 0], [1, 0], [1, 0], [0, 1]]
    assert one_problem(d) == "bodies[2].shapes[0].vertices: vertices 1 and 2 coincide"
    star = [[math.cos(4 * math.pi * k / 5), math.sin(4 * math.pi * k / 5)] for k in range(5)]
    d["bodies"][2]["shapes"][0]["vertices"] = star
    assert one_problem(d) == ("bodies[2].shapes[0].vertices: polygon crosses itself; vertices must be convex and "
                              "counter-clockwise")


def test_zero_axes_and_normals():
    d = base()
    d["joints"][2]["axis"] = [0, 0]
    d["obstacles"][0]["normal"] = [0.0, 1e-15]
    d["obstacles"][1]["b"] = [0, 0]
    assert problems(d) == ["joints[2].axis: must not be zero length", "obstacles[0].normal: must not be zero length",
                           "obstacles[1]: segment has zero length (a == b)"]


def test_joint_structure():
    d = base()
    d["joints"][1]["parent"] = "nobody"
    d["joints"][2]["child"] = "ghost"
    assert problems(d) == ["joints[1].parent: no body named 'nobody'", "joints[2].child: no body named 'ghost'",
                           "bodies[2]: body 'c' is not the child of any joint (attach it with a joint; a free "
                           "joint lets it move freely)"]
    d = base()
    d["joints"].append({"name": "jc2", "type": "fixed", "parent": "a", "child": "c"})
    assert one_problem(d) == "bodies[2]: body 'c' is the child of several joints: joints[2] ('jc'), joints[3] ('jc2')"
    d = base()
    d["joints"][0]["parent"] = "b"  # a is b's parent and b is a's parent
    assert one_problem(d) == "joints: loop body 'a' → 'b' → 'a' (joints must form a tree rooted at the world)"
    d = base()
    d["joints"][1]["parent"] = "b"
    assert problems(d) == ["joints[1]: joint connects body 'b' to itself",
                           "bodies[1]: body 'b' is not the child of any joint (attach it with a joint; a free "
                           "joint lets it move freely)"]


def test_limits():
    d = base()
    d["joints"][2]["limits"] = {"lower": 1, "upper": 0, "restitution": 2}
    d["joints"][0]["limits"] = {"lower": 0}
    assert problems(d) == [
        "joints[0].limits: only 1-dof joints (revolute, prismatic) can have limits, not a free joint",
        "joints[2].limits.restitution: must be in [0, 1], not 2",
        "joints[2].limits: lower (1) > upper (0)",
    ]


def test_contacts():
    d = base()
    d["contacts"][0]["a"] = {"body": "zz", "shape": "disk0"}
    d["contacts"][0]["b"] = {"obstacle": "floor"}
    d["contacts"][1]["a"]["shape"] = "tap"
    assert problems(d) == ["contacts[0].a.body: no body named 'zz'", "contacts[0].b.obstacle: no obstacle named 'floor'",
                           "contacts[1].a.shape: body 'b' has no shape 'tap'"]
    d = base()
    d["contacts"][1]["b"] = {"body": "b", "shape": "bx"}
    assert one_problem(d) == "contacts[1]: a and b are shapes of the same body 'b'"
    d = base()
    d["contacts"][1]["a"] = {"body": "c", "shape": "polygon0"}
    d["contacts"][1]["b"] = {"body": "b", "shape": "tip"}
    assert one_problem(d) == ("contacts[1].b.shape: unsupported contact pair polygon vs point: the second shape (b) "
                              "must be one of disk, box, capsule, polygon or an obstacle")
    d = base()
    d["contacts"][0]["restitution"] = 1.5
    d["contacts"][0]["friction"] = -0.1
    d["contacts"][1]["b"] = {"obstacle": "ground", "body": "c"}
    assert problems(d) == ["contacts[0].friction: must be >= 0, not -0.1",
                           "contacts[1].b: give either 'obstacle' or 'body' and 'shape', not both",
                           "contacts[0].restitution: Newton's e_N must be in [0, 1], not 1.5 "
                           "(for Moreau's e in [0, 2) set \"impact_law\": \"moreau\")"]
    d = base()
    d["contacts"][1]["b"] = {}
    assert one_problem(d) == "contacts[1].b: missing required key 'obstacle' or 'body' and 'shape'"


def test_actuators_and_forces_name_one_coordinate():
    d = base()
    d["actuators"][0]["joint"] = "ja"
    d["actuators"][1]["joint"] = "elbow"
    d["forces"][1]["joint"] = "ja.z"
    d["forces"][2]["body"] = "world"
    assert problems(d) == [
        "forces[1].joint: no joint or coordinate named 'ja.z'",
        "forces[2].body: no body named 'world'",
        "actuators[0].joint: joint 'ja' is free and has 3 coordinates; name one of ja.x, ja.y, ja.theta",
        "actuators[1].joint: no joint or coordinate named 'elbow'",
    ]
    d = base()
    d["joints"][1]["type"] = "fixed"
    d["initial"]["q"] = {"ja.y": 1.0}
    d["forces"].pop(1)
    assert one_problem(d) == "actuators[0].joint: joint 'jb' is fixed and has no coordinate"
    d = base()
    d["forces"][0]["b"]["body"] = "q"
    d["forces"][2]["force"] = [1, 2, 3]
    assert problems(d) == ["forces[2].force: must be [x, y], not a list of 3", "forces[0].b.body: no body named 'q'"]


def test_initial_coordinates():
    d = base()
    d["initial"]["q"]["ja.z"] = 1.0
    d["initial"]["v"]["nothing"] = "fast"
    assert problems(d) == ["initial.v['nothing']: must be a number, not a string",
                           "initial.q['ja.z']: unknown coordinate 'ja.z' (did you mean 'ja.y'?)"]


def test_settings_ranges():
    d = base()
    d["settings"] = {"dt": 0, "duration": -1, "theta": 0.3, "gamma": 2, "solver": "magic", "tolerance": 0,
                     "max_iterations": 0, "impact_threshold": -1}
    assert problems(d) == [
        "settings.dt: must be in [1e-09, 1e+07], not 0", "settings.duration: must be in (0, 1e+07], not -1",
        "settings.theta: must be in [0.5, 1], not 0.3",
        "settings.gamma: must be in [0, 1], not 2",
        "settings.solver: unknown value 'magic' (expected one of: auto, lemke, nsgs)",
        "settings.tolerance: must be in [1e-16, 1], not 0",
        "settings.max_iterations: must be an integer from 1 to 100000, not 0",
        "settings.impact_threshold: must be in [0, 1000], not -1"]
    d["settings"] = {"dt": 2.0, "duration": 1.0}
    assert one_problem(d) == "settings.dt: time step 2 is longer than the duration 1"


def test_every_problem_is_reported_at_once():
    d = base()
    d["bodies"][0]["mass"] = 0
    d["joints"][1]["axsi"] = 1
    d["contacts"][0]["friction"] = -1
    d["settings"]["theta"] = 2
    assert len(problems(d)) == 4


def test_validate_scene_on_edited_dataclasses():
    s = scene_from_dict(base())
    s.bodies[0].mass = -2.0
    s.bodies[1].shapes[0].width = "wide"
    s.contacts[0].b = ShapeRef(obstacle="lava")
    s.settings = "fast"
    assert [str(p) for p in validate_scene(s)] == [
        "bodies[0].mass: must be > 0, not -2",
        "bodies[1].shapes[0].width: must be a number, not a string",
        "settings: must be an object, not a string",
        "contacts[0].b.obstacle: no obstacle named 'lava'",
    ]
    assert str(Problem("a.b", "bad")) == "a.b: bad"


# ---------------------------------------------------------------- mass properties

def body(shapes, **kw):
    return Body(name="b", shapes=[Shape(**s) for s in shapes], **kw)


def test_disk_and_box():
    m, i, c = body_mass_properties(body([{"type": "disk", "radius": 0.3, "offset": [1, 2]}], mass=2.0))
    assert m == 2.0 and i == pytest.approx(2.0 * 0.3**2 / 2, rel=1e-14) and list(c) == [1.0, 2.0]
    m, i, c = body_mass_properties(body([{"type": "box", "width": 0.4, "height": 0.2, "angle": 0.7}], mass=3.0))
    assert i == pytest.approx(3.0 * (0.16 + 0.04) / 12, rel=1e-14)
    # density: mass = rho * area
    m, i, c = body_mass_properties(body([{"type": "box", "width": 0.4, "height": 0.2}], density=10.0))
    assert m == pytest.approx(0.8) and i == pytest.approx(0.8 * 0.2 / 12)


def test_capsule_closed_form():
    r, length, mass = 0.1, 0.6, 2.0
    rect, disk = 2 * r * length, math.pi * r * r
    rho = mass / (rect + disk)
    # rectangle + two half disks each at L/2 + u from the centre: m_d (r^2/2 + L^2/4 + 4 L r / (3 pi))
    expected = rho * rect * (length**2 + 4 * r * r) / 12 + rho * disk * (r * r / 2 + length**2 / 4
                                                                         + 4 * length * r / (3 * math.pi))
    m, i, c = body_mass_properties(body([{"type": "capsule", "radius": r, "length": length, "angle": 1.0}], mass=mass))
    assert i == pytest.approx(expected, rel=1e-12)
    # a thin bar (radius 0) is a uniform line: m L^2 / 12
    m, i, c = body_mass_properties(body([{"type": "capsule", "radius": 0.0, "length": 1.0}], mass=1.0))
    assert i == pytest.approx(1 / 12, rel=1e-14)
    # brute-force check of the capsule area and moment on a grid
    h = 2e-3
    xs = np.arange(-0.5, 0.5, h) + h / 2
    X, Y = np.meshgrid(xs, xs)
    inside = (np.abs(X) <= length / 2) & (np.abs(Y) <= r) | ((np.abs(X) - length / 2) ** 2 + Y**2 <= r * r)
    area, _, j = shape_area_properties(Shape(type="capsule", radius=r, length=length))
    assert area == pytest.approx(inside.sum() * h * h, rel=2e-3)
    assert j == pytest.approx(((X**2 + Y**2) * inside).sum() * h * h, rel=3e-3)


def test_polygon_equals_box():
    w, hgt, off, ang = 0.5, 0.3, [0.2, -0.1], 0.4
    rect = [[-w / 2, -hgt / 2], [w / 2, -hgt / 2], [w / 2, hgt / 2], [-w / 2, hgt / 2]]
    box = body_mass_properties(body([{"type": "box", "width": w, "height": hgt, "offset": off, "angle": ang}], mass=2.0))
    poly = body_mass_properties(body([{"type": "polygon", "vertices": rect, "offset": off, "angle": ang}], mass=2.0))
    assert poly[1] == pytest.approx(box[1], rel=1e-12)
    assert np.allclose(poly[2], box[2], atol=1e-15)
    # a rectangle away from its offset: the centroid moves with the angle
    shifted = [[x + 1.0, y] for x, y in rect]
    m, i, c = body_mass_properties(body([{"type": "polygon", "vertices": shifted, "angle": math.pi / 2}], mass=2.0))
    assert np.allclose(c, [0.0, 1.0], atol=1e-12) and i == pytest.approx(box[1], rel=1e-12)


def test_union_of_two_disks_uses_parallel_axes():
    r, d, m = 0.1, 0.4, 3.0
    b = body([{"type": "disk", "radius": r, "offset": [-d, 1]}, {"type": "disk", "radius": r, "offset": [d, 1]}],
             mass=m)
    mass, i, c = body_mass_properties(b)
    assert np.allclose(c, [0, 1]) and i == pytest.approx(2 * (m / 2) * (r * r / 2 + d * d), rel=1e-12)
    # a point shape adds nothing
    b.shapes.append(Shape(type="point", offset=[5, 5]))
    assert body_mass_properties(b)[1] == pytest.approx(i, rel=1e-14)


def test_explicit_values_win_and_points_only():
    b = body([{"type": "disk", "radius": 1.0}], mass=2.0, inertia=7.0, com=[0.5, 0.0], density=100.0)
    assert body_mass_properties(b)[:2] == (2.0, 7.0) and list(body_mass_properties(b)[2]) == [0.5, 0.0]
    # explicit com, inertia from the shapes about that com
    b = body([{"type": "disk", "radius": 1.0}], mass=2.0, com=[0.5, 0.0])
    assert body_mass_properties(b)[1] == pytest.approx(2.0 * (0.5 + 0.25))
    b = body([{"type": "point", "offset": [1, 1]}], mass=2.0)
    m, i, c = body_mass_properties(b)
    assert (m, i, list(c)) == (2.0, 0.0, [0.0, 0.0])
    with pytest.raises(ValueError):
        body_mass_properties(body([{"type": "disk", "radius": 1.0}]))


# ---------------------------------------------------------------- atomic save

def test_atomic_save_keeps_old_file_when_serializer_fails(tmp_path, monkeypatch):
    folder = tmp_path / "saves"  # a folder of its own: nothing else lives there
    folder.mkdir()
    path = folder / "s.json"
    s = scene_from_dict(base())
    save_scene(s, path)
    before = path.read_bytes()
    s.name = "changed"

    def boom(_):
        raise RuntimeError("serializer failed")

    monkeypatch.setattr(scene_mod, "dumps_scene", boom)
    with pytest.raises(RuntimeError):
        save_scene(s, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["s.json"]  # no temporary file left behind


@pytest.mark.parametrize("what", ["fsync", "replace"])
def test_atomic_save_keeps_old_file_when_writing_fails(tmp_path, monkeypatch, what):
    folder = tmp_path / "saves"  # a folder of its own: nothing else lives there
    folder.mkdir()
    path = folder / "s.json"
    s = scene_from_dict(base())
    save_scene(s, path)
    before = path.read_bytes()
    s.name = "changed"

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, what, boom)
    with pytest.raises(OSError):
        save_scene(s, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["s.json"]  # no temporary file left behind
    save_scene(s, path)
    assert load_scene(path).name == "changed"


# ---------------------------------------------------------------- coordinates

def test_coordinate_names_and_topological_order():
    s = scene_from_dict(base())
    assert coordinate_names(s) == ["ja.x", "ja.y", "ja.theta", "jb", "jc"]
    # children listed before their parents are moved after them; siblings keep their order
    d = {"format": "nsgui-scene", "version": 1,
         "bodies": [{"name": n, "mass": 1.0, "inertia": 1.0} for n in "abcde"],
         "joints": [{"name": "jd", "type": "revolute", "parent": "c", "child": "d"},
                    {"name": "jc", "type": "free", "parent": "a", "child": "c"},
                    {"name": "jb", "type": "prismatic", "parent": "world", "child": "b"},
                    {"name": "je", "type": "fixed", "parent": "c", "child": "e"},
                    {"name": "ja", "type": "revolute", "parent": "world", "child": "a"}]}
    s = scene_from_dict(d)
    assert [j.name for j in sorted_joints(s)] == ["jb", "ja", "jc", "jd", "je"]
    assert coordinate_names(s) == ["jb", "ja", "jc.x", "jc.y", "jc.theta", "jd"]
    # an already parent-first list keeps its order
    s.joints = sorted_joints(s)
    assert [j.name for j in sorted_joints(s)] == ["jb", "ja", "jc", "jd", "je"]


# ---------------------------------------------------------------- fuzz: only SceneError ever comes out

JUNK = [None, True, 0, -1, 1e308, 10**400, float("nan"), float("inf"), "x", "", [], [1], [1, 2, 3], [None, None],
        {}, {"a": 1}, [[0, 0], [1, 0]], "world", "disk0", [0, 0], [[1, 2]] * 3, -0.0]


def _paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from _paths(v, p + (i,))


def _mutate(d, rng):
    d = copy.deepcopy(d)
    for _ in range(rng.randint(1, 3)):
        p = rng.choice(list(_paths(d))[1:])
        parent = d
        for k in p[:-1]:
            parent = parent[k]
        k, op = p[-1], rng.random()
        if op < 0.5:
            parent[k] = copy.deepcopy(rng.choice(JUNK))
        elif op < 0.7:
            del parent[k]
        elif op < 0.85 and isinstance(parent, dict):
            parent[rng.choice(["axsi", "mass", "name", "type", "obstacle", "body", "shape", "joint"])] = \
                copy.deepcopy(rng.choice(JUNK))
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[k]))
    return d


def test_fuzz_mutated_scenes_give_only_scene_errors():
    rng = random.Random(99)
    bases = [base()] + [json.loads(p.read_text()) for p in EXAMPLES
             if "bead_column" not in p.name and not p.stem.startswith("disk_pile")]
    valid = invalid = 0
    for _ in range(2500):
        d = _mutate(rng.choice(bases), rng)
        try:
            s = scene_from_dict(d)
        except SceneError as e:
            assert e.problems and all(isinstance(p, Problem) and p.path and p.message for p in e.problems), d
            invalid += 1
            continue
        valid += 1
        assert scene_to_dict(loads_scene(dumps_scene(s))) == scene_to_dict(s)
    assert invalid > 1500 and valid > 100


def test_fuzz_corrupted_text_gives_only_scene_errors():
    rng = random.Random(7)
    text = (SCENES / "two_link_arm.json").read_text()
    for _ in range(600):
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(chars))
            op = rng.random()
            if op < 0.4:
                del chars[k]
            elif op < 0.8:
                chars[k] = rng.choice('{}[],:"0-.e9aZ \n\\')
            else:
                chars.insert(k, rng.choice('{}[],:"0-.e9 '))
        try:
            loads_scene("".join(chars))
        except SceneError as e:
            assert str(e)


def test_fuzz_junk_attributes_in_dataclasses():
    rng = random.Random(3)
    s0 = scene_from_dict(base())
    targets = lambda s: [s, s.settings, s.initial, *s.bodies, *[sh for b in s.bodies for sh in b.shapes], *s.joints,
                         *s.obstacles, *s.contacts, *s.forces, *s.actuators, *[a.controller for a in s.actuators]]
    for _ in range(400):
        s = copy.deepcopy(s0)
        obj = rng.choice(targets(s))
        name = rng.choice([f for f in vars(obj)])
        setattr(obj, name, copy.deepcopy(rng.choice(JUNK + [object(), Shape(), 3j])))
        result = validate_scene(s)
        assert isinstance(result, list)
