"""Python laws on single actuators (Simulator.set_controller): sampled between kernel calls, they
write their actuator's input in Data.u, which the kernel then leaves alone (Data.external)."""

from dataclasses import dataclass
from typing import Callable


@dataclass
class ExternalController:
    index: int                 # actuator index
    law: Callable              # (t, q, v, model) -> float
    period: float | None       # None: every step
    next_sample: float = 0.0


def steps_until_next_sample(controllers, t, dt):
    """How many steps the compiled loop may run before a Python controller must be sampled again."""
    n = None
    for c in controllers:
        if c.period is None:
            return 1
        k = max(1, int(round((c.next_sample - t) / dt)))
        n = k if n is None else min(n, k)
    return n
