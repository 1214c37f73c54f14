"""Controllers written in Python: they see the model (M(q), bias, gravity, contact Jacobians) and run
at their own sampling period; the compiled loop holds their output between samples.

    def computed_torque(t, q, v, model):       # any callable (t, q, v, model) -> float
        ...
    sim.set_controller("shoulder_motor", computed_torque, period=0.002)

Built-in PD and constant laws (scene files) run inside the compiled loop; a Python controller replaces
the law of the actuator it is attached to.
"""

from dataclasses import dataclass
from typing import Callable

EXTERNAL = 3


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
