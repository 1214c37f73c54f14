"""Controllers run in Python between kernel calls: laws on single actuators (Simulator.set_controller),
which write their actuator's input in Data.u that the kernel then leaves alone (Data.external), and
the scene's `python` blocks (python_block.py)."""

from dataclasses import dataclass
from typing import Callable


@dataclass
class ExternalController:
    index: int                 # actuator index
    law: Callable              # (t, q, v, model) -> float
    period: float | None       # None: every step
    next_sample: float = 0.0

    def next_time(self, d):
        return None if self.period is None else self.next_sample


def steps_until_next_sample(samplers, t, dt, d):
    """How many steps the compiled loop may run before a controller sampled in Python (objects with
    `next_time(d)`: None for every step) must be sampled again."""
    n = None
    for c in samplers:
        nxt = c.next_time(d)
        if nxt is None:
            return 1
        k = max(1, int(round((nxt - t) / dt)))
        n = k if n is None else min(n, k)
    return n
