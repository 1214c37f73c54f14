"""Loop-closing joints (scene `loops`, issue 11 §2): bilateral constraints in the one-step problem.

The four-bar is checked against an independent solution: the same bars in maximal coordinates (x, y, φ
per bar, constant diagonal mass matrix, four pins as eight constraints), an index-1 DAE with Baumgarte
stabilization integrated by scipy's DOP853 at tight tolerances. Then: energy kept at θ = ½ without
contact, the loop closed to 1e-10 after every step, the pin force of a loaded linkage at rest against
statics, and the slider–crank's slider bouncing off its stop with Newton's law while its prismatic loop
stays closed.
"""

from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nsgui.engine.codes import IMPACT
from nsgui.engine.compile import compile_scene
from nsgui.engine.simulate import simulate
from nsgui.scene import SceneError, load_scene, scene_from_dict, scene_to_dict

SCENES = Path(__file__).resolve().parents[2] / "resources" / "scenes"


def _four_bar(**settings):
    s = load_scene(SCENES / "four_bar.json")
    for k, v in settings.items():
        setattr(s.settings, k, v)
    return s


# ---------------------------------------------------------------- the independent solution
def _rot(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def _dae_four_bar(scene, t_end):
    """The scene's four-bar as bars in maximal coordinates. Returns (crank angle at t, the force of the
    coupler–rocker pin on the coupler at a tree state (q, v)), both from the DAE."""
    bodies = {b.name: b for b in scene.bodies}
    names = ["crank", "coupler", "rocker"]
    g = np.asarray(scene.gravity)
    mass = np.array([bodies[n].mass for n in names])
    inertia = np.array([bodies[n].inertia for n in names])
    com = [np.asarray(bodies[n].com) for n in names]
    M = np.diag([v for i in range(3) for v in (mass[i], mass[i], inertia[i])])
    j = {jt.name: jt for jt in scene.joints}
    lp = scene.loops[0]
    # pins: (body i, point in i's frame, body k or -1 for the world, point in k's frame / world)
    pins = [(0, np.zeros(2) - 0.0 + np.asarray(j["crank"].anchor_child), -1, np.asarray(j["crank"].anchor_parent)),
            (1, np.asarray(j["coupler"].anchor_child), 0, np.asarray(j["coupler"].anchor_parent)),
            (2, np.asarray(j["rocker"].anchor_child), -1, np.asarray(j["rocker"].anchor_parent)),
            (1, np.asarray(lp.a.point), 2, np.asarray(lp.b.point))]

    def point(x, i, p):  # world point and its Jacobian row block of a body-frame point p (relative to com)
        phi = x[3 * i + 2]
        r = _rot(phi) @ (p - com[i])
        return x[3 * i:3 * i + 2] + r, r

    def constraints(x, v):
        G = np.zeros((8, 9))
        gval = np.zeros(8)
        gdot_v = np.zeros(8)  # Ġ v
        for c, (i, pi, k, pk) in enumerate(pins):
            wi, ri = point(x, i, pi)
            rows = slice(2 * c, 2 * c + 2)
            G[rows, 3 * i:3 * i + 2] = np.eye(2)
            G[rows, 3 * i + 2] = [-ri[1], ri[0]]
            gdot_v[rows] = -v[3 * i + 2] ** 2 * ri
            if k >= 0:
                wk, rk = point(x, k, pk)
                G[rows, 3 * k:3 * k + 2] = -np.eye(2)
                G[rows, 3 * k + 2] = [rk[1], -rk[0]]
                gdot_v[rows] += v[3 * k + 2] ** 2 * rk
            else:
                wk = pk
            gval[rows] = wi - wk
        return gval, G, gdot_v

    f = np.array([v for i in range(3) for v in (mass[i] * g[0], mass[i] * g[1], 0.0)])
    alpha = 20.0

    def accel(x, v):
        gval, G, gdv = constraints(x, v)
        A = np.block([[M, G.T], [G, np.zeros((8, 8))]])
        rhs = np.concatenate([f, -gdv - 2 * alpha * (G @ v) - alpha ** 2 * gval])
        sol = np.linalg.solve(A, rhs)
        return sol[:9], -sol[9:]  # M a = f + Gᵀλ

    model = compile_scene(scene)

    def maximal(q, v):  # the bars' (x, y, φ) and velocities at a tree state, through nsgui's kinematics
        poses = model.body_poses(q)
        eps = 1e-7
        dposes = (model.body_poses(q + eps * v) - model.body_poses(q - eps * v)) / (2 * eps)
        x, xd = np.zeros(9), np.zeros(9)
        for i, n in enumerate(names):
            b = model.body_index[n]
            rc = _rot(poses[b, 2]) @ com[i]
            x[3 * i:3 * i + 2] = poses[b, :2] + rc
            x[3 * i + 2] = poses[b, 2]
            w = dposes[b, 2]
            xd[3 * i:3 * i + 2] = dposes[b, :2] + w * np.array([-rc[1], rc[0]])
            xd[3 * i + 2] = w
        return x, xd

    x0, v0 = maximal(model.q0, model.v0)

    sol = solve_ivp(lambda t, y: np.concatenate([y[9:], accel(y[:9], y[9:])[0]]), (0.0, t_end),
                    np.concatenate([x0, v0]), method="DOP853", rtol=1e-11, atol=1e-12, dense_output=True)
    assert sol.success

    def pin_force(q, v):  # rows 6, 7: the loop pin, coupler − rocker
        return accel(*maximal(q, v))[1][6:8]
    return (lambda t: sol.sol(t)[2]), pin_force


def _state(r, model, k):
    return (np.array([r[f"q.{c}"][k] for c in model.coord_names]),
            np.array([r[f"v.{c}"][k] for c in model.coord_names]))


def test_four_bar_matches_the_dae_in_maximal_coordinates():
    """The Moreau–Jean scheme takes M(q) at the start of the step, so on a linkage it converges at
    first order: the crank angle's error halves with h, and its Richardson extrapolation 2 q(h/2) − q(h)
    agrees with the DAE to O(h²). The pin force over a step matches the DAE's at the step's mid-state."""
    t_end = 1.0
    crank, pin_force = _dae_four_bar(_four_bar(), t_end)
    model = compile_scene(_four_bar())
    errors = []
    for h in (2e-4, 1e-4):
        r = simulate(_four_bar(dt=h, duration=t_end, projection=False))
        errors.append(r["q.crank"][-1] - crank(t_end))
        (q0, v0), (q1, v1) = _state(r, model, -2), _state(r, model, -1)
        force = np.array([r["loop.coupler_rocker.fx"][-1], r["loop.coupler_rocker.fy"][-1]])
        exact = pin_force((q0 + q1) / 2, (v0 + v1) / 2)
        assert np.linalg.norm(force - exact) < 200 * h * np.linalg.norm(exact), (h, force, exact)
    assert 1.8 < errors[0] / errors[1] < 2.2, errors  # first order
    assert abs(2 * errors[1] - errors[0]) < 5e-3, errors
    assert abs(2 * errors[1] - errors[0]) < 0.1 * abs(errors[1]), errors


def _pinned_free_body(theta0, h, duration, L=0.8):
    """A body on a free joint (constant M) whose point (0, L) is pinned to the world origin by a loop
    joint: a compound pendulum, angle = the body's angle."""
    d = {"format": "nsgui-scene", "version": 1, "gravity": [0.0, -9.81],
         "bodies": [{"name": "bob", "mass": 2.0, "inertia": 0.05, "com": [0.0, 0.0],
                     "shapes": [{"type": "disk", "radius": 0.1}]}],
         "joints": [{"name": "bob", "type": "free", "child": "bob"}],
         "loops": [{"name": "pivot", "type": "revolute", "a": {"body": "bob", "point": [0.0, L]},
                    "b": {"body": "world", "point": [0.0, 0.0]}}],
         "initial": {"q": {"bob.theta": theta0}},
         "settings": {"dt": h, "duration": duration, "projection": False}}
    return scene_from_dict(d)


def test_a_free_body_pinned_by_a_loop_joint_is_the_compound_pendulum():
    """Constant M and gravity: the θ = ½ scheme is second order and the loop's percussions (Jacobian
    at the step's midpoint) do no work at v_θ, so the energy balance closes to round-off and the only
    change of the total energy is the projection's (booked, O(h³) per step)."""
    theta0, L, m, inertia, g, T = 2.0, 0.8, 2.0, 0.05, 9.81, 2.0
    exact = solve_ivp(lambda t, y: [y[1], -m * g * L * np.sin(y[0]) / (inertia + m * L * L)], (0.0, T),
                      [theta0, 0.0], method="DOP853", rtol=1e-12, atol=1e-12).y[0, -1]
    errors = []
    for h in (2e-3, 1e-3):
        r = simulate(_pinned_free_body(theta0, h, T))
        errors.append(abs(r["q.bob.theta"][-1] - exact))
        assert np.max(np.abs(r["energy.residual"])) < 1e-10
        E = r["energy.total"]
        assert np.max(np.abs(E - E[0])) < 2.5e-5 * (h / 1e-3) ** 2  # measured 1.8e-5 at h = 1e-3
        assert np.max(r["loop.pivot.error"]) < 1e-10
        # the initial state was assembled: x, y follow from the angle
        assert abs(r["q.bob.x"][0] - L * np.sin(r["q.bob.theta"][0])) < 1e-12
    assert errors[1] < 1e-3 and 3.5 < errors[0] / errors[1] < 4.5, errors


def test_four_bar_loses_energy_only_at_the_schemes_first_order():
    """On the four-bar M(q) changes, and the scheme (M at the start of the step) is first order: the
    energy drift halves with h. The loop stays closed to 1e-10 throughout."""
    drift = []
    for h in (1e-3, 5e-4):
        r = simulate(_four_bar(dt=h, duration=2.0))
        E = r["energy.total"]
        drift.append(np.max(np.abs(E - E[0])))
        assert np.max(r["loop.coupler_rocker.error"]) < 1e-10
        assert abs(r["energy.projection"][-1]) < 0.01 * drift[-1]
    assert drift[0] < 0.02 * E[0] and 1.8 < drift[0] / drift[1] < 2.2, drift


def test_pin_force_of_a_loaded_linkage_at_rest():
    """Two 0.5-m links hanging from pivots 0.4 m apart carry a 0.4-m beam of 2 kg whose centre of mass
    sits 0.1 m from its left end: at rest the right pin (the loop joint) carries m g 0.1 / 0.4 upward."""
    d = scene_to_dict(_four_bar())
    d["bodies"][0]["com"], d["bodies"][2]["com"] = [0.25, 0.0], [0.25, 0.0]
    d["bodies"][1].update(mass=2.0, com=[0.1, 0.0])
    d["joints"][0].update(anchor_parent=[0.0, 0.0], angle=-np.pi / 2)
    d["joints"][1].update(anchor_parent=[0.5, 0.0], angle=np.pi / 2)
    d["joints"][2].update(anchor_parent=[0.4, 0.0], angle=-np.pi / 2)
    d["loops"][0]["a"]["point"], d["loops"][0]["b"]["point"] = [0.4, 0.0], [0.5, 0.0]
    d["initial"] = {"q": {"crank": 0.0, "coupler": 0.0, "rocker": 0.0}, "v": {}}
    d["settings"].update(duration=0.5, dt=1e-3)
    s = scene_from_dict(d)
    r = simulate(s)
    g = -s.gravity[1]
    assert np.allclose(r["q.crank"], 0.0, atol=1e-12)
    # row 0 is the initial state, before any step
    assert np.allclose(r["loop.coupler_rocker.fy"][1:], 2.0 * g * 0.1 / 0.4, rtol=1e-10, atol=1e-9)
    assert np.allclose(r["loop.coupler_rocker.fx"][1:], 0.0, atol=1e-9)


def test_slider_hits_its_stop_with_newtons_law_and_the_guide_closed():
    s = load_scene(SCENES / "slider_crank.json")
    s.settings.duration = 1.0
    r = simulate(s)
    points = [n[len("contact."):-len(".status")] for n in r.signals if n.startswith("contact.slider_stop[")
              and n.endswith(".status")]
    status = np.max([r[f"contact.{p}.status"] for p in points], axis=0)
    gap = np.min([r[f"contact.{p}.gap"] for p in points], axis=0)
    hits = np.nonzero(status == IMPACT)[0]
    assert hits.size >= 1
    k = hits[0]
    x_before, x_after = r["v.crank"][k - 1], r["v.crank"][k]
    # the slider's speed along x before and after: from the rod's end, through the model
    model = compile_scene(s)
    vx = []
    for row in (k - 1, k):
        q = np.array([r[f"q.{c}"][row] for c in model.coord_names])
        v = np.array([r[f"v.{c}"][row] for c in model.coord_names])
        eps = 1e-7
        x = lambda qq: model.body_poses(qq)[model.body_index["slider"], 0]
        vx.append((x(q + eps * v) - x(q - eps * v)) / (2 * eps))
    assert vx[0] > 0.3 and x_before != x_after
    # Newton's law U+ = -e U- (e = 0.5), up to one step of the smooth forces
    assert abs(vx[1] + 0.5 * vx[0]) < 0.02 * vx[0], vx
    assert np.min(gap) > -2e-6  # the projection's tolerance (1 µm) after every step
    assert np.max(r["loop.guide.error"]) < 1e-10
    assert r["energy.impact"][-1] > 0


def test_the_slider_comes_to_rest_on_its_stop_without_chatter():
    """Pressed on its stop by the crank's weight, the slider rests: its contact points keep their
    status (before, the contacts' projection's velocity change broke the guide's H_b v = 0, the step
    carried that on with alternating sign, and two corners switched between open and slip at every
    step)."""
    s = load_scene(SCENES / "slider_crank.json")
    s.settings.duration = 2.5
    r = simulate(s)
    late = r["t"] > 1.5
    for name in r.signals:
        if name.startswith("contact.slider_stop[") and name.endswith(".status"):
            assert np.all(np.diff(r[name][late]) == 0), name
    assert np.max(np.abs(r["loop.guide.fx"][late])) < 1e-9  # a frictionless guide along x


def test_the_slider_crank_at_rest_carries_the_static_stop_force():
    """At rest on its stop, the stop force is the static one (virtual work with the crank angle the run
    came to rest at), constant, and nothing moves. At θ = ½ the guide's velocity error left by the
    impacts is mirrored at every step (H_b v⁺ = −H_b v_k: the positions do not see it) and never decays:
    v.crank ±3.2e-3 rad/s and a stop force alternating 12.553 / 14.649 N around this 13.601 N; the
    example takes θ = 0.51, which damps it by (1 − θ)/θ a step."""
    s = load_scene(SCENES / "slider_crank.json")
    assert s.settings.theta > 0.5
    s.settings.duration = 2.5
    r = simulate(s)
    late = r["t"] > 1.5
    # the closed chain: crank (length a, mass m1, centre at a/2), rod (b, m2, centre at its middle),
    # slider on y = 0 at x_s(φ) = a cos φ + sqrt(b² − a² sin² φ); V(φ) = g (m1 + m2) (a/2) sin φ
    body = {b.name: b for b in s.bodies}
    joint = {j.name: j for j in s.joints}
    a, b = joint["rod"].anchor_parent[0], joint["pin"].anchor_parent[0]
    m1, m2, g = body["crank"].mass, body["rod"].mass, -s.gravity[1]
    half = body["slider"].shapes[0].width / 2
    phi = r["q.crank"][late]
    assert np.ptp(phi) < 1e-10  # no creep (|v| ~ 1e-12 rad/s)
    phi = phi[-1]
    root = np.sqrt(b * b - a * a * np.sin(phi) ** 2)
    x_s = a * np.cos(phi) + root
    assert abs(x_s + half - s.obstacles[0].point[0]) < 2e-6  # on its stop (the projection's tolerance)
    dx = -a * np.sin(phi) - a * a * np.sin(phi) * np.cos(phi) / root
    force = -g * (m1 + m2) * (a / 2) * np.cos(phi) / dx  # F dx_s/dφ + dV/dφ = 0, F pushing along -x
    fn = sum(r[n][late] for n in r.signals if n.startswith("contact.slider_stop[") and n.endswith(".fn"))
    np.testing.assert_allclose(fn, force, rtol=1e-9)
    assert np.max(r["energy.kinetic"][late]) < 1e-20
    assert np.max(np.abs(r["v.crank"][late])) < 1e-9


@pytest.mark.parametrize("edit, path, words", [
    (lambda d: d["loops"][0]["a"].update(body="nobody"), "loops[0].a.body", "no body named"),
    (lambda d: d["loops"][0]["b"].update(body="coupler"), "loops[0]", "to itself"),
    (lambda d: d["loops"][0].update(name="rocker"), "loops[0].name", "also a joint's name"),
    (lambda d: d["loops"][0]["b"].update(point=[5.0, 0.0]), "loops[0]", "cannot close"),
])
def test_bad_loop_joints_are_named(edit, path, words):
    d = scene_to_dict(_four_bar())
    edit(d)
    with pytest.raises(SceneError) as e:
        compile_scene(scene_from_dict(d))
    text = str(e.value)
    assert path in text and words in text, text
