"""Actuator control: the step reads each actuator's input from Data.u (held between samples); the
laws write it between samples without re-evaluating the model. That is the control seam.

Built-in PD and constant laws (scene files) are numba code sampled inside the compiled loop, at the
start of a step (apply_control_laws). Controllers written in Python see the model (M(q), bias,
gravity, contact Jacobians) and run at their own sampling period between kernel calls:

    def computed_torque(t, q, v, model):       # any callable (t, q, v, model) -> float
        ...
    sim.set_controller("shoulder_motor", computed_torque, period=0.002)

A Python controller replaces the law of the actuator it is attached to (Data.law = CTRL_EXTERNAL).
"""

from dataclasses import dataclass
from typing import Callable

from numba import njit

from .codes import (AF_FEEDFORWARD, AF_GRAVITY, AF_KD, AF_KP, AF_LIMIT, AF_PERIOD, AF_TARGET, AF_TARGET_V,
                    AF_VALUE, AI_COORD, CTRL_CONSTANT, CTRL_EXTERNAL, CTRL_PD)


@njit(cache=True)
def apply_control_laws(m, d, t):
    """Each built-in law due at time t writes its actuator's input d.u (saturated) and schedules its
    next sample; a law with no period is sampled every step. CTRL_EXTERNAL inputs are left as written."""
    ai, af, law, next_sample = m.ai, m.af, d.law, d.next_sample
    for i in range(ai.shape[0]):
        kind = law[i]
        if kind == CTRL_EXTERNAL:
            continue
        period = af[i, AF_PERIOD]
        if period <= 0.0 or t >= next_sample[i] - 1e-9 * period:
            j = ai[i, AI_COORD]
            if kind == CTRL_CONSTANT:
                u = af[i, AF_VALUE]
            elif kind == CTRL_PD:
                u = (af[i, AF_KP] * (af[i, AF_TARGET] - d.q[j]) + af[i, AF_KD] * (af[i, AF_TARGET_V] - d.v[j])
                     + af[i, AF_FEEDFORWARD])
                if af[i, AF_GRAVITY] != 0.0:
                    u -= d.grav[j]
            else:
                u = 0.0
            lim = af[i, AF_LIMIT]
            if u > lim:
                u = lim
            elif u < -lim:
                u = -lim
            d.u[i] = u
            if period > 0.0:
                while next_sample[i] <= t + 1e-9 * period:
                    next_sample[i] += period


@njit(cache=True)
def actuator_forces(m, d):
    """d.Qact: the generalized forces of the inputs d.u."""
    ai, u, Qact = m.ai, d.u, d.Qact
    Qact[:] = 0.0
    for i in range(ai.shape[0]):
        Qact[ai[i, AI_COORD]] += u[i]


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
