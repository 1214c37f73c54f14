"""Issue 8 §3: every setting is bounded so that a run can always be stopped, values are refused with the
field's own range, integers are JSON integers, and a duplicate key names its line."""

import json

import pytest

from nsgui.scene import SceneError, load_scene
from nsgui.engine.compile import compile_scene
from nsgui.scene import loads_scene, scene_from_dict
from nsgui.scene.validation import MAX_ITERATIONS, MIN_TOLERANCE

from tests.helpers import scene_path


def ball_dict():
    with open(scene_path("bouncing_ball")) as f:
        return json.load(f)


def problems_of(d):
    with pytest.raises(SceneError) as exc:
        scene_from_dict(d)
    return [str(p) for p in exc.value.problems]


def test_runaway_iteration_settings_are_refused():
    # the settings that hung `nsgui run` inside the compiled kernel
    d = ball_dict()
    d["settings"].update(max_iterations=10**15, tolerance=1e-300)
    assert problems_of(d) == [
        f"settings.tolerance: must be in [{MIN_TOLERANCE:g}, 1], not 1e-300",
        f"settings.max_iterations: must be an integer from 1 to {MAX_ITERATIONS}, not 1000000000000000"]


def test_integer_beyond_int64_is_a_message_not_an_overflow():
    d = ball_dict()
    d["settings"]["max_iterations"] = 9223372036854775808
    assert problems_of(d) == ["settings.max_iterations: must be an integer from 1 to 100000, "
                              "not 9223372036854775808"]


def test_largest_allowed_settings_compile():
    d = ball_dict()
    d["settings"].update(max_iterations=MAX_ITERATIONS, tolerance=MIN_TOLERANCE)
    model = compile_scene(scene_from_dict(d))
    assert model.scene.settings.max_iterations == MAX_ITERATIONS


def test_theta_out_of_range_names_its_own_range():
    d = ball_dict()
    d["settings"]["theta"] = 1e13
    assert problems_of(d) == ["settings.theta: must be in [0.5, 1], not 1e+13"]


def test_float_version_is_not_an_integer():
    d = ball_dict()
    d["version"] = 1.0
    assert problems_of(d) == ["version: must be an integer, not 1.0"]
    d = ball_dict()
    d["settings"]["max_iterations"] = 1000.0
    assert problems_of(d) == ["settings.max_iterations: must be an integer, not 1000.0"]


def test_too_many_steps_are_refused():
    d = ball_dict()
    d["settings"].update(dt=1e-9, duration=1e5)
    assert problems_of(d) == ["settings.duration: 100000 s at dt = 1e-09 s is 1e+14 steps, "
                              "more than the 1e+12 a run may take"]


def test_duplicate_key_names_line_and_column(tmp_path):
    text = open(scene_path("bouncing_ball")).read()
    # repeat the first body's "mass" key: the message must point at the second one
    lines = text.splitlines()
    k = next(i for i, ln in enumerate(lines) if '"mass"' in ln)
    indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
    lines.insert(k + 1, f'{indent}"mass": 2.0,')
    path = tmp_path / "dup.json"
    path.write_text("\n".join(lines))
    with pytest.raises(SceneError) as exc:
        load_scene(path)
    assert str(exc.value) == (f"{path}: invalid JSON at line {k + 2}, column {len(indent) + 1}: "
                              "duplicate key 'mass'")


def test_same_key_in_different_objects_is_not_a_duplicate():
    text = open(scene_path("bouncing_ball")).read()
    assert loads_scene(text).name  # every body has "name", "mass": no false duplicate
