"""Min/max envelopes of a growing column, for plotting long histories at a cost set by the plot's
width, not by the history's length (pure numpy, no Qt).

Level k holds the minimum and maximum over consecutive buckets of BASE * FACTOR**k rows. The levels
are extended incrementally as rows arrive (only complete buckets are stored), so keeping them up to
date costs O(new rows), and drawing any time range picks the finest level that gives at most about
`max_buckets` buckets. Each bucket is drawn as two points, its minimum and its maximum (the "peak"
decimation: every extreme of the signal stays visible), at its first and last samples' times, in the
order the signal goes (the minimum first when its last sample is not below its first): a monotone
stretch is drawn through its own samples, not as a staircase of vertical bars.
NaN samples are ignored (np.fmin/np.fmax); an all-NaN bucket stays NaN.
"""

from __future__ import annotations

import numpy as np

BASE = 8
FACTOR = 4


class Envelope:
    def __init__(self):
        self._mins: list[np.ndarray] = []
        self._maxs: list[np.ndarray] = []
        self.counts: list[int] = []  # complete buckets per level

    @staticmethod
    def bucket_rows(level: int) -> int:
        return BASE * FACTOR ** level

    def clear(self):
        self._mins.clear()
        self._maxs.clear()
        self.counts.clear()

    def _store(self, level, mins, maxs):
        if level == len(self.counts):
            self._mins.append(np.empty(max(64, 2 * len(mins))))
            self._maxs.append(np.empty(max(64, 2 * len(mins))))
            self.counts.append(0)
        c = self.counts[level]
        if c + len(mins) > len(self._mins[level]):
            size = 2 * (c + len(mins))
            for store in (self._mins, self._maxs):
                grown = np.empty(size)
                grown[:c] = store[level][:c]
                store[level] = grown
        self._mins[level][c:c + len(mins)] = mins
        self._maxs[level][c:c + len(maxs)] = maxs
        self.counts[level] = c + len(mins)

    def extend(self, y: np.ndarray, n: int | None = None) -> None:
        """Bring the levels up to date with y[:n] (rows already summarised are not read again)."""
        n = len(y) if n is None else n
        done = self.counts[0] if self.counts else 0
        new = n // BASE - done
        if new > 0:
            block = y[done * BASE:(done + new) * BASE].reshape(new, BASE)
            with np.errstate(invalid="ignore"):
                self._store(0, np.fmin.reduce(block, axis=1), np.fmax.reduce(block, axis=1))
        level = 1
        while level - 1 < len(self.counts) and self.counts[level - 1] >= FACTOR:
            done = self.counts[level] if level < len(self.counts) else 0
            new = self.counts[level - 1] // FACTOR - done
            if new > 0:
                lo = self._mins[level - 1][done * FACTOR:(done + new) * FACTOR].reshape(new, FACTOR)
                hi = self._maxs[level - 1][done * FACTOR:(done + new) * FACTOR].reshape(new, FACTOR)
                self._store(level, np.fmin.reduce(lo, axis=1), np.fmax.reduce(hi, axis=1))
            level += 1

    def decimate(self, t: np.ndarray, y: np.ndarray, i0: int, i1: int, max_buckets: int):
        """(x, y) to draw rows [i0, i1): the samples themselves when there are at most
        2 * max_buckets of them, else (time, min), (time, max) pairs of at most about max_buckets
        buckets (plus one bucket each for the rows before the first and after the last stored
        bucket)."""
        i0, i1 = max(0, int(i0)), min(int(i1), len(y))
        n = i1 - i0
        if n <= 2 * max_buckets or not self.counts:
            return t[i0:i1], y[i0:i1]
        level = 0
        while level + 1 < len(self.counts) and n / self.bucket_rows(level) > max_buckets:
            level += 1
        s = self.bucket_rows(level)
        b0 = -(-i0 // s)
        b1 = max(b0, min(i1 // s, self.counts[level]))
        xs, ys = [], []
        with np.errstate(invalid="ignore"):
            if i0 < min(b0 * s, i1):  # rows before the first whole bucket: one bucket
                e = min(b0 * s, i1)
                seg = y[i0:e]
                xs.append(_ends(t, np.array([i0]), np.array([e - 1])))
                ys.append(_ordered(np.array([np.fmin.reduce(seg)]), np.array([np.fmax.reduce(seg)]),
                                   y[[i0]], y[[e - 1]]))
        if b1 > b0:
            first = np.arange(b0, b1) * s
            xs.append(_ends(t, first, first + s - 1))
            ys.append(_ordered(self._mins[level][b0:b1], self._maxs[level][b0:b1], y[first], y[first + s - 1]))
        if b1 * s < i1 and b1 * s >= i0:  # the newest rows, not yet in this level: finer levels
            x_tail, y_tail = self.decimate(t, y, b1 * s, i1, max(4, max_buckets // 8))
            xs.append(x_tail)
            ys.append(y_tail)
        return np.concatenate(xs), np.concatenate(ys)


def _ends(t, first, last):
    """Each bucket's two drawn times: its first and its last sample's."""
    return np.column_stack([t[first], t[last]]).ravel()


def _ordered(mins, maxs, y_first, y_last):
    """Each bucket's (min, max), or (max, min) when the signal ends lower than it starts (or either end is NaN)."""
    with np.errstate(invalid="ignore"):
        rising = y_first <= y_last
    return np.column_stack([np.where(rising, mins, maxs), np.where(rising, maxs, mins)]).ravel()
