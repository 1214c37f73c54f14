"""Double pendulum against the wall x = 0: admissibility, Newton's law per mass, energy across impacts.

The masses are points at the body origins, so the contact rows are the closed forms
H1 = [cos θ1, 0] and H2 = [cos θ1 + cos(θ1 + θ2), cos(θ1 + θ2)] (l = 1, wall normal +x).
"""

import numpy as np
import pytest

from nsgui.engine import codes

from tests.helpers import Run, example

G = 10.0
M_TOT = 2.0


def contact_rows(q):
    a1, a12 = q[0], q[0] + q[1]
    return np.array([[np.cos(a1), 0.0], [np.cos(a1) + np.cos(a12), np.cos(a12)]])


@pytest.fixture(scope="module")
def runs():
    scene = example("double_pendulum_wall")
    return {p: Run(scene, projection=p, duration=3.0) for p in (False, True)}


def test_masses_stay_right_of_the_wall(runs):
    plain, proj = runs[False], runs[True]
    # gap = x of each mass (point shape against the wall x = 0)
    xs = np.array([[np.sin(q[0]), np.sin(q[0]) + np.sin(q[0] + q[1])] for q in plain.Q])
    np.testing.assert_allclose(plain.gap, xs, atol=1e-12)
    speed = np.abs(plain.V).max() * 2.0                      # bound on |ẋ| of a mass (two 1 m links)
    assert plain.gap.min() < 0                               # plain Moreau–Jean: O(h) penetration remains
    assert plain.gap.min() >= -plain.h * speed
    assert proj.gap.min() >= -1e-9                           # projection: admissible to round-off
    for run in (plain, proj):
        assert (run.status[:, run.col("m1_wall")] == codes.IMPACT).sum() >= 2
        assert (run.status[:, run.col("m2_wall")] == codes.IMPACT).sum() >= 1


@pytest.mark.parametrize("projection", [False, True])
def test_newtons_law_per_mass_at_impact_steps(runs, projection):
    run = runs[projection]
    for c, e in (("m1_wall", 1.0), ("m2_wall", 0.0)):
        j = run.col(c)
        rows = run.impact_rows(c)
        assert len(rows) >= 1
        for k in rows:
            H = contact_rows(run.Q[k - 1])[j]
            np.testing.assert_allclose(run.model.contact_jacobians(run.Q[k - 1])[0][j], H, atol=1e-12)
            U_minus, U_plus = H @ run.V[k - 1], H @ run.V[k]
            assert U_minus < 0
            if run.pn[k, 1 - j] == 0.0:                     # a single active contact: U⁺ = -e U⁻ exactly
                assert U_plus == pytest.approx(-e * U_minus, rel=1e-12, abs=1e-12), (c, run.t[k])


def test_energy_does_not_increase_across_impacts(runs):
    run = runs[False]
    h = run.h
    rows = run.impact_rows()
    dE = run.E[rows] - run.E[rows - 1]
    assert np.all(dE <= M_TOT * G ** 2 * h ** 2), dE
    # m2's plastic impacts do lose energy: (D5.12) ΔK = -½ (1 - e²) U⁻² / D, with the step's own D
    for k in run.impact_rows("m2_wall"):
        if run.pn[k, run.col("m1_wall")] > 0:
            continue
        q, v = run.Q[k - 1], run.V[k - 1]
        H = contact_rows(q)[1]
        Mq = run.model.mass_matrix(q)
        D = H @ np.linalg.solve(Mq, H)
        dK = -0.5 * (H @ v) ** 2 / D
        # the step also carries O(h) smooth work, small beside this jump
        assert run.E[k] - run.E[k - 1] == pytest.approx(dK, rel=0.05, abs=50 * G * h ** 2)
