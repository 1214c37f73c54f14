"""Carrying a run over to an edited scene (Resume from here after any edit, issue 8 §1.4):
the state by body, coordinate, contact and actuator names, the history by signal names."""

import copy

import numpy as np
import pytest

from nsgui.scene import scene_from_dict
from nsgui.engine import Simulator, compile_scene
from nsgui.engine.branching import StateMapError, describe_carry_over, map_state
from nsgui.runtime.branching import branch_history
from nsgui.runtime.history import Recorder

R, W, H = 0.1, 0.4, 0.2  # ball radius, block size

DROP = {
    "format": "nsgui-scene", "version": 1, "name": "ball over a block",
    "bodies": [
        {"name": "ball", "mass": 1.0, "shapes": [{"name": "disk", "type": "disk", "radius": R}]},
        {"name": "block", "mass": 2.0, "shapes": [{"name": "box", "type": "box", "width": W, "height": H}]},
    ],
    "joints": [{"name": "ball", "type": "free", "child": "ball"},
               {"name": "block", "type": "free", "child": "block"}],
    "obstacles": [{"name": "ground", "type": "ground"}],
    "contacts": [
        {"name": "block_ground", "a": {"body": "block", "shape": "box"}, "b": {"obstacle": "ground"},
         "friction": 0.5},
        {"name": "ball_ground", "a": {"body": "ball", "shape": "disk"}, "b": {"obstacle": "ground"}},
    ],
    "initial": {"q": {"ball.x": 0.05, "ball.y": 1.0, "block.y": H / 2}},
    "settings": {"dt": 0.001},
}
BALL_BLOCK = {"name": "ball_block", "a": {"body": "ball", "shape": "disk"}, "b": {"body": "block", "shape": "box"},
              "restitution": 0.5}


def scene(**changes):
    d = copy.deepcopy(DROP)
    d.update(copy.deepcopy(changes))
    return scene_from_dict(d)


def with_contacts(*extra):
    return scene(contacts=DROP["contacts"] + list(extra))


def run(model, steps, state=None):
    sim = Simulator(model)
    if state is not None:
        sim.set_state(state)
    rows = sim.run(steps)
    return sim, rows


def col(model, rows, name):
    return rows[:, model.signal_names.index(name)]


def ball_block_gap(model, rows):
    """Ball surface to block top, from the coordinates (the block stays flat on the ground)."""
    return col(model, rows, "q.ball.y") - col(model, rows, "q.block.y") - H / 2 - R


def test_an_unchanged_layout_maps_to_the_same_state():
    a = compile_scene(with_contacts(BALL_BLOCK))
    edited = with_contacts(dict(BALL_BLOCK, restitution=0.1))
    b = compile_scene(edited)
    sim, _ = run(a, 300)
    s = sim.get_state()
    m = map_state(s, a, b)
    for f in ("q", "v", "energy", "lamN", "lamT", "status", "u", "ctrl", "stats"):
        np.testing.assert_array_equal(getattr(m, f), getattr(s, f))
    assert (m.t, m.step_count) == (s.t, s.step_count)


def test_added_contact_acts_from_the_resume_time():
    """Without a ball–block contact the ball falls through the block; added at t = 0.2 s (the ball
    still 0.5 m above), it starts open and the ball bounces off the block."""
    bare = compile_scene(scene())
    sim, before = run(bare, 200)
    snap = sim.get_state()
    _, through = run(bare, 800, snap)
    assert ball_block_gap(bare, through).min() < -0.1  # the edit matters
    edited = compile_scene(with_contacts(BALL_BLOCK))
    state = map_state(snap, bare, edited)
    assert state.t == snap.t and state.lamN[edited.contact_names.index("ball_block")] == 0.0
    np.testing.assert_array_equal(state.q, snap.q)  # same bodies, same coordinates
    np.testing.assert_array_equal(state.v, snap.v)
    _, after = run(edited, 800, state)
    assert col(edited, after, "t")[0] == pytest.approx(snap.t + 0.001, abs=1e-12)  # goes on from t
    gap = ball_block_gap(edited, after)
    assert gap.min() >= -1e-6
    assert col(edited, after, "contact.ball_block.pn").max() > 0
    assert col(edited, after, "v.ball.y")[int(np.argmax(gap < 1e-6)) + 1:].max() > 1.0  # bounced up


def test_removed_contact_is_dropped_and_the_rest_goes_on():
    full = compile_scene(with_contacts(BALL_BLOCK))
    sim, _ = run(full, 200)
    snap = sim.get_state()
    bare = compile_scene(scene())
    state = map_state(snap, full, bare)
    assert len(state.lamN) == bare.ncontacts == full.ncontacts - 1
    np.testing.assert_array_equal(state.q, snap.q)
    _, after = run(bare, 800, state)
    assert ball_block_gap(bare, after).min() < -0.1  # nothing stops the ball at the block any more
    assert col(bare, after, "q.block.y") == pytest.approx(H / 2, abs=1e-6)  # the block still rests


def test_added_body_starts_from_its_initial_state_and_the_energy_balance_goes_on():
    bare = compile_scene(scene())
    sim, rows = run(bare, 200)
    snap = sim.get_state()
    d = copy.deepcopy(DROP)
    d["bodies"].append({"name": "puck", "mass": 0.5, "shapes": [{"name": "disk", "type": "disk", "radius": 0.05}]})
    d["joints"].append({"name": "puck", "type": "free", "child": "puck"})
    d["initial"]["q"].update({"puck.x": 1.0, "puck.y": 0.5})
    d["initial"]["v"] = {"puck.x": -1.0}
    grown = compile_scene(scene_from_dict(d))
    state = map_state(snap, bare, grown)
    q = dict(zip(grown.coord_names, state.q))
    v = dict(zip(grown.coord_names, state.v))
    assert (q["puck.x"], q["puck.y"], v["puck.x"]) == (1.0, 0.5, -1.0)
    for c in bare.coord_names:
        assert q[c] == snap.q[bare.coord_names.index(c)]
    assert describe_carry_over(bare, grown) == "body 'puck' added (from its initial state)"
    res0 = col(bare, rows, "energy.residual")[-1]
    _, after = run(grown, 100, state)
    # the puck's own energy (0.5 * 0.5 * 1^2 + 0.5 * 9.81 * 0.5) is the edit's, not numerical drift
    assert col(grown, after, "energy.residual")[0] == pytest.approx(res0, abs=1e-9)


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["joints"][0].update(type="prismatic", axis=[0.0, 1.0]),
     "body 'ball' hangs from free joint 'ball' (on world) in the run but from prismatic joint 'ball'"),
    (lambda d: d["joints"][0].update(type="revolute", parent="block"), "but from revolute joint 'ball' (on block)"),
    (lambda d: d.update(bodies=[dict(b, name=b["name"] + "_new") for b in d["bodies"]],
                        joints=[dict(j, name=j["name"] + "_new", child=j["child"] + "_new") for j in d["joints"]],
                        contacts=[], initial={}), "no body of the current run"),
])
def test_impossible_carry_over_is_refused_with_the_reason(edit, words):
    a = compile_scene(scene())
    sim, _ = run(a, 50)
    d = copy.deepcopy(DROP)
    edit(d)
    d["initial"] = {}  # the old coordinate names may be gone
    b = compile_scene(scene_from_dict(d))
    with pytest.raises(StateMapError) as err:
        map_state(sim.get_state(), a, b)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_renamed_joint_keeps_its_body_moving():
    a = compile_scene(scene())
    sim, _ = run(a, 300)
    d = copy.deepcopy(DROP)
    d["joints"][0]["name"] = "ball_free"
    d["initial"]["q"] = {"ball_free.x": 0.05, "ball_free.y": 1.0, "block.y": H / 2}
    b = compile_scene(scene_from_dict(d))
    s = sim.get_state()
    m = map_state(s, a, b)
    np.testing.assert_array_equal(m.q, s.q)
    np.testing.assert_array_equal(m.v, s.v)


def test_branch_history_matches_columns_by_name():
    full = compile_scene(with_contacts(BALL_BLOCK))
    bare = compile_scene(scene())
    sim = Simulator(bare)
    rec = Recorder(bare.signal_names, chunk_rows=64, snapshot_interval=0.01)
    rec.append(sim.signal_vector())
    rec.force_snapshot(0.0, 0, sim.get_state())
    for i in range(1, 201):
        rec.append(sim.step())
        rec.add_snapshot(sim.t, i, sim.get_state())
    branch = branch_history(rec, 0.1, bare, full)
    assert branch.names == full.signal_names
    assert len(branch) == rec.row_at_time(0.1) + 1
    for n in bare.signal_names:
        np.testing.assert_array_equal(branch.column(n), rec.column(n, 0, len(branch)))
    assert np.isnan(branch.column("contact.ball_block.gap")).all()
    assert (branch.column("contact.ball_block.pn") == 0).all()  # an added contact was open before
    assert branch.snapshots[-1].t <= 0.1 + 1e-12 and len(branch.snapshots) == 11
    same = branch_history(rec, 0.1, bare, bare)  # same columns: a plain truncated copy
    np.testing.assert_array_equal(same.rows(), rec.rows(0, len(branch)))
    # a renamed joint continues its columns; a new body stood at its initial place
    d = copy.deepcopy(DROP)
    d["joints"][0]["name"] = "ball_free"
    d["bodies"].append({"name": "puck", "mass": 0.5, "shapes": [{"name": "disk", "type": "disk", "radius": 0.05}]})
    d["joints"].append({"name": "puck", "type": "free", "child": "puck"})
    d["initial"] = {"q": {"puck.x": 1.0, "puck.y": 0.5}, "v": {"puck.x": -1.0}}
    grown = compile_scene(scene_from_dict(d))
    branch = branch_history(rec, 0.1, bare, grown)
    np.testing.assert_array_equal(branch.column("q.ball_free.y"), rec.column("q.ball.y", 0, len(branch)))
    np.testing.assert_array_equal(branch.column("v.ball_free.y"), rec.column("v.ball.y", 0, len(branch)))
    assert (branch.column("q.puck.x") == 1.0).all() and (branch.column("v.puck.x") == 0.0).all()
