"""Bouncing ball against the closed forms of the time-stepping digest §8.1 (T8.1)–(T8.5) and the scheme of §3.

Projection off + θ = ½ is the standard Moreau–Jean scheme: the ball is a linear relation with constant
mass, so §3.3 gives exact per-step properties (restitution, resting percussion) besides the O(h) timing.
"""

import numpy as np
import pytest

from nsgui.engine import codes

from tests.helpers import Run, example, rest_time, with_restitution

G = 9.81
M = 1.0           # ball mass (bouncing_ball.json)
R_BALL = 0.1
Y0 = 1.0          # initial centre height
H0 = Y0 - R_BALL  # initial gap
E_N = 0.9
T1 = np.sqrt(2 * H0 / G)                  # (T8.1)
T_STAR = T1 * (1 + E_N) / (1 - E_N)       # (T8.4), errata 000-4


def impact_time(k, e=E_N):
    """(T8.3): time of impact k >= 1."""
    return T1 * (1 + 2 * e * (1 - e ** (k - 1)) / (1 - e))


@pytest.mark.parametrize("h", [4e-3, 1e-3, 2.5e-4])
def test_impact_times_follow_closed_form(h):
    run = Run(example("bouncing_ball"), projection=False, dt=h, duration=4.0)
    rows = run.impact_rows()
    assert len(rows) >= 5
    for k, row in enumerate(rows[:5], start=1):
        err = run.t[row] - impact_time(k)
        # registered at the end of the step that contains the contact (§3.3 item 3); each flight
        # starts from the O(h)-late take-off of the previous one, so the lag grows by < 1.5 h per impact
        assert -h <= err <= 1.5 * k * h, (k, err / h)
    # the impact steps are one per bounce (no chattering): successive ones are whole flights apart
    gaps = np.diff(run.t[rows[:5]])
    flights = 2 * E_N ** np.arange(1, 5) * T1          # (T8.2)
    assert np.all(np.abs(gaps - flights) <= 3 * h)


def test_rest_time_converges_to_accumulation_time():
    """Rest time -> t* as h -> 0 (§3.3 item 4): bounded by O(h/(1-e)), clearly decreasing overall."""
    hs = np.array([4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4])
    errs, counts = [], []
    for h in hs:
        run = Run(example("bouncing_ball"), projection=False, dt=h, duration=T_STAR + 0.4)
        errs.append(abs(rest_time(run.t, run.pn[:, 0]) - T_STAR))
        # resolved bounces: impact steps with an approach faster than g h (flight >= ~2 steps); slower
        # ones are the merged tail (the standard scheme keeps a micro-bounce decaying like e^k per step)
        vy = run.V[:, run.model.coord_names.index("ball.y")]
        counts.append(sum(1 for k in run.impact_rows() if -vy[k - 1] > G * h))
    errs = np.array(errs)
    # the flights shorter than ~h that get merged sum to ~h/(1-e) (geometric tail): O(h) with that constant.
    # NOT monotone step by step: which flight is the last resolved one depends on the phase of the
    # grid (e.g. 0.055, 0.003, 0.011, 0.005, 0.005, 0.001 s here), so the test bounds and fits instead.
    assert np.all(errs <= 3 * hs / (1 - E_N)), errs / hs
    assert errs[3:].max() < errs[:3].max() / 2
    slope = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert 0.5 < slope < 2.0, slope
    # captured impacts grow by ~ ln10 / ln(1/e) per decade of h (§3.3 item 4): the bounces with
    # e^(k-1) v1 > g h number 1 + ln(v1 / (g h)) / ln(1/e)
    per_decade = (counts[-1] - counts[0]) / np.log10(hs[0] / hs[-1])
    assert 0.6 < per_decade / (np.log(10) / np.log(1 / E_N)) < 1.5, (counts, per_decade)
    predicted = 1 + np.log(np.sqrt(2 * G * H0) / (G * hs)) / np.log(1 / E_N)
    assert np.all(np.abs(np.array(counts) - predicted) <= 8), (counts, predicted)


@pytest.mark.parametrize("e", [0.9, 0.5, 0.0])
def test_restitution_exact_at_every_impact_step(e):
    """§3.3 item 1: linear relation, constant mass: U(end of impact step) = -e U(start) to round-off."""
    scene = with_restitution("bouncing_ball", e)
    t_star = T1 * (1 + e) / (1 - e)
    run = Run(scene, projection=False, dt=1e-3, duration=min(t_star - 0.05, 6.0) if e > 0 else T1 + 0.1)
    rows = run.impact_rows()
    assert len(rows) >= (3 if e > 0 else 1)
    vy = run.V[:, run.model.coord_names.index("ball.y")]
    for k in rows:
        assert vy[k - 1] < 0
        assert abs(vy[k] + e * vy[k - 1]) <= 1e-12 * abs(vy[k - 1]), (run.t[k], vy[k - 1], vy[k])


def test_resting_percussion_is_mgh():
    """§3.3 item 2 / §8.1: at rest the percussion per step is m g h exactly and the ball stays still."""
    h = 1e-3
    run = Run(example("bouncing_ball"), projection=False, dt=h, duration=T_STAR + 1.0)
    # (the standard scheme's last micro-bounce decays like e^k per step: 0.9^400 < 1e-18)
    rest = run.t >= T_STAR + 0.6
    np.testing.assert_allclose(run.pn[rest, 0], M * G * h, rtol=1e-12)
    assert np.abs(run.V[rest]).max() <= 1e-15
    assert np.all(run.status[rest, 0] == codes.STICK)          # resting contact: stick, not impact
    # ... and with the projection (the scenes' default) the same load, the ball on the surface
    run = Run(example("bouncing_ball"), dt=h, duration=T_STAR + 0.5)
    rest = run.t >= T_STAR + 0.1
    np.testing.assert_allclose(run.pn[rest, 0], M * G * h, rtol=1e-9)
    assert np.all(np.abs(run.gap[rest, 0]) < 1e-9)


def test_elastic_ball_bounces_back_to_its_height():
    """e = 1 (§8.1): energy kept to round-off at every step, apex = initial gap, period 2 t1."""
    h = 1e-3
    run = Run(with_restitution("bouncing_ball", 1.0), projection=False, dt=h, duration=4.0)
    E = run.E
    assert np.abs(E - E[0]).max() <= 1e-12 * E[0]
    rows = run.impact_rows()
    assert len(rows) >= 4
    for a, b in zip(rows[:-1], rows[1:]):
        apex = run.gap[a:b, 0].max()
        assert abs(apex - H0) <= G * h ** 2, apex
    np.testing.assert_allclose(np.diff(run.t[rows]), 2 * T1, atol=2 * h)


def _reference_ball(h, n, e=E_N, gamma=0.5, theta=0.5):
    """The time-stepping digest §3.1 written out for the ball (m = 1, H = 1, y = gap): (y, U, percussion) rows."""
    y, u = H0, 0.0
    out = [(y, u, 0.0)]
    for _ in range(n):
        ufree = u - G * h                       # (T3.3), constant force
        lam = 0.0
        if y + gamma * h * u <= 0:              # (T3.1)
            w = ufree + e * u                   # (T3.4): Newton's law with e·y'_k, whatever its sign
            lam = max(0.0, -w)
        un = ufree + lam                        # (T3.5)
        y += h * (theta * un + (1 - theta) * u)  # (T3.6)
        u = un
        out.append((y, u, lam))
    return np.array(out)


def _compare_with_reference(t_end):
    h = 1e-3
    run = Run(example("bouncing_ball"), projection=False, dt=h, duration=t_end)
    ref = _reference_ball(h, len(run.t) - 1)
    vy = run.V[:, run.model.coord_names.index("ball.y")]
    np.testing.assert_allclose(run.gap[:, 0], ref[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(vy, ref[:, 1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(run.pn[:, 0], ref[:, 2], rtol=0, atol=1e-12)


def test_matches_standard_scheme_while_bouncing():
    """Step for step equal to a direct transcription of §3.1 over the first ~20 bounces."""
    _compare_with_reference(7.0)


def test_matches_standard_scheme_through_the_accumulation():
    """Guards a0f190c: e·U_k for any sign of U_k (the engine used e = 0 for a separating active contact)."""
    _compare_with_reference(T_STAR + 0.3)


def test_rebound_apexes_and_energy_jumps_follow_t85():
    """(T8.5): apex after impact k is e^(2k) h0 and E drops by ½ m (1 - e²)(e^(k-1) v1)² per impact.

    In the step, Newton's law uses the discrete pre-impact speed U⁻ and the percussion also cancels
    gravity over the step: ΔE = λ (1 - e) U⁻ / 2 = -½ m (1 - e²) U⁻² + ½ m (1 - e) g h U⁻ exactly.
    """
    h = 5e-4
    run = Run(example("bouncing_ball"), projection=False, dt=h, duration=3.0)
    vy = run.V[:, run.model.coord_names.index("ball.y")]
    rows = run.impact_rows()
    v1 = np.sqrt(2 * G * H0)
    for k, row in enumerate(rows[:4], start=1):
        u = vy[row - 1]
        dE = run.E[row] - run.E[row - 1]
        assert dE == pytest.approx(-0.5 * M * (1 - E_N ** 2) * u ** 2 + 0.5 * M * (1 - E_N) * G * h * u,
                                   rel=1e-9)
        exact = -0.5 * M * (1 - E_N ** 2) * (E_N ** (k - 1) * v1) ** 2
        assert abs(dE - exact) <= 2 * M * v1 * G * h * k, (k, dE, exact)      # O(h) (U⁻ is late by O(gh))
        end = rows[k] if k < len(rows) else len(run.t)
        apex = run.gap[row:end, 0].max()
        assert abs(apex - E_N ** (2 * k) * H0) <= 2 * v1 * h * k, (k, apex)
