"""Values by path (nsgui/scene/paths.py): the paths validation messages are written with read and write
a Scene and its JSON form; names select list items; every bad path is named in its message."""

import copy

import pytest

from nsgui.scene import (PathError, SceneError, get_value, resolve_path, scene_to_dict, set_value,
                         validate_scene)
from nsgui.scene.paths import format_path, parse_assignment, parse_path
from tests.helpers import example


@pytest.fixture
def arm():
    return example("two_link_arm")


def test_paths_read_what_the_attributes_hold(arm):
    d = scene_to_dict(arm)
    cases = {
        "settings.dt": arm.settings.dt,
        "gravity[1]": arm.gravity[1],
        "contacts[0].restitution": arm.contacts[0].restitution,
        "bodies[1].shapes[0].length": arm.bodies[1].shapes[0].length,
        "joints[1].anchor_parent[0]": arm.joints[1].anchor_parent[0],
        "actuators[0].controller.kp": arm.actuators[0].controller.kp,
        "initial.q['shoulder']": arm.initial.q["shoulder"],
        "initial.q[elbow]": arm.initial.q["elbow"],
        "name": arm.name,
    }
    for path, want in cases.items():
        assert get_value(arm, path) == want, path
        assert get_value(d, path) == want, path
    assert get_value(arm, "actuators[0].controller") is arm.actuators[0].controller  # the sub-object itself


def test_names_select_list_items_and_resolve_to_indices(arm):
    body, shape = arm.bodies[1], arm.bodies[1].shapes[0]
    assert get_value(arm, f"bodies[{body.name}].shapes[{shape.name}].length") == shape.length
    assert get_value(arm, f"bodies['{body.name}'].mass") == body.mass
    assert resolve_path(arm, f"bodies[{body.name}].shapes[{shape.name}].length") == "bodies[1].shapes[0].length"
    act = arm.actuators[1]
    assert resolve_path(arm, f"actuators[{act.name}].controller.kd") == "actuators[1].controller.kd"
    # map keys come back written as validation writes them
    assert resolve_path(arm, "initial.q[shoulder]") == "initial.q['shoulder']"


def test_a_quoted_selector_is_always_a_name():
    s = example("bouncing_ball")
    s.contacts[0].name = "0"  # a legal name that looks like an index
    s.contacts.insert(0, copy.deepcopy(s.contacts[0]))
    s.contacts[0].name, s.contacts[0].restitution = "first", 0.25
    assert validate_scene(s) == []
    assert get_value(s, "contacts[0].restitution") == 0.25          # index 0
    assert get_value(s, "contacts['0'].restitution") == 0.9          # the item named '0'


def test_set_value_writes_in_place_in_both_forms(arm):
    d = scene_to_dict(arm)
    set_value(arm, "contacts[0].friction", 0.7)
    set_value(arm, "initial.v[elbow]", -2.0)      # a new map entry
    set_value(d, "contacts[0].friction", 0.7)
    set_value(d, "initial.v[elbow]", -2.0)
    assert arm.contacts[0].friction == 0.7 and arm.initial.v == {"elbow": -2.0}
    assert type(next(iter(arm.initial.v))) is str
    assert scene_to_dict(arm) == d and validate_scene(arm) == []


@pytest.mark.parametrize("path, says", [
    ("settings.thetta", "settings has no key 'thetta' (did you mean 'theta'?)"),
    ("contacts[5].restitution", "contacts has 1 item (indices 0 to 0), no [5]"),
    ("contacts[ball_grund].friction", "contacts has no item named 'ball_grund' (did you mean 'ball_ground'?)"),
    ("bodies[0].shapes[0].width", "bodies[0].shapes[0] has no key 'width' (keys: name, type, offset, angle, radius)"),
    ("joints[0].limits.lower", "joints[0].limits is null and has no 'lower'"),
    ("settings[0]", "settings is an object: give a key with .key"),
    ("gravity.x", "gravity is a list: select an item"),
    ("settings.dt.x", "settings.dt is a number and has no 'x'"),
    ("initial.q['ball.x']", "initial.q has no key 'ball.x'"),  # reading: absent entries are not made up
    ("contacts[0", "'[' at character 9 is not closed"),
    ("settings..dt", "expected a key at character 10"),
    ("", "empty path"),
])
def test_bad_paths_are_named_with_the_reason(path, says):
    s = example("bouncing_ball")
    with pytest.raises(PathError) as err:
        get_value(s, path)
    assert isinstance(err.value, SceneError)
    assert str(err.value).startswith(f"{path}: " if path else says)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_duplicate_names_ask_for_an_index():
    s = example("bouncing_ball")
    s.contacts.append(copy.deepcopy(s.contacts[0]))
    with pytest.raises(PathError, match=r"2 items of contacts are named 'ball_ground': use an index, "
                                        r"contacts\[0\] or contacts\[1\]"):
        get_value(s, "contacts[ball_ground].friction")


def test_parse_and_format_round_trip():
    for path in ["settings.dt", "contacts[0].restitution", "initial.q['block.x']", "bodies[2].shapes[0].radius"]:
        assert format_path(parse_path(path)) == path


def test_assignments_take_json_values_else_text():
    assert parse_assignment("settings.dt=1e-4") == ("settings.dt", 1e-4)
    assert parse_assignment("settings.projection=false") == ("settings.projection", False)
    assert parse_assignment("settings.solver=lemke") == ("settings.solver", "lemke")
    assert parse_assignment("gravity=[0, -1.62]") == ("gravity", [0, -1.62])
    assert parse_assignment("joints[0].limits={\"lower\": -1}") == ("joints[0].limits", {"lower": -1})
    assert parse_assignment("contacts[a=b].friction=0.1") == ("contacts[a=b].friction", 0.1)  # '=' in a name
    assert parse_assignment("name=A = B") == ("name", "A = B")
    with pytest.raises(ValueError, match="expected PATH=VALUE"):
        parse_assignment("settings.dt")
    with pytest.raises(ValueError, match="no path"):
        parse_assignment("=3")
