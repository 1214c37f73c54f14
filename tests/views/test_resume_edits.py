"""Resume from here after any edit (issue 8 §1.4): a contact added or removed while paused is used
from the displayed time on; an edit the run cannot continue with is refused before anything
changes, with the reason in the Messages panel."""

import copy
import json

import numpy as np
import pytest

from nsgui.engine import codes
from tests.runtime.test_branching import BALL_BLOCK, DROP, H, R

from .test_window import run_to

pytestmark = pytest.mark.gui


@pytest.fixture
def window(class_window):
    """One window for the tests below (`class_window`): each opens its scene first."""
    return class_window


def open_drop(window, tmp_path, contacts=()):
    d = copy.deepcopy(DROP)
    d["contacts"] += [copy.deepcopy(c) for c in contacts]
    path = tmp_path / "drop.json"
    path.write_text(json.dumps(d))
    assert window.open_scene(str(path))


def edit(window, text, fn):
    """An undoable edit of the scene, as the editor and the inspector make them."""
    from nsgui.views.editor.commands import edit as push_edit
    push_edit(window.document, text, fn)


def ball_block_gap(rec):
    return rec.column("q.ball.y") - rec.column("q.block.y") - H / 2 - R


def rewind_and_resume(window, t):
    c = window.controller
    c.seek_time(t)
    snap = c.recorder.snapshot_at_or_before(t)
    old = c.recorder.rows()
    old_names = list(c.recorder.names)
    assert window.resume_from_here()
    run_to(window, 1.0)
    return snap, old, old_names


def assert_past_kept(rec, snap, old, old_names):
    k = int(np.searchsorted(old[:, 0], snap.t - 1e-9))
    assert rec.time[k] == pytest.approx(snap.t, abs=1e-12) and rec.t_end == pytest.approx(1.0)
    for j, n in enumerate(old_names):
        if n in rec.names:
            np.testing.assert_array_equal(rec.column(n, 0, k), old[:k, j])


class TestOneWindow:
    """The tests on the shared window."""

    def test_resume_after_adding_a_contact_uses_it_from_the_displayed_time(self, window, tmp_path):
        from nsgui.scene import edits as ops
        open_drop(window, tmp_path)
        c = window.controller
        run_to(window, 0.3)  # the ball falls from 1 m; it reaches the block's top at 0.378 s
        edit(window, "Add contact", lambda s: ops.set_contact_enabled(s, (("ball", "disk"), ("block", "box")), True))
        added = next(x.name for x in window.document.scene.contacts if {x.a.body, x.b.body} == {"ball", "block"})
        snap, old, names = rewind_and_resume(window, 0.2)
        rec = c.recorder
        assert_past_kept(rec, snap, old, names)
        k = rec.row_at_time(snap.t)
        assert np.isnan(rec.column(f"contact.{added}.gap", 0, k)).all()  # the contact did not exist then
        assert (rec.column(f"contact.{added}.status", 0, k) == codes.OPEN).all()
        gap = ball_block_gap(rec)[k:]
        assert gap.min() >= -1e-6, "the ball went into the block"
        assert rec.column(f"contact.{added}.pn", k).max() > 0  # the new contact acted
        assert window.view3d.model is c.model and "ball" in c.model.body_names
        assert c.previous is not None  # the run after 0.2 s is kept as the previous branch
        level, text = window.messages.entries[-1]
        assert level == "info" and f"contact '{added}' added" in text

    def test_resume_after_removing_a_contact_goes_on_without_it(self, window, tmp_path):
        from nsgui.scene import edits as ops
        open_drop(window, tmp_path, [BALL_BLOCK])
        c = window.controller
        run_to(window, 0.3)
        edit(window, "Delete", lambda s: ops.remove_items(s, {("contact", "ball_block")}))
        snap, old, names = rewind_and_resume(window, 0.2)
        rec = c.recorder
        assert "contact.ball_block.pn" not in rec.names
        assert_past_kept(rec, snap, old, names)
        assert ball_block_gap(rec)[rec.row_at_time(snap.t):].min() < -0.1  # nothing stops the ball now

    def test_impossible_edit_is_refused_before_anything_changes(self, window, tmp_path):
        from nsgui.scene import edits as ops
        open_drop(window, tmp_path)
        c = window.controller
        run_to(window, 0.3)
        c.seek_time(0.2)
        before = (c.model, c.recorder, len(c.recorder), c.cursor, c.previous, window.view3d.model)
        # pin the falling ball to the world: a free body becomes a pendulum
        edit(window, "Pin", lambda s: ops.add_joint(s, "revolute", "ball", "world", (0.05, 1.2)))
        assert not window.resume_from_here()
        c.flush()
        assert (c.model, c.recorder, len(c.recorder), c.cursor, c.previous, window.view3d.model) == before
        level, text = window.messages.entries[-1]
        assert level == "error" and "Cannot resume from here" in text and "body 'ball' hangs from free joint" in text
        # the edit is still pending: Reset runs it
        assert window._scene_edited_since_compile()
        assert window.reset_simulation()
        assert "pin_ball" in c.model.coord_names and c.recorder is None  # a fresh run with the pin
