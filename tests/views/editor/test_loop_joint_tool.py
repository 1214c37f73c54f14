"""The pin tool on two bodies that both hang from the tree already closes a loop: a loop joint (issue 11
§2), selected and shown in the inspector, and the linkage runs with the loop closed."""

import numpy as np

from nsgui.engine.simulate import simulate


def build_four_bar(mouse):
    """Two vertical links pinned to the world at (0, 1) and (0.6, 1), a horizontal coupler pinned to the
    left link's lower end; the last pin, where the coupler meets the right link, closes the loop."""
    mouse.tool("bar")
    mouse.drag((0.0, 1.0), (0.0, 0.6))
    mouse.tool("pin")
    mouse.click(0.0, 1.0)
    mouse.tool("bar")
    mouse.drag((0.6, 1.0), (0.6, 0.6))
    mouse.tool("pin")
    mouse.click(0.6, 1.0)
    mouse.tool("bar")
    mouse.drag((0.0, 0.6), (0.6, 0.6))
    mouse.tool("pin")
    mouse.click(0.0, 0.6)
    mouse.click(0.6, 0.6)


def test_pin_on_two_attached_bodies_makes_a_loop_joint(window, mouse, qtbot):
    doc = window.document
    build_four_bar(mouse)
    s = doc.scene
    assert len(s.joints) == 3 and len(s.loops) == 1, (s.joints, s.loops)
    lj = s.loops[0]
    names = [b.name for b in s.bodies]
    assert lj.type == "revolute" and {lj.a.body, lj.b.body} == {names[1], names[2]}
    assert window.editor.canvas.selection == [("loop", lj.name)]
    inspector = window.editor.widget.inspector
    qtbot.waitUntil(lambda: lj.name in inspector.title.text())
    assert inspector.title.text().startswith("Loop")
    assert doc.problems() == []
    # give the left link a kick: the parallelogram swings with its loop closed
    s.initial.v[s.joints[0].name] = 2.0
    r = simulate(s, duration=0.5)
    assert r.summary["failure"] is None
    assert np.max(r[f"loop.{lj.name}.error"]) < 1e-10
    assert np.max(np.abs(r[f"v.{s.joints[0].name}"])) > 0.5
    # undo removes the loop joint, redo brings it back
    window.editor.undo_action.trigger()
    assert doc.scene.loops == []
    window.editor.redo_action.trigger()
    assert len(doc.scene.loops) == 1
