"""The switching tracking scheme (nsgui/engine/control/bno.py) on resources/scenes/two_link_tracking.json:
its phase switches at the right instants, its impact counter and transition length against an
independent count from the contact's percussions, the constrained phase's force and path, take-off."""

import numpy as np
import pytest

from nsgui.engine import simulate
from nsgui.engine.control.cycles import cycle_metrics

from tests.helpers import example

P, LEAD, TAKEOFF, LAMBDA_D = 5.0, 0.2, 0.1, 5.0


@pytest.fixture(scope="module")
def run():
    return simulate(example("two_link_tracking"))


def sig(r, name):
    return r[f"controller.tracking.{name}"]


def first(mask):
    return int(np.nonzero(mask)[0][0])


def test_phases_follow_the_state_machine_at_their_instants(run):
    t, phase = run.t, sig(run, "phase")
    for k in range(2):
        c = (t >= k * P) & (t < (k + 1) * P)
        seq = phase[c][np.r_[True, np.diff(phase[c]) != 0]].astype(int).tolist()
        assert seq[-4:] == [0, 1, 2, 3], (k, seq)  # take-off straddles the cycle boundary
        # the exogenous switch: at the first step from kP + P/2 − lead on (recorded one row later)
        assert t[first(c & (phase == 1))] == pytest.approx(k * P + P / 2 - LEAD + 1e-4, abs=1e-9)
    assert t[first(phase == 4)] == pytest.approx(P + 1e-4, abs=1e-9)
    back = first((t > P) & (phase == 0))
    assert t[back] == pytest.approx(P + TAKEOFF + 1e-4, abs=1e-9)


def test_impact_counter_and_transition_length_match_the_percussions(run):
    """An independent count: steps with a positive percussion from the first one after the switch to
    the second of two consecutive ones."""
    t, pn, phase = run.t, run["contact.tip_ground.pn"], sig(run, "phase")
    cycles = cycle_metrics(t, phase, sig(run, "impacts"), sig(run, "y"), sig(run, "error"), P)
    for k in range(2):
        after = np.nonzero((t > k * P + P / 2 - LEAD) & (pn > 1e-12))[0]
        i0 = after[0]
        consecutive = after[1:][np.diff(after) == 1]
        i_f = consecutive[0]
        count = np.count_nonzero(pn[i0:i_f + 1] > 1e-12)
        assert cycles[k]["impacts"] == count > 5
        assert cycles[k]["transition_length"] == pytest.approx(t[i_f] - t[i0], abs=1e-9)
        apex = y_max = sig(run, "y")[i0:after[1]].max()
        assert cycles[k]["first_rebound_height"] == pytest.approx(y_max) and apex > 1e-4


def test_constrained_phase_presses_with_the_desired_force_and_slides_to_the_reentry_point(run):
    t, phase, y = run.t, sig(run, "phase"), sig(run, "y")
    late = (t > 4.0) & (t < 4.99)
    assert np.all(phase[late] == 3)
    force = run["contact.tip_ground.fn"][late]
    assert force.mean() == pytest.approx(LAMBDA_D, rel=0.01)
    assert np.abs(y[late]).max() < 1e-5
    end = first(t >= P)
    assert sig(run, "x")[end] == pytest.approx(0.75, abs=1e-3)


def test_after_take_off_the_tip_is_back_on_the_circle(run):
    t, err = run.t, sig(run, "error")
    back = (t > 6.0) & (t < 7.0)
    assert err[back].max() < 1e-3
    w = 2 * np.pi / P
    i = first(t >= 6.5)
    assert sig(run, "x")[i] == pytest.approx(0.65 + 0.1 * np.cos(w * t[i]), abs=1e-3)
    assert sig(run, "y")[i] == pytest.approx(0.1 * np.sin(w * t[i]), abs=1e-3)


def test_without_gravity_as_the_public_code_the_cycle_is_the_same():
    r = simulate(example("two_link_tracking").with_values({"gravity": [0.0, 0.0], "settings.duration": 5.0}))
    [c] = [c for c in r.summary["controller"]["cycles"] if c["complete"]]
    assert c["transition_length"] is not None and c["impacts"] > 5


def test_a_restored_state_mid_transition_replays_the_same_steps():
    """The law keeps everything in its block state (mode, counter, anchors): restoring a state taken
    between two impacts and stepping again gives the same rows, bit for bit."""
    from nsgui.engine import compile_scene
    from nsgui.engine.simulator import Simulator
    sim = Simulator(compile_scene(example("two_link_tracking")))
    sim.run(26000)  # t = 2.6 s: after the first impact (2.50 s), before persistent contact (2.72 s)
    names = sim.signal_names
    state = sim.get_state()
    assert sim.signal_vector()[names.index("controller.tracking.phase")] == 2
    first = sim.run(3000)
    sim.set_state(state)
    again = sim.run(3000)
    assert np.array_equal(first, again)
    assert set(first[:, names.index("controller.tracking.phase")]) >= {2.0, 3.0}
