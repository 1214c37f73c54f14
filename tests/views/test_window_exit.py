"""The window's exit paths leave nothing behind: the history's spill folder is removed on close, on
a normal exit and on SIGTERM; the folder of a killed window goes at the next start; the simulation
process leaves quietly whatever happens to the window."""

import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.gui

# The window of `nsgui` with a tiny history memory cap (so it spills within a second of running),
# printing the spill folders it makes and the simulation process's pid.
WINDOW = """
import sys
import nsgui.runtime.history as rec
import nsgui.runtime.process as pr
rec.DEFAULT_MEMORY_CAP, rec.DEFAULT_CHUNK_ROWS = 100_000, 200
new_dir = rec._new_spill_dir
def spill_dir(parent=None):
    path = new_dir(parent)
    print("SPILL", path, flush=True)
    return path
rec._new_spill_dir = spill_dir
init = pr.ProcessRunner.__init__
def runner_init(self, *a, **k):
    init(self, *a, **k)
    print("CHILD", self._proc.pid, flush=True)
pr.ProcessRunner.__init__ = runner_init
from nsgui.app import gui_main
sys.exit(gui_main(sys.argv[1:]))
"""


def start_window(tmp, *args):
    env = dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(tmp))
    return subprocess.Popen([sys.executable, "-c", WINDOW, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(tmp))


def read_until_spill(proc, timeout=240):
    """The child's pid and the first spill folder, from the window's output."""
    child = folder = None
    end = time.time() + timeout
    while time.time() < end and folder is None:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("CHILD "):
            child = int(line.split()[1])
        elif line.startswith("SPILL "):
            folder = line.split(" ", 1)[1].strip()
    assert folder is not None, proc.stderr.read() if proc.poll() is not None else "no spill folder"
    return child, folder


def gone(pid, timeout=30):
    """True once the process has exited (a zombie nobody reaps counts as exited)."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def spill_folders(tmp):
    return sorted(n for n in os.listdir(tmp) if n.startswith("nsgui-history-"))


def assert_quiet(stderr):
    assert "Traceback" not in stderr and "Error" not in stderr, stderr


def test_closing_the_window_removes_its_spill_folder(qtbot, gl, monkeypatch, tmp_path):
    import nsgui.runtime.history as rec
    from nsgui.views.main_window import MainWindow
    monkeypatch.setattr(rec, "DEFAULT_MEMORY_CAP", 100_000)
    monkeypatch.setattr(rec, "DEFAULT_CHUNK_ROWS", 200)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert w.open_scene(os.path.join(ROOT, "resources", "scenes", "bouncing_ball.json"))
    c = w.controller
    c.set_speed(None)
    c.run_until(2.0)
    assert c.flush(timeout=240)
    folder = c.recorder._spill_dir
    assert c.recorder.spilled_rows > 0 and os.path.isdir(folder)
    assert os.path.basename(folder).startswith(f"nsgui-history-{os.getpid()}-")
    w.close()
    assert not os.path.exists(folder)


def test_sigterm_to_a_running_window_leaves_no_folder_and_no_traceback(tmp_path):
    """SIGTERM while a run goes flat out: the window stops the simulation process, removes its
    spill folder and exits with 128 + 15; neither process prints a traceback."""
    proc = start_window(tmp_path, "default", "--run-for", "10000")
    try:
        child, folder = read_until_spill(proc)
        assert os.path.isdir(folder)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert_quiet(err)
    assert spill_folders(tmp_path) == []
    assert gone(child)


def test_killed_window_child_leaves_quietly_and_the_next_start_removes_the_folder(tmp_path):
    """SIGKILL gives the window no chance to clean up: its simulation process notices and exits
    without a traceback, and the next window removes the dead window's folder (not a live one's);
    a normal exit removes the window's own folder."""
    proc = start_window(tmp_path, "default", "--run-for", "10000")
    try:
        child, killed_folder = read_until_spill(proc)
        proc.kill()
        proc.wait(timeout=30)
        assert gone(child)
        err = proc.stderr.read()
    finally:
        proc.kill()
    assert_quiet(err)
    assert os.path.isdir(killed_folder)  # nobody could remove it yet
    live = tmp_path / f"nsgui-history-{os.getpid()}-live"  # a running window's (this test's pid)
    live.mkdir()

    proc = start_window(tmp_path, "bouncing_ball", "--run-for", "2", "--screenshot", "s.png")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert_quiet(err)
    own = [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("SPILL ")]
    assert own, out  # it did spill...
    assert spill_folders(tmp_path) == [live.name]  # ...and removed its folder and the dead one's
