"""Newton on P(x) - x with central differences (nsgui/engine/gait/fixed_point.py) on maps with closed
forms: the logistic map's fixed point, its derivative and its period-2 orbit; the one-line messages
when there is no fixed point."""

import math

import numpy as np
import pytest

from nsgui.engine.gait import GaitError
from nsgui.engine.gait.fixed_point import fd_steps, jacobian, newton, verdict


def logistic(r):
    return lambda x: r * x * (1.0 - x)


def test_fixed_point_and_derivative_of_the_logistic_map():
    r = 2.8
    fp = newton(logistic(r), np.array([0.5]))
    assert fp.x[0] == pytest.approx(1 - 1 / r, abs=1e-13)
    assert fp.eigenvalues[0].real == pytest.approx(2 - r, abs=1e-8)   # P'(x*) = r (1 - 2x*) = 2 - r
    assert verdict(fp.moduli) == "stable" and fp.residual < 1e-12


def test_period_two_orbit_of_the_logistic_map():
    r = 3.2
    fp = newton(logistic(r), np.array([0.5]), k=2)
    s = math.sqrt((r - 3) * (r + 1))
    assert fp.x[0] == pytest.approx((r + 1 - s) / (2 * r), abs=1e-12)
    # the 2-cycle's multiplier: P'(x1) P'(x2) = 4 + 2r - r²
    assert fp.eigenvalues[0].real == pytest.approx(4 + 2 * r - r * r, abs=1e-6)   # h² truncation of P∘P
    # and the period-1 point there is unstable (P' = 2 - r = -1.2): a period doubling happened at r = 3
    assert verdict(np.abs(newton(logistic(r), np.array([0.7])).eigenvalues)) == "unstable"


def test_steps_are_scaled_and_jacobian_is_central():
    h = fd_steps(np.array([0.1, -20.0]))
    assert h[0] == pytest.approx(1e-12 ** (1 / 3)) and h[1] == pytest.approx(20 * 1e-12 ** (1 / 3))
    J, used = jacobian(lambda x: np.array([x[0] ** 3, x[0] * x[1]]), np.array([2.0, 3.0]))
    assert J == pytest.approx(np.array([[12.0, 0.0], [3.0, 2.0]]), abs=1e-5) and (used == fd_steps(np.array([2.0, 3.0]))).all()


def test_no_fixed_point_is_a_one_line_message():
    with pytest.raises(GaitError, match="singular") as e:
        newton(lambda x: x + 1.0, np.array([0.0]))          # DP - I = 0: no Newton step
    assert "\n" not in str(e.value)
    with pytest.raises(GaitError, match=r"did not converge after \d+ iterations: at .* residual") as e:
        newton(lambda x: x + 1.0 + 0.5 * np.sin(x), np.array([0.0]))   # P(x) - x >= 0.5: never zero
    assert "\n" not in str(e.value)
