"""The 3D view follows a walker (issue 12 §1: it walks down the slope indefinitely, live in the window):
a fitted front view slides along the ground after the bodies once they have moved more than a share
of the view's width, keeps that slide when the canvas is resized, and slides back when the history is
scrubbed back to the start; a mechanism pinned to the world never slides the camera, which only widens
to keep every link of a crank in sight."""

import numpy as np
import pytest

from nsgui.views.view3d import FOLLOW, FOLLOW_EDGE
from tests.helpers import scene_path

pytestmark = pytest.mark.gui


@pytest.fixture
def window(class_window):
    """One window for the tests below (`class_window`): each opens its example first, which gives
    the 3D view the new model, a fitted camera and no slide."""
    return class_window


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


def _seen_rect(view):
    cam = view.view.camera
    w, h = view.view.size
    half = 0.5 * cam.scale_factor * np.array([w / h, 1.0] if w > h else [1.0, h / w])
    return np.array(cam.center[:2]) - half, np.array(cam.center[:2]) + half


class TestOneWindow:
    """The tests on the shared window."""

    def test_the_view_follows_the_compass_gait_walker_and_comes_back(self, window):
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

    def test_a_sliding_box_as_wide_as_its_first_framing_stays_whole_in_view(self, window):
        """The sliding box (0.4 m wide, its first framing ~0.5 m) slides 0.68 m: at every shown row its
        whole outline is inside the view along the ground, FOLLOW_EDGE of the width kept clear, and the
        camera went with it; scrubbed back, the first framing."""
        from nsgui.views import geometry3d as geo
        assert window.open_scene(scene_path("sliding_box"))
        v = window.view3d
        c0 = np.array(v.view.camera.center[:2])
        run_to(window, 1.0)
        rec = window.controller.recorder
        body, local = v._body_outlines(window.controller.model)
        q = np.column_stack([rec.column("q." + n) for n in v.model.coord_names])
        poses = np.array([v.model.body_poses(qi) for qi in q])
        assert poses[-1, 0, 0] - poses[0, 0, 0] > 0.6                # it slid, further than half its view
        for row in range(0, len(rec), 25):
            v.show_row(row)
            pts = geo.points_along_poses(poses[row:row + 1], body, local)[:, 0]
            off = [screen_offset(v, p) for p in pts]
            assert max(np.abs(off)) <= 0.5 * (1 - FOLLOW_EDGE) + 1e-9, f"the box leaves the view at row {row}"
        assert (np.array(v.view.camera.center[:2]) - c0) @ v._follow_axis > 0.3
        window.controller.seek_row(0)
        v.show_row(0)
        assert np.allclose(v.view.camera.center[:2], c0, atol=1e-12)

    def test_a_pinned_mechanism_never_slides_the_camera(self, window):
        assert window.open_scene(scene_path("double_pendulum_wall"))
        v = window.view3d
        lo0, hi0 = _seen_rect(v)
        run_to(window, 1.0)
        v.show_row()
        lo, hi = _seen_rect(v)  # no slide: at most widened to take in the swing (the crank test below)
        assert v._follow_shift == 0.0 and np.all(lo <= lo0 + 1e-12) and np.all(hi >= hi0 - 1e-12)

    def test_a_crank_that_swings_out_of_its_first_framing_widens_the_view(self, window):
        """The four-bar's crank turns full circle: every link's outline stays inside the view at every
        shown row, the view never narrows again (scrubbing back keeps it), and it is not zoomed out
        beyond the links' sweep (plus the fitted margin)."""
        from nsgui.views import geometry3d as geo
        assert window.open_scene(scene_path("four_bar"))
        v = window.view3d
        first = _seen_rect(v)
        run_to(window, 1.0)
        rec = window.controller.recorder
        body, local = v._outline_points(window.controller.model)
        q = np.column_stack([rec.column("q." + n) for n in v.model.coord_names])
        poses = np.array([v.model.body_poses(qi) for qi in q])
        sweep = geo.points_along_poses(poses, body, local).reshape(-1, 2)
        assert np.any(sweep.min(axis=0) < first[0]) or np.any(sweep.max(axis=0) > first[1])  # it leaves
        spans = []
        for row in range(0, len(rec), 7):
            v.show_row(row)
            lo, hi = _seen_rect(v)
            pts = geo.points_along_poses(poses[row:row + 1], body, local)[:, 0]
            assert np.all(pts >= lo - 1e-9) and np.all(pts <= hi + 1e-9), f"a link is cropped at row {row}"
            spans.append(hi - lo)
        spans = np.array(spans)
        assert np.all(np.diff(spans, axis=0) >= -1e-12)              # never narrows
        v.show_row(0)
        assert np.allclose(_seen_rect(v)[1] - _seen_rect(v)[0], spans[-1])
        assert np.max(spans[-1] / (sweep.max(axis=0) - sweep.min(axis=0))) < 2.0
