"""Seed 004's qualitative findings (control digest §9) on the two-link arm under the switching scheme,
one cycle per run (nsgui/scene/templates.py: two_link_tracking; metrics: engine/control/cycles.py)."""

import math
from functools import lru_cache

import numpy as np
import pytest

from nsgui.engine import simulate
from nsgui.scene.templates import two_link_tracking


@lru_cache(maxsize=None)
def cycle(e=0.7, h=1e-4, gamma1=25.0, gamma2=30.0, duration=3.5):
    """(metrics of cycle 0, lowest tip height) of one run."""
    scene = two_link_tracking(restitution=e, gamma1=gamma1, gamma2=gamma2, dt=h, cycles=1)
    r = simulate(scene.with_values({"settings.duration": duration}))
    return r.summary["controller"]["cycles"][0], float(r["controller.tracking.y"].min())


def test_transition_length_does_not_depend_on_the_step():
    """At the scenario's e = 0.7. The unresolved tail of the accumulation (flights shorter than about
    2h / (e (1 + e))) lasts about 2h / (e (1 + e) (1 − e)): 5.6 h here, 11.7 h at e = 0.9, where
    h = 1e-3 is 2.3 % short (docs/controllers.md)."""
    lengths = [cycle(0.7, h)[0]["transition_length"] for h in (1e-3, 1e-4, 1e-5)]
    assert max(lengths) - min(lengths) < 0.01 * min(lengths), lengths


def test_impacts_never_decrease_with_restitution():
    counts = [cycle(e)[0]["impacts"] for e in (0.2, 0.5, 0.7, 0.9, 0.95)]
    assert counts == sorted(counts) and counts[-1] > counts[0], counts


@pytest.mark.parametrize("e", [0.7, 0.9])
def test_impacts_grow_by_about_ln10_over_ln_1_over_e_per_decade_of_h(e):
    """Geometric accumulation: flights shrink by e, a step of h resolves those longer than ~h."""
    counts = [cycle(e, h)[0]["impacts"] for h in (1e-3, 1e-4, 1e-5)]
    per_decade = math.log(10) / math.log(1 / e)
    assert counts == sorted(counts), counts
    for gain in np.diff(counts):
        assert 0.6 * per_decade < gain < 1.5 * per_decade, (counts, per_decade)


def test_a_stiffer_controller_spring_gives_fewer_impacts_a_lower_rebound_a_shorter_transition():
    runs = [cycle(gamma1=25.0, gamma2=g2, duration=5.0)[0] for g2 in (2.0, 30.0, 55.0)]
    for key in ("impacts", "first_rebound_height", "transition_length"):
        values = [c[key] for c in runs]
        assert values == sorted(values, reverse=True) and values[0] > values[-1], (key, values)


def test_less_damping_at_the_same_stiffness_tracks_worse():
    errors = [cycle(gamma1=g1, gamma2=800.0 / g1, duration=5.0)[0]["tracking_error_rms"] for g1 in (10.0, 25.0, 80.0)]
    assert errors == sorted(errors, reverse=True) and errors[0] > 1.3 * errors[-1], errors


@pytest.mark.parametrize("e, h", [(0.7, 1e-3), (0.7, 1e-4), (0.7, 1e-5), (0.95, 1e-4)])
def test_every_transition_ends_in_finite_time_and_the_tip_stays_above_minus_o_h(e, h):
    c, y_min = cycle(e, h)
    assert c["transition_length"] is not None and 0.0 < c["transition_length"] < 1.0
    assert y_min > -0.05 * h  # m: a penetration of the order of the step (velocity-level constraint)
