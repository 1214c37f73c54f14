"""The 3D view follows a walker (issue 12 §1: it walks down the slope indefinitely, live in the window):
a fitted front view slides along the ground after the bodies once they have moved more than a share
of the view's width, keeps that slide when the canvas is resized, and slides back when the history is
scrubbed back to the start; a mechanism pinned to the world never moves the camera."""

import numpy as np
import pytest

from nsgui.views.view3d import FOLLOW
from tests.helpers import scene_path

pytestmark = pytest.mark.gui


def run_to(window, t):
    c = window.controller
    c.set_speed(None)
    c.run_until(t)
    assert c.flush(timeout=280), "the run did not finish"


def screen_offset(view, point):
    """Where a world point is from the camera centre, along the ground and in view widths."""
    cam = view.view.camera
    w, h = view.view.size
    width = cam.scale_factor * (w / h if w > h else 1.0)
    return float((np.asarray(point) - np.array(cam.center[:2])) @ view._follow_axis) / width


def test_the_view_follows_the_compass_gait_walker_and_comes_back(window):
    assert window.open_scene(scene_path("compass_gait"))
    v = window.view3d
    c0 = np.array(v.view.camera.center[:2])
    run_to(window, 6.0)
    v.show_row()
    rec = window.controller.recorder
    hip = np.array([rec.column("q.walker.x")[-1], rec.column("q.walker.y")[-1]])
    hip0 = np.array([rec.column("q.walker.x")[0], rec.column("q.walker.y")[0]])
    assert hip[0] - hip0[0] > 3.0                                # it walked 3 m and more ...
    moved = np.array(v.view.camera.center[:2]) - c0
    assert moved @ v._follow_axis > 2.0                          # ... and the camera went with it,
    assert abs(moved @ np.array([-v._follow_axis[1], v._follow_axis[0]])) < 1e-9   # along the slope
    assert abs(screen_offset(v, hip)) < FOLLOW / 2 + 0.1         # the walker is on screen
    v.reset_camera()                                             # a resize re-fits: the slide stays
    assert np.allclose(np.array(v.view.camera.center[:2]) - c0, moved)
    window.controller.seek_row(0)                                # scrubbed back: the first framing
    v.show_row(0)
    assert np.allclose(v.view.camera.center[:2], c0, atol=1e-12)


def test_a_pinned_mechanism_never_moves_the_camera(window):
    assert window.open_scene(scene_path("double_pendulum_wall"))
    v = window.view3d
    c0 = tuple(v.view.camera.center)
    run_to(window, 1.0)
    v.show_row()
    assert tuple(v.view.camera.center) == c0
