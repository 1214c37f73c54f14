"""From an empty scene, build a pendulum that hits a wall with the mouse alone, run it, see the
impact in the data; undo back to empty and redo; save and reload equal."""

import numpy as np
import pytest

from nsgui.scene import load_scene, scene_to_dict
from nsgui.views.document import empty_scene


def build_pendulum(mouse):
    """A bar from the pivot (0, 1) to the left, a ball welded at its end, a wall on the right."""
    mouse.tool("bar")
    mouse.drag((-0.5, 1.0), (0.0, 1.0))
    mouse.tool("pin")
    mouse.click(0.0, 1.0)                 # only the bar is there: pinned to the world
    mouse.tool("disk")
    mouse.drag((-0.5, 1.0), (-0.4, 1.0))  # radius 0.1 m, centred on the bar's end
    mouse.tool("weld")
    mouse.click(-0.5, 1.0)                # ball and bar overlap here: welded together
    mouse.tool("wall")
    mouse.click(0.3, 0.5)                 # a vertical wall facing the pendulum
    mouse.tool("select")


def test_build_pendulum_run_undo_redo_save(window, mouse, tmp_path):
    doc = window.document
    build_pendulum(mouse)
    s = doc.scene
    assert [b.name for b in s.bodies] == ["bar", "ball"]
    types = {j.child: (j.type, j.parent) for j in s.joints}
    assert types == {"bar": ("revolute", "world"), "ball": ("fixed", "bar")}
    pin = next(j for j in s.joints if j.type == "revolute")
    assert np.allclose(pin.anchor_parent, [0.0, 1.0])
    assert np.isclose(s.bodies[1].shapes[0].radius, 0.1)
    wall = s.obstacles[0]
    assert wall.type == "wall" and np.allclose(wall.normal, [-1.0, 0.0]) and np.isclose(wall.point[0], 0.3)
    # contacts made automatically: the ball and the bar can reach the wall, not each other (welded)
    pairs = {(c.a.body, c.b.obstacle) for c in s.contacts}
    assert ("ball", "wall") in pairs and all(c.b.obstacle for c in s.contacts)
    assert doc.problems() == []

    simulate = pytest.importorskip("nsgui.engine.simulate", reason="the engine's simulate() has not landed").simulate
    result = simulate(doc.scene, duration=1.0)
    assert result.summary["failure"] is None
    name = next(c.name for c in s.contacts if c.a.body == "ball")
    pn = result.signals.get(f"contact.{name}.pn")
    assert pn is not None and pn.max() > 0, "the ball must push on the wall"
    assert any(e.kind == "impact" for e in result.events)
    # the pendulum swings counter-clockwise into the wall and bounces back (e_N = 0.5)
    v = result.signals["v.pin_bar"]
    hit = int(np.argmax(pn > 0))
    assert v[hit - 1] > 1.0 and v[hit:hit + 50].min() < -0.3 * v[hit - 1]

    # undo back to the empty scene, then redo everything
    built = scene_to_dict(doc.scene)
    n = doc.undo_stack.count()
    assert n == 5, [doc.undo_stack.text(i) for i in range(n)]
    while doc.undo_stack.canUndo():
        window.editor.undo_action.trigger()
    assert scene_to_dict(doc.scene) == scene_to_dict(empty_scene())
    assert not doc.modified
    while doc.undo_stack.canRedo():
        window.editor.redo_action.trigger()
    assert scene_to_dict(doc.scene) == built
    assert doc.modified and window.isWindowModified()

    # save (atomic) and reload equal; the modified marker clears
    path = tmp_path / "pendulum.json"
    window.editor.ask_save_path = lambda: str(path)
    assert window.editor.save()
    assert not doc.modified and not window.isWindowModified()
    assert scene_to_dict(load_scene(path)) == built
    assert not list(tmp_path.glob(".*.tmp"))


def test_drag_is_one_undo_step_and_keeps_joint_closed(window, mouse):
    doc = window.document
    build_pendulum(mouse)
    n = doc.undo_stack.count()
    # drag the ball down: the pendulum turns about its pin (the joint stays closed)
    mouse.drag((-0.5, 1.0), (0.0, 0.5), steps=8)
    assert doc.undo_stack.count() == n + 1
    from nsgui.scene.geometry import body_poses
    poses = body_poses(doc.scene)
    ball = np.array(poses["ball"][:2])
    assert np.isclose(np.linalg.norm(ball - [0.0, 1.0]), 0.5, atol=1e-9)
    assert ball[1] < 0.6 and abs(ball[0]) < 0.05
    doc.undo_stack.undo()
    assert np.allclose(body_poses(doc.scene)["ball"][:2], [-0.5, 1.0])


def test_free_body_move_rotate_resize(window, mouse):
    doc = window.document
    mouse.tool("box")
    mouse.drag((0.0, 0.5), (0.4, 0.7))
    s = doc.scene
    sh = s.bodies[0].shapes[0]
    assert np.isclose(sh.width, 0.4) and np.isclose(sh.height, 0.2)
    q = s.initial.q
    assert np.isclose(q["block_free.x"], 0.2) and np.isclose(q["block_free.y"], 0.6)
    mouse.tool("select")
    mouse.drag((0.2, 0.6), (0.5, 0.9))
    q = doc.scene.initial.q
    assert np.isclose(q["block_free.x"], 0.5) and np.isclose(q["block_free.y"], 0.9)
    # resize handle at the box's lower right corner
    mouse.drag((0.7, 0.8), (0.8, 0.7))
    sh = doc.scene.bodies[0].shapes[0]
    assert np.isclose(sh.width, 0.6) and np.isclose(sh.height, 0.4)
    # rotate handle on the body's x axis: drag it straight up = 90°
    canvas = window.editor.canvas
    h = next(h for h in canvas.handles() if h.kind == "rotate")
    mouse.drag(tuple(h.world), (0.5, 1.5))
    assert np.isclose(doc.scene.initial.q["block_free.theta"], np.pi / 2)
