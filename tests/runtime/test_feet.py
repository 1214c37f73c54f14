"""A walker's feet, support phase, centre of mass and centre of pressure (runtime/feet.py), checked
against the scene's own forward kinematics and the statics of a standing biped."""

import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.runtime import feet
from nsgui.scene import body_mass_properties
from nsgui.scene.geometry import body_poses, to_world
from tests.helpers import example


def test_feet_of_the_walkers_and_not_of_other_scenes():
    standing = compile_scene(example("biped_standing"))  # heel and toe on each foot
    assert [(f.name, len(f.points)) for f in feet.feet_of(standing)] == [("foot_l", 2), ("foot_r", 2)]
    walking = compile_scene(example("biped"))  # declares its walker: those feet
    assert [f.name for f in feet.feet_of(walking)] == list(walking.scene.walker.feet)
    wheel = compile_scene(example("rimless_wheel"))
    assert [f.name for f in feet.feet_of(wheel)] == [f"foot{k}_ground" for k in range(8)]
    for name in ("default", "bouncing_ball", "newtons_cradle", "sliding_box"):
        assert feet.feet_of(compile_scene(example(name))) == [], name
    compass = compile_scene(example("compass_gait"))
    assert len(feet.feet_of(compass)) == 2


def test_centre_of_mass_matches_the_scene_kinematics():
    scene = example("biped_standing")
    model = compile_scene(scene)
    q = model.q0 + 0.1 * np.sin(np.arange(model.nq))
    poses = body_poses(scene, dict(zip(model.coord_names, q)))  # the editor's forward kinematics
    total, acc = 0.0, np.zeros(2)
    for b in scene.bodies:
        m, _i, com = body_mass_properties(b)
        total += m
        acc += m * to_world(poses[b.name], com)
    assert np.allclose(feet.centre_of_mass(model, q), acc / total, atol=1e-12)


def test_standing_biped_centre_of_pressure_is_under_its_centre_of_mass():
    """At rest the ground's resultant is vertical (no horizontal load) and passes through the centre
    of mass: the CoP lies under it."""
    model = compile_scene(example("biped_standing"))
    sim = Simulator(model)
    rows = sim.run(int(round(2.0 / model.dt)))
    names = sim.signal_names
    row = rows[-1]
    q = row[[names.index(f"q.{c}") for c in model.coord_names]]
    fn = row[[names.index(f"contact.{c}.fn") for c in model.contact_names]]
    com, cop = feet.centre_of_mass(model, q), feet.centre_of_pressure(model, q, fn)
    assert abs(cop[0] - com[0]) < 1e-3
    assert abs(cop[1]) < 1e-3  # on the ground
    members = feet.foot_signal_members(model, set(names))
    cols = dict(zip(names, rows.T))
    support = feet.derived_column(feet.SUPPORT, members[feet.SUPPORT],
                                  lambda n: feet.derived_column(n, members[n], cols.__getitem__))
    assert support[-1] == 2  # double support


def test_support_phase_and_touchdowns():
    left = np.array([0, 5, 5, 0, 0, 0, 5, 5], float)
    right = np.array([0, 0, 3, 3, 3, 0, 0, 0], float)
    assert list(feet.support_phase([left, right])) == [0, 1, 2, 1, 1, 0, 1, 1]
    # row 0 left out; left stands at row 1 and steps at row 6 after 0.3 s in the air; right, in the
    # air at row 1 while left stands, steps when it lands at row 2 (a compass gait's first strike);
    # a 0.01 s rebound is no step (the walker metrics' rule)
    t = np.array([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    assert feet.touchdowns(t, [left, right], len(left)) == 2
    assert feet.touchdowns(t, [left, right], 6) == 1
    assert feet.touchdowns(t, [left, right], 2) == 0
    # wholly in the air at row 1 (dropped): the first landings are no steps
    assert feet.touchdowns(t, [np.r_[0, 0, left[2:]], right], len(left)) == 1
    tb = np.array([0, 0.1, 0.2, 0.21, 0.22, 0.5, 0.6, 0.7])
    bounce = np.array([0, 5, 5, 0, 5, 5, 5, 5], float)
    assert feet.touchdowns(tb, [bounce], len(bounce)) == 0
    model = compile_scene(example("biped_standing"))
    assert feet.centre_of_pressure(model, model.q0, np.zeros(len(model.contact_names))) is None


def test_steps_counted_as_the_history_grows_are_those_of_the_whole_history():
    """The readouts' incremental count (Touchdowns) gives touchdowns() at every row, whatever the
    chunks the history arrives in, and starts over for another history."""
    rng = np.random.default_rng(3)
    n = 3000
    t = np.cumsum(rng.uniform(0.002, 0.03, n))
    # two feet: runs of loaded / unloaded rows of random lengths (some airs under MIN_AIR)
    flags = [np.repeat(rng.integers(0, 2, 1000), rng.integers(1, 15, 1000))[:n] for _ in range(2)]
    cols = [np.where(f > 0, rng.uniform(1, 50, len(f)), 0.0) for f in flags]
    want = [feet.touchdowns(t, cols, stop) for stop in range(n + 1)]
    assert want[-1] > 20  # the sequences do step
    counter = feet.Touchdowns()
    got, end = [], 0
    for size in rng.integers(1, 200, 100).tolist() + [n]:
        end = min(n, end + size)
        for stop in range(len(got), end + 1):
            got.append(counter.count(t[:end], [c[:end] for c in cols], stop, key="run"))
        if end == n:
            break
    assert got == want
    assert counter.count(t[:50], [c[:50] for c in cols], 50, key="another") == want[50]
