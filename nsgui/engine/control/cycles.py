"""Per-cycle metrics of a periodic tracking task through impacts (seed 004 §6; docs/controllers.md).

Pure numpy on recorded signals, so the same numbers come from a live run, a file or a test:

- t: sample times; phase: the controller's mode per sample (0 free, 1 transition before the first
  impact, 2 transition after it, 3 constrained, 4 take-off); impacts: the controller's impact counter
  (steps with a positive normal percussion since the transition began, held until the next one);
  y: the end effector's height above the surface; error: the tracking error ‖X − X_d‖.
- Cycle k is the time interval [t0 + kP, t0 + (k+1)P).

Definitions (004 leaves them open, errata "ambiguities"):
- impacts: the counter's value when the transition ends (its largest value in the cycle's
  transition samples);
- transition_length (s): from the first impact (first sample in phase 2) to persistent contact (first
  sample in phase 3, i.e. the second of two consecutive steps with a positive percussion);
  None when the cycle has no first impact or its transition has not ended;
- first_rebound_height (m): the apex of y between the first impact and the second one (counter
  reaching 2), or the end of the transition if there is no second impact; None without an impact;
- tracking_error_rms (m): sqrt of the mean of error² over the cycle's samples (uniform steps: the
  time average).
"""

from __future__ import annotations

import numpy as np

FREE, BEFORE_IMPACT, AFTER_IMPACT, CONSTRAINED, TAKE_OFF = 0, 1, 2, 3, 4


def cycle_metrics(t, phase, impacts, y, error, period, t0=0.0):
    """[{cycle, start, complete, impacts, transition_length, first_rebound_height, tracking_error_rms}]
    for every cycle with at least two samples."""
    t, phase, impacts, y, error = (np.asarray(a, float) for a in (t, phase, impacts, y, error))
    if not (t.shape == phase.shape == impacts.shape == y.shape == error.shape):
        raise ValueError("cycle_metrics: t, phase, impacts, y and error must have the same length")
    if not period > 0:
        raise ValueError(f"cycle_metrics: the period must be positive, not {period}")
    if t.size == 0:
        return []
    phase = np.rint(phase).astype(int)
    k_of = np.floor((t - t0) / period + 1e-9).astype(int)  # samples on a boundary start the next cycle
    dt = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    out = []
    for k in range(max(k_of.min(), 0), k_of.max() + 1):
        idx = np.nonzero(k_of == k)[0]
        if idx.size < 2:
            continue
        end = t0 + (k + 1) * period
        out.append({"cycle": int(k), "start": t0 + k * period,
                    "complete": bool(t[idx[-1]] >= end - 1.5 * dt),
                    **_transition(t[idx], phase[idx], impacts[idx], y[idx]),
                    "tracking_error_rms": float(np.sqrt(np.mean(error[idx] ** 2)))})
    return out


def _first(mask, start=0):
    hits = np.nonzero(mask[start:])[0]
    return None if hits.size == 0 else start + int(hits[0])


def _transition(t, phase, impacts, y):
    i1 = _first(phase == AFTER_IMPACT)
    if i1 is None:
        return {"impacts": 0, "transition_length": None, "first_rebound_height": None}
    i_f = _first(phase == CONSTRAINED, i1)
    stop = len(t) if i_f is None else i_f + 1
    i2 = _first(impacts >= 2, i1)
    apex_end = stop if i2 is None else min(i2, stop)
    in_transition = (phase[i1:stop] == AFTER_IMPACT) | (phase[i1:stop] == CONSTRAINED)
    return {"impacts": int(impacts[i1:stop][in_transition].max()),
            "transition_length": None if i_f is None else float(t[i_f] - t[i1]),
            "first_rebound_height": float(y[i1:max(apex_end, i1 + 1)].max())}


class CycleRecorder:
    """Keeps, chunk by chunk, the few columns the cycle metrics of the model's first switching-scheme
    block (`bno`) need, so a run that streams its rows to a file or keeps none still reports them."""

    def __init__(self, model, block):
        names = model.signal_names
        pre = f"controller.{block.name}."
        self.block = block.name
        self.period = float(next(c.cycle for c in model.scene.controllers if c.name == block.name))
        self.columns = [names.index("t")] + [names.index(pre + s) for s in ("phase", "impacts", "y", "error")]
        self.chunks = []

    @classmethod
    def of(cls, model):
        """A recorder for the model's first `bno` block, or None."""
        block = next((b for b in model.controller_blocks if b.type == "bno"), None)
        return None if block is None else cls(model, block)

    def append(self, rows):
        if len(rows):
            self.chunks.append(rows[:, self.columns].copy())

    def summary(self):
        """{"block": name, "cycles": [per-cycle metrics]} (summary["controller"] of a run)."""
        data = np.concatenate(self.chunks) if self.chunks else np.zeros((0, 5))
        return {"block": self.block, "cycles": cycle_metrics(*data.T, self.period)}
