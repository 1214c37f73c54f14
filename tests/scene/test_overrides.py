"""Overrides: `Scene.with_values` and `nsgui run/render --set PATH=VALUE` change the run as physics
predicts, are validated exactly as a file (the same messages, naming the path) and leave the original
scene untouched."""

import os

import numpy as np
import pytest

from nsgui.__main__ import main
from nsgui.engine import codes, simulate
from nsgui.engine.export import read_csv
from nsgui.scene import SceneError, scene_to_dict
from tests.helpers import example, scene_path

BALL = scene_path("bouncing_ball")
RADIUS, DROP = 0.1, 0.9   # the ball's radius and the height its lowest point falls from (its file)
FINE = {"settings.dt": 1e-4, "settings.duration": 1.0}


def first_rebound_height(t, y, impact_time):
    """Highest gap after the first impact (the first apex: the later ones are lower)."""
    return float(y[t > impact_time].max()) - RADIUS


def first_impact(result):
    return next(e.t for e in result.events if e.kind == "impact")


@pytest.mark.parametrize("e", [0.5, 0.9])
def test_restitution_override_sets_the_rebound_height(e):
    """h1 = e² h0 (Newton's law at the impact, free flight before and after)."""
    ball = example("bouncing_ball")
    r = simulate(ball.with_values({**FINE, "contacts[ball_ground].restitution": e}))
    h1 = first_rebound_height(r.t, r["q.ball.y"], first_impact(r))
    assert h1 == pytest.approx(e ** 2 * DROP, abs=2e-3)


def test_with_values_returns_a_new_scene_and_leaves_the_original_alone():
    ball = example("bouncing_ball")
    before = scene_to_dict(ball)
    new = ball.with_values({"contacts[0].restitution": 0.5, "initial.v['ball.x']": 1.0, "gravity": [0, -1.62]})
    assert scene_to_dict(ball) == before
    assert new.contacts[0].restitution == 0.5 and new.initial.v == {"ball.x": 1.0}
    assert new.gravity == [0.0, -1.62]          # canonical form: floats, as a file loads
    assert new.contacts[0] is not ball.contacts[0]


def test_with_values_reports_every_problem_with_its_path_and_file_messages():
    ball = example("bouncing_ball")
    before = scene_to_dict(ball)
    with pytest.raises(SceneError) as err:
        ball.with_values({"settings.theta": 3, "contacts[0].restitution": -1, "settings.thetta": 1,
                          "initial.q[nope]": 1.0})
    assert [str(p) for p in err.value.problems] == [
        "settings.thetta: settings has no key 'thetta' (did you mean 'theta'?)",
        "contacts[0].restitution: must be in [0, 2], not -1",
        "settings.theta: must be in [0.5, 1], not 3",
        "initial.q['nope']: unknown coordinate 'nope' (coordinates: ball.x, ball.y, ball.theta)",
    ]
    assert scene_to_dict(ball) == before


def test_run_set_changes_the_run(tmp_path, capsys):
    out = tmp_path / "ball.csv"
    code = main(["run", BALL, "--quiet", "--out", str(out), "--set", "contacts[ball_ground].restitution=0.5",
                 "--set", "settings.dt=1e-4", "--set", "settings.duration=1.0"])
    assert code == 0, capsys.readouterr().err
    s = read_csv(out)
    assert s["t"][-1] == pytest.approx(1.0) and np.diff(s["t"][:2])[0] == pytest.approx(1e-4)
    impact = s["t"][np.argmax(s["contact.ball_ground.status"] == codes.IMPACT)]
    assert first_rebound_height(s["t"], s["q.ball.y"], impact) == pytest.approx(0.25 * DROP, abs=2e-3)


@pytest.mark.parametrize("sets, says", [
    (["settings.theta=3"], "  settings.theta: must be in [0.5, 1], not 3"),
    (["settings.thetta=3"], "  settings.thetta: settings has no key 'thetta' (did you mean 'theta'?)"),
    (["contacts[ball].friction=0.1"], "  contacts[ball].friction: contacts has no item named 'ball' (names: ball_ground)"),
    (["settings.solver=fast"], "  settings.solver: unknown value 'fast' (expected one of: auto, lemke, nsgs)"),
    (["settings.dt"], "nsgui run: --set settings.dt: expected PATH=VALUE"),
])
def test_run_set_errors_name_the_path(sets, says, tmp_path, capsys):
    out = tmp_path / "x.csv"
    argv = ["run", BALL, "--quiet", "--out", str(out)]
    for s in sets:
        argv += ["--set", s]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err.splitlines() or err.startswith(says), err
    assert "Traceback" not in err and not out.exists()
    if "PATH=VALUE" not in says:  # the message says the scene was edited, not that the file is broken
        assert f"invalid scene {BALL} as edited by --set {sets[0]}:" in err, err


def test_render_set_configures_the_scene_and_names_bad_paths(tmp_path, capsys):
    from nsgui.render_cli import _load_model
    model = _load_model(BALL, None, {"contacts[0].restitution": 0.5, "settings.duration": 0.5})
    assert model.scene.contacts[0].restitution == 0.5 and model.scene.settings.duration == 0.5
    work = tmp_path / "work"
    work.mkdir()
    assert main(["render", BALL, "--out", str(work / "x.gif"), "--set", "settings.theta=3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nsgui render: invalid scene") and "  settings.theta: must be in [0.5, 1], not 3" in err
    assert "as edited by --set" in err.splitlines()[0]
    assert os.listdir(work) == []
