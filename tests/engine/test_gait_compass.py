"""The Poincaré analysis of the compass gait (resources/scenes/compass_gait.json, Goswami et al.'s
parameters): its fixed point, the energy balance per step, and the period doubling as the slope
grows. The scene starts on the fixed point that resources/scenes/make_compass_gait.py computed
independently (the two-angle model's step map, solve_ivp): the analysis of the scene's multibody model
(a free leg and a pinned leg, contacts switched on ahead, the hip mass riding on one leg) must find
the same gait."""

import math

import numpy as np
import pytest

from nsgui.engine.gait import ReturnMap
from nsgui.engine.gait.analysis import analyse, parameter_value, sweep, with_parameter
from nsgui.engine.gait.fixed_point import newton
from nsgui.examples import example_path
from nsgui.scene import load_scene


@pytest.fixture(scope="module")
def scene():
    return load_scene(example_path("compass_gait"))


@pytest.fixture(scope="module")
def gait(scene):
    return analyse(scene)


def test_fixed_point_is_the_scenes_gait(scene, gait):
    out, P, _fp = gait
    assert out["residual"] < 1e-9
    # one angle and two rates: the trailing foot on the ground and the stance foot's rest fix the others
    assert P.names == ["q.hip", "v.walker.theta", "v.hip"]
    init = {f"q.{k}": v for k, v in scene.initial.q.items()} | {f"v.{k}": v for k, v in scene.initial.v.items()}
    for name, value in out["fixed_point"].items():
        assert value == pytest.approx(init[name], abs=1e-8)


def test_energy_balance_per_step(gait):
    out, _P, _fp = gait
    # at the gait the strike takes exactly what the slope gave: impact loss = potential drop
    assert out["impact_loss"] > 1.0
    assert abs(out["impact_loss"] - out["potential_drop"]) < 1e-8
    assert out["mean_speed"] == pytest.approx(out["step_length"] / out["period"])


def test_eigenvalues_and_a_perturbed_gait_returns(gait):
    out, P, fp = gait
    moduli = np.abs(fp.eigenvalues)
    assert len(moduli) == 3 and moduli.max() < 1.0 and out["stable"]
    # DP predicts how a small perturbation evolves: six steps of the nonlinear map against DP⁶ δ
    delta = 1e-5 * np.array([1.0, -1.0, 1.0])
    x = fp.x + delta
    for _ in range(6):
        x = P(x)
    predicted = np.linalg.matrix_power(fp.jacobian, 6) @ delta
    assert np.abs(x - fp.x - predicted).max() < 1e-2 * np.abs(delta).max()
    assert np.abs(x - fp.x).max() < np.abs(delta).max()   # it decays


def test_slope_sweep_finds_the_period_doubling(scene):
    lo, hi = math.radians(4.0), math.radians(4.6)
    res = sweep(scene, "slope", [lo, hi])
    before, after = res["sweep"]
    assert max(before["moduli"]) < 1.0 < max(after["moduli"])
    (b,) = res["bifurcations"]
    assert b["kind"] == "period doubling" and b["direction"] == "loses stability"
    assert lo < b["value"] < hi
    # at the located slope the crossing eigenvalue is real and -1
    P = ReturnMap(with_parameter(scene, "slope", b["value"]))
    fp = newton(P, np.array(list(before["fixed_point"].values())))
    top = fp.eigenvalues[np.argmax(np.abs(fp.eigenvalues))]
    assert abs(top.imag) < 1e-9 and top.real == pytest.approx(-1.0, abs=2e-3)
    # after it, the period-2 gait: two different strikes that map onto each other
    p2 = after["period2"]
    x1, x2 = (np.array(list(pt.values())) for pt in p2["fixed_point"])
    assert np.abs(x1 - x2).max() > 1e-3 and p2["residual"] < 1e-9
    Ph = ReturnMap(with_parameter(scene, "slope", hi))
    assert np.abs(Ph(x1) - x2).max() < 1e-7 and np.abs(Ph(x2) - x1).max() < 1e-7
    assert p2["stable"]   # it takes over the stability the period-1 gait lost
    assert p2["impact_loss"] == pytest.approx(p2["potential_drop"], abs=1e-8)


def test_slope_parameter_reads_the_scene(scene):
    assert parameter_value(scene, "slope") == pytest.approx(math.radians(3.0), abs=1e-12)


def test_an_asymmetric_walker_is_refused(scene):
    # a heavier second leg: renaming the legs at a strike would change the masses
    from nsgui.engine.gait import GaitError
    heavy = scene.with_values({"bodies[leg2].mass": 6.0})
    with pytest.raises(GaitError, match="not symmetric") as e:
        analyse(heavy)
    assert "\n" not in str(e.value)


def test_stride_map_is_the_step_map_twice(scene, gait):
    # a section on one foot only (--section impact:foot1_ground) maps a strike of foot1 to its next:
    # two steps and no renaming. Its fixed point is the gait's and its eigenvalues are the squares of
    # the step map's: a check of the renaming of the legs at each step
    from nsgui.engine.gait import SectionEvent
    out, P, fp = gait
    stride, _P2, fp2 = analyse(scene, SectionEvent.parse(f"impact:{out['stance']}"))
    assert stride["names"] == out["names"]
    for name, value in out["fixed_point"].items():
        assert stride["fixed_point"][name] == pytest.approx(value, abs=1e-8)
    assert stride["period"] == pytest.approx(2 * out["period"], rel=1e-9)
    assert stride["step_length"] == pytest.approx(2 * out["step_length"], rel=1e-9)
    squares = sorted(fp.eigenvalues ** 2, key=lambda z: (round(abs(z), 6), z.imag))
    found = sorted(fp2.eigenvalues, key=lambda z: (round(abs(z), 6), z.imag))
    assert np.abs(np.array(squares) - np.array(found)).max() < 1e-5   # finite-difference truncation
