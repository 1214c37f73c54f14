"""`nsgui run` with a scene whose controller is Python code: refused without --allow-code (one line,
exit status 2, nothing run), run with it; an exception in the user's code prints the user's
traceback and keeps the rows (exit status 1)."""

import json
import os

from nsgui.engine.export import read_csv

from tests.test_cli import nsgui_run
from tests.user_code import PID, arm_dict, write, write_scene

EXAMPLE = os.path.join("resources", "examples", "controllers", "pendulum_swing_up.json")


def test_code_needs_allow_code(tmp_path):
    write(tmp_path, "pid.py", PID + "\nopen(__file__ + '.ran', 'w').close()\n")
    scene = write_scene(tmp_path, arm_dict({}))
    r = nsgui_run(str(scene), "--duration", "0.1", "--out", str(tmp_path / "o.csv"))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"nsgui run: {scene}: controllers[0].module 'pid.py' is Python code: pass --allow-code to run it "
        "(only for scenes you trust)"]
    assert not (tmp_path / "pid.py.ran").exists() and not (tmp_path / "o.csv").exists()


def test_the_example_runs_with_allow_code(tmp_path):
    out, summary = tmp_path / "o.csv", tmp_path / "s.json"
    r = nsgui_run(EXAMPLE, "--allow-code", "--duration", "6", "--out", str(out), "--summary-json", str(summary),
                  "--quiet")
    assert r.returncode == 0, r.stderr
    cols = read_csv(out)
    E, target = cols["controller.pump.energy"], cols["controller.pump.target"]
    assert abs(E[-1] - target[-1]) < 0.01 * target[-1] and json.loads(summary.read_text())["failure"] is None


def test_an_exception_prints_the_user_traceback_and_keeps_the_rows(tmp_path):
    write(tmp_path, "pid.py", PID)
    scene = write_scene(tmp_path, arm_dict({"period": 0.01, "params": {"fail_at": 0.3}}))
    out = tmp_path / "o.csv"
    r = nsgui_run(str(scene), "--allow-code", "--duration", "1", "--out", str(out), "--quiet")
    assert r.returncode == 1
    err = r.stderr
    line = PID.splitlines().index("        return 1.0 / 0.0  # the line the traceback must name") + 1
    assert err.startswith("Traceback (most recent call last):\n")
    assert f'pid.py", line {line}, in broken' in err and "ZeroDivisionError: float division by zero" in err
    assert "nsgui/engine" not in err and "simulator.py" not in err
    assert err.strip().splitlines()[-1].startswith("nsgui run: stopped early: t = 0.3 s: controller 'ctl' (pid.py:")
    t = read_csv(out)["t"]
    assert len(t) == 301 and abs(t[-1] - 0.3) < 1e-9
