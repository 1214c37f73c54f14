"""The window on a walker (issue 12 §3) and the mouse perturbation (§4): per-foot force plots, support
bands, centre of mass and of pressure in the 3D view, walker readouts, and Ctrl+drag pulling a body
while the run goes, recorded as perturb.*."""

import os

import numpy as np
import pytest

from .test_view3d_input import shown_window

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIPED = os.path.join(ROOT, "resources", "scenes", "biped_standing.json")

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, gl):
    yield from shown_window(qtbot, BIPED)


def _run_to(window, qtbot, t):
    c = window.controller
    c.run_until(t)
    qtbot.waitUntil(lambda: c.recorder is not None and len(c.recorder) and c.recorder.t_end >= t - 1e-9
                    and not c.running, timeout=120000)


def test_walker_plots_bands_marks_and_readouts(window, qtbot):
    from nsgui.runtime import feet
    c = window.controller
    _run_to(window, qtbot, 0.5)
    cards = {card.title: card for card in window.plots.cards}
    fn = cards["Foot normal forces"]
    assert set(fn.signals) == {"foot.foot_l.fn", "foot.foot_r.fn"}
    assert "Foot tangential forces" in cards
    # the feet's forces are the sums of their contacts' (heel and toe) and carry the weight
    left = c.column("contact.heel_l.fn") + c.column("contact.toe_l.fn")
    assert np.array_equal(c.column("foot.foot_l.fn"), left)
    total = c.column("foot.foot_l.fn") + c.column("foot.foot_r.fn")
    weight = sum(b.mass for b in c.model.scene.bodies) * 9.81
    assert total[-1] == pytest.approx(weight, rel=1e-3)
    # support bands behind the plots: double support once standing
    fn.refresh()
    assert fn.bands.name == feet.SUPPORT
    assert fn.bands.regions()[-1][2] == 2
    # centre of mass and of pressure drawn at the displayed row
    view = window.view3d
    view.show_row()
    q = view.displayed_q()
    assert np.allclose(view.marks.com_point, feet.centre_of_mass(c.model, q))
    assert view.marks.cop_point is not None and abs(view.marks.cop_point[1]) < 1e-3
    # standing in place: View ▸ Follow the mechanism (on by default) leaves the fitted camera where
    # it is, with the centre of mass in the middle part of the view (the slide: test_follow_camera)
    cam = view.view.camera
    assert view.act_follow.isChecked() and view._follow_shift == 0.0
    assert abs(view.marks.com_point[0] - cam.center[0]) < 0.5 * cam.scale_factor
    # readouts
    window.readouts.refresh()
    items = window.readouts.walker_items
    assert items["support"].text(1) == "double support"
    assert items["steps"].text(1) == "0"


def _canvas_to_widget(view, w):
    """Widget pixel of a world point (front view), the inverse of the drag's mapping."""
    tr = view.canvas.scene.node_transform(view.view.scene)
    p = tr.imap([w[0], w[1], 0.0, 1.0])
    r = view.display.devicePixelRatioF() * getattr(view.display, "_scale_used", 1.0)
    return (p[0] / p[3] / r, p[1] / p[3] / r)


def test_ctrl_drag_pulls_the_torso_and_is_recorded(window, qtbot):
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication
    view, c = window.view3d, window.controller
    if view.backend != "egl":
        pytest.skip(f"3D view drawn by {view.backend}, not offscreen")
    _run_to(window, qtbot, 0.2)
    view.display.render_now()
    trunk = c.model.body_names.index("torso")
    pose = np.asarray(c.model.body_poses(view.displayed_q()))[trunk]
    grab = pose[:2] + np.array([0.0, 0.3])  # on the torso's capsule, above the hip
    start = _canvas_to_widget(view, grab)
    end = _canvas_to_widget(view, grab + np.array([0.6, 0.0]))

    def send(kind, pos, button, buttons):
        p = QPointF(*pos)
        ev = QMouseEvent(kind, p, QPointF(view.display.mapToGlobal(p.toPoint())), button, buttons,
                         Qt.ControlModifier)
        QApplication.sendEvent(view.display, ev)

    send(QEvent.MouseButtonPress, start, Qt.LeftButton, Qt.LeftButton)
    assert view.drag.active is not None and view.drag.active[0] == trunk
    from nsgui.scene.geometry import to_body
    assert np.allclose(view.drag.active[1], to_body(pose, grab), atol=0.02)  # the grabbed point, torso frame
    send(QEvent.MouseMove, end, Qt.NoButton, Qt.LeftButton)
    assert view.drag.active[2][0] == pytest.approx(grab[0] + 0.6, abs=0.02)
    assert view.marks.spring_segment is not None  # the spring line is drawn while dragging
    n0 = len(c.recorder)
    _run_to(window, qtbot, 0.5)
    body = c.column("perturb.body")[n0:]
    fx = c.column("perturb.fx")[n0:]
    assert (body == trunk).all() and (fx[:50] > 0).all()  # pulled to the right, recorded
    assert np.allclose(c.column("perturb.target_x")[n0:], grab[0] + 0.6, atol=0.02)
    send(QEvent.MouseButtonRelease, end, Qt.LeftButton, Qt.NoButton)
    assert view.drag.active is None
    n1 = len(c.recorder)
    _run_to(window, qtbot, 0.6)
    assert (c.column("perturb.body")[n1 + 1:] == -1).all()
    # scrubbing back into the drag shows the recorded spring
    c.seek_row(n0 + 10)
    assert view.marks.spring_segment is not None
    assert view.marks.spring_segment[1][0] == pytest.approx(grab[0] + 0.6, abs=0.02)
