"""The controllers in the window with the arm of seed 004 (two_link_tracking.json): the overlays its
type declares in the 3D view (the desired circle from the block's parameters, the desired and actual
end-effector paths from the recorded signals), toggled in the View menu and drawn in rendered
frames; γ₂ changed while paused and Resume from here: the new branch beside the old, in the plots
(controller signals dashed) and in the 3D view (the old paths fainter)."""

import os

import numpy as np
import pytest

from nsgui.views.overlays import circle, overlay_paths, recorder_columns

from .test_window import ROOT

pytestmark = pytest.mark.gui

SCENE = os.path.join(ROOT, "resources", "scenes", "two_link_tracking.json")
SIZE = (800, 600)


def test_overlay_paths_from_parameters_and_a_synthetic_history():
    from nsgui.engine import compile_scene
    from nsgui.runtime.history import Recorder
    from nsgui.scene import load_scene
    model = compile_scene(load_scene(SCENE))
    block = model.scene.controllers[0]
    rec = Recorder(model.signal_names)
    n = 9000  # more rows than a trace draws: it is sampled, the displayed row last
    rows = np.zeros((n, len(model.signal_names)))
    t = np.arange(n) * 1e-3
    for name, values in (("t", t), ("x", np.cos(t)), ("y", np.sin(t)), ("x_d", 2 * np.cos(t)), ("y_d", 2 * np.sin(t))):
        rows[:, rec.index(name if name == "t" else f"controller.{block.name}.{name}")] = values
    rec.append(rows)
    paths = {p.label: p for p in overlay_paths(model, recorder_columns(rec), 7000)}
    assert set(paths) == {f"{block.name}: desired circle", f"{block.name}: desired path",
                          f"{block.name}: end effector path"}
    ring = paths[f"{block.name}: desired circle"].path
    np.testing.assert_allclose(np.hypot(ring[:, 0] - block.centre[0], ring[:, 1] - block.centre[1]), block.radius)
    actual = paths[f"{block.name}: end effector path"].path
    assert len(actual) <= 4001 and tuple(actual[0]) == (1.0, 0.0)
    np.testing.assert_allclose(actual[-1], (np.cos(7.0), np.sin(7.0)))  # ends at the displayed row
    np.testing.assert_allclose(np.hypot(*actual.T), 1.0)
    np.testing.assert_allclose(np.hypot(*paths[f"{block.name}: desired path"].path.T), 2.0)
    # nothing recorded yet: the circle only
    assert [p.label for p in overlay_paths(model, recorder_columns(Recorder(model.signal_names)), None)] == [
        f"{block.name}: desired circle"]
    np.testing.assert_allclose(circle((1.0, 2.0), 0.5, 4)[:, 0], [1.5, 1.0, 0.5, 1.0, 1.5], atol=1e-15)


def _orange_pixels(window):
    img = window.view3d.render_image(SIZE)[:, :, :3].astype(int)
    return int((np.abs(img - (0xff, 0x7f, 0x0e)).sum(axis=2) < 60).sum())


def _run(window, t):
    c = window.controller
    c.set_speed(None)
    c.run_until(t)
    assert c.flush(timeout=280), "the run did not finish"  # the first run may compile (numba)
    window.plots.refresh_all()


def _overlays_action(window):
    return next(a for a in window.menus["View"].actions() if a.text() == "Controller overlays")


class TestOneWindow:
    """The tests on one window (`class_window`; a window of its own costs a set-up and a spawned
    simulation process that loads the kernels again). Each opens the scene first, which replaces the
    document, the run, its previous branch and its history; the one view setting a test changes, the
    overlays' menu choice, the `window` fixture puts back on. The dock test below keeps a window of
    its own: it checks a new window's layout."""

    @pytest.fixture
    def window(self, class_window):
        action = _overlays_action(class_window)
        if not action.isChecked():
            action.trigger()
        assert action.isChecked()
        return class_window

    def test_overlays_in_the_view_toggled_in_the_menu_and_rendered(self, window):
        assert window.open_scene(SCENE)
        _run(window, 0.3)
        v, c = window.view3d, window.controller
        name = window.document.scene.controllers[0].name
        labels = [p.label for p in v.overlay_paths]
        assert labels == [f"{name}: desired circle", f"{name}: desired path", f"{name}: end effector path"]
        actual = v.overlay_paths[2].path
        x = c.column(f"controller.{name}.x")[:c.cursor + 1]
        np.testing.assert_array_equal(actual[:, 0], x)  # every sample of a short run
        assert "desired circle" in v.overlay_legend.text() and v.overlay_legend.isVisible()
        assert _orange_pixels(window) > 50
        action = _overlays_action(window)
        assert action.isChecked()
        action.trigger()
        assert v.overlay_paths == [] and not v._overlays.visible and not v.overlay_legend.isVisible()
        assert _orange_pixels(window) == 0
        action.trigger()
        assert _orange_pixels(window) > 50

    def test_gamma2_changed_while_paused_branches_beside_the_old_run(self, window):
        assert window.open_scene(SCENE)
        _run(window, 3.0)
        c, doc = window.controller, window.document
        name = doc.scene.controllers[0].name
        V = f"controller.{name}.V"
        window.plots.add_time_plot("V", [V])
        old_t = c.column("t").copy()
        old_v, old_x = c.column(V).copy(), c.column(f"controller.{name}.x").copy()
        c.seek_time(2.5)
        t_branch = c.cursor_time
        gamma2 = doc.scene.controllers[0].gamma2
        window.scene_tree.set_field(("controllers", 0), "gamma2", 2 * gamma2)
        assert window.resume_from_here()
        _run(window, 3.0)
        assert c.previous is not None
        t = c.column("t")
        # up to the branch the history is the old one, after it the law uses the new γ₂ (V changes)
        before, after = t <= t_branch + 1e-12, t > t_branch + 1e-9
        k = int(before.sum())
        np.testing.assert_array_equal(c.column(V)[:k], old_v[:k])
        assert np.abs(c.column(V)[after] - np.interp(t[after], old_t, old_v)).max() > 1e-6
        # the plots draw the old branch dashed beside the new, controller signals included
        card = window.plots.plot_named("V")
        x_prev, y_prev = card.previous_curves[V].getData()
        assert x_prev[-1] == pytest.approx(old_t[-1]) and len(y_prev) > 0
        # the 3D view draws the old paths fainter beside the new
        prev = [p for p in window.view3d.overlay_paths if p.previous]
        assert [p.label for p in prev] == [f"{name}: desired path (previous run)", f"{name}: end effector path (previous run)"]
        np.testing.assert_allclose(prev[1].path[-1], (old_x[-1], c.previous.column(f"controller.{name}.y")[-1]))
        new = next(p for p in window.view3d.overlay_paths if p.label == f"{name}: end effector path")
        assert np.abs(new.path[-1] - prev[1].path[-1]).max() > 1e-9  # the branches differ
        # discarding the old branch removes its paths
        c.discard_previous()
        assert not any(p.previous for p in window.view3d.overlay_paths)

    def test_a_block_clicked_in_the_scene_tree_opens_in_the_inspector(self, window):
        assert window.open_scene(SCENE)
        tree = window.scene_tree
        root = tree.tree.topLevelItem(0)
        section = next(root.child(k) for k in range(root.childCount()) if root.child(k).text(0).startswith("Controllers"))
        tree.tree.itemClicked.emit(section.child(0), 0)
        name = window.document.scene.controllers[0].name
        assert window.editor.canvas.selection == [("controller", name)]
        assert window.editor.widget.inspector.title.text() == f"Controller “{name}”"


def test_the_controllers_dock_comes_forward_without_a_stale_tab_bar(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QTabBar
    assert window.open_scene(SCENE)
    _run(window, 0.2)
    qtbot.waitUntil(lambda: not window.docks["Controllers"].visibleRegion().isEmpty(), timeout=5000)
    qtbot.wait(50)
    assert window.readouts.topLevelItemCount() >= 2  # the cycle metrics, the block's signals
    bars = [b for b in window.findChildren(QTabBar, options=Qt.FindDirectChildrenOnly) if b.isVisible()]
    tabs = [{b.tabText(i) for i in range(b.count())} for b in bars]
    assert {"Events", "Messages", "Controllers"} in tabs
    assert not any(a < b for a in tabs for b in tabs)  # no bar of the group as it was before
