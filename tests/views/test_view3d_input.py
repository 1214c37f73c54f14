"""The 3D view is drawn offscreen and shown in a plain widget: mouse drags pan the front view and
orbit the orbit view, the wheel zooms, Reset camera puts it back, and without any OpenGL window the view still renders (EGL)
or says why it cannot."""

import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = os.path.join(ROOT, "resources", "scenes", "default.json")

pytestmark = pytest.mark.gui


def shown_window(qtbot, scene):
    """A 1400×900 main window on the screen with `scene` open (closed clean and deleted after the
    test, see conftest.close_and_delete)."""
    from nsgui.views.main_window import MainWindow

    from .conftest import close_and_delete
    w = MainWindow()
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    try:
        assert w.open_scene(scene)
        yield w
    finally:
        close_and_delete(w)


@pytest.fixture
def window(qtbot, gl):
    yield from shown_window(qtbot, DEFAULT)


def _send(widget, kind, pos, button, buttons):
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication
    p = QPointF(*pos)
    g = QPointF(widget.mapToGlobal(p.toPoint()))
    ev = QMouseEvent(kind, p, g, button, buttons, Qt.NoModifier)
    QApplication.sendEvent(widget, ev)


def _drag(widget, start, end, button):
    from PySide6.QtCore import QEvent, Qt
    _send(widget, QEvent.MouseButtonPress, start, button, button)
    for k in range(1, 6):
        p = tuple(np.add(start, np.multiply(np.subtract(end, start), k / 5)))
        _send(widget, QEvent.MouseMove, p, Qt.NoButton, button)
    _send(widget, QEvent.MouseButtonRelease, end, button, Qt.NoButton)


def test_drag_pans_the_front_view_orbits_the_orbit_view_wheel_zooms_and_reset_restores(window, qtbot):
    """Front view (default): a left drag pans, the point under the mouse follows it. Orbit view:
    a left drag rotates. The wheel zooms; Reset camera restores the view exactly."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication
    view = window.view3d
    if view.backend != "egl":
        pytest.skip(f"3D view drawn by {view.backend}, not offscreen")
    display, cam = view.display, view.view.camera
    qtbot.waitUntil(lambda: display.image is not None, timeout=60000)
    img0 = display.render_now().copy()
    az0, el0, scale0, c0 = cam.azimuth, cam.elevation, cam.scale_factor, tuple(cam.center)
    w, h = display.width(), display.height()
    r = display.devicePixelRatioF()
    _drag(display, (w / 2, h / 2), (w / 2 + 120, h / 2 + 40), Qt.LeftButton)
    assert (cam.azimuth, cam.elevation) == (az0, el0)
    # the scene moves with the mouse: the centre goes the other way, along the drag, at most as far
    # (vispy drops moves closer than 10 ms apart, so the last ones may not count)
    per_px = cam.scale_factor / min(view.canvas.size)  # orthographic: world units per canvas pixel
    dx, dy = np.subtract(cam.center, c0)[:2] / (r * per_px)
    assert 0 < -dx <= 120 + 1e-6 and dy == pytest.approx(-dx / 3)
    qtbot.waitUntil(lambda: display.image is not None and not display._timer.isActive(), timeout=60000)
    assert np.abs(display.render_now().astype(int) - img0.astype(int)).sum() > 10000
    view.reset_camera()
    view.act_orbit.trigger()
    az1, el1 = cam.azimuth, cam.elevation
    _drag(display, (w / 2, h / 2), (w / 2 + 120, h / 2 + 40), Qt.LeftButton)
    assert cam.azimuth != pytest.approx(az1) and cam.elevation != pytest.approx(el1)
    view.act_orbit.trigger()
    assert (cam.azimuth, cam.elevation, cam.fov) == (az0, el0, 0.0)
    # the wheel zooms in
    ev = QWheelEvent(QPointF(w / 2, h / 2), QPointF(display.mapToGlobal(QPoint(w // 2, h // 2))),
                     QPoint(0, 0), QPoint(0, 240), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(display, ev)
    assert cam.scale_factor < scale0
    view.reset_camera()
    assert (cam.azimuth, cam.elevation, cam.scale_factor) == pytest.approx((az0, el0, scale0))
    assert tuple(cam.center) == pytest.approx(c0)
    np.testing.assert_array_equal(display.render_now(), img0)


def test_camera_fits_the_scene_and_refits_on_resize_until_moved(window, qtbot):
    """Reset camera frames the whole scene in both directions of the view, and a resize re-fits it
    until the user moves the camera."""
    view = window.view3d
    if view.backend != "egl":
        pytest.skip(f"3D view drawn by {view.backend}, not offscreen")
    display, cam = view.display, view.view.camera
    for w, h in ((900, 300), (300, 900)):
        display.resize(w, h)
        display.render_now()
        sx, sy = view.span
        # vispy shows scale_factor across the shorter side, scale_factor * long/short across the other
        seen_x = cam.scale_factor * (w / h if w >= h else 1.0)
        seen_y = cam.scale_factor * (1.0 if w >= h else h / w)
        assert seen_x >= 1.2 * sx and seen_y >= 1.2 * sy
        assert min(seen_x / sx, seen_y / sy) == pytest.approx(1.25)  # tight in one direction
    from PySide6.QtCore import Qt
    _drag(display, (100, 100), (160, 120), Qt.LeftButton)
    moved = (tuple(cam.center), cam.scale_factor)
    display.resize(700, 500)
    display.render_now()
    assert (tuple(cam.center), cam.scale_factor) == moved


def test_frames_are_drawn_at_the_widget_size(window, qtbot):
    view = window.view3d
    if view.backend != "egl":
        pytest.skip(f"3D view drawn by {view.backend}, not offscreen")
    display = view.display
    display.resize(500, 300)
    img = display.render_now()
    r = display.devicePixelRatioF()
    assert img.shape[:2] == (round(300 * r), round(500 * r))
    assert tuple(view.canvas.size) == (round(500 * r), round(300 * r))
    assert img[..., :3].std() > 5  # not blank


OFFSCREEN = """
import sys
sys.path.insert(0, {root!r})
from PySide6.QtWidgets import QApplication
app = QApplication([])
from nsgui.views.main_window import MainWindow
w = MainWindow()
w.resize(1200, 800)
w.show()
w.open_scene({scene!r})
app.processEvents()
v = w.view3d
if v.canvas is None:
    print("MESSAGE", v.error)
else:
    img = v.render_image()
    print("RENDERED", v.backend, float(img[..., :3].std()))
w.document.undo_stack.setClean()
w.close()
"""


def test_offscreen_platform_renders_or_explains():
    """QT_QPA_PLATFORM=offscreen has no OpenGL windows: the view renders through EGL, or shows a
    message naming the problem; it is never a blank panel."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", NSGUI_TEST="1")
    env.pop("DISPLAY", None)
    proc = subprocess.run([sys.executable, "-c", OFFSCREEN.format(root=ROOT, scene=DEFAULT)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    line = next(l for l in proc.stdout.splitlines() if l.startswith(("RENDERED", "MESSAGE")))
    if line.startswith("RENDERED"):
        _, backend, std = line.split()
        assert backend == "egl" and float(std) > 5
    else:
        assert "3D view unavailable" in line and "platform" in line


def test_no_opengl_at_all_gives_a_message(qtbot, monkeypatch):
    from nsgui.views import offscreen_canvas
    monkeypatch.setenv("NSGUI_3D_BACKEND", "none")
    from nsgui.views.sim_controller import SimulationController
    from nsgui.views.view3d import View3D

    from tests.runtime.fake_sim import FakeSimulator
    c = SimulationController(simulator_factory=FakeSimulator)
    try:
        v = View3D(c)
        qtbot.addWidget(v)
        assert v.canvas is None and "3D view unavailable" in v.error
        with pytest.raises(RuntimeError, match="unavailable"):
            v.render_image()
    finally:
        c.shutdown()
    assert offscreen_canvas is not None


def test_reduced_resolution_frames_show_the_same_picture(window, qtbot):
    """Live frames drawn at half resolution (slow renderers) frame the scene exactly as the full
    frame: the full frame averaged over 2x2 pixels nearly equals the half one, while the view moved
    by 20 degrees does not; mouse positions map onto the smaller canvas."""
    view = window.view3d
    if view.backend != "egl":
        pytest.skip(f"3D view drawn by {view.backend}, not offscreen")
    display, cam = view.display, view.view.camera
    display.resize(600, 400)
    full = display.render_now(1.0)[..., :3].astype(float)
    half = display.render_now(0.5)[..., :3].astype(float)
    assert half.shape[:2] == (200, 300) and full.shape[:2] == (400, 600)
    assert view._px_scale == 0.5  # markers and arrows were drawn at half their pixel size
    pooled = full.reshape(200, 2, 300, 2, 3).mean(axis=(1, 3))
    same = np.abs(pooled - half).mean()
    cam.azimuth += 20
    moved = display.render_now(0.5)[..., :3].astype(float)
    assert same < 0.5 * np.abs(moved - half).mean(), (same, np.abs(moved - half).mean())
    assert same < 3
    # a widget position lands on the same place of the half-size canvas
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtCore import QEvent, Qt
    ev = QMouseEvent(QEvent.MouseMove, QPointF(300, 200), QPointF(300, 200), Qt.NoButton, Qt.NoButton,
                     Qt.NoModifier)
    assert display._pos(ev) == pytest.approx((150 * display.devicePixelRatioF(), 100 * display.devicePixelRatioF()))
    display.render_now(1.0)
    assert view._px_scale == 1.0
    assert display._pos(ev) == pytest.approx((300 * display.devicePixelRatioF(), 200 * display.devicePixelRatioF()))
