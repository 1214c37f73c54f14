"""The Poincaré analysis (nsgui/engine/gait) against the rimless wheel's closed form, with the
parameters read from resources/scenes/rimless_wheel.json: over a step the stance spoke turns by 2α
(2α = 2π/spokes), the potential drop is m g 2L sin α sin γ and the strike keeps the angular momentum
about the new foot, ω⁺ = r ω⁻ with r = (m L² cos 2α + I)/(m L² + I). So the map is
P(ω) = r sqrt(ω² + 4 k sin α sin γ) (k = m g L/(m L² + I), signs of a clockwise wheel), its fixed point
ω* = r sqrt(4 k sin α sin γ/(1 − r²)) and DP(ω*) = r² (cos²(2α) for a point mass)."""

import json
import math

import numpy as np
import pytest

from nsgui.engine.gait import GaitError, ReturnMap
from nsgui.engine.gait.analysis import analyse, with_parameter
from nsgui.examples import example_path
from nsgui.scene import load_scene


def wheel():
    return load_scene(example_path("rimless_wheel"))


def parameters(scene):
    body = scene.bodies[0]
    feet = [s for s in body.shapes if s.type == "point"]
    L = math.hypot(*feet[0].offset)
    n = next(o for o in scene.obstacles if o.type == "ground").normal
    slope = math.atan2(abs(n[0]), n[1])
    g = math.hypot(*scene.gravity)
    alpha = math.pi / len(feet)
    J = body.mass * L ** 2 + body.inertia
    r = (body.mass * L ** 2 * math.cos(2 * alpha) + body.inertia) / J
    k = body.mass * g * L / J
    return dict(m=body.mass, L=L, slope=slope, g=g, alpha=alpha, r=r, k=k, drop=4 * k * math.sin(alpha) * math.sin(slope))


def closed_map(w, p):
    return -p["r"] * math.sqrt(w * w + p["drop"])


def test_return_map_off_the_gait_is_the_closed_form():
    scene = wheel()
    p = parameters(scene)
    P = ReturnMap(scene)
    assert P.names == ["v.wheel.theta"]   # one rate: the other coordinates are fixed on the section
    w_star = -p["r"] * math.sqrt(p["drop"] / (1 - p["r"] ** 2))
    for w in (0.95 * w_star, 1.3 * w_star, 2.0 * w_star):   # fast enough to get over the stance foot
        s = P.step(np.array([w]))
        assert s.x[0] == pytest.approx(closed_map(w, p), rel=1e-9)
        # energy per step: what the strike took is the potential drop plus the kinetic energy change
        J = p["m"] * p["L"] ** 2 + scene.bodies[0].inertia
        assert s.potential_drop == pytest.approx(p["m"] * p["g"] * 2 * p["L"] * math.sin(p["alpha"]) * math.sin(p["slope"]), rel=1e-9)
        assert s.impact_loss - s.potential_drop == pytest.approx(0.5 * J * (w * w - s.x[0] ** 2), abs=1e-9)
        assert s.step_length == pytest.approx(2 * p["L"] * math.sin(p["alpha"]), rel=1e-9)


@pytest.mark.parametrize("inertia", [None, 0.05])
def test_fixed_point_and_derivative(inertia):
    scene = wheel()
    if inertia is not None:
        scene = scene.with_values({"bodies[wheel].inertia": inertia})
    p = parameters(scene)
    out, _P, _fp = analyse(scene)
    w = -p["r"] * math.sqrt(p["drop"] / (1 - p["r"] ** 2))
    assert out["fixed_point"]["v.wheel.theta"] == pytest.approx(w, rel=1e-9)
    assert out["residual"] < 1e-10
    # DP = r² (the map's derivative at its fixed point); the trivial eigenvalues are not there
    assert len(out["eigenvalues"]) == 1
    re, im = out["eigenvalues"][0]
    assert im == 0.0 and re == pytest.approx(p["r"] ** 2, abs=1e-6)
    assert out["stable"] and out["verdict"] == "stable"
    # energy balance per step at the gait: the strike takes exactly the potential drop
    assert abs(out["energy_balance"]) < 1e-8
    assert out["mean_speed"] == pytest.approx(out["step_length"] / out["period"])
    assert set(out["fd_step"]) == {"v.wheel.theta"} and 0 < out["fd_step"]["v.wheel.theta"] < 1e-2


def test_point_mass_factor_is_cos_squared():
    # the point-mass wheel: I -> 0 makes the factor cos²(2α) (I = 1e-6 m L²: M stays well conditioned;
    # r² then differs from cos²(2α) by about 1e-6)
    scene = wheel()
    p = parameters(scene)
    scene = scene.with_values({"bodies[wheel].inertia": 1e-6 * p["m"] * p["L"] ** 2})
    out, _P, _fp = analyse(scene)
    assert out["eigenvalues"][0][0] == pytest.approx(math.cos(2 * p["alpha"]) ** 2, abs=5e-6)
    assert out["eigenvalues"][0][0] == pytest.approx(parameters(scene)["r"] ** 2, abs=3e-7)


def test_a_wheel_that_rolls_back_is_a_clear_error():
    scene = with_parameter(wheel(), "slope", 0.005)
    with pytest.raises(GaitError, match="fell back|no heel strike|did not converge") as e:
        analyse(scene)
    assert "\n" not in str(e.value)


def test_cli_json_keys(tmp_path, capsys):
    from nsgui.poincare_cli import poincare_main
    out = tmp_path / "gait.json"
    assert poincare_main([str(example_path("rimless_wheel")), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    for key in ("fixed_point", "residual", "period", "step_length", "mean_speed", "eigenvalues", "stable"):
        assert key in data
    assert "stable" in capsys.readouterr().out
    assert poincare_main([str(example_path("rimless_wheel")), "--section", "impact:nope"]) == 2
    assert "no contact named 'nope'" in capsys.readouterr().err


def test_sweep_of_the_slope_follows_the_closed_form(tmp_path):
    from nsgui.poincare_cli import poincare_main
    scene = wheel()
    g0 = parameters(scene)["slope"]
    out = tmp_path / "sweep.json"
    spec = f"slope={g0 * 0.9}:{g0 * 1.3}:3"
    assert poincare_main([str(example_path("rimless_wheel")), "--sweep", spec, "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [e["value"] for e in data["sweep"]] == pytest.approx([g0 * 0.9, g0 * 1.1, g0 * 1.3])
    for e in data["sweep"]:
        p = parameters(with_parameter(scene, "slope", e["value"]))
        assert e["fixed_point"]["v.wheel.theta"] == pytest.approx(-p["r"] * math.sqrt(p["drop"] / (1 - p["r"] ** 2)), rel=1e-9)
        assert e["eigenvalues"][0][0] == pytest.approx(p["r"] ** 2, abs=1e-6)   # DP does not depend on the slope
        for key in ("residual", "period", "step_length", "mean_speed", "stable"):
            assert key in e
    assert data["bifurcations"] == []   # |λ| = r² < 1 at every slope


def test_bad_sweep_paths_are_one_line_errors(capsys):
    from nsgui.poincare_cli import poincare_main
    path = str(example_path("rimless_wheel"))
    assert poincare_main([path, "--sweep", "bodies[nope].mass=1:2:3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bodies[nope]" in err
