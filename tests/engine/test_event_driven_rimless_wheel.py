"""The rimless wheel (resources/scenes/rimless_wheel.json) under the event-driven integrator, against
the closed form of its periodic gait (McGeer): each strike is a plastic impact at its exact time, the
post-impact rate is ω⁺ = (m L² cos 2α + I)/(m L² + I) ω⁻ (angular momentum about the new foot), and
the steady gait's step lasts the quadrature of test_projection.rimless_wheel_speed. The parameters are
read from the file, so the test holds whatever slope and spoke length it has."""

import math

import numpy as np
import pytest
from scipy.integrate import quad

from nsgui.engine import simulate
from nsgui.scene import load_scene

from tests.helpers import scene_path

G = 9.81


def gait(scene):
    """(r, ω⁻ and ω⁺ of the steady gait, the duration of a step, L, α, the inertia about a foot)."""
    body = scene.bodies[0]
    m, inertia = body.mass, body.inertia
    feet = [s for s in body.shapes if s.type == "point"]
    L, alpha = math.hypot(*feet[0].offset), math.pi / len(feet)
    nx, ny = scene.obstacles[0].normal
    gamma = math.atan2(nx, ny)
    J = m * L * L + inertia
    r = (m * L * L * math.cos(2 * alpha) + inertia) / J
    k = m * abs(scene.gravity[1]) * L / J
    w_plus2 = r * r * 4 * k * math.sin(alpha) * math.sin(gamma) / (1 - r * r)
    w_minus = math.sqrt(w_plus2 + 4 * k * math.sin(alpha) * math.sin(gamma))
    step, _ = quad(lambda th: 1 / math.sqrt(w_plus2 + 2 * k * (math.cos(gamma - alpha) - math.cos(th))),
                   gamma - alpha, gamma + alpha, epsabs=1e-14, epsrel=1e-13)
    return r, w_minus, math.sqrt(w_plus2), step, L, alpha, J


def test_rimless_wheel_follows_its_closed_form_gait_within_1e_4():
    scene = load_scene(scene_path("rimless_wheel"))
    r, w_minus, w_plus, step, L, alpha, J = gait(scene)
    scene = scene.with_values({"settings.integrator": "event_driven"})
    res = simulate(scene, duration=20 * step)
    assert res.summary["failure"] is None
    strikes = [ev for ev in res.events if ev.kind == "impact"]
    assert len(strikes) >= 18
    # one impact per strike, each a new foot, the one before it leaving at that instant
    assert len({ev.name for ev in strikes[:7]}) == 7
    opened = {(ev.t, ev.name) for ev in res.events if ev.kind == "open"}
    assert all(any(t == ev.t for t, _ in opened) for ev in strikes)
    late = strikes[10:]  # the file starts near the gait (1e-3 in ω⁻); each strike takes ~r² of what is left
    for ev in late:
        # the new foot approaches at ω⁻ times the chord 2 L sin α (the wheel pivots on the old foot)
        wm = -ev.un_pre / (2 * L * math.sin(alpha))
        assert abs(wm / w_minus - 1) < 1e-4, (ev.t, wm, w_minus)
        assert abs(ev.un_post) < 1e-9 * abs(ev.un_pre)  # plastic
        # the energy the strike takes is ½ J (ω⁻² − ω⁺²) with ω⁺ = r ω⁻: the post-impact rate
        w_after = math.sqrt(wm * wm - 2 * ev.energy_lost / J)
        assert abs(w_after / wm - r) < 1e-9, (ev.t, w_after / wm, r)
    intervals = np.diff([ev.t for ev in late])
    assert np.all(np.abs(intervals / step - 1) < 1e-4), (intervals, step)
    # and the speed along the slope is the closed form's, 2 L sin α per step
    assert abs(2 * L * math.sin(alpha) / intervals.mean() / (2 * L * math.sin(alpha) / step) - 1) < 1e-4


@pytest.mark.parametrize("dt, strikes", [(5e-3, 34), (2e-3, 100)])
def test_every_strike_of_a_long_run_follows_the_closed_form(dt, strikes):
    """Past 30 strikes with no fallback to time stepping, every strike checked: one plastic impact of
    the next foot, ω⁺/ω⁻ = r, and once on the gait ω⁻, the energy a strike takes (the potential drop
    over a step, M g 2 L sin α sin γ) and the step's duration to 1e-4. Before: at dt = 5e-3 the 15th
    strike was booked with no percussion (Lemke on the nearly singular W of two feet and a point-like
    hub reported a wrong basis as solved) and struck again 4e-14 s later; at dt = 2e-3 foot0 struck
    65 times at one instant (99.6 s) and the run stopped. The row grid only changes where steps end."""
    scene = load_scene(scene_path("rimless_wheel"))
    r, w_minus, w_plus, step, L, alpha, J = gait(scene)
    m = scene.bodies[0].mass
    nx, ny = scene.obstacles[0].normal
    drop = m * G * 2 * L * math.sin(alpha) * math.sin(math.atan2(nx, ny))
    nfeet = round(math.pi / alpha)
    scene = scene.with_values({"settings.integrator": "event_driven", "settings.event_driven_fallback": "never",
                               "settings.dt": dt})
    res = simulate(scene, duration=(strikes + 0.5) * step)
    assert res.summary["failure"] is None
    assert not [ev for ev in res.events if ev.kind == "time_stepping"]
    impacts = [ev for ev in res.events if ev.kind == "impact"]
    assert [ev.name for ev in impacts] == [f"foot{(j + 1) % nfeet}_ground" for j in range(strikes)]
    for j, ev in enumerate(impacts):
        assert abs(ev.un_post) < 1e-9 * abs(ev.un_pre), (j, ev)
        wm = -ev.un_pre / (2 * L * math.sin(alpha))
        w_after = math.sqrt(wm * wm - 2 * ev.energy_lost / J)
        assert abs(w_after / wm - r) < 1e-9, (j, ev.t, w_after / wm, r)
        if j >= 10:  # the file starts 1e-3 off the gait; each strike takes ~r² of what is left
            assert abs(wm / w_minus - 1) < 1e-4, (j, ev.t, wm, w_minus)
            assert abs(ev.energy_lost / drop - 1) < 1e-4, (j, ev.t, ev.energy_lost, drop)
    intervals = np.diff([ev.t for ev in impacts[10:]])
    assert np.all(np.abs(intervals / step - 1) < 1e-4), (intervals, step)


# The strike problem of the wheel at 15.518 s (dt = 5e-3) as the kernel built it, W = H M⁻¹ Hᵀ with
# rows [N, T] of the stance foot (foot6) and of the striking one (foot7): cond(W) ~ 1e17 (two feet,
# three coordinates, I = 1e-6), W symmetric but for round-off
STRIKE_W = [[float.fromhex(x) for x in row] for row in (
    ("0x1.1e07ce0139f4ep+17", "-0x1.594458ff92d6dp+18", "-0x1.1e06ce010a23ep+17", "-0x1.594458ff9cbe1p+18"),
    ("-0x1.594458ff92d6dp+18", "0x1.a0c64c7fb182cp+19", "0x1.594458ff591ebp+18", "0x1.a0c64c7fbd771p+19"),
    ("-0x1.1e06ce010a23ep+17", "0x1.594458ff591ebp+18", "0x1.1e07ce00da52ep+17", "0x1.594458ff6305fp+18"),
    ("-0x1.594458ff9cbe2p+18", "0x1.a0c64c7fbd772p+19", "0x1.594458ff6305fp+18", "0x1.a0c64c7fc96b6p+19"))]
STRIKE_B = [float.fromhex(x) for x in ("0x1.72d3800000000p-36", "0x1.60a1000000000p-36", "-0x1.2f8b5e1f4103ap+0",
                                       "0x1.70f2000000000p-37")]


def test_the_strike_problem_lemke_got_wrong_is_solved():
    """Lemke's method alone reports this problem solved with no percussion (the striking foot still
    approaching at 1.19 m/s); the impact's solver checks every answer: the new foot stops and sticks,
    the old one leaves."""
    from nsgui.engine.event_driven.contact_dynamics import impact_fc2d
    from nsgui.engine.solvers import fc2d_residual
    from nsgui.engine.codes import SOLVED
    W, b, mu = np.array(STRIKE_W), np.array(STRIKE_B), np.array([2.0, 2.0])
    P, status = impact_fc2d(W, b, mu, 2)
    assert status == SOLVED
    assert fc2d_residual(W, b, mu, P) < 1e-9
    u = W @ P + b
    assert P[2] > 1.0 and abs(u[2]) < 1e-9 and abs(u[3]) < 1e-9  # the striking foot: plastic, sticking
    assert P[0] == 0.0 and u[0] > 0.5  # the stance foot leaves
