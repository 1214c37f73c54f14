"""Ctrl-C (SIGINT) or SIGTERM stops `nsgui run` at once (issue 8 §3: the compiled kernel ignored
Ctrl-C for minutes): one line, exit status 128 + signal, and the --out file is whole, holding the rows
so far — the same rows as an uninterrupted run's first ones."""

import glob
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from nsgui.engine import simulate
from nsgui.engine.export import read_csv, read_hdf5

from tests.helpers import PYTHON, ROOT, example, scene_path

BALL = scene_path("bouncing_ball")
WAIT = 60.0  # generous bounds: the test never depends on the machine's speed or load


def start_long_run(out):
    exe = PYTHON if os.path.exists(PYTHON) else "python"
    # 1e8 steps: hours of work, so the run is always under way when the signal comes
    cmd = [exe, "-m", "nsgui", "run", BALL, "--dt", "1e-3", "--duration", "1e5", "--no-projection", "--out", str(out)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT))


def wait_until_stepping(proc, out):
    """The run's temporary output file exists once it steps (it is opened after the kernel is loaded)."""
    deadline = time.monotonic() + WAIT
    pattern = os.path.join(os.path.dirname(out), f".{os.path.basename(out)}.{proc.pid}.*.tmp")
    while not glob.glob(pattern):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)


@pytest.mark.parametrize("fmt,sig", [("h5", signal.SIGINT), ("csv", signal.SIGINT), ("h5", signal.SIGTERM)])
def test_signal_stops_the_run_keeping_a_whole_file_of_the_rows_so_far(fmt, sig, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / f"ball.{fmt}"
    proc = start_long_run(out)
    try:
        wait_until_stepping(proc, out)
        time.sleep(0.3)  # let it write some rows (any number, even none, is correct)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=WAIT)
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nsgui run: interrupted at t = "), stderr
    assert f"rows so far are in {out}" in lines[0]
    assert os.listdir(folder) == [out.name]  # whole: renamed into place, no temporary file left
    data = read_csv(out) if fmt == "csv" else read_hdf5(out)
    n = len(data["t"])
    steps = int(stdout.split("steps", 1)[1].split()[0])
    assert n == steps + 1 >= 1
    # the rows so far are exactly those of an uninterrupted run
    ref = simulate(example("bouncing_ball"), dt=1e-3, duration=max(n - 1, 1) * 1e-3, projection=False)
    for name, values in ref.signals.items():
        np.testing.assert_array_equal(data[name], values[:n], err_msg=name)


def test_signal_while_loading_stops_at_once_and_writes_nothing(tmp_path):
    """Ctrl-C before the run steps (here: while the scene loads) interrupts at once: one line, 130."""
    folder = tmp_path / "out"
    folder.mkdir()
    code = f"""
import os, signal, sys, time
import nsgui.scene
def load_scene(path):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)  # interrupted by the handler long before
nsgui.scene.load_scene = load_scene
from nsgui.cli import run_main
sys.exit(run_main([{BALL!r}, "--out", {str(folder / 'x.h5')!r}]))
"""
    exe = PYTHON if os.path.exists(PYTHON) else "python"
    p = subprocess.run([exe, "-c", code], capture_output=True, text=True, timeout=WAIT,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 130
    assert p.stderr == "nsgui run: interrupted before the run started; nothing written\n"
    assert os.listdir(folder) == []


def test_ctrl_c_during_imports_is_one_line_not_a_traceback(monkeypatch, capsys):
    # a Ctrl-C that arrives while a command's module is still being imported (before its handler)
    import nsgui.__main__ as entry

    def interrupted(name):
        raise KeyboardInterrupt

    monkeypatch.setattr(entry.importlib, "import_module", interrupted)
    assert entry.main(["run", "bouncing_ball"]) == 130
    assert capsys.readouterr().err == "nsgui: interrupted\n"
