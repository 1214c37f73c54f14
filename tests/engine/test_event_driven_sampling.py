"""The event-driven integrator's discrete-time inputs: a sampled controller is sampled at its own
instants k·T (steps end exactly there; zero-order hold in between), not at row times, and an `ahead`
contact switch is turned on at the root of its condition, located like a gap.

References: the PD pendulum integrated here by scipy, piece by piece between the sample instants
k·T with the input held (ZOH); a ball in flight, whose switch condition has a closed-form root."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nsgui.engine import simulate
from nsgui.scene import SceneBuilder

G = 9.81
M, L, I_C = 1.0, 0.8, 0.01          # bob mass, pivot to centre of mass, inertia about it
KP, KD, TARGET, PERIOD = 20.0, 1.5, 0.6, 0.013


def pd_pendulum(dt, integrator, duration=1.0):
    b = SceneBuilder("sampled PD pendulum")
    bob = b.body("bob", mass=M, inertia=I_C, com=(0.0, -L))
    bob.disk(0.05, offset=(0.0, -L))
    pivot = b.revolute("pivot", parent=b.world, child=bob, q0=0.1)
    b.actuator(pivot, controller={"type": "pd", "kp": KP, "kd": KD, "target": TARGET, "period": PERIOD})
    b.settings(dt=dt, duration=duration, integrator=integrator, projection=False)
    return b.build()


def zoh_reference(t_end):
    """(θ(t), the sample instants k·T, the held inputs u_k) of the pendulum with its PD sampled at k·T."""
    J = I_C + M * L * L

    def rhs(t, y, u):
        return [y[1], (-M * G * L * math.sin(y[0]) + u) / J]
    y, pieces, samples, inputs = np.array([0.1, 0.0]), [], [], []
    k = 0
    while k * PERIOD <= t_end:
        t0, t1 = k * PERIOD, min((k + 1) * PERIOD, t_end)
        u = KP * (TARGET - y[0]) - KD * y[1]
        samples.append(t0)
        inputs.append(u)
        if t1 > t0:
            sol = solve_ivp(rhs, (t0, t1), y, args=(u,), method="DOP853", rtol=1e-12, atol=1e-13,
                            dense_output=True)
            pieces.append((t0, t1, sol.sol))
            y = sol.y[:, -1]
        k += 1

    def theta(t):
        out = np.empty_like(t)
        for a, b_, f in pieces:
            sel = (t >= a - 1e-12) & (t <= b_ + 1e-12)  # rows a few ulp past the end included
            out[sel] = f(t[sel])[0]
        return out
    return theta, np.array(samples), np.array(inputs)


def test_pd_sampled_at_its_own_instants_k_T_not_at_row_times():
    dt, t_end = 0.01, 1.0                     # T = 0.013 s is not a multiple of the rows' 0.01 s
    res = simulate(pd_pendulum(dt, "event_driven", t_end))
    assert res.summary["failure"] is None
    theta, samples, inputs = zoh_reference(t_end)
    t = res["t"]
    assert np.max(np.abs(res["q.pivot"] - theta(t))) < 1e-8
    # every row after the initial one (recorded before any sample, as with time stepping) holds the
    # input that acted up to it: u_k of the last sample k·T < t (a row at a sample instant shows the
    # input before it, as a time step's row does)
    u, t = res["u.pivot_motor"][1:], t[1:]
    k = np.ceil(t / PERIOD - 1e-9).astype(int) - 1
    assert np.max(np.abs(u - inputs[k])) < 1e-7
    # the count: every sample instant up to t_end was taken (rows see 77 of the 77 inputs here)
    assert len(samples) == math.floor(t_end / PERIOD) + 1
    assert len(np.unique(k)) == len(samples)
    # sampled at row times instead, the input would lag by up to a row: a visibly different motion
    lagged = np.ceil(samples / dt - 1e-9) * dt
    assert np.max(lagged - samples) > 0.005


def test_time_stepping_agrees_at_small_h():
    t_end = 1.0
    ed = simulate(pd_pendulum(0.01, "event_driven", t_end))
    errors = []
    for h in (1e-3, 1e-4):
        ts = simulate(pd_pendulum(h, "time_stepping", t_end))
        f = int(round(0.01 / h))
        errors.append(np.max(np.abs(ts["q.pivot"][::f] - ed["q.pivot"])))
    assert errors[1] < errors[0] / 5, errors
    assert errors[1] < 1e-3, errors


# ------------------------------------------------------------------ a contact switch as a root
R, X0, Y0, VX, VY = 0.05, -0.3, 0.5, 1.0, 2.0


def switched_ball(approaching):
    b = SceneBuilder("switched ball")
    ground = b.ground()
    ball = b.body("ball", mass=1.0, inertia=1e-3)
    disk = ball.disk(R)
    b.free("ball", child=ball, q0=(X0, Y0, 0.0), v0=(VX, VY, 0.0))
    px = -0.2 if approaching else 0.0
    b.contact(disk, ground, restitution=0.5, switch={"when": "ahead", "reference": b.world.at((px, 0.0)),
                                                     "axis": (1.0, 0.0), "approaching": approaching})
    b.settings(dt=1e-3, duration=1.0, integrator="event_driven")
    return b.build()


@pytest.mark.parametrize("approaching", [False, True])
def test_switch_turns_on_at_the_root_of_its_condition(approaching):
    """A ball thrown up and forward over the ground, its contact switched on when the ball's lowest
    point is ahead of x = 0 (at t = −X0/VX = 0.3 s) — and, with `approaching`, moving down (from the
    apex at VY/g ≈ 0.204 s, so at 0.3 s too) — or ahead of x = −0.2 with approaching (at the apex)."""
    px = -0.2 if approaching else 0.0
    res = simulate(switched_ball(approaching))
    assert res.summary["failure"] is None
    # (with `approaching`, the ball is enabled again at the apex of each bounce: later events)
    on = [ev for ev in res.events if ev.kind == "enabled"]
    exact = VY / G if approaching else (px - X0) / VX
    assert on and abs(on[0].t - exact) < 1e-10, (on[0].t, exact)
    # the enabled signal follows (the rows after the initial one), and the landing is the parabola's
    enabled, t = res[f"contact.{res.model.contact_names[0]}.enabled"], res["t"]
    assert np.all(enabled[(t > 0) & (t < exact - 1e-3)] == 0) and np.all(enabled[t > exact + 1e-3][:100] == 1)
    land = next(ev for ev in res.events if ev.kind == "impact")
    t_land = (VY + math.sqrt(VY * VY + 2 * G * (Y0 - R))) / G
    assert abs(land.t - t_land) < 1e-10
