"""The rimless wheel (resources/scenes/rimless_wheel.json) under the event-driven integrator, against
the closed form of its periodic gait (McGeer): each strike is a plastic impact at its exact time, the
post-impact rate is ω⁺ = (m L² cos 2α + I)/(m L² + I) ω⁻ (angular momentum about the new foot), and
the steady gait's step lasts the quadrature of test_projection.rimless_wheel_speed. The parameters are
read from the file, so the test holds whatever slope and spoke length it has."""

import math

import numpy as np
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
