"""The previous branch (kept after Resume from here, drawn dashed) belongs to its scene and run:
opening another scene, File ▸ New or Reset drop it, so no dashed curve of an old run is drawn under
a matching signal name (issue 8, item 3)."""

import os

import pytest

pytestmark = pytest.mark.gui

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "resources", "scenes")


def dashed_points(window):
    """Number of samples drawn by dashed (previous-branch) curves in every time plot."""
    window.plots.refresh_all()
    n = 0
    for card in window.plots.time_plots():
        for item in card.previous_curves.values():
            x, _y = item.getData()
            n += 0 if x is None else len(x)
    return n


def branch_in_default_scene(window):
    """Default scene, run, scrub back, edit a restitution, Resume from here, run on."""
    assert window.open_scene(os.path.join(SCENES, "default.json"))
    c = window.controller
    c.set_speed(None)
    c.run_until(0.4)
    assert c.flush(timeout=280)
    c.seek_time(0.2)
    i = next(k for k, ct in enumerate(window.document.scene.contacts) if ct.name == "ball_ground")
    window.scene_tree.set_field(("contacts", i), "restitution", 0.2)
    assert window.resume_from_here()
    c.run_until(0.3)
    assert c.flush(timeout=280)  # returns when the rows are in (a new process may load the kernels)
    assert c.previous is not None and dashed_points(window) > 0  # the old branch is drawn dashed
    assert window.act_discard.isEnabled()


class TestOneWindow:
    """One window for the three cases (`class_window`): each opens the default scene first."""

    @pytest.mark.parametrize("how", ["open another scene", "new", "reset"])
    def test_previous_branch_does_not_leak_into_another_run(self, class_window, how):
        window = class_window
        branch_in_default_scene(window)
        c = window.controller
        if how == "open another scene":
            assert window.open_scene(os.path.join(SCENES, "bouncing_ball.json"))
            c.run_until(0.3)
            assert c.flush(timeout=280)  # returns when the rows are in (a new process may load the kernels)
        elif how == "new":
            window.document.new()  # the editor's File ▸ New
        else:
            assert window.reset_simulation()
            c.run_until(0.3)
            assert c.flush(timeout=280)  # returns when the rows are in (a new process may load the kernels)
        assert c.previous is None
        assert dashed_points(window) == 0
        assert not window.act_discard.isEnabled()
