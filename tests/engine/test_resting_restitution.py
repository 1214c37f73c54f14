"""With the position projection, a separating contact gets e = 1 (stepper._restitution) - but not a
contact loaded in the last step that separates no faster than the solver's tolerance: that is the last
solve's error rather than a motion. (An unloaded one keeps e = 1 from any separation: the slider crank's
unloaded corner on its stop then chattered between open and slip, test_loop_joints.py.)

At rest the normal velocities a solve leaves are ±1e-11 m/s; with e = 1 on the positive ones the warm
start's error grew by that U- and e switched between 0 and 1 from step to step: the 15-box pyramid's
NSGS took a sweep at 4 steps in 5 (55 boxes: 97 %, 1.3 sweeps a step), about 2 in 5 (55 boxes 2 in 3,
one sweep) with round-off treated as rest."""
import os

import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import ST_MAXITER
from nsgui.engine.stepper import _restitution
from nsgui.scene import load_scene
from tests.helpers import SCENES

TOL, REST_V = 1e-10, 0.03


def test_the_rule_of_each_normal_velocity_before_the_step():
    e = 0.6
    for u in (-1.0, -1e-3, -1e-12, 0.0, 1e-12, 1e-3, 1.0):
        assert _restitution(e, u, 0, REST_V, TOL) == e  # standard scheme: e whatever U-
    assert _restitution(e, -0.5, 1, REST_V, TOL) == e  # an impact
    for u in (-0.029, -1e-9, 0.0, 1e-14, 0.5e-10, TOL):  # a slow approach, rest, or the solve's error: plastic
        assert _restitution(e, u, 1, REST_V, TOL) == 0.0, u
    for u in (1.01e-10, 1e-9, 1e-3, 2.0):  # a separation: e = 1, the percussion does no work
        assert _restitution(e, u, 1, REST_V, TOL) == 1.0, u
    for u in (1e-14, 0.5e-10, 1e-3):  # an unloaded contact (the caller's rest_tol 0): any separation
        assert _restitution(e, u, 1, REST_V, 0.0) == 1.0, u
    assert _restitution(e, 0.0, 1, REST_V, 0.0) == 0.0


def test_a_resting_pyramid_is_solved_at_its_warm_start_on_most_steps():
    scene = load_scene(os.path.join(SCENES, "box_pyramid.json"))
    assert scene.settings.projection and scene.settings.tolerance == TOL
    model = compile_scene(scene)
    sim = Simulator(model)
    sim.run(1000, signals=["t"])  # at rest from t ~ 0.2 s
    d = sim._data
    ground = [f"contact.{n}.pn" for n in model.contact_names if n.split("[")[0].endswith("_ground")]
    gaps = [f"contact.{n}.gap" for n in model.contact_names]
    q0 = d.q.copy()
    swept, rows = 0, []
    for _ in range(500):
        d.stats[ST_MAXITER] = 0
        rows.append(sim.run(1, signals=ground + gaps)[0])
        swept += d.stats[ST_MAXITER] > 0
    assert swept <= 250, swept  # 400 of 500 when round-off separations got e = 1
    # and the rest is the same rest: the ground carries the whole weight at every step (to the solver's
    # tolerance), nothing moves or creeps, no overlap grows
    rows = np.array(rows)
    weight = sum(b.mass for b in scene.bodies) * 9.81
    np.testing.assert_allclose(rows[:, :len(ground)].sum(axis=1) / model.dt, weight, rtol=1e-8)
    assert rows[:, len(ground):].min() > -1e-9
    assert np.abs(d.v).max() < 1e-8
    assert np.abs(d.q - q0).max() < 1e-10
