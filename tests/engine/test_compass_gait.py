"""The compass gait of issue 12 §1 (resources/scenes/compass_gait.json) walks: against the classic
two-angle model (nsgui/scene/compass_gait.py, solve_ivp; its own Newton gives the fixed point), the
engine's walker, event-driven, keeps the gait's step time and step length, every strike takes the
potential drop of a step, a perturbed start settles back onto the gait, and time stepping at a small
step walks too.

Strikes are the impact events; the foot that strikes is the stance foot until the next one, so where it
stands is read off the recorded pose in the middle of its stance."""
import math
import os
import runpy

import numpy as np
import pytest

from nsgui.engine import simulate
from nsgui.scene import scene_to_dict
from nsgui.scene.compass_gait import CompassGait
from nsgui.scene.walkers import compass_gait
from tests.helpers import SCENES, example

L, GAMMA = 1.0, math.radians(3.0)
MODEL = CompassGait(hip_mass=10.0, leg_mass=5.0, a=0.5, leg=L, slope=GAMMA, g=9.81)


@pytest.fixture(scope="module")
def gait():
    s, period, residual = MODEL.fixed_point()
    return s, period, residual


def feet(S):
    """World positions (rows, 2) of foot1 and foot2 (the leg frames sit at the hip, feet at (0, −l))."""
    x, y, th1 = S["q.walker.x"], S["q.walker.y"], S["q.walker.theta"]
    th2 = th1 + S["q.hip"]
    return [np.column_stack([x + L * np.sin(th), y - L * np.cos(th)]) for th in (th1, th2)]


def strikes(result):
    """Strike times, which foot struck (0, 1), where it stands (the middle of its stance), the energy of
    each stance (mean over its rows) and its spread."""
    S = result.signals
    t, E = S["t"], S["energy.total"]
    events = [e for e in result.events if e.kind == "impact"]
    times = np.array([e.t for e in events])
    which = np.array([int(e.name == "foot2_ground") for e in events])
    pos = feet(S)
    bounds = np.r_[times, t[-1]]
    where, energy = [], []
    for k in range(len(events)):
        inside = np.nonzero((t > bounds[k] + 2e-3) & (t < bounds[k + 1] - 2e-3))[0]
        if len(inside) == 0:                                # a strike at the very end of the run
            return times[:k], which[:k], np.array(where), np.array(energy), events[:k]
        where.append(pos[which[k]][inside[len(inside) // 2]])
        energy.append((E[inside].mean(), np.ptp(E[inside])))
    return times, which, np.array(where), np.array(energy), events


def test_the_scene_is_issue_12s_walker_on_its_fixed_point(gait):
    s, period, residual = gait
    assert residual < 1e-9
    # the literature's gait for these parameters (Goswami et al.): leg angles -0.2187 / 0.3234 rad after a strike
    assert s[0] == pytest.approx(-0.2187, abs=1e-4) and 2 * GAMMA - s[0] == pytest.approx(0.3234, abs=1e-4)
    scene = example("compass_gait")
    legs = {b.name: b for b in scene.bodies}
    assert legs["leg1"].mass + legs["leg2"].mass == 20.0 and legs["leg2"].mass == 5.0
    assert legs["leg2"].com == [0.0, -0.5] and legs["leg2"].inertia == 0.0      # m at a = 0.5 from the foot
    assert scene.settings.integrator == "event_driven"
    assert math.atan2(*scene.obstacles[0].normal) == pytest.approx(GAMMA, abs=1e-15)
    assert all(c.switch is not None and c.switch.when == "ahead" for c in scene.contacts)
    # what the generator writes (the fixed point to the last bits may differ between platforms)
    made = scene_to_dict(compass_gait(**runpy.run_path(os.path.join(SCENES, "make_compass_gait.py"))["PARAMETERS"]))
    file = scene_to_dict(scene)
    for key in ("q", "v"):
        assert made["initial"][key] == pytest.approx(file["initial"][key], abs=1e-9)
    for d in (made, file):
        del d["initial"], d["description"]
    assert made == file


def test_it_walks_thirty_steps_on_its_gait(gait):
    s, period, _ = gait
    result = simulate(example("compass_gait"), duration=31.5 * period)
    assert result.summary["failure"] is None
    times, which, where, _energy, _ev = strikes(result)
    assert len(times) >= 30
    assert np.all(which[1:] != which[:-1])              # the feet take turns
    _p, _t, x_minus, _sol = MODEL.step(s)
    step = L * (math.sin(x_minus[0] - GAMMA) - math.sin(x_minus[1] - GAMMA))    # swing foot ahead at the strike
    lengths = np.hypot(*np.diff(where, axis=0).T)
    assert np.abs(np.diff(np.r_[0.0, times]) - period).max() < 1e-6
    assert np.abs(lengths - step).max() < 1e-6
    # every step goes down the slope by its length times sin γ
    assert np.abs(-np.diff(where[:, 1]) - step * math.sin(GAMMA)).max() < 1e-9


def test_a_step_is_the_classic_models_step(gait):
    """The recorded swing over the first step is the two-angle model's (θ₁ = −walker.theta)."""
    s, period, _ = gait
    result = simulate(example("compass_gait"), duration=0.7)
    S = result.signals
    _p, _t, _x, pieces = MODEL.step(s, dense=True)
    t = S["t"]
    # each sample from the last piece that holds it: the pieces meet at their ends, and the first can be the
    # lift-off's zero-length piece at t = 0 (solve_ivp finds the guard's zero at the start with scipy >= 1.17)
    model = np.array([[sol for sol in pieces if sol.t[0] <= tk <= sol.t[-1]][-1].sol(tk) for tk in t])
    th1 = -S["q.walker.theta"]
    th2 = th1 - S["q.hip"]
    assert np.abs(th1 - model[:, 0]).max() < 1e-8 and np.abs(th2 - model[:, 1]).max() < 1e-8


def test_each_strike_takes_the_potential_drop_of_a_step(gait):
    s, period, _ = gait
    result = simulate(example("compass_gait"), duration=12 * period)
    _times, _which, where, energy, events = strikes(result)
    mass, g = 20.0, 9.81
    assert energy[:, 1].max() < 1e-8                        # the swing conserves energy
    drop = mass * g * -np.diff(where[:, 1])                 # same configuration one step lower
    loss = energy[:-1, 0] - energy[1:, 0]
    assert np.abs(loss - drop).max() < 1e-8
    assert np.abs(np.array([e.energy_lost for e in events[1:]]) - drop).max() < 1e-8


def test_a_perturbed_start_settles_onto_the_gait(gait):
    s, period, _ = gait
    result = simulate(compass_gait(start=s + np.array([0.01, 0.05, -0.05])), duration=40 * period)
    assert result.summary["failure"] is None
    times, which, where, _e, _ev = strikes(result)
    assert len(times) >= 35 and np.all(which[1:] != which[:-1])
    steps = np.diff(times)
    assert abs(steps[0] - period) > 1e-3                    # it started off the gait ...
    assert np.abs(steps[-5:] - period).max() < 1e-6         # ... and came back to it


def test_time_stepping_walks_at_a_small_step(gait):
    s, period, _ = gait
    scene = compass_gait(integrator="time_stepping")
    result = simulate(scene, dt=1e-4, duration=23.0)
    assert result.summary["failure"] is None
    times, which, _where, _e, _ev = strikes(result)
    assert len(times) >= 30 and np.all(which[1:] != which[:-1])     # one impact per strike, feet in turn
    assert np.abs(np.diff(times) - period).max() < 1e-3


def test_the_template_is_the_example_and_an_edited_one_starts_on_its_own_gait():
    from nsgui.scene.templates import make_template
    made, file = scene_to_dict(make_template("Compass gait walker")), scene_to_dict(example("compass_gait"))
    for key in ("q", "v"):
        assert made["initial"][key] == pytest.approx(file["initial"][key], abs=1e-9)
        del made["initial"][key], file["initial"][key]
    assert made == file
    # a steeper slope and a heavier hip: the continuation finds that walker's gait, and it keeps it
    model = CompassGait(hip_mass=15.0, leg_mass=5.0, a=0.5, leg=L, slope=math.radians(4.0), g=9.81)
    s, period, residual = model.gait()
    assert residual < 1e-9 and abs(period - MODEL.fixed_point()[1]) > 1e-3
    result = simulate(make_template("Compass gait walker", slope_deg=4.0, hip_mass=15.0), duration=10.5 * period)
    times, which, _where, _e, _ev = strikes(result)
    assert len(times) >= 10 and np.all(which[1:] != which[:-1])
    assert np.abs(np.diff(np.r_[0.0, times]) - period).max() < 1e-6
