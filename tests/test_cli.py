"""`python -m nsgui run`: outputs equal simulate(), summary fields, clear errors without output files."""

import json
import os
import subprocess

import numpy as np
import pytest

from nsgui.engine import codes, simulate
from nsgui.engine.export import read_csv, read_hdf5
from nsgui.examples import natural_key

from tests.helpers import PYTHON, ROOT, SCENES, example, example_dict, scene_path

BALL = scene_path("bouncing_ball")
OPTS = ["--dt", "0.002", "--duration", "1.0", "--no-projection", "--solver", "lemke"]
SUMMARY_KEYS = {"steps", "t_end", "wall_time", "steps_per_second", "impacts", "max_penetration",
                "energy_residual", "solver_warnings", "failure"}


def nsgui(*args, cwd=None):
    exe = PYTHON if os.path.exists(PYTHON) else "python"
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([exe, "-m", "nsgui", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd or ROOT, env=env)


def nsgui_run(*args, cwd=None):
    return nsgui("run", *args, cwd=cwd)


@pytest.fixture(scope="module")
def reference():
    return simulate(example("bouncing_ball"), dt=0.002, duration=1.0, projection=False, solver="lemke")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, reference):
    d = tmp_path_factory.mktemp("cli")
    csv, h5, js = d / "ball.csv", d / "ball.h5", d / "summary.json"
    p1 = nsgui_run(BALL, *OPTS, "--quiet", "--out", str(csv), "--summary-json", str(js))
    p2 = nsgui_run(BALL, *OPTS, "--quiet", "--out", str(h5))
    return d, csv, h5, js, p1, p2


def test_runs_succeed_and_print_a_summary(outputs, reference):
    _, _, _, _, p1, p2 = outputs
    for p in (p1, p2):
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in p.stderr
        assert f"steps            {reference.summary['steps']}" in p.stdout
        assert f"impacts          {reference.summary['impacts']}" in p.stdout


def test_csv_has_every_signal_and_equals_simulate(outputs, reference):
    csv = outputs[1]
    with open(csv, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    assert header == reference.model.signal_names
    assert header[0] == "t" and "contact.ball_ground.pn" in header and "energy.residual" in header
    data = read_csv(csv)
    assert len(data["t"]) == reference.summary["steps"] + 1 == 501
    for name, values in reference.signals.items():
        np.testing.assert_array_equal(data[name], values, err_msg=name)   # %.17g round-trips exactly


def test_hdf5_has_every_signal_and_equals_simulate(outputs, reference):
    h5 = outputs[2]
    data = read_hdf5(h5)
    assert set(data) == set(reference.model.signal_names)
    for name, values in reference.signals.items():
        np.testing.assert_array_equal(data[name], values, err_msg=name)
    import h5py
    with h5py.File(h5, "r") as f:
        assert os.path.samefile(f.attrs["scene"], BALL)
        summary = json.loads(f.attrs["summary"])
    assert summary["steps"] == reference.summary["steps"]


def test_summary_json_fields(outputs, reference):
    js = outputs[3]
    s = json.loads(js.read_text())
    assert SUMMARY_KEYS <= set(s)
    assert s["failure"] is None
    assert s["steps"] == 500 and s["t_end"] == pytest.approx(1.0)
    for key in ("impacts", "max_penetration", "energy_residual", "solver_warnings"):
        assert s[key] == reference.summary[key], key
    assert s["impacts"] == int((reference.signals["contact.ball_ground.status"] == codes.IMPACT).sum()) >= 1
    assert s["max_penetration"] == max(0.0, -reference.signals["contact.ball_ground.gap"].min())
    assert s["wall_time"] > 0 and s["steps_per_second"] > 0


def _assert_clean_failure(p, *needles):
    assert p.returncode != 0
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout
    for n in needles:
        assert n in p.stderr, (n, p.stderr)


@pytest.fixture
def workdir(tmp_path):
    """An empty directory of its own (tmp_path may hold other fixtures' state)."""
    d = tmp_path / "work"
    d.mkdir()
    return d


def test_invalid_scene_names_the_field_and_writes_nothing(workdir):
    tmp_path = workdir
    d = example("bouncing_ball")
    from nsgui.scene import dumps_scene
    text = dumps_scene(d).replace('"mass": 1.0', '"mass": -1.0', 1)
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    out, js = tmp_path / "out.csv", tmp_path / "s.json"
    p = nsgui_run(str(bad), "--quiet", "--out", str(out), "--summary-json", str(js))
    _assert_clean_failure(p, "bodies[0].mass")
    assert sorted(os.listdir(tmp_path)) == ["bad.json"]           # no output, no temp file left


@pytest.mark.parametrize("args,needle", [
    (["--dt", "-1"], "--dt"),
    (["--duration", "0"], "--duration"),
    (["--theta", "2"], "settings.theta"),
    (["--out", "{dir}/x.txt"], "--out"),
    (["--solver", "bogus"], "--solver"),
    (["--projection", "--no-projection"], "not allowed with argument"),
])
def test_bad_option_value_is_refused_without_output(workdir, args, needle):
    tmp_path = workdir
    args = [a.format(dir=tmp_path) for a in args]
    out = [] if "--out" in args else ["--out", str(tmp_path / "out.csv")]
    p = nsgui_run(BALL, "--quiet", *args, *out)
    _assert_clean_failure(p, needle)
    assert os.listdir(tmp_path) == []


def test_missing_scene_file_is_a_clear_error(workdir):
    tmp_path = workdir
    p = nsgui_run(str(tmp_path / "nope.json"), "--quiet", "--out", str(tmp_path / "o.csv"))
    _assert_clean_failure(p, "nope.json")
    assert os.listdir(tmp_path) == []


def test_an_example_runs_by_its_name_from_any_folder(workdir, reference):
    for i, name in enumerate(("bouncing_ball", "bouncing_ball.json")):
        out = workdir / f"ball{i}.csv"
        p = nsgui_run(name, *OPTS, "--quiet", "--out", str(out), cwd=workdir)
        assert p.returncode == 0, p.stderr
        assert os.path.samefile(p.stdout.split()[1], BALL)  # "scene  PATH"
        data = read_csv(out)
        for signal, values in reference.signals.items():
            np.testing.assert_array_equal(data[signal], values, err_msg=signal)


def test_a_file_wins_over_an_example_of_the_same_name(workdir):
    d = example_dict("bouncing_ball")
    d["settings"]["dt"] = 0.01
    from nsgui.scene import dumps_scene, scene_from_dict
    (workdir / "bouncing_ball").write_text(dumps_scene(scene_from_dict(d)))
    p = nsgui_run("bouncing_ball", "--duration", "0.1", "--quiet", cwd=workdir)
    assert p.returncode == 0, p.stderr
    assert "steps            10  " in p.stdout  # h = 0.01 s of the local file (the example's is 0.005 s)


def test_unknown_scene_name_points_at_the_examples(workdir):
    p = nsgui_run("no_such_example", "--quiet", cwd=workdir)
    _assert_clean_failure(p, "no_such_example", "nsgui examples")
    assert p.returncode == 2


def test_examples_lists_every_scene_with_its_file():
    stems = sorted((os.path.splitext(f)[0] for f in os.listdir(SCENES) if f.endswith(".json")), key=natural_key)
    assert stems.index("bead_column_50") < stems.index("bead_column_100")
    p = nsgui("examples")
    assert p.returncode == 0, p.stderr
    assert [line.split()[0] for line in p.stdout.splitlines()] == stems
    assert "Impacts and friction at a glance" in p.stdout  # the first sentence of default's description
    p = nsgui("examples", "--paths")
    rows = [line.split(None, 1) for line in p.stdout.splitlines()]
    assert [(n, os.path.realpath(f)) for n, f in rows] == \
        [(n, os.path.realpath(os.path.join(SCENES, n + ".json"))) for n in stems]


def test_help_lists_the_commands_and_version_is_the_package_version():
    p = nsgui("--help")
    assert p.returncode == 0, p.stderr
    commands = p.stdout.split("commands:")[1]
    for name in ("run", "render", "poincare", "examples"):
        assert f"\n    {name} " in commands
    assert "--screenshot" in p.stdout and "SCENE" in p.stdout
    import nsgui as package
    p = nsgui("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"nsgui {package.__version__}"
    p = nsgui("run", "--help")
    assert p.returncode == 0 and "--summary-json" in p.stdout


def test_the_version_is_written_once():
    """pyproject.toml takes the version from nsgui.__version__ (no second copy to forget)."""
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "nsgui.__version__"}
    assert project["project"]["license"] == "MIT"
    assert os.path.isfile(os.path.join(ROOT, "LICENSE"))


def test_summary_json_reports_the_cycles_of_a_switching_tracking_controller(tmp_path):
    """controller.cycles[k] of `nsgui run --summary-json`, equal to the cycle metrics of the full signals
    although the rows go to a file one step in ten."""
    from nsgui.engine.control.cycles import cycle_metrics
    js, out = tmp_path / "s.json", tmp_path / "rows.csv"
    p = nsgui_run(scene_path("two_link_tracking"), "--duration", "5", "--every", "10", "--out", str(out),
                  "--summary-json", str(js), "--quiet")
    assert p.returncode == 0, p.stderr
    [c] = json.loads(js.read_text())["controller"]["cycles"]
    assert set(c) >= {"impacts", "transition_length", "first_rebound_height", "tracking_error_rms"}
    r = simulate(example("two_link_tracking"), duration=5.0)
    sig = lambda n: r[f"controller.tracking.{n}"]  # noqa: E731
    [ref] = cycle_metrics(r.t, sig("phase"), sig("impacts"), sig("y"), sig("error"), 5.0)
    assert c == ref and c["impacts"] > 5 and c["transition_length"] > 0
    assert "cycle 0" in p.stdout and "transition" in p.stdout
