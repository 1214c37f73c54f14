"""Falling rod: single-contact impact percussion (T8.8)/(D5.9) and Newton's law of the standard scheme.

The oracle is computed from the run's own pre-impact state (q_k, v_k) with the rod's closed forms
(the time-stepping digest §8.3): gap y + s L/2 sin φ, H = [0, 1, s L/2 cos φ], D = 1/m + (L/2)² cos² φ / I.
"""

import numpy as np
import pytest

from nsgui.engine import codes

from tests.helpers import Run, example

G = 9.81
M, L = 1.0, 1.0
I = M * L ** 2 / 12
E_N = 0.5


def rod_row(q, s):
    """Closed-form normal row of end s = -1 (left) or +1 (right) of the rod on the ground."""
    return np.array([0.0, 1.0, s * L / 2 * np.cos(q[2])])


def end_sign(run, c, q):
    """Which end (s = ±1) contact point c is, from its world position relative to the centre."""
    _, pts, _ = run.model.contact_frames(q)
    return np.sign(pts[c, 0] - q[0])


def test_first_impact_percussion_matches_single_contact_formula():
    run = Run(example("falling_rod"), projection=False, duration=0.6)
    h = run.h
    k = int(np.nonzero((run.pn > 0).any(axis=1))[0][0])
    c = int(np.argmax(run.pn[k]))
    assert run.status[k, c] == codes.IMPACT and run.pn[k, 1 - c] == 0.0       # one end only
    q, v = run.Q[k - 1], run.V[k - 1]
    s = end_sign(run, c, q)
    assert s == -1                                                 # tilted +30°: the left end lands
    H = rod_row(q, s)
    np.testing.assert_allclose(run.model.contact_jacobians(q)[0][c], H, atol=1e-14)
    D = 1 / M + (L / 2) ** 2 * np.cos(q[2]) ** 2 / I
    U_minus = H @ v
    assert U_minus < 0
    P_impact = -(1 + E_N) * U_minus / D                            # (T8.8) / (D5.9)
    # the step percussion also cancels gravity over the step (§3.1 item 4): U_free = U⁻ - g h
    U_free = U_minus - G * h                                       # H M⁻¹ f = -g for this row
    P_step = (-E_N * U_minus - U_free) / D
    assert run.pn[k, c] == pytest.approx(P_step, rel=1e-12)
    assert run.pn[k, c] - P_impact == pytest.approx(G * h / D, rel=1e-9)   # an O(h) share
    # post-impact normal velocity of that end: -e U⁻ (standard scheme, linearised at q_k)
    assert H @ run.V[k] == pytest.approx(-E_N * U_minus, rel=1e-12)
    # the impulse acts along H: centre of mass and rotation jump as (T8.9)
    P = run.pn[k, c]
    dv = run.V[k] - run.V[k - 1]
    np.testing.assert_allclose(dv, [0.0, -G * h + P / M, (s * L / 2 * np.cos(q[2])) * P / I], atol=1e-12)


def test_every_single_contact_impact_obeys_newtons_law():
    """§3.3 item 1 for each impact step with one active end: H(q_k) v_k+1 = -e H(q_k) v_k.

    Guards the lever-arm fix (a0f190c): at t = 0.465 s the rotating rod used to rebound at 1.058 m/s
    instead of e |U⁻| = 3.669 m/s."""
    run = Run(example("falling_rod"), projection=False, duration=1.5)
    checked = 0
    for k in run.impact_rows():
        active = np.nonzero(run.pn[k] > 0)[0]
        if len(active) != 1:
            continue
        c = active[0]
        HN, _ = run.model.contact_jacobians(run.Q[k - 1])
        U_minus, U_plus = HN[c] @ run.V[k - 1], HN[c] @ run.V[k]
        assert U_plus == pytest.approx(-E_N * U_minus, rel=1e-9, abs=1e-12), (run.t[k], U_minus, U_plus)
        checked += 1
    assert checked >= 3
