"""The Templates "Biped standing" and "Biped walking" at their defaults are the shipped biped scenes
(whose standing split and gait the engine tests check), and their parameters reach the scene."""

import pytest

from nsgui.scene import scene_to_dict
from nsgui.scene.templates import TEMPLATES, make_template
from tests.helpers import example


def defaults(name):
    return {p[0]: p[3] for p in TEMPLATES[name][1]}


@pytest.mark.parametrize("name, scene", [("Biped standing", "biped_standing"), ("Biped walking", "biped")])
def test_biped_templates_at_their_defaults_are_the_shipped_scenes(name, scene):
    assert scene_to_dict(make_template(name, **defaults(name))) == scene_to_dict(example(scene))


def test_biped_walking_template_parameters():
    s = make_template("Biped walking", **dict(defaults("Biped walking"), push=0.0, slope_deg=2.0, friction=0.5))
    assert not any(f.type == "impulse" for f in s.forces)
    assert {c.friction for c in s.contacts} == {0.5}
    ground = next(o for o in s.obstacles if o.type == "ground")
    assert ground.normal[0] < 0 < ground.normal[1]  # rising toward +x
