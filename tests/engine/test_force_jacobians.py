"""Analytic force Jacobians of revolute trees (force_jacobians.py) against central differences of the
smooth forces F(q, v) = gravity - bias + joint springs, on random states of the double pendulum and of
a branched tree with a welded body, offset centres of mass, inertias and joint spring-dampers."""
import copy

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.evaluation import evaluate, force_jacobians
from nsgui.engine.force_jacobians import analytic_jacobians_apply, revolute_force_jacobians
from nsgui.scene import scene_from_dict
from tests.helpers import example_dict


def _body(name, mass, inertia, com):
    return {"name": name, "mass": mass, "inertia": inertia, "com": com,
            "shapes": [{"name": "p", "type": "point", "offset": [0.0, 0.0]}]}


def _joint(name, kind, parent, child, ap, ac, angle=0.0):
    return {"name": name, "type": kind, "parent": parent, "child": child, "anchor_parent": ap,
            "anchor_child": ac, "angle": angle}


def _branched_tree():
    d = example_dict("double_pendulum_wall")
    d["bodies"] = [_body("a", 1.3, 0.2, [0.1, -0.4]), _body("b", 0.7, 0.05, [0.05, 0.2]),
                   _body("c", 0.9, 0.1, [-0.2, 0.1]), _body("w", 0.4, 0.02, [0.3, 0.0]),
                   _body("e", 0.6, 0.03, [0.0, -0.25])]
    d["joints"] = [_joint("ja", "revolute", "world", "a", [0.2, 0.1], [0.0, 0.5], 0.3),
                   _joint("jb", "revolute", "a", "b", [0.1, -0.8], [0.0, 0.4], -0.2),
                   _joint("jc", "revolute", "a", "c", [-0.3, -0.5], [0.1, 0.3]),
                   _joint("jw", "fixed", "b", "w", [0.2, -0.3], [-0.1, 0.1], 0.7),
                   _joint("je", "revolute", "w", "e", [0.4, 0.0], [0.0, 0.3], 0.1)]
    d["contacts"] = []
    d["obstacles"] = []
    d["forces"] = [{"name": "sb", "type": "joint_spring", "joint": "jb", "stiffness": 3.0, "damping": 0.4,
                    "rest": 0.2},
                   {"name": "se", "type": "joint_spring", "joint": "je", "stiffness": 0.0, "damping": 1.1}]
    d["initial"] = {"q": {}, "v": {}}
    return scene_from_dict(d)


def _central(sim, m, d, which, eps=1e-6):
    """Central differences of F with respect to q (which = 0) or v (1)."""
    dat = sim._data
    q0, v0 = dat.q.copy(), dat.v.copy()
    n = q0.shape[0]
    D = np.zeros((n, n))
    for j in range(n):
        cols = []
        for sgn in (1.0, -1.0):
            dat.q[:], dat.v[:] = q0, v0
            (dat.q if which == 0 else dat.v)[j] += sgn * eps
            evaluate(m, d, False)
            cols.append(dat.F.copy())
        D[:, j] = (cols[0] - cols[1]) / (2 * eps)
    dat.q[:], dat.v[:] = q0, v0
    evaluate(m, d, False)
    return D


@pytest.mark.parametrize("scene", ["double_pendulum", "branched_tree"])
def test_analytic_force_jacobians_equal_central_differences(scene):
    sc = (scene_from_dict(copy.deepcopy(example_dict("double_pendulum_wall"))) if scene == "double_pendulum"
          else _branched_tree())
    model = compile_scene(sc)
    sim = Simulator(model)
    m, d = sim._args
    dat = sim._data
    assert analytic_jacobians_apply(m)
    rng = np.random.default_rng(7)
    n = model.nq
    for _ in range(10):
        dat.q[:] = rng.uniform(-3.0, 3.0, n)
        dat.v[:] = rng.uniform(-4.0, 4.0, n)
        evaluate(m, d, False)
        revolute_force_jacobians(m, d)
        K, C = dat.K.copy(), dat.C.copy()
        Kfd, Cfd = _central(sim, m, d, 0), _central(sim, m, d, 1)
        scale = max(1.0, np.abs(Kfd).max(), np.abs(Cfd).max())
        np.testing.assert_allclose(K, Kfd, rtol=0, atol=1e-7 * scale)
        np.testing.assert_allclose(C, Cfd, rtol=0, atol=1e-7 * scale)
        assert np.abs(C).max() > 0.1 and np.abs(K).max() > 0.1  # (nothing trivially zero)
        force_jacobians(m, d)  # the finite-difference path the stepper used before, to its accuracy
        np.testing.assert_allclose(K, dat.K, rtol=0, atol=1e-5 * scale)
        np.testing.assert_allclose(C, dat.C, rtol=0, atol=1e-5 * scale)


def test_models_the_analytic_path_does_not_cover_keep_finite_differences():
    d = example_dict("double_pendulum_wall")
    d["forces"] = [{"name": "s", "type": "spring", "a": {"body": "m1", "point": [0.0, 0.0]},
                    "b": {"body": "m2", "point": [0.0, 0.0]}, "stiffness": 5.0}]
    assert not analytic_jacobians_apply(Simulator(compile_scene(scene_from_dict(d)))._args[0])
    d = example_dict("sliding_box")
    assert not analytic_jacobians_apply(Simulator(compile_scene(scene_from_dict(d)))._args[0])
