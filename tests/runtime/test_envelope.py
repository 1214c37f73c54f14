"""The min/max envelopes the plots draw long histories with (nsgui/runtime/envelope.py, pure numpy)."""

import numpy as np
import pytest

from nsgui.runtime.envelope import BASE, Envelope
from tests.helpers import assert_drawn_from


def _signal(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.cumsum(rng.standard_normal(n))
    y[rng.integers(0, n, n // 50)] = np.nan  # gaps (a signal absent from some rows)
    return np.arange(n) * 1e-3, y


def test_incremental_extension_equals_one_shot_build():
    t, y = _signal(200_003)
    whole = Envelope()
    whole.extend(y)
    parts = Envelope()
    rng = np.random.default_rng(1)
    n = 0
    while n < len(y):
        n = min(len(y), n + int(rng.integers(1, 5000)))
        parts.extend(y, n)
    assert parts.counts == whole.counts
    for level in range(len(whole.counts)):
        c = whole.counts[level]
        np.testing.assert_array_equal(parts._mins[level][:c], whole._mins[level][:c])
        np.testing.assert_array_equal(parts._maxs[level][:c], whole._maxs[level][:c])
    # level k is the min/max of consecutive buckets of BASE * 4^k samples, NaNs ignored
    for level in range(len(whole.counts)):
        s = whole.bucket_rows(level)
        c = whole.counts[level]
        ref = y[:c * s].reshape(c, s)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(whole._mins[level][:c], np.nanmin(ref, axis=1))
            np.testing.assert_array_equal(whole._maxs[level][:c], np.nanmax(ref, axis=1))


@pytest.mark.parametrize("i0,i1", [(0, 200_003), (1, 199_999), (12_345, 98_765), (150_000, 200_003),
                                   (0, 1500), (70_000, 70_900), (5, 6)])
def test_decimated_points_are_the_extremes_of_every_sample_in_range(i0, i1):
    t, y = _signal(200_003, seed=2)
    env = Envelope()
    env.extend(y, 200_003 - 7)  # the newest rows are not in any bucket yet
    env.extend(y)
    x, yy = env.decimate(t, y, i0, i1, max_buckets=400)
    assert x[0] == t[i0]
    assert len(x) <= 2 * 400 + 2 * 64  # about two points per pixel column, whatever the length
    # every drawn point is a sample or the min/max of the samples up to the next drawn time, and
    # the last bucket reaches the end of the range
    assert_drawn_from(x, yy, t[:i1], y[:i1])
    if i1 - i0 <= 800:
        np.testing.assert_array_equal(x, t[i0:i1])  # short ranges: the samples themselves


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_monotone_signal_is_drawn_through_its_own_samples(sign):
    """A rising (or falling) signal's buckets are drawn from its first sample to its last: every drawn
    point is a sample of the signal at its own time, so the line is the signal's, not a staircase of
    vertical bars at the buckets' starts (which put each bucket's far extreme at its first time)."""
    t = np.arange(3000) * 1e-3
    y = sign * (t + 0.3 * np.sin(2.0 * t) ** 2)  # increasing (decreasing) and curved
    env = Envelope()
    env.extend(y)
    x, yy = env.decimate(t, y, 0, len(y), max_buckets=300)
    assert len(x) < len(t) / 2  # decimated
    rows = np.searchsorted(t, x)
    np.testing.assert_array_equal(t[rows], x)
    np.testing.assert_array_equal(yy, y[rows])
    assert np.all(np.diff(x) > 0) and x[0] == t[0] and x[-1] == t[-1]
    assert_drawn_from(x, yy, t, y)


def test_short_histories_and_constant_signals():
    env = Envelope()
    t = np.arange(BASE - 1) * 0.1
    y = np.ones(BASE - 1)
    env.extend(y)
    x, yy = env.decimate(t, y, 0, len(y), 2)
    np.testing.assert_array_equal(x, t)
    t = np.arange(100_000) * 1e-3
    y = np.full(100_000, 2.5)
    env = Envelope()
    env.extend(y)
    x, yy = env.decimate(t, y, 0, len(y), 100)
    assert np.all(yy == 2.5) and len(x) < 400
