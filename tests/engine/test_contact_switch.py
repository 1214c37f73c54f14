"""Contacts switched during a run (issue 11 §3): a swing foot that scuffs through the ground at
mid-swing (the compass-gait model) and may land only once ahead and moving down; a contact switched by
a controller. The switch state is a signal and part of the simulator state."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import IMPACT
from nsgui.scene import SceneBuilder

L, DIP, G, H = 1.0, 0.02, 9.81, 1e-4   # leg length, how far the foot passes below the ground
Q0 = -0.6                               # released at rest behind the pivot


def swing_leg(switch):
    """A point-mass leg on a pivot at height L - DIP (q = 0 hangs down); its foot passes DIP below
    the ground at mid-swing."""
    b = SceneBuilder("swing", gravity=(0.0, -G))
    leg = b.body("leg", mass=1.0, inertia=1e-6, com=(L, 0.0))
    foot = leg.point((L, 0.0), name="foot")
    ground = b.ground()
    b.revolute("hip", child=leg, anchor_parent=(0.0, L - DIP), angle=-np.pi / 2, q0=Q0)
    b.contact(foot, ground, restitution=0.0, name="foot_ground")
    b.settings(dt=H, duration=3.0, projection=False)
    scene = b.build()
    if switch is not None:
        from nsgui.scene import scene_from_dict, scene_to_dict
        d = scene_to_dict(scene)
        d["contacts"][0]["switch"] = switch
        scene = scene_from_dict(d)
    return compile_scene(scene)


def pendulum_crossings():
    """Times the free pendulum's foot crosses the ground level going down: behind, then ahead."""
    def f(t, x):
        return [x[1], -G / L * np.sin(x[0])]

    def down(t, x):  # foot height (L - DIP) - L cos q
        return (L - DIP) - L * np.cos(x[0])
    down.direction = -1
    sol = solve_ivp(f, (0, 3), [Q0, 0.0], events=down, rtol=1e-12, atol=1e-12)
    ev = sol.t_events[0]
    return ev[0], ev[1]


def _first_impact(model, nsteps):
    rows = Simulator(model).run(nsteps)
    names = model.signal_names
    k = np.nonzero(rows[:, names.index("contact.foot_ground.status")] == IMPACT)[0]
    return rows, (rows[k[0], 0] if len(k) else None)


def test_the_foot_scuffs_through_at_mid_swing_and_lands_ahead():
    behind, ahead = pendulum_crossings()
    # an ordinary contact stops the swing where the foot first reaches the ground, behind the pivot
    _, t_hit = _first_impact(swing_leg(None), int(1.5 / H))
    assert t_hit == pytest.approx(behind, abs=2 * H)
    # switched: enabled only ahead of the pivot and moving down
    model = swing_leg({"when": "ahead", "axis": [1.0, 0.0]})
    assert "contact.foot_ground.enabled" in model.signal_names
    rows, t_hit = _first_impact(model, int(1.5 / H))
    assert t_hit == pytest.approx(ahead, abs=2 * H)
    names = model.signal_names
    t, on = rows[:, 0], rows[:, names.index("contact.foot_ground.enabled")]
    gap = rows[:, names.index("contact.foot_ground.gap")]
    assert gap.min() == pytest.approx(-DIP, abs=1e-4)              # it went through the ground
    assert np.all(on[t < 0.5 * (behind + ahead)] == 0.0)            # disabled while behind / rising
    after = t > t_hit + 2 * H
    assert np.all(on[after] == 1.0)                                  # landed (e = 0): stays enabled
    # at rest on the ground; the scheme without projection leaves the landing step's O(h v) penetration
    assert np.abs(gap[after]).max() < H * 0.5 and np.abs(rows[after, names.index("v.hip")]).max() < 1e-6
    # the free swing before landing is the pendulum's
    q = rows[:, names.index("q.hip")]
    ref = solve_ivp(lambda s, x: [x[1], -G / L * np.sin(x[0])], (0, t_hit), [Q0, 0.0], t_eval=t[t < t_hit - H],
                    rtol=1e-12, atol=1e-12).y[0]
    assert np.abs(q[t < t_hit - H] - ref).max() < 1e-5


def test_a_controller_switches_a_contact_and_the_flag_is_state():
    model = swing_leg({"when": "controller"})
    sim = Simulator(model)
    names = model.signal_names
    col = names.index("contact.foot_ground.enabled")
    behind, ahead = pendulum_crossings()
    sim.set_contact_enabled("foot_ground", False)
    rows = sim.run(int(0.5 * (behind + ahead) / H))    # through the ground behind: nothing stops it
    assert np.all(rows[:, col] == 0.0) and not (rows[:, names.index("contact.foot_ground.status")] == IMPACT).any()
    snap = sim.get_state()
    sim.set_contact_enabled("foot_ground", True)
    rows = sim.run(int(1.0 / H))
    k = np.nonzero(rows[:, names.index("contact.foot_ground.status")] == IMPACT)[0]
    assert len(k) and rows[k[0], 0] == pytest.approx(ahead, abs=2 * H)
    sim.set_state(snap)                                  # the flag comes back with the state
    assert sim.signals()["contact.foot_ground.enabled"] == 0.0
    with pytest.raises(ValueError, match="not switched by a controller"):
        Simulator(swing_leg(None)).set_contact_enabled("foot_ground", True)
