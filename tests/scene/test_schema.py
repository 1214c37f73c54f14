"""The scene schema written once (nsgui/scene/schema.py): the docs' tables are generated from it, the
dataclasses' defaults are the file's, and a type registered in it is validated, written and documented
with no other change."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from nsgui.scene import (Actuator, Body, Contact, Controller, ForceElement, Joint, Obstacle, PointRef, Scene,
                         SceneError, Settings, Shape, ShapeRef, dumps_scene, loads_scene, scene_from_dict,
                         scene_to_dict, validate_scene)
from nsgui.scene import model, schema_docs
from nsgui.scene.schema import CONTROLLER, SETTINGS, SPECS, Field, TypedSpec


def test_doc_tables_are_the_generated_ones():
    text = schema_docs.DOC.read_text(encoding="utf-8")
    assert schema_docs.marked(text) and set(schema_docs.marked(text)) == set(SPECS), \
        "every object of the schema has one table in docs/scene-format.md"
    assert schema_docs.render(text) == text, \
        "docs/scene-format.md is out of date: run python -m nsgui.scene.schema_docs --write"
    assert schema_docs.main(["--check"]) == 0


def test_doc_table_shows_kind_range_default_and_unit():
    table = schema_docs.markdown(SETTINGS)
    assert "| `dt` | float in [1e-09, 1e+07] | `0.001` | s |" in table
    assert "| `max_iterations` | int from 1 to 100000 | `1000` | |" in table
    assert "| `solver` | `auto` \\| `lemke` \\| `nsgs` | `\"auto\"` | |" in table
    assert "| `lower` | float or null | `null` | rad or m |" in schema_docs.markdown(SPECS["JointLimits"])


def test_dataclass_attributes_are_the_schema_fields():
    for name, spec in SPECS.items():
        cls = getattr(model, name)
        assert [f.name for f in dataclasses.fields(cls)] == [f.key for f in spec.attr_fields()], name


def _minimal_scene() -> dict:
    """One object of every type with only its required keys."""
    return {
        "format": "nsgui-scene", "version": 1,
        "bodies": [{"name": "b", "mass": 1.0, "inertia": 1.0,
                    "shapes": [{"type": "disk", "radius": 0.1}, {"type": "box", "width": 1, "height": 2},
                               {"type": "capsule", "length": 1}, {"type": "polygon", "vertices": [[0, 0], [1, 0], [0, 1]]},
                               {"type": "point"}]}],
        "joints": [{"name": "j", "type": "free", "child": "b"}],
        "obstacles": [{"name": "g", "type": "ground"}, {"name": "w", "type": "wall"},
                      {"name": "s", "type": "segment", "a": [0, 0], "b": [1, 0]}],
        "contacts": [{"name": "c", "a": {"body": "b", "shape": "disk0"}, "b": {"obstacle": "g"}}],
        "forces": [{"name": "sp", "a": {"body": "world"}, "b": {"body": "b"}},
                   {"name": "js", "type": "joint_spring", "joint": "j.x"},
                   {"name": "f", "type": "force", "body": "b", "force": [1, 0]}],
        "actuators": [{"name": f"u{k}", "joint": "j.y", "controller": {"type": t}}
                      for k, t in enumerate(CONTROLLER.types)] + [{"name": "bare", "joint": "j.y"}],
    }


def test_file_defaults_equal_dataclass_defaults():
    """An object read with only its required keys equals the dataclass made with those keys."""
    s = scene_from_dict(_minimal_scene())
    expected = Scene(
        bodies=[Body(name="b", mass=1.0, inertia=1.0, shapes=[
            Shape(type="disk", name="disk0", radius=0.1), Shape(type="box", name="box1", width=1.0, height=2.0),
            Shape(type="capsule", name="capsule2", length=1.0, radius=0.0),
            Shape(type="polygon", name="polygon3", vertices=[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
            Shape(type="point", name="point4")])],
        joints=[Joint(name="j", type="free", child="b")],
        obstacles=[Obstacle(name="g", type="ground"), Obstacle(name="w", type="wall"),
                   Obstacle(name="s", type="segment", a=[0.0, 0.0], b=[1.0, 0.0])],
        contacts=[Contact(name="c", a=ShapeRef(body="b", shape="disk0"), b=ShapeRef(obstacle="g"))],
        forces=[ForceElement(name="sp", a=PointRef(body="world"), b=PointRef(body="b")),
                ForceElement(name="js", type="joint_spring", joint="j.x"),
                ForceElement(name="f", type="force", body="b", force=[1.0, 0.0])],
        actuators=[Actuator(name=f"u{k}", joint="j.y", controller=Controller(type=t))
                   for k, t in enumerate(CONTROLLER.types)] + [Actuator(name="bare", joint="j.y")])
    assert s == expected
    assert dumps_scene(s) == dumps_scene(expected)
    assert s.settings == Settings() and scene_to_dict(Scene())["settings"] == scene_to_dict(s)["settings"]
    assert isinstance(s.settings.max_iterations, int) and isinstance(s.bodies[0].shapes[1].width, float)


def test_dataclass_defaults_are_fresh_objects():
    a, b = Scene(), Scene()
    a.gravity[0] = 1.0
    a.settings.dt = 0.5
    a.initial.q["x"] = 1.0
    assert b.gravity == [0.0, -9.81] and b.settings.dt == 0.001 and b.initial.q == {}
    assert Shape().offset is not Shape().offset and Contact().a is not Contact().a


def test_scenes_pickle_and_deepcopy():
    s = scene_from_dict(_minimal_scene())
    assert pickle.loads(pickle.dumps(s)) == s
    assert copy.deepcopy(s) == s and type(s.bodies[0]) is Body and Body.__module__ == "nsgui.scene.model"


def test_a_registered_type_is_validated_written_and_documented():
    """A controller type is one register() call: keys, ranges, canonical form and docs follow."""
    CONTROLLER.register("p_only", [Field("kp", "number", default=0.0, ge=0, help="gain"),
                                   Field("target", "number", default=0.0, unit="m or rad")],
                        help="u = kp (target − q)")
    try:
        d = _minimal_scene()
        d["actuators"] = [{"name": "u", "joint": "j.y", "controller": {"type": "p_only", "kp": 2}}]
        s = scene_from_dict(d)
        assert s.actuators[0].controller == Controller(type="p_only", kp=2.0)
        assert scene_to_dict(s)["actuators"][0]["controller"] == {"type": "p_only", "kp": 2.0, "target": 0.0}
        assert loads_scene(dumps_scene(s)) == s
        d["actuators"][0]["controller"] = {"type": "p_only", "kp": -1, "kd": 1}
        with pytest.raises(SceneError) as exc:
            scene_from_dict(d)
        assert [str(p) for p in exc.value.problems] == [
            "actuators[0].controller: unknown key 'kd'",
            "actuators[0].controller.kp: must be >= 0, not -1"]
        d["actuators"][0]["controller"] = {"type": "bang"}
        with pytest.raises(SceneError) as exc:
            scene_from_dict(d)
        assert str(exc.value) == ("actuators[0].controller.type: unknown value 'bang' "
                                  "(expected one of: none, constant, pd, p_only)")
        table = schema_docs.markdown(CONTROLLER)
        assert "**`p_only`**: u = kp (target − q)" in table and "| `target` | float | `0.0` | m or rad | |" in table
    finally:
        CONTROLLER.unregister("p_only")
    assert "p_only" not in CONTROLLER[CONTROLLER.type_key].choices


def test_every_typed_object_lists_each_type_key_once():
    for spec in SPECS.values():
        if isinstance(spec, TypedSpec):
            for t in spec.types.values():
                assert len(t.keys) == len(set(t.keys)) and not set(t.keys) & set(spec.common_keys), spec.name


def test_a_junk_type_attribute_is_reported_with_its_path():
    """A list as a dataclass's type used to stop the whole check ("not a scene: unhashable type")."""
    s = scene_from_dict(_minimal_scene())
    s.obstacles[0].type = ["ground"]
    assert [str(p) for p in validate_scene(s)] == [
        "obstacles[0].type: must be one of: ground, wall, segment; not a list"]


def test_engine_codes_name_the_schema_choices():
    """The engine's codes for joint, solver and controller types cover exactly the file's choices."""
    from nsgui.engine import codes
    from nsgui.scene.schema import JOINT
    assert list(codes.JOINT_TYPES) != [] and set(codes.JOINT_TYPES) == set(JOINT["type"].choices)
    assert set(codes.SOLVERS) == set(SETTINGS["solver"].choices)
    from nsgui.engine.control.build import LAWS
    from nsgui.scene.schema import CONTROLLER_BLOCK, TRAJECTORY
    assert set(LAWS) | {"none"} == set(CONTROLLER.types) | set(CONTROLLER_BLOCK.types)
    assert set(codes.TRAJECTORY_KINDS) == set(TRAJECTORY.types)
