"""Every step of a run is one Moreau–Jean step of the time-stepping digest §3.1 (projection off, θ = ½).

For models with constant M and constant forces (free bodies with the frame at the CoM, prismatic chains,
gravity only) the free velocity is v_k + h M⁻¹ f exactly, so each recorded step can be checked against
(T3.1) activation, (T3.4)/(T5.3) the contact law at the step, (T3.5) the velocity update and (T3.6) the
position update, using only the model's documented queries.
"""

import numpy as np
import pytest

from tests.helpers import Run, example

CASES = [("falling_rod", 0.8), ("bead_column_10", 0.8), ("rocking_block", 1.0), ("sliding_box", 0.3),
         ("sliding_block", 0.3)]


@pytest.mark.parametrize("name,duration", CASES)
def test_each_step_is_a_moreau_jean_step(name, duration):
    run = Run(example(name), projection=False, duration=duration)
    model, h = run.model, run.h
    scene = model.scene
    M = model.mass_matrix(run.Q[0])
    Minv = np.linalg.inv(M)
    f = model.gravity_force(run.Q[0])
    for q in run.Q[:: max(1, len(run.Q) // 5)]:                   # the premise: constant M and forces
        np.testing.assert_allclose(model.mass_matrix(q), M, atol=1e-13)
        np.testing.assert_allclose(model.gravity_force(q), f, atol=1e-13)
    owner = model.contact_owner
    e = np.array([scene.contacts[o].restitution for o in owner])
    mu = np.array([scene.contacts[o].friction for o in owner])
    tol = 1e-9
    n_active = 0
    for k in range(len(run.t) - 1):
        q, v, q1, v1 = run.Q[k], run.V[k], run.Q[k + 1], run.V[k + 1]
        HN, HT = model.contact_jacobians(q)
        U0 = HN @ v
        active = run.gap[k] + 0.5 * h * U0 <= 0.0                  # (T3.1), γ = ½, threshold 0
        rN, rT = run.pn[k + 1], run.pt[k + 1]
        assert np.all(rN[~active] == 0.0) and np.all(rT[~active] == 0.0)
        # (T3.5): v_k+1 = v_free + M⁻¹ (HNᵀ r_N + HTᵀ r_T)
        np.testing.assert_allclose(v1, v + Minv @ (h * f + HN.T @ rN + HT.T @ rT), rtol=0,
                                   atol=tol * (1 + np.abs(v).max()))
        # (T3.6)
        np.testing.assert_allclose(q1, q + h * 0.5 * (v + v1), rtol=0, atol=1e-12 * (1 + np.abs(q).max()))
        # (T3.4)/(T5.3) at every active contact: 0 <= U⁺ + e U⁻ ⊥ r_N >= 0, Coulomb on r_T
        uN = HN @ v1 + e * U0
        uT = HT @ v1
        for c in np.nonzero(active)[0]:
            n_active += 1
            scale = tol * (1 + abs(U0[c]))
            assert rN[c] >= 0 and uN[c] >= -scale, (run.t[k + 1], c, rN[c], uN[c])
            assert rN[c] * uN[c] <= scale * max(rN[c], 1e-300) + 1e-15, (run.t[k + 1], c)
            assert abs(rT[c]) <= mu[c] * rN[c] * (1 + 1e-9) + 1e-15
            if abs(uT[c]) > 1e-6:                                  # slip: r_T = -mu r_N sign(u_T)
                assert rT[c] == pytest.approx(-mu[c] * rN[c] * np.sign(uT[c]), rel=1e-6, abs=1e-12)
    assert n_active > 0
