"""The rimless wheel of issue 12 §1 (resources/scenes/rimless_wheel.json), event-driven, against its
closed form (walking.md §7, McGeer): a strike maps ω⁻ to ω⁺ = r ω⁻ (angular momentum about the new
foot; r = cos 2α for the point-mass hub), a stance conserves energy, and on the periodic gait the
energy a strike takes is the potential drop over a step, M g 2L sin α sin γ.

ω⁻ and ω⁺ come from the recorded energy: while it pivots on a foot the wheel's kinetic energy is
½ (M L² + I) ω², and its potential at a strike is M g times the hub's height L cos(γ + α) above the
stance foot (where the feet sit is read off the recorded pose)."""
import math

import numpy as np
import pytest
from scipy.integrate import quad

from nsgui.engine import simulate
from nsgui.scene.walkers import rimless_gait
from tests.helpers import example


@pytest.fixture(scope="module")
def wheel():
    scene = example("rimless_wheel")
    assert scene.settings.integrator == "event_driven"
    result = simulate(scene, duration=12.0)
    assert result.summary["failure"] is None
    return scene, result


def parameters(scene):
    body = scene.bodies[0]
    feet = [s for s in body.shapes if s.type == "point"]
    nx, ny = scene.obstacles[0].normal
    return body.mass, body.inertia, math.hypot(*feet[0].offset), len(feet), math.atan2(nx, ny), feet


def stances(scene, result):
    """Per stance (between strikes): its energy (mean over its rows), the spread of that energy, and the
    hub's potential energy at the strike that ends it."""
    m, _i, L, n, gamma, feet = parameters(scene)
    alpha, g = math.pi / n, -scene.gravity[1]
    S = result.signals
    t, E = S["t"], S["energy.total"]
    x, y, th = S["q.wheel.x"], S["q.wheel.y"], S["q.wheel.theta"]
    strikes = [e for e in result.events if e.kind == "impact"]
    bounds = np.r_[0.0, [e.t for e in strikes], t[-1]]
    rows = []
    for j in range(len(bounds) - 1):
        inside = np.nonzero((t > bounds[j] + 2e-3) & (t < bounds[j + 1] - 2e-3))[0]
        if len(inside) == 0:                    # a strike at the very end of the run
            return strikes[:j], np.array(rows)
        k = inside[0]
        fx, fy = feet[j % n].offset             # foot j is the stance foot of stance j
        c, s = math.cos(th[k]), math.sin(th[k])
        foot_y = y[k] + s * fx + c * fy
        rows.append((E[inside].mean(), np.ptp(E[inside]), m * g * (foot_y + L * math.cos(gamma + alpha))))
    return strikes, np.array(rows)


def test_the_wheel_is_issue_12s():
    m, inertia, L, n, gamma, _feet = parameters(example("rimless_wheel"))
    assert (m, L, n) == (1.0, 1.0, 8) and gamma == pytest.approx(0.08, abs=1e-15)
    assert inertia <= 1e-6                    # a point mass at the hub, as far as the free joint allows


def test_a_strike_maps_the_rate_by_cos_2_alpha(wheel):
    scene, result = wheel
    m, inertia, L, n, gamma, _feet = parameters(scene)
    _rate, r, _k = rimless_gait(m, L, n, gamma, inertia)
    strikes, st = stances(scene, result)
    assert len(strikes) >= 10 and [e.name for e in strikes[:3]] == ["foot1_ground", "foot2_ground", "foot3_ground"]
    assert st[:, 1].max() < 1e-9              # a stance conserves energy
    ratios = np.sqrt((st[1:, 0] - st[:-1, 2]) / (st[:-1, 0] - st[:-1, 2]))    # ω⁺/ω⁻ = √(K⁺/K⁻)
    assert np.abs(ratios - r).max() < 1e-9
    # r is the point mass's cos 2α but for the hub's inertia, which the free joint needs
    assert abs(r - math.cos(2 * math.pi / n)) < 3e-7


def test_on_its_gait_a_strike_takes_the_potential_drop_of_a_step(wheel):
    scene, result = wheel
    m, inertia, L, n, gamma, _feet = parameters(scene)
    alpha, g = math.pi / n, -scene.gravity[1]
    strikes, st = stances(scene, result)
    drop = m * g * 2 * L * math.sin(alpha) * math.sin(gamma)
    loss = st[:-1, 0] - st[1:, 0]
    assert np.abs(loss - drop).max() < 1e-8
    assert np.abs(np.array([e.energy_lost for e in strikes]) - drop).max() < 1e-8   # the event's own figure
    # and it steps at the gait's period: a stance from γ − α to γ + α at ½ω² + k cos θ constant
    rate, _r, k = rimless_gait(m, L, n, gamma, inertia)
    period, _ = quad(lambda th: 1 / math.sqrt(rate ** 2 + 2 * k * (math.cos(gamma - alpha) - math.cos(th))),
                     gamma - alpha, gamma + alpha, epsabs=1e-14, epsrel=1e-13)
    times = np.array([e.t for e in strikes])
    assert np.abs(np.diff(np.r_[0.0, times]) - period).max() < 1e-8   # measured 1.6e-9


def test_the_template_is_the_example_and_an_edited_one_starts_on_its_own_gait():
    from nsgui.scene import scene_to_dict
    from nsgui.scene.templates import make_template
    assert scene_to_dict(make_template("Rimless wheel")) == scene_to_dict(example("rimless_wheel"))
    scene = make_template("Rimless wheel", slope=0.15, mass=3.0, spokes=10)
    result = simulate(scene, duration=8.0)
    m, inertia, L, n, gamma, _feet = parameters(scene)
    strikes, st = stances(scene, result)
    assert len(strikes) >= 5 and n == 10 and m == 3.0
    loss = st[:-1, 0] - st[1:, 0]
    assert np.abs(loss - m * 9.81 * 2 * L * math.sin(math.pi / n) * math.sin(gamma)).max() < 1e-8
