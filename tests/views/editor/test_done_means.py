"""The issue's "done means": with the mouse alone, build a double pendulum against a wall and a
block sliding down a slope, run both and save them."""

import pytest

from nsgui.scene import load_scene, scene_to_dict


def test_double_pendulum_against_a_wall(window, mouse, tmp_path):
    doc = window.document
    mouse.tool("bar")
    mouse.drag((-0.4, 1.2), (0.0, 1.2))      # upper bar, pivot end at (0, 1.2)
    mouse.tool("pin")
    mouse.click(0.0, 1.2)
    mouse.tool("bar")
    mouse.drag((-0.8, 1.2), (-0.4, 1.2))     # lower bar, from its far end to the elbow (snaps to it)
    mouse.tool("pin")
    mouse.click(-0.4, 1.2)                   # both bars there: the elbow
    mouse.tool("wall")
    mouse.click(0.5, 0.6)
    s = doc.scene
    assert {(j.type, j.parent, j.child) for j in s.joints} == {("revolute", "world", "bar"),
                                                               ("revolute", "bar", "bar2")}
    assert doc.problems() == []
    assert any(c.a.body == "bar2" and c.b.obstacle == "wall" for c in s.contacts)
    simulate = pytest.importorskip("nsgui.engine.simulate").simulate
    r = simulate(doc.scene, duration=1.5)
    assert r.summary["failure"] is None
    assert r.summary["impacts"] >= 1 and r.summary["max_penetration"] < 1e-3
    path = tmp_path / "double.json"
    window.editor.ask_save_path = lambda: str(path)
    assert window.editor.save_as()
    assert scene_to_dict(load_scene(path)) == scene_to_dict(doc.scene)


def test_block_sliding_down_a_slope(window, mouse, tmp_path):
    doc = window.document
    mouse.tool("ground")
    mouse.drag((0.0, 0.0), (1.0, 0.5))       # slope of atan(1/2) = 26.6°
    mouse.tool("box")
    mouse.click(0.6, 0.6)                    # a 0.2 x 0.1 m block just above the slope
    s = doc.scene
    c = s.contacts[0]
    assert (c.a.body, c.b.obstacle) == ("block", "ground") and c.friction < 0.5
    assert doc.problems() == []
    simulate = pytest.importorskip("nsgui.engine.simulate").simulate
    r = simulate(doc.scene, duration=1.5)
    assert r.summary["failure"] is None
    x = r.signals["q.block_free.x"]
    y = r.signals["q.block_free.y"]
    assert x[-1] < x[0] - 0.2 and y[-1] < y[0] - 0.1    # it slid down, to the lower left
    assert r.summary["max_penetration"] < 1e-3
    path = tmp_path / "slope.json"
    window.editor.ask_save_path = lambda: str(path)
    assert window.editor.save()                          # no path yet: Save asks for one
    assert scene_to_dict(load_scene(path)) == scene_to_dict(doc.scene)
