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
