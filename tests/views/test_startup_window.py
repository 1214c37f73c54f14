"""The window is on the screen before the engine loads: its first paint comes before numba is
imported, then the scene opens and is drawn (NSGUI_STARTUP_PROBE reports both paints)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SPY = """
import sys
import nsgui.app as app
say = app._StartupProbe._say
def spy(self, text, leave=False):
    print(text, "with numba" if "numba" in sys.modules else "without numba", flush=True)
    say(self, text, leave)
app._StartupProbe._say = spy
sys.argv = ["nsgui", "bouncing_ball"]
from nsgui.__main__ import main
main()
"""


def test_first_paint_before_the_engine_then_the_scene(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, NSGUI_STARTUP_PROBE="1", XDG_CONFIG_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", SPY], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = [line for line in proc.stdout.splitlines() if " numba" in line]
    assert said == ["nsgui: first paint without numba", "nsgui: scene shown with numba"], proc.stdout
