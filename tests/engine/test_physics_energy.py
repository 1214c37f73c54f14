"""Energy: never created by contacts (e <= 1, no actuators), kept for e = 1, and the balance closes.

Per step of the standard scheme (θ = ½, constant M, linear potential) the exact identity is
  E_k+1 - E_k = Σ λ_i (U_i⁺ + U_i⁻) / 2 = Σ λ_i (1 - e_i) U_i⁻ / 2
(λ_i > 0 ⇒ U_i⁺ = -e_i U_i⁻). It is <= 0 for approaching contacts; an active contact that is still
penetrated but already separating (U⁻ > 0, λ > 0 only when U⁻ ≲ g h) can add at most ~ m g² h² / 2.
So the test bound per step is m_total g² h² (O(h²)); nonlinear models add an O(h³) smooth drift.
"""

import numpy as np
import pytest

from nsgui.engine import codes
from nsgui.scene import body_mass_properties

from tests.helpers import Run, example, example_dict, scene_from_dict, with_restitution

PASSIVE = ["falling_rod", "bouncing_ball", "sliding_box", "bead_column_10", "double_pendulum_wall",
           "rocking_block", "newtons_cradle", "default"]
LINEAR = ["falling_rod", "bouncing_ball", "sliding_box", "sliding_block", "bead_column_10", "rocking_block"]
DURATION = {"bouncing_ball": 3.0, "double_pendulum_wall": 3.0}


def _total_mass(model):
    return sum(body_mass_properties(b)[0] for b in model.scene.bodies)


def _check_non_increasing(name, projection):
    run = Run(example(name), projection=projection, duration=DURATION.get(name, 2.0))
    g = float(np.hypot(*run.model.scene.gravity))
    tol = _total_mass(run.model) * g ** 2 * run.h ** 2 + 1e-12 * np.abs(run.E).max()
    # the projection moves bodies out of penetration and books the potential energy it changes
    dE = np.diff(run.E - run.S["energy.projection"])
    impact = (run.status[1:] == codes.IMPACT).any(axis=1)
    assert impact.any() or name == "sliding_box", "the scene should have impacts"
    assert dE.max() <= tol, (name, run.t[1 + np.argmax(dE)], dE.max(), tol)
    # inelastic impacts do dissipate: the loss is booked as impact energy, never negative
    if any(c.restitution < 1 for c in run.model.scene.contacts) and impact.any():
        assert run.S["energy.impact"][-1] > 0
    elif not impact.any():  # no impact (the sliding box on its ground): the normal percussion's booked work
        # is round-off of either sign, ±7e-13 J a step (main: +1.2e-10 J after 2 s, 916 steps negative)
        assert abs(run.S["energy.impact"][-1]) <= 1e-9 * np.abs(run.E).max()
    assert np.all(np.diff(run.S["energy.dissipated"]) >= -tol)


@pytest.mark.parametrize("projection", [False, True], ids=["plain", "projection"])
@pytest.mark.parametrize("name", PASSIVE)
def test_energy_never_increases_beyond_oh2(name, projection):
    _check_non_increasing(name, projection)


@pytest.mark.parametrize("name", LINEAR + ["sliding_block_push5"])
def test_energy_balance_closes_to_round_off_on_linear_scenes(name):
    for projection in (False, True):
        run = Run(example(name), projection=projection, duration=2.0)
        scale = max(np.abs(run.E).max(), run.S["energy.kinetic"].max(), 1.0)
        assert np.abs(run.S["energy.residual"]).max() <= 1e-12 * scale, (name, projection)
        assert abs(run.result.summary["energy_residual"] - np.abs(run.S["energy.residual"]).max()) < 1e-15


@pytest.mark.parametrize("name", ["double_pendulum_wall", "newtons_cradle"])
def test_energy_balance_small_on_nonlinear_scenes(name):
    run = Run(example(name), projection=False, duration=3.0)
    scale = max(np.abs(run.E).max(), run.S["energy.kinetic"].max())
    assert np.abs(run.S["energy.residual"]).max() <= 1e-5 * scale


def test_residual_is_the_documented_balance():
    """residual = K + U + dissipated - actuators - projection - E0, row by row."""
    run = Run(example("default"), duration=1.0)
    S = run.S
    E0 = S["energy.total"][0]
    bal = (S["energy.kinetic"] + S["energy.potential"] + S["energy.dissipated"] - S["energy.actuators"]
           - S["energy.projection"] - E0)
    np.testing.assert_allclose(S["energy.residual"], bal, atol=1e-12)
    np.testing.assert_allclose(S["energy.total"], S["energy.kinetic"] + S["energy.potential"], atol=1e-12)
    np.testing.assert_allclose(S["energy.dissipated"],
                               S["energy.impact"] + S["energy.friction"] + S["energy.damping"], atol=1e-12)


def test_elastic_bead_column_keeps_energy_exactly():
    """e = 1 on a linear model: every step conserves E to round-off (identity above with e = 1)."""
    run = Run(with_restitution("bead_column_10", 1.0), projection=False, duration=2.0)
    assert len(run.impact_rows()) > 10
    assert np.abs(run.E - run.E[0]).max() <= 1e-12 * abs(run.E[0])


def _pendulum_m1_only():
    d = example_dict("double_pendulum_wall")
    d["contacts"] = [c for c in d["contacts"] if c["name"] == "m1_wall"]
    return scene_from_dict(d)


def test_elastic_wall_keeps_double_pendulum_energy_to_oh():
    """m1's contact alone (e = 1): E conserved up to the O(h) of H and M frozen at q_k per impact."""
    devs = []
    for h in (1e-3, 5e-4):
        run = Run(_pendulum_m1_only(), projection=False, dt=h, duration=3.0)
        assert len(run.impact_rows("m1_wall")) >= 3
        devs.append(np.abs(run.E - run.E[0]).max() / run.S["energy.kinetic"].max())
    assert devs[1] < 1e-3
    assert 1.6 < devs[0] / devs[1] < 2.5, devs          # first order in h
