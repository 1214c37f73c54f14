"""Cycle metrics (nsgui/engine/control/cycles.py) on synthetic signals whose answers are known."""

import numpy as np
import pytest

from nsgui.engine.control.cycles import cycle_metrics

P, H = 5.0, 1e-3


def synthetic(bounces, first_impact, apex, e=0.5, t_end=2 * P, persistent=True, cycle=0):
    """Phase, counter and height of a ball-like transition in cycle `cycle`: the first impact at
    `first_impact` (s into the cycle), then flights whose apexes shrink by e² (flight times by e),
    `bounces` impacts in all; phase 3 from the last one when `persistent`."""
    t = np.round(np.arange(0.0, t_end + H / 2, H), 12)
    phase = np.zeros_like(t)
    impacts = np.zeros_like(t)
    y = np.full_like(t, 0.05)
    start = cycle * P
    phase[(t >= start + first_impact - 0.3) & (t < start + first_impact)] = 1
    flight = 2 * np.sqrt(2 * apex / 9.81)
    ta = start + first_impact
    times = []
    for n in range(bounces):
        times.append(ta)
        tau = flight * e ** n
        inside = (t > ta) & (t < ta + tau)
        y[inside] = 0.5 * 9.81 * (t[inside] - ta) * (ta + tau - t[inside])
        ta += tau
    y[(t >= times[0]) & (t <= times[0])] = 0.0
    for n, ti in enumerate(times):
        impacts[t >= ti] = n + 1
    phase[t >= times[0]] = 2
    if persistent:
        phase[t >= times[-1]] = 3
        y[t >= times[-1]] = 0.0
    phase[t >= start + P] = 0
    return t, phase, impacts, y, times


def test_impacts_length_rebound_and_rms_of_a_known_transition():
    t, phase, impacts, y, times = synthetic(bounces=6, first_impact=2.6, apex=0.02)
    error = np.where(t < 2.5, 0.01, 0.03)
    cycles = cycle_metrics(t, phase, impacts, y, error, P)
    assert [c["cycle"] for c in cycles] == [0, 1]
    c0 = cycles[0]
    assert c0["complete"] and c0["impacts"] == 6
    first_sample = t[t >= times[0]][0]
    last_sample = t[t >= times[-1]][0]
    assert c0["transition_length"] == pytest.approx(last_sample - first_sample, abs=1e-12)
    assert c0["transition_length"] == pytest.approx(times[-1] - times[0], abs=2 * H)
    assert c0["first_rebound_height"] == pytest.approx(0.02, rel=1e-3)  # the apex, not the later ones
    n_low = np.count_nonzero((t >= 0) & (t < 2.5))
    n_all = np.count_nonzero(t < P - 1e-9)
    assert c0["tracking_error_rms"] == pytest.approx(np.sqrt((n_low * 1e-4 + (n_all - n_low) * 9e-4) / n_all))
    assert cycles[1]["impacts"] == 0 and cycles[1]["transition_length"] is None
    assert cycles[1]["first_rebound_height"] is None and cycles[1]["tracking_error_rms"] == pytest.approx(0.03)


def test_an_unfinished_transition_has_no_length_but_counts_its_impacts():
    t, phase, impacts, y, _ = synthetic(bounces=4, first_impact=2.6, apex=0.01, persistent=False, cycle=1,
                                        t_end=P + 3.5)
    c1 = cycle_metrics(t, phase, impacts, y, np.zeros_like(t), P)[1]
    assert not c1["complete"]
    assert c1["impacts"] == 4 and c1["transition_length"] is None
    assert c1["first_rebound_height"] == pytest.approx(0.01, rel=1e-3)


def test_a_single_impact_into_persistent_contact():
    t, phase, impacts, y, _ = synthetic(bounces=1, first_impact=2.6, apex=0.0)
    phase[(t >= 2.6 - H / 2) & (t < 2.6 + 1.5 * H)] = 2  # first impact at 2.6, the second step after it
    impacts[t >= 2.6 + H] = 2
    c0 = cycle_metrics(t, phase, impacts, y, np.zeros_like(t), P)[0]
    assert c0["impacts"] == 2
    assert c0["transition_length"] == pytest.approx(2 * H)
    assert c0["first_rebound_height"] == pytest.approx(0.0)


def test_bad_input_is_refused_with_a_message():
    with pytest.raises(ValueError, match="same length"):
        cycle_metrics([0, 1], [0], [0, 0], [0, 0], [0, 0], P)
    with pytest.raises(ValueError, match="period"):
        cycle_metrics([0, 1], [0, 0], [0, 0], [0, 0], [0, 0], 0.0)
