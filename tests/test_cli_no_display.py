"""Without a display, `nsgui` explains how to run headless instead of aborting in Qt."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "resources", "scenes", "default.json")


def test_no_display_gives_instructions():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = ROOT
    proc = subprocess.run([sys.executable, "-m", "nsgui", DEFAULT], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=env)
    assert proc.returncode == 2
    assert "nsgui run" in proc.stderr and "xvfb-run" in proc.stderr
