"""Keeps the heavy GUI jobs (history intake, 3D render) from running back to back in one pass of
the event loop: a job that would start right after another one ended waits a few milliseconds, so
input, timers and repaints are served between them and the loop answers within ~40 ms even on a
software renderer."""

from __future__ import annotations

import time

GAP = 0.004  # seconds: a job ending less than this ago probably ran in the same pass
_last_end = 0.0


def wait_before_job() -> float:
    """Seconds to wait before starting a heavy job (0: go)."""
    return max(0.0, _last_end + GAP - time.perf_counter())


def job_done() -> None:
    global _last_end
    _last_end = time.perf_counter()


# Redraw pacing. While a run goes flat out the simulation process wants every CPU cycle it can get
# (on 2 cores the window shares one with it): each kind of live redraw is spaced so that it takes
# at most its share of one core, between a fastest rate and a slowest one. Otherwise (paused,
# scrubbing, real-time speed) the views may use more of the thread, at up to 24-30 redraws/s.
# The display tick (intake of the run's rows, then the views' updates) is paced by the window's
# repaint cost. kind: (share of one core, fastest interval s, slowest interval s)
# Flat out the 3D view may take up to 24 frames/s (MuJoCo's viewer users expect about 20; a 13 ms
# software-rendered frame gives ~23/s at 30 % of a core, a walker's 20 ms frame ~15/s).
PACE = {"3d": (0.4, 1 / 24, 0.5), "plots": (0.4, 1 / 30, 1.0), "tick": (1 / 3, 1 / 30, 1.0)}
FLAT_OUT_PACE = {"3d": (0.3, 1 / 24, 0.5), "plots": (0.15, 1 / 10, 1.0), "tick": PACE["tick"]}


def redraw_interval(cost: float, share: float, fastest: float, slowest: float) -> float:
    """Seconds between redraws that cost `cost` seconds each, so that they take at most `share`
    of the thread's time: cost / share, kept within [fastest, slowest] (the view stays live)."""
    return min(slowest, max(fastest, cost / share))


def interval(kind: str, cost: float, flat_out: bool) -> float:
    """The redraw interval of one kind of job ("3d", "plots", "tick") of measured `cost`."""
    return redraw_interval(cost, *(FLAT_OUT_PACE if flat_out else PACE)[kind])
