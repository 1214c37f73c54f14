"""The thesis manipulator law (1.1) on resources/scenes/manipulator_on_surface.json: a 2-DOF arm presses
its tip on the surface y = -0.3 m. The desired force is computed here from the arm's closed-form
kinematics (control.md (C8.3)), not from the engine: r_d = λ_d ∇φ(q_d), ∇φ = (l1 c1 + l2 c12, l2 c12)."""

import json
from pathlib import Path

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.scene import SceneError, scene_from_dict

SCENE = Path(__file__).resolve().parents[2] / "resources" / "scenes" / "manipulator_on_surface.json"
L1, L2, SURFACE = 0.6, 0.5, -0.3
LAMBDA_D = 20.0
W = np.array([150.0, 80.0])
T = np.array([15.0, 8.0])


def _scene_dict():
    return json.loads(SCENE.read_text())


def _q_d(d):
    return np.array([tr["value"] for tr in d["controllers"][0]["targets"]])


def _tip_y(q):
    return L1 * np.sin(q[0]) + L2 * np.sin(q[0] + q[1])


def _grad_gap(q):
    c1, c12 = np.cos(q[0]), np.cos(q[0] + q[1])
    return np.array([L1 * c1 + L2 * c12, L2 * c12])


def _run(d, steps):
    m = compile_scene(scene_from_dict(d))
    rows = Simulator(m).run(steps)
    return m, rows, (lambda name: rows[:, m.signal_names.index(name)])


def test_scene_parameters_put_q_d_on_the_surface():
    d = _scene_dict()
    block = d["controllers"][0]
    assert block["W"] == W.tolist() and block["T"] == T.tolist() and block["force"] == LAMBDA_D
    assert _tip_y(_q_d(d)) == pytest.approx(SURFACE, abs=1e-12)


def test_contact_force_converges_to_the_desired_one_and_the_state_to_q_d():
    d = _scene_dict()
    q_d = _q_d(d)
    m, rows, col = _run(d, 4000)
    fn = col("contact.tip_surface.fn")
    assert fn[:100].max() == 0.0                      # it starts in the air
    assert (col("contact.tip_surface.status") == 3).sum() >= 1   # and lands with an impact
    settled = slice(3000, None)
    np.testing.assert_allclose(fn[settled], LAMBDA_D, rtol=1e-5)
    q = np.c_[col("q.shoulder"), col("q.elbow")]
    v = np.c_[col("v.shoulder"), col("v.elbow")]
    np.testing.assert_allclose(q[settled], np.broadcast_to(q_d, q[settled].shape), atol=1e-6)
    assert np.abs(v[settled]).max() < 1e-9
    # the signals: λ_d, the gap at q_d (0: consistent) and P at the sampled state (the previous row)
    assert np.all(col("controller.law11.desired_force") == LAMBDA_D)
    assert np.abs(col("controller.law11.desired_gap")).max() < 1e-12
    e = q[:-1] - q_d
    P = 0.5 * (e * e) @ W + e @ (LAMBDA_D * _grad_gap(q_d))
    np.testing.assert_allclose(col("controller.law11.potential")[1:], P, atol=1e-12)
    np.testing.assert_allclose(col("controller.law11.error.elbow_motor")[1:], q_d[1] - q[:-1, 1], atol=1e-15)


def test_kinetic_plus_shaped_potential_decreases_by_the_damping_work():
    """dK + dP ≤ −q̇ᵀ T q̇ dt (control.md §2.2, errata 000-9), step by step with v_θ = (v_k + v_k+1)/2:
    exact for the spring–damper part with θ = ½ (W, T in Ŵ), impacts only dissipate (e = 0.5); what
    remains is the O(h²) error of the explicit gravity compensation, measured at 1e-5 J per step.
    Projection is off here: it moves positions without a force, outside this balance."""
    d = _scene_dict()
    d["settings"]["projection"] = False
    q_d = _q_d(d)
    m, rows, col = _run(d, 3000)
    q0 = [d["initial"]["q"]["shoulder"], d["initial"]["q"]["elbow"]]
    q = np.r_[[q0], np.c_[col("q.shoulder"), col("q.elbow")]]
    v = np.r_[[[0.0, 0.0]], np.c_[col("v.shoulder"), col("v.elbow")]]
    e = q - q_d
    P = 0.5 * (e * e) @ W + e @ (LAMBDA_D * _grad_gap(q_d))
    K = np.r_[0.0, col("energy.kinetic")]
    vth = 0.5 * (v[1:] + v[:-1])
    damping = 1e-3 * (vth * vth) @ T
    excess = np.diff(K + P) + damping
    assert excess.max() < 5e-5
    impacts = col("contact.tip_surface.status") == 3
    assert excess[impacts].min() < -1e-3       # the impacts dissipate
    assert (K + P)[-1] - (K + P)[0] < -damping.sum() + 1e-3


def _pd_equivalent(d, sign):
    """The same law written as two `pd` actuators with the feed-forward ∓r_d computed here."""
    q_d = _q_d(d)
    block = d.pop("controllers")[0]
    r_d = LAMBDA_D * _grad_gap(q_d)
    for a, w, t, qd, r in zip(d["actuators"], W, T, q_d, r_d):
        a["controller"] = {"type": "pd", "kp": w, "kd": t, "target": qd, "gravity_compensation": True,
                           "feedforward": -sign * r, "implicit": block.get("implicit", True)}
    return d


@pytest.mark.parametrize("implicit", [True, False])
def test_the_law_is_pd_with_the_feed_forward_minus_r_d(implicit):
    """Same inputs step by step as PD actuators with feed-forward −r_d: the desired force's normal row
    at q_d and the implicit Jacobians (−W, −T) are the engine's, the rest is the closed form."""
    d = _scene_dict()
    d["controllers"][0]["implicit"] = implicit
    _m, _rows, col = _run(d, 1500)
    _m2, _rows2, col2 = _run(_pd_equivalent(_scene_dict() | {"controllers": d["controllers"]}, +1), 1500)
    for name in ("q.shoulder", "q.elbow", "u.shoulder_motor", "contact.tip_surface.fn"):
        np.testing.assert_allclose(col(name), col2(name), rtol=1e-9, atol=1e-9)


def test_with_the_printed_sign_the_arm_does_not_press():
    """The thesis prints r_d ∈ N(q_d) (errata 000-5): with +r_d the law pulls the tip away and the arm
    settles in the air at the free minimizer q_d + W⁻¹ r_d (gravity compensated), with no contact force."""
    d = _pd_equivalent(_scene_dict(), -1)
    q_d = _q_d(_scene_dict())
    _m, _rows, col = _run(d, 4000)
    settled = slice(3000, None)
    assert np.all(col("contact.tip_surface.fn")[settled] == 0.0)
    q_free = q_d + LAMBDA_D * _grad_gap(q_d) / W
    q = np.c_[col("q.shoulder"), col("q.elbow")][settled]
    np.testing.assert_allclose(q, np.broadcast_to(q_free, q.shape), atol=1e-6)
    assert col("contact.tip_surface.gap")[-1] > 0.05


def test_a_moving_target_places_the_desired_force_at_q_d_of_t():
    """q_d(t) off the surface: the desired_gap signal is the tip's height above it at q_d(t)."""
    d = _scene_dict()
    block = d["controllers"][0]
    block["targets"] = [{"type": "sine", "offset": 0.3, "amplitude": 0.2, "frequency": 1.0},
                        {"type": "constant", "value": -1.2}]
    _m, rows, col = _run(d, 500)
    t = rows[:, 0] - 1e-3
    q_d = np.c_[0.3 + 0.2 * np.sin(2 * np.pi * t), np.full_like(t, -1.2)]
    np.testing.assert_allclose(col("controller.law11.desired_gap"), _tip_y(q_d.T) - SURFACE, atol=1e-12)


def test_bad_blocks_are_refused_with_the_field_named():
    """Validation names the field and what is wrong, one line each (the scene never compiles)."""
    d = _scene_dict()
    d["controllers"][0]["W"] = [1.0, 2.0, 3.0]
    d["controllers"][0]["contact"] = "tip_surfac"
    d["controllers"][0]["force"] = -1.0
    with pytest.raises(SceneError) as err:
        scene_from_dict(d)
    text = str(err.value)
    assert "controllers[0].W: 3 values for 2 actuators" in text
    assert "controllers[0].contact: no contact named 'tip_surfac' (did you mean 'tip_surface'?)" in text
    assert "controllers[0].force" in text
    d = _scene_dict()
    d["controllers"][0]["contact"] = None   # a desired force needs its contact
    with pytest.raises(SceneError, match=r"controllers\[0\]\.contact: a desired contact force \(20 N\) needs"):
        scene_from_dict(d)
