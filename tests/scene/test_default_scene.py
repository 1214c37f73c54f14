"""Issue 8 §1.10: in the default scene the ball and the box collide (the ball used to pass through
the box), and the editor's automatic contacts make that contact for these bodies too."""

import numpy as np
import pytest

from nsgui.scene import scene_from_dict, scene_to_dict
from nsgui.engine import simulate
from tests.helpers import example_dict

BALL_R = 0.15
BOX_W, BOX_H = 0.3, 0.2


def ball_box_contacts(scene_dict):
    return [c for c in scene_dict["contacts"]
            if {c["a"].get("body"), c["b"].get("body")} == {"ball", "box"}]


def test_default_scene_has_a_ball_box_contact():
    d = example_dict("default")
    [c] = ball_box_contacts(d)
    assert (c["a"]["shape"], c["b"]["shape"]) in (("disk", "box"), ("box", "disk"))
    assert c["restitution"] > 0  # the ball bounces off the box as off everything else


def test_editor_automatic_contacts_make_the_ball_box_contact():
    """The editor's routine (run when a body is added) finds the pair on the default scene's own
    bodies, and recognises the scene's contact as that pair (no duplicate)."""
    pytest.importorskip("PySide6")
    from nsgui.scene import edits as ops
    from nsgui.scene.reach import pair_key, same_pair
    d = example_dict("default")
    [shipped] = ball_box_contacts(d)
    stripped = dict(d, contacts=[c for c in d["contacts"] if c is not shipped])
    scene = scene_from_dict(stripped)
    added = ops.add_contacts_for(scene, bodies={"ball"})
    made = [c for c in scene.contacts if c.name in added and {c.a.body, c.b.body} == {"ball", "box"}]
    assert len(made) == 1
    full = scene_from_dict(d)
    key = pair_key(next(c for c in full.contacts if c.name == shipped["name"]))
    assert same_pair(pair_key(made[0]), key) or same_pair(key, pair_key(made[0]))
    ops.add_contacts_for(full, bodies={"ball", "box"})
    assert len([c for c in full.contacts if {c.a.body, c.b.body} == {"ball", "box"}]) == 1


def ball_to_box_gap(S):
    """Distance from the ball's surface to the box (an oriented rectangle), computed here from the
    coordinates alone: negative when the ball is inside the box."""
    bx, by, th = S["q.box.x"], S["q.box.y"], S["q.box.theta"]
    dx, dy = S["q.ball.x"] - bx, S["q.ball.y"] - by
    lx, ly = np.cos(th) * dx + np.sin(th) * dy, -np.sin(th) * dx + np.cos(th) * dy
    ox, oy = np.abs(lx) - BOX_W / 2, np.abs(ly) - BOX_H / 2
    outside = np.hypot(np.maximum(ox, 0), np.maximum(oy, 0)) + np.minimum(np.maximum(ox, oy), 0)
    return outside - BALL_R


def drop_ball_on_box(scene_dict):
    """The default scene with the ball released at rest 0.6 m above the box on the slope."""
    d = scene_to_dict(scene_from_dict(scene_dict))
    q = d["initial"]["q"]
    q["ball.x"], q["ball.y"] = q["box.x"], q["box.y"] + 0.75
    d["initial"]["v"] = {}
    return scene_from_dict(d)


def test_ball_does_not_pass_through_the_box():
    d = example_dict("default")
    S = simulate(drop_ball_on_box(d), duration=2.0).signals
    gap = ball_to_box_gap(S)
    assert gap.min() >= -1e-6, f"the ball went {-gap.min():.3f} m into the box"
    name = ball_box_contacts(d)[0]["name"]
    assert S[f"contact.{name}.pn"].max() > 0  # they did meet: the box pushed the ball
    # the ball bounced off the box: it went up again after touching it
    hit = int(np.argmax(gap < 1e-6))
    assert S["v.ball.y"][hit + 1:].max() > 1.0
    # without the contact the same drop goes through the box (what the scene used to do)
    bare = dict(d, contacts=[c for c in d["contacts"] if c not in ball_box_contacts(d)])
    assert ball_to_box_gap(simulate(drop_ball_on_box(bare), duration=2.0).signals).min() < -0.1
