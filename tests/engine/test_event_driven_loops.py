"""Loop joints under the event-driven integrator: the constrained dynamics at acceleration level in the
smooth phases, q and v projected back onto the loops after every step, the loops' equalities kept
in the impact problem.

References: the four-bar as bars in maximal coordinates (test_loop_joints._dae_four_bar: 8 pin
constraints, scipy DOP853); the slider–crank reduced to its one degree of freedom φ (crank angle),
written here from its geometry alone — M(φ) φ̈ + ½ M'(φ) φ̇² + V'(φ) = 0, the stop's gap a root, and
at each strike φ̇⁺ = −e φ̇⁻ (Newton's law on a one-dof system)."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nsgui.engine import simulate
from nsgui.engine.simulator import Simulator
from nsgui.engine.compile import compile_scene

from tests.engine.test_loop_joints import _dae_four_bar
from tests.helpers import example


def event_driven(name, **settings):
    return example(name).with_values({"settings.integrator": "event_driven",
                                      **{f"settings.{k}": v for k, v in settings.items()}})


def loop_errors(res):
    return np.concatenate([res[n] for n in res.signals if n.startswith("loop.") and n.endswith(".error")])


# ------------------------------------------------------------------ four-bar (no contact)
def test_four_bar_follows_the_dae_keeps_its_loop_closed_and_its_energy():
    t_end = 2.0
    scene = event_driven("four_bar", duration=t_end)
    crank, pin_force = _dae_four_bar(scene, t_end)
    res = simulate(scene)
    assert res.summary["failure"] is None
    t = res["t"]
    assert np.max(np.abs(res["q.crank"] - crank(t))) < 1e-7
    assert np.max(loop_errors(res)) < 1e-9
    E = res["energy.total"]
    assert np.max(np.abs(E - E[0])) < 1e-8 * abs(E[0]) + 1e-9
    assert np.max(np.abs(res["energy.residual"])) < 1e-8
    # the loop force is the DAE's at the same state (the constraint force of the exact motion)
    model = res.model
    for k in (100, 1000, len(t) - 1):
        q = np.array([res[f"q.{c}"][k] for c in model.coord_names])
        v = np.array([res[f"v.{c}"][k] for c in model.coord_names])
        exact = pin_force(q, v)
        force = np.array([res["loop.coupler_rocker.fx"][k], res["loop.coupler_rocker.fy"][k]])
        assert np.linalg.norm(force - exact) < 1e-6 * np.linalg.norm(exact) + 1e-6, (k, force, exact)


def test_time_stepping_converges_to_the_event_driven_four_bar():
    t_end = 1.0
    ed = simulate(event_driven("four_bar", duration=t_end))
    base = example("four_bar")
    errors = []
    for f in (10, 100):
        ts = simulate(base, dt=base.settings.dt / f, duration=t_end, projection=False)
        errors.append(max(np.max(np.abs(ts[f"q.{c}"][::f] - ed[f"q.{c}"])) for c in ed.model.coord_names))
    assert errors[1] < errors[0] / 5, errors    # first order, the order of time stepping on a linkage
    assert errors[1] < 2e-2, errors


# ------------------------------------------------------------------ slider–crank (a stop)
def slider_crank_reference(scene, t_end):
    """φ(t) and the strike times of the slider–crank, reduced to the crank angle."""
    bodies = {b.name: b for b in scene.bodies}
    joints = {j.name: j for j in scene.joints}
    r = joints["rod"].anchor_parent[0]           # crank length
    ell = joints["pin"].anchor_parent[0]         # rod length
    g = -scene.gravity[1]
    crank, rod, slider = bodies["crank"], bodies["rod"], bodies["slider"]
    half = next(s for s in slider.shapes if s.type == "box").width / 2
    wall = scene.obstacles[0].point[0]
    e = scene.contacts[0].restitution

    def geometry(phi):  # (com positions, absolute angles) of crank, rod, slider; complex-safe
        psi = -np.arcsin(r * np.sin(phi) / ell)
        tip = np.array([r * np.cos(phi), r * np.sin(phi)])
        cc = crank.com[0] * np.array([np.cos(phi), np.sin(phi)])
        cr = tip + rod.com[0] * np.array([np.cos(psi), np.sin(psi)])
        cs = tip + ell * np.array([np.cos(psi), np.sin(psi)])
        return (cc, cr, cs), (phi, psi, 0.0 * phi)

    def d_dphi(phi):  # derivatives by the complex step (exact to round-off)
        hs = 1e-20
        (cc, cr, cs), (a, b, c) = geometry(phi + 1j * hs)
        return [np.imag(p) / hs for p in (cc, cr, cs)], [np.imag(x) / hs for x in (a, b, c)]

    masses = [crank.mass, rod.mass, slider.mass]
    inertias = [crank.inertia, rod.inertia, slider.inertia]

    def mass(phi):
        dc, da = d_dphi(phi)
        return sum(m * p @ p + i * w * w for m, p, i, w in zip(masses, dc, inertias, da))

    def potential_slope(phi):
        dc, _ = d_dphi(phi)
        return g * sum(m * p[1] for m, p in zip(masses, dc))

    def rhs(t, y):
        phi, w = y
        dm = (mass(phi + 1e-6) - mass(phi - 1e-6)) / 2e-6
        return [w, -(0.5 * dm * w * w + potential_slope(phi)) / mass(phi)]

    def gap(t, y):
        (_, _, cs), _ = geometry(y[0])
        return wall - (cs[0] + half)
    gap.terminal, gap.direction = True, -1

    q0 = scene.initial.q["crank"]
    y0, t0, strikes, pieces = [q0, scene.initial.v["crank"]], 0.0, [], []
    while t0 < t_end:
        sol = solve_ivp(rhs, (t0, t_end), y0, method="DOP853", rtol=1e-12, atol=1e-13, dense_output=True,
                        events=gap)
        assert sol.success
        pieces.append((t0, sol.t[-1], sol.sol))
        if sol.status != 1:
            break
        t0 = sol.t_events[0][0]
        strikes.append(t0)
        phi, w = sol.y_events[0][0]
        y0 = [phi, -e * w]  # one dof: U⁺ = −e U⁻ is φ̇⁺ = −e φ̇⁻

    def phi_at(t):
        out = np.empty_like(t)
        for a, b, f in pieces:
            sel = (t >= a - 1e-9) & (t <= b + 1e-9)  # rows a few ulp past the end included
            if sel.any():
                out[sel] = f(t[sel])[0]
        return out
    return phi_at, strikes


def test_slider_crank_strikes_its_stop_as_the_reduced_model_does():
    scene = event_driven("slider_crank")
    t_end = 0.8                       # six strikes, before they accumulate (at 0.8072 s)
    phi, strikes = slider_crank_reference(scene, t_end)
    assert len(strikes) >= 5
    res = simulate(scene, duration=t_end)
    assert res.summary["failure"] is None
    got = sorted({ev.t for ev in res.events if ev.kind == "impact"})
    assert len(got) >= len(strikes)
    for ts, te in zip(strikes, got):
        assert abs(ts - te) < 1e-8, (ts, te)
    t = res["t"]
    assert np.max(np.abs(res["q.crank"] - phi(t))) < 1e-7
    assert np.max(loop_errors(res)) < 1e-9
    # the slider stays on its guide (y = 0, angle 0) through the strikes
    poses = np.array([res.model.body_poses(np.array([res[f"q.{c}"][k] for c in res.model.coord_names]))
                      for k in range(0, len(t), 10)])
    s = res.model.body_index["slider"]
    assert np.max(np.abs(poses[:, s, 1])) < 1e-9 and np.max(np.abs(poses[:, s, 2])) < 1e-9


def test_time_stepping_converges_to_the_event_driven_slider_crank():
    t_end = 0.74                      # two strikes
    ed = simulate(event_driven("slider_crank", duration=t_end))
    base = example("slider_crank")
    errors = []
    for f in (10, 100):
        ts = simulate(base, dt=base.settings.dt / f, duration=t_end, projection=False)
        errors.append(np.max(np.abs(ts["q.crank"][::f] - ed["q.crank"])))
    assert errors[1] < errors[0] / 5, errors
    assert errors[1] < 5e-3, errors


def test_resume_from_a_snapshot_is_exact_with_loops():
    """A snapshot restores the run exactly (the loops' forces are recomputed, not state): one run of
    1 s against 0.5 s, snapshot into a new simulator, 0.5 s more — with either integrator."""
    for integrator in ("time_stepping", "event_driven"):
        scene = example("slider_crank").with_values({"settings.integrator": integrator})
        model = compile_scene(scene)
        n = int(round(0.5 / model.dt))
        first = Simulator(model).run(2 * n)
        b = Simulator(model)
        b.run(n)
        c = Simulator(model)
        c.set_state(b.get_state())
        second = c.run(n)
        assert np.array_equal(first[n:], second), integrator
