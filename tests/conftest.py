"""Shared test settings.

- The repository root is importable (the package need not be installed to run the tests).
- Qt settings (window layout, recent files) go to a throw-away directory, never the user's.
- Tests that need a window (they use `qtbot`/`qapp`, or are marked `gui`) are skipped with a clear
  reason when no display can be had: pytest-xvfb starts Xvfb by itself when it is installed.
- The `gl` fixture skips a test when OpenGL (Mesa in Xvfb) cannot render.
- BLAS runs on one thread: on a busy 2-core machine OpenBLAS's threads spin waiting for each other,
  and a test doing many small matrix products took 7x as long (126 s against 17.5 s, session 13).
  The engine's results are the same bits either way (identical.py).
"""

import os
import subprocess
import sys
import tempfile

# before anything imports numpy or scipy (they read these once, when their BLAS loads)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

_config_dir = tempfile.mkdtemp(prefix="nsgui-test-config-")
os.environ["XDG_CONFIG_HOME"] = _config_dir
os.environ.setdefault("NSGUI_TEST", "1")

_probe_cache = {}


def _probe(name, code):
    """Run `code` in a child process (a Qt abort must not kill the test session)."""
    if name not in _probe_cache:
        try:
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  timeout=60, cwd=ROOT)
            ok = proc.returncode == 0
            why = (proc.stderr or proc.stdout).strip().splitlines()[-1:] if not ok else []
        except Exception as exc:  # timeout, missing interpreter
            ok, why = False, [str(exc)]
        _probe_cache[name] = (ok, " ".join(why))
    return _probe_cache[name]


DISPLAY_PROBE = "from PySide6.QtWidgets import QApplication; QApplication([])"
GL_PROBE = """
from PySide6.QtWidgets import QApplication
app = QApplication([])
from nsgui.views.offscreen_canvas import make_canvas
c, how = make_canvas("#000000")
img = c.render()
assert img.shape[0] > 0
"""


def display_problem():
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return ("no display: install Xvfb (make test installs it when run as root) "
                "so pytest-xvfb can start one")
    ok, why = _probe("display", DISPLAY_PROBE)
    return None if ok else f"Qt cannot open the display ({why})"


def pytest_configure(config):
    config.addinivalue_line("markers", "gui: needs a display (skipped when none can be had)")


def pytest_collection_modifyitems(config, items):
    gui_items = [it for it in items
                 if it.get_closest_marker("gui") or {"qtbot", "qapp"} & set(getattr(it, "fixturenames", ()))]
    if not gui_items:
        return
    problem = display_problem()
    if problem:
        skip = pytest.mark.skip(reason=problem)
        for it in gui_items:
            it.add_marker(skip)


@pytest.fixture(scope="session")
def gl():
    """Skip the test when OpenGL rendering is not available (needs Mesa under Xvfb)."""
    ok, why = _probe("gl", GL_PROBE)
    if not ok:
        pytest.skip(f"OpenGL rendering unavailable: {why}")


@pytest.fixture(autouse=True)
def _private_state_dir(tmp_path, monkeypatch):
    """Recovery files of each test stay in its own directory, so no test finds
    another one's autosave (which would open a recovery question and wait for an answer)."""
    state = tmp_path / "nsgui-state"
    state.mkdir()
    monkeypatch.setenv("NSGUI_STATE_DIR", str(state))
