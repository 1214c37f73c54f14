"""Impact laws per contact (issue 11 §5): Newton's e_N, Moreau's e (the thesis' weight, e_N = e/(2 − e),
errata 000-1) and a tangential restitution e_T for friction impacts, each against the closed form of
one impact (no gravity, so the step's impact is the whole change of velocity) and on a rod landing on
one end, whose post-impact velocities the test computes from the rigid-body impulse equations."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.scene import SceneBuilder, SceneError

H = 1e-4


def _disk(vx, vy, omega, *, e=0.5, law="newton", mu=0.0, et=0.0, m=2.0, r=0.1, inertia=0.004):
    b = SceneBuilder("disk", gravity=(0.0, 0.0))
    ball = b.body("ball", mass=m, inertia=inertia)
    disk = ball.disk(r)
    ground = b.ground()
    b.free("ball", child=ball, q0=(0.0, r + 0.25 * H * abs(vy), 0.0), v0=(vx, vy, omega))
    b.contact(disk, ground, restitution=e, friction=mu, impact_law=law, tangential_restitution=et,
              name="hit")
    b.settings(dt=H, duration=1.0, projection=False)
    return compile_scene(b.build())


def _after_impact(model, steps=5):
    sim = Simulator(model)
    rows = sim.run(steps)
    names = model.signal_names
    status = rows[:, names.index("contact.hit.status")]
    assert (status == 3).sum() == 1  # one impact step
    return dict(zip(names, rows[-1]))


@pytest.mark.parametrize("law, e, e_n", [("newton", 0.5, 0.5), ("moreau", 2.0 / 3.0, 0.5), ("moreau", 1.0, 1.0),
                                         ("moreau", 0.4, 0.25), ("newton", 0.0, 0.0)])
def test_normal_rebound_follows_the_law(law, e, e_n):
    out = _after_impact(_disk(0.0, -1.3, 0.0, e=e, law=law))
    assert out["v.ball.y"] == pytest.approx(1.3 * e_n, rel=1e-12)


def test_a_sticking_friction_impact_reverses_the_contact_point_by_e_t():
    """Disk: contact point velocity u_T = vx + r ω. With enough friction the tangential impulse gives
    u_T+ = −e_T u_T−: P_T = −(1 + e_T) u_T− / (1/m + r²/I), within μ P_N, P_N = m (1 + e_N) |vy−|."""
    m, r, inertia, e_n, e_t = 2.0, 0.1, 0.004, 0.5, 0.6
    vx, vy, w = 0.4, -1.0, 3.0
    out = _after_impact(_disk(vx, vy, w, e=e_n, mu=5.0, et=e_t, m=m, r=r, inertia=inertia))
    uT = vx + r * w
    PT = -(1 + e_t) * uT / (1 / m + r * r / inertia)
    assert abs(PT) <= 5.0 * m * (1 + e_n) * abs(vy)
    assert out["v.ball.x"] == pytest.approx(vx + PT / m, rel=1e-10)
    assert out["v.ball.theta"] == pytest.approx(w + r * PT / inertia, rel=1e-10)
    assert out["v.ball.x"] + r * out["v.ball.theta"] == pytest.approx(-e_t * uT, rel=1e-10)
    assert out["v.ball.y"] == pytest.approx(-e_n * vy, rel=1e-12)
    # e_T = 0 is the standard law: the contact point stops
    out = _after_impact(_disk(vx, vy, w, e=e_n, mu=5.0, et=0.0, m=m, r=r, inertia=inertia))
    assert out["v.ball.x"] + r * out["v.ball.theta"] == pytest.approx(0.0, abs=1e-12)


def test_a_sliding_friction_impact_takes_mu_p_n_whatever_e_t():
    m, r, inertia, e_n, mu = 2.0, 0.1, 0.004, 0.5, 0.1
    vx, vy, w = 2.0, -1.0, 0.0
    for e_t in (0.0, 0.8):
        out = _after_impact(_disk(vx, vy, w, e=e_n, mu=mu, et=e_t, m=m, r=r, inertia=inertia))
        PN = m * (1 + e_n) * abs(vy)
        assert out["v.ball.x"] == pytest.approx(vx - mu * PN / m, rel=1e-10)
        assert out["v.ball.theta"] == pytest.approx(w - r * mu * PN / inertia, rel=1e-10)


def _rod(v, omega, angle, *, e, law="newton", mu=0.0, et=0.0, m=1.5, length=0.8):
    """A thin rod (inertia m L²/12) tilted by `angle`, its lower end just above the ground."""
    b = SceneBuilder("rod", gravity=(0.0, 0.0))
    rod = b.body("rod", mass=m, inertia=m * length ** 2 / 12)
    bar = rod.capsule(length, 0.0)
    ground = b.ground()
    y0 = 0.5 * length * np.sin(angle) + 0.25 * H * abs(v[1]) + 1e-12
    b.free("rod", child=rod, q0=(0.0, y0, angle), v0=(v[0], v[1], omega))
    b.contact(bar, ground, restitution=e, friction=mu, impact_law=law, tangential_restitution=et, name="hit")
    b.settings(dt=H, duration=1.0, projection=False)
    return compile_scene(b.build())


@pytest.mark.parametrize("law, e, mu, e_t", [("newton", 0.7, 0.0, 0.0), ("moreau", 1.2, 0.0, 0.0),
                                             ("newton", 0.3, 2.0, 0.5)])
def test_rod_landing_on_one_end(law, e, mu, e_t):
    """Post-impact velocities from the impulse equations at the lower end r = −(L/2)(cos a, sin a):
    u = v + ω × r, Δu = W P with W the 2x2 Delassus matrix of a free rigid body, u_N+ = −e_N u_N−
    and, sticking, u_T+ = −e_T u_T−."""
    m, L, a = 1.5, 0.8, 0.5
    inertia = m * L ** 2 / 12
    v, w = np.array([0.3, -1.1]), -0.4
    e_n = e if law == "newton" else e / (2 - e)
    rx, ry = -0.5 * L * np.cos(a), -0.5 * L * np.sin(a)
    u = v + w * np.array([-ry, rx])
    G = np.array([[-ry], [rx]])                      # the end's velocity per unit ω
    W = np.eye(2) / m + (G @ G.T) / inertia          # x, y components
    models = _rod(v, w, a, e=e, law=law, mu=mu, et=e_t)
    names = models.signal_names
    rows = Simulator(models).run(4)
    status_cols = [k for k, n in enumerate(names) if n.startswith("contact.hit") and n.endswith(".status")]
    assert (rows[:, status_cols] == 3).sum() == 1  # the lower end only, once
    out = dict(zip(names, rows[-1]))
    if mu == 0.0:
        PN = -(1 + e_n) * u[1] / W[1, 1]
        P = np.array([0.0, PN])
    else:
        P = np.linalg.solve(W, np.array([-(1 + e_t) * u[0], -(1 + e_n) * u[1]]))
        assert abs(P[0]) <= mu * P[1]
    v_after = v + P / m
    w_after = w + (rx * P[1] - ry * P[0]) / inertia
    assert out["v.rod.x"] == pytest.approx(v_after[0], abs=1e-10)
    assert out["v.rod.y"] == pytest.approx(v_after[1], rel=1e-10)
    assert out["v.rod.theta"] == pytest.approx(w_after, rel=1e-10)


def test_restitution_ranges_depend_on_the_law():
    with pytest.raises(SceneError, match=r"contacts\[0\]\.restitution: Newton's e_N must be in \[0, 1\]"):
        _disk(0.0, -1.0, 0.0, e=1.5)
    with pytest.raises(SceneError, match=r"contacts\[0\]\.restitution: Moreau's e must be < 2"):
        _disk(0.0, -1.0, 0.0, e=2.0, law="moreau")
    _disk(0.0, -1.0, 0.0, e=1.5, law="moreau")  # e_N = 3: allowed, energy-increasing (thesis §3.3.2)
