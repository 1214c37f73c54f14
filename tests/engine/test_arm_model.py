"""The engine's compiled two-link arm against the closed form of seed 004 (C8.1)-(C8.3) in
tests/engine/arm_reference.py, with m1 != m2 and I1 != I2 so that erratum 004-E6 (G1) is caught."""

import numpy as np
import pytest

from nsgui.engine import compile_scene

from tests.engine.arm_reference import Arm, arm_scene

ARM = Arm(m1=1.3, m2=0.6, l1=0.5, l2=0.4, I1=0.8, I2=0.15)


def states(n=8, seed=3):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield rng.uniform(-np.pi, np.pi, 2), rng.normal(scale=2.0, size=2)


@pytest.fixture(scope="module")
def model():
    return compile_scene(arm_scene(ARM, ground=True))


def test_mass_matrix_bias_and_gravity_match_the_closed_form(model):
    for th, dth in states():
        np.testing.assert_allclose(model.mass_matrix(th), ARM.mass_matrix(th), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(model.bias(th, dth), ARM.coriolis(th, dth) @ dth, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(model.gravity_force(th), -ARM.gravity(th), rtol=1e-12, atol=1e-12)


def test_the_printed_gravity_of_004_is_wrong_for_unequal_masses(model):
    """004 prints l1 (2 m1 + m2) in G1: with m1 != m2 it differs from the engine (errata 004-E6)."""
    th = np.array([0.3, -1.1])
    printed = ARM.g / 2 * (ARM.l1 * (2 * ARM.m1 + ARM.m2) * np.cos(th[0]) + ARM.m2 * ARM.l2 * np.cos(th.sum()))
    assert abs(printed + model.gravity_force(th)[0]) > 0.5


def test_christoffel_c_makes_mdot_minus_2c_skew():
    for th, dth in states(seed=4):
        S = ARM.mass_matrix_dot(th, dth) - 2 * ARM.coriolis(th, dth)
        np.testing.assert_allclose(S, -S.T, atol=1e-14)
        eps = 1e-6  # Ṁ of the reference by central differences along θ̇
        Mdot = (ARM.mass_matrix(th + eps * dth) - ARM.mass_matrix(th - eps * dth)) / (2 * eps)
        np.testing.assert_allclose(ARM.mass_matrix_dot(th, dth), Mdot, atol=1e-8)


def test_tip_position_and_jacobian_match_the_contact_rows(model):
    for th, _ in states(seed=5):
        gap, pa, normal = model.contact_frames(th)
        np.testing.assert_allclose(pa[0], ARM.tip(th), atol=1e-13)
        np.testing.assert_allclose(gap[0], ARM.tip(th)[1], atol=1e-13)
        HN, _HT = model.contact_jacobians(th)
        np.testing.assert_allclose(HN[0], ARM.jacobian(th)[1], atol=1e-13)
        eps = 1e-6
        for dth in (np.array([1.0, 0.0]), np.array([0.3, -0.7])):
            Jdot = (ARM.jacobian(th + eps * dth) - ARM.jacobian(th - eps * dth)) / (2 * eps)
            np.testing.assert_allclose(ARM.jacobian_dot(th, dth), Jdot, atol=1e-8)
