"""Templates (nsgui/scene/templates.py), written with SceneBuilder, make the very scenes the earlier
hand-made code made (recorded in data/templates_before.json for each template at its defaults, each
parameter at its minimum and maximum, and all parameters at mid-range), and every parameter the
dialog allows gives a valid scene."""

import json
import os

import pytest

from nsgui.scene import scene_to_dict, validate_scene
from nsgui.scene.templates import TEMPLATES, make_template

BEFORE = os.path.join(os.path.dirname(__file__), "data", "templates_before.json")


def recorded_cases():
    with open(BEFORE, encoding="utf-8") as f:
        before = json.load(f)
    assert set(before) <= set(TEMPLATES)  # templates added later have no hand-made predecessor
    return [(name, case["params"], case["scene"]) for name, cases in before.items() for case in cases]


@pytest.mark.parametrize("name, params, scene", recorded_cases())
def test_templates_make_the_scenes_they_made_before(name, params, scene):
    assert scene_to_dict(make_template(name, **params)) == scene


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_every_parameter_the_dialog_allows_gives_a_valid_scene(name):
    _, params = TEMPLATES[name]
    for param, _label, _unit, default, low, high, integer in params:
        for value in (low, default, high if not integer else min(high, 12)):
            assert validate_scene(make_template(name, **{param: value})) == [], (param, value)


def test_the_tracking_template_at_its_defaults_is_the_example_scene():
    from nsgui.scene import load_scene
    from tests.helpers import scene_path
    assert (scene_to_dict(make_template("Two-link arm tracking a circle"))
            == scene_to_dict(load_scene(scene_path("two_link_tracking"))))
