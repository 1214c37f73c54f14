"""Trails of chosen points in the 3D view: the drawn paths are the chosen body-frame points carried by
the recorded motion (checked against x + R(theta) p computed here from the q columns), the dialog
applies on OK only, and the choice follows the scene (kept on reset / resume, dropped for another)."""

import copy
import json

import numpy as np
import pytest

pytestmark = pytest.mark.gui

# a pendulum (revolute joint to the world, pivot away from the body origin) and a body in free flight
# spinning; no obstacles, so nothing but gravity and the joint acts
PENDULUM_SPINNER = {
    "format": "nsgui-scene", "version": 1, "name": "pendulum and spinner",
    "gravity": [0.0, -9.81],
    "bodies": [
        {"name": "bob", "mass": 1.0, "color": "#d65a4c",
         "shapes": [{"type": "box", "width": 0.2, "height": 0.1, "offset": [0.05, 0.0]}]},
        {"name": "spinner", "mass": 0.5, "shapes": [{"type": "box", "width": 0.3, "height": 0.05}]},
    ],
    "joints": [
        {"name": "swing", "type": "revolute", "parent": "world", "child": "bob",
         "anchor_parent": [0.2, 1.0], "anchor_child": [0.0, 0.6]},
        {"name": "spinner", "type": "free", "child": "spinner"},
    ],
    "initial": {"q": {"swing": 0.8, "spinner.x": -1.0, "spinner.y": 1.5},
                "v": {"spinner.x": 0.5, "spinner.y": 1.0, "spinner.theta": 4.0}},
    "settings": {"dt": 0.001},
}

from .scenes import BALL_BOX  # noqa: E402

PIVOT = np.array([0.2, 1.0])
ANCHOR = np.array([0.0, 0.6])


def _write(tmp_path, name, scene):
    path = tmp_path / name
    path.write_text(json.dumps(scene))
    return str(path)


@pytest.fixture
def pendulum_file(tmp_path):
    return _write(tmp_path, "pendulum_spinner.json", PENDULUM_SPINNER)


def run_to(window, t):
    c = window.controller
    c.set_speed(None)
    c.run_until(t)
    assert c.flush(timeout=280), "the run did not finish"  # the first run may compile (numba)


def rot(theta):
    """(k, 2, 2) rotation matrices."""
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def bob_point(rec, rows, p):
    """World path of the body-frame point p of the pendulum: pivot + R(q) (p - anchor)."""
    th = rec.column("q.swing")[rows]
    return PIVOT + rot(th) @ (np.asarray(p, float) - ANCHOR)


def spinner_point(rec, rows, p):
    """World path of the body-frame point p of the free body: (x, y) + R(theta) p."""
    x, y, th = (rec.column(f"q.spinner.{c}")[rows] for c in ("x", "y", "theta"))
    return np.column_stack([x, y]) + rot(th) @ np.asarray(p, float)


def check_sampled_rows(view, rec, row):
    from nsgui.views.view3d import TRAIL_POINTS, TRAIL_SECONDS
    rows = view.trail_rows
    assert 2 <= len(rows) <= TRAIL_POINTS
    assert rows[-1] == row and np.all(np.diff(rows) > 0)
    assert rec.time[rows[0]] >= rec.time[row] - TRAIL_SECONDS - 1e-9
    return rows


def visual_vertices(view):
    """The (x, y) vertices last handed to the trails visual."""
    return np.asarray(view._trails.pos)[:, :2]


def test_trails_of_chosen_points_follow_the_recorded_motion(window, pendulum_file):
    assert window.open_scene(pendulum_file)
    c, view = window.controller, window.view3d
    run_to(window, 0.8)
    rec = c.recorder
    assert c.cursor == len(rec) - 1
    img_off = view.render_image()

    # default: each body's origin
    window.act_trails.trigger()
    assert window.act_trails.isChecked() and view.trails_enabled
    assert not view.trail_points_chosen()
    rows = check_sampled_rows(view, rec, c.cursor)
    assert set(view.trail_paths) == {"bob origin", "spinner origin"}
    np.testing.assert_allclose(view.trail_paths["bob origin"], bob_point(rec, rows, (0, 0)), atol=1e-12)
    np.testing.assert_allclose(view.trail_paths["spinner origin"], spinner_point(rec, rows, (0, 0)),
                               atol=1e-12)
    img_default = view.render_image()
    assert np.abs(img_default.astype(int) - img_off.astype(int)).sum() > 1000  # the trails are drawn

    # chosen points, off the origins
    bob_p, spin_p = (0.12, -0.05), (0.15, 0.02)
    view.set_trail_points([("bob", bob_p), ("spinner", spin_p, "spinner tip"), ("bob", (0.0, 0.0))])
    assert view.trail_points_chosen()
    rows = check_sampled_rows(view, rec, c.cursor)
    labels = ["bob (0.12, -0.05)", "spinner tip", "bob origin"]
    assert list(view.trail_paths) == labels
    expected = [bob_point(rec, rows, bob_p), spinner_point(rec, rows, spin_p), bob_point(rec, rows, (0, 0))]
    for label, exp in zip(labels, expected):
        assert view.trail_paths[label].shape == (len(rows), 2)
        np.testing.assert_allclose(view.trail_paths[label], exp, rtol=1e-12, atol=1e-12)
    # a point off the origin traces another path than the origin (the pendulum swings, the body spins)
    gap = np.linalg.norm(view.trail_paths[labels[0]] - view.trail_paths["bob origin"], axis=1)
    assert gap.min() > 0.1  # |p| = 0.13, rigidly carried
    spin_gap = spinner_point(rec, rows, spin_p) - spinner_point(rec, rows, (0, 0))
    assert np.ptp(spin_gap[:, 0]) > 0.1  # the offset turns with the spin
    # the visual draws exactly these paths, one segment per pair of consecutive samples, own colours
    seg = np.vstack([np.repeat(p, 2, axis=0)[1:-1] for p in expected])
    np.testing.assert_allclose(visual_vertices(view), seg, atol=1e-6)  # float32 in vispy
    assert len({view.trail_colors[lab] for lab in labels}) == 3
    img_chosen = view.render_image()
    assert np.abs(img_chosen.astype(int) - img_default.astype(int)).sum() > 1000

    # scrubbing back: the paths end at the displayed row
    window.slider.setValue(300)
    rows = check_sampled_rows(view, rec, 300)
    assert rows[0] == 0  # less than TRAIL_SECONDS recorded before
    np.testing.assert_allclose(view.trail_paths["spinner tip"], spinner_point(rec, rows, spin_p), atol=1e-12)

    # switching off hides them and keeps the choice
    window.act_trails.trigger()
    assert not view.trails_enabled and view.trail_paths == {} and not view._trails.visible
    assert view.trail_points_chosen()


def test_centre_of_mass_and_joint_anchor_candidates(window, pendulum_file):
    from nsgui.views.trail_dialog import candidate_points
    assert window.open_scene(pendulum_file)
    view = window.view3d
    model = view.model
    cands = {p.label: p for _g, p in sum(candidate_points(model.scene, model.body_names).values(), [])}
    assert (cands["bob centre of mass"].x, cands["bob centre of mass"].y) == pytest.approx((0.05, 0.0))
    assert (cands["bob joint swing anchor"].x, cands["bob joint swing anchor"].y) == (0.0, 0.6)
    assert "spinner centre of mass" in cands and "bob shape box0 vertex 0" in cands
    run_to(window, 0.5)
    rec = window.controller.recorder
    view.set_trail_points([cands["bob centre of mass"], cands["bob joint swing anchor"]])
    view.set_trails(True)
    rows = view.trail_rows
    # the centre of mass, as the engine computes it, and the pivot, which does not move
    qcols = [rec.index("q." + n) for n in model.coord_names]
    com = np.array([model.com_positions(rec.row(int(r))[qcols])[0] for r in rows])
    np.testing.assert_allclose(view.trail_paths["bob centre of mass"], com, atol=1e-12)
    np.testing.assert_allclose(view.trail_paths["bob joint swing anchor"],
                               np.tile(PIVOT, (len(rows), 1)), atol=1e-12)


def test_dialog_ok_adds_a_custom_point_cancel_changes_nothing(window, pendulum_file, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox
    assert window.open_scene(pendulum_file)
    view = window.view3d
    run_to(window, 0.6)
    rec = window.controller.recorder
    menu = [a.text() for a in window.menus["View"].actions()]
    assert menu.index("Trail points…") == menu.index("Trails") + 1

    window.choose_trail_points()
    dlg = window.trail_dialog
    assert dlg.isVisible()
    assert [p.label for p in dlg.points()] == ["bob origin", "spinner origin"]  # the default
    dlg.body_combo.setCurrentText("spinner")
    dlg.x_spin.setValue(0.1)
    dlg.y_spin.setValue(0.2)
    qtbot.mouseClick(dlg.add_button, Qt.LeftButton)
    assert ("spinner", 0.1, 0.2) in [(p.body, p.x, p.y) for p in dlg.points()]
    qtbot.mouseClick(dlg.buttons.button(QDialogButtonBox.Cancel), Qt.LeftButton)
    assert not dlg.isVisible()
    assert not view.trail_points_chosen() and not view.trails_enabled
    assert not window.act_trails.isChecked() and view.trail_paths == {}

    window.choose_trail_points()
    dlg = window.trail_dialog
    assert [p.label for p in dlg.points()] == ["bob origin", "spinner origin"]  # Cancel kept nothing
    dlg.body_combo.setCurrentText("spinner")
    dlg.x_spin.setValue(0.1)
    dlg.y_spin.setValue(0.2)
    qtbot.mouseClick(dlg.add_button, Qt.LeftButton)
    for it in dlg.point_items():  # uncheck the bob's origin
        if it.data(0, Qt.UserRole).label == "bob origin":
            it.setCheckState(0, Qt.Unchecked)
    qtbot.mouseClick(dlg.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)
    assert not dlg.isVisible()
    assert window.act_trails.isChecked() and view.trails_enabled  # OK switches the trails on
    chosen = [(p.body, p.x, p.y) for p in view.trail_points()]
    assert chosen == [("spinner", 0.0, 0.0), ("spinner", 0.1, 0.2)]
    label = view.trail_points()[1].label
    np.testing.assert_allclose(view.trail_paths[label], spinner_point(rec, view.trail_rows, (0.1, 0.2)),
                               atol=1e-12)

    # the dialog shows the current choice, custom point included; "Body origins" restores the default
    window.choose_trail_points()
    dlg = window.trail_dialog
    assert [(p.body, p.x, p.y) for p in dlg.points()] == chosen
    qtbot.mouseClick(dlg.default_button, Qt.LeftButton)
    assert [p.label for p in dlg.points()] == ["bob origin", "spinner origin"]
    dlg.reject()
    assert [(p.body, p.x, p.y) for p in view.trail_points()] == chosen


def test_choice_kept_on_reset_and_resume_dropped_for_another_scene(window, pendulum_file, tmp_path):
    from nsgui.scene import scene_from_dict
    from nsgui.engine import compile_scene
    assert window.open_scene(pendulum_file)
    view = window.view3d
    run_to(window, 0.4)
    view.set_trail_points([("bob", (0.1, 0.0)), ("nobody", (1.0, 1.0)), ("spinner", (0.0, 0.1))])
    view.set_trails(True)
    chosen = [(p.body, p.x, p.y) for p in view.trail_points()]
    assert chosen == [("bob", 0.1, 0.0), ("spinner", 0.0, 0.1)]  # the unknown body is dropped
    assert window.reset_simulation()
    assert [(p.body, p.x, p.y) for p in view.trail_points()] == chosen
    run_to(window, 0.4)
    window.controller.seek_time(0.2)
    assert window.resume_from_here()
    run_to(window, 0.5)
    assert [(p.body, p.x, p.y) for p in view.trail_points()] == chosen
    rec = window.controller.recorder
    np.testing.assert_allclose(view.trail_paths[view.trail_points()[0].label],
                               bob_point(rec, view.trail_rows, (0.1, 0.0)), atol=1e-12)

    # the same scene edited without the spinner: its point goes, the others stay
    edited = copy.deepcopy(PENDULUM_SPINNER)
    edited["bodies"] = edited["bodies"][:1]
    edited["joints"] = edited["joints"][:1]
    edited["initial"] = {"q": {"swing": 0.8}, "v": {}}
    view.set_model(compile_scene(scene_from_dict(edited)))
    assert [(p.body, p.x, p.y) for p in view.trail_points()] == chosen[:1]
    view.set_model(window.controller.model)

    # another scene with other bodies: back to the default
    assert window.open_scene(_write(tmp_path, "ball_block.json", BALL_BOX))
    assert not view.trail_points_chosen()
    assert [p.label for p in view.trail_points()] == ["ball origin", "block origin"]
    run_to(window, 0.3)
    view.show_row()
    assert set(view.trail_paths) == {"ball origin", "block origin"}
