"""Bead column (N = 10): static load at rest and complementarity at every step (the time-stepping digest §3.1)."""

import numpy as np
import pytest

from tests.helpers import Run, example

N = 10
M = 1.0
G = 9.81
E_N = 0.5
PROJ_TOL = 1e-6   # the projection removes penetrations deeper than 1 µm (engine setting)


def _run(projection, solver="auto"):
    return Run(example("bead_column_10"), projection=projection, solver=solver, duration=3.0)


def _contact_index(run):
    """Column of the ground contact and of the contact on top of bead k (bead k+1 on bead k)."""
    ground = run.col("bead0_ground")
    above = [run.col(f"bead{k + 1}_bead{k}") for k in range(N - 1)]
    return ground, above


@pytest.mark.parametrize("projection", [False, True])
def test_column_at_rest_carries_its_weight(projection):
    run = _run(projection)
    h = run.h
    ground, above = _contact_index(run)
    end = slice(-50, None)
    np.testing.assert_allclose(run.pn[end, ground], N * M * G * h, rtol=1e-9)
    for k in range(N - 1):
        # the contact above bead k carries the N-1-k beads resting on it
        np.testing.assert_allclose(run.pn[end, above[k]], (N - 1 - k) * M * G * h, rtol=1e-9)
    assert np.abs(run.V[end]).max() < 1e-9
    if projection:
        assert np.abs(run.gap[end]).max() <= PROJ_TOL      # stacked, no visible sinking
    else:
        assert run.gap[end].min() < 0                      # plain Moreau–Jean keeps O(h) penetrations
        assert run.gap[end].min() > -N * h * np.sqrt(2 * G * 2.2)


@pytest.mark.parametrize("projection", [False, True])
def test_complementarity_at_every_step(projection):
    run = _run(projection)
    h = run.h
    pn, gap = run.pn, run.gap
    assert np.all(pn >= 0.0)
    # start-of-step normal velocities U_k = H(q_k) v_k and end-of-step ones with the same rows
    U0 = np.array([run.normal_velocity(k) for k in range(len(run.t))])
    U1 = np.array([run.normal_velocity(k, at=k - 1) for k in range(1, len(run.t))])
    active = pn[1:] > 0
    # a percussion only where the activation rule held at the start of the step: y + h/2 y' <= 0
    y_pred = gap[:-1] + 0.5 * h * (np.minimum(U0[:-1], 0.0) if projection else U0[:-1])
    assert np.all(y_pred[active] <= 1e-9)
    # position level: gap * pn ~ 0 -- an active contact ends the step closed, or opened by at most
    # the step's own motion h (|U⁻| + |U⁺|) / 2 (a bounce leaving, or a closed contact held while separating)
    opening = 0.5 * h * (np.abs(U0[:-1]) + np.abs(U1))
    assert np.all(gap[1:][active] <= opening[active] + 1e-9)
    assert np.all(pn[1:] * np.maximum(gap[1:], 0) <= pn[1:] * opening + 1e-12)
    if projection:
        assert gap.min() >= -PROJ_TOL
    # velocity level (T3.4): U⁺ + e U⁻ >= 0 on active contacts, = 0 where approaching fast. With the
    # projection, approaches slower than 3 |g| h are plastic; separating closed contacts are only held
    # to U⁺ + U⁻ >= 0 here (the engine's choice of e for them is its own, e <= 1)
    approaching = active & (U0[:-1] < -3 * G * h)
    w = U1 + E_N * U0[:-1]
    assert approaching.sum() >= 10
    # with projection the recorded v_k+1 also carries the projection's energy compensation: a bead lifted
    # by δ <= h |U| / 2 out of penetration gives back g δ / |U| <= g h / 2 of speed, summed over the beads it lifts
    assert np.abs(w[approaching]).max() < (5 * G * h if projection else 1e-9)
    assert np.all(w[active & (U0[:-1] < 0)] >= -1e-9) if not projection else True
    closing = active & (U0[:-1] < 0)
    assert np.all(U1[closing] >= -1e-9 + (E_N * U0[:-1][closing] if not projection else -E_N * 3 * G * h))
    separating = active & (U0[:-1] >= 0)
    assert np.all(U1[separating] + U0[:-1][separating] >= -1e-9)
    # energy at rest: every impact dissipated, nothing gained
    assert run.S["energy.total"][-1] < run.S["energy.total"][0]
