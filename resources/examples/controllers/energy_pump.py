"""Energy pumping swing-up of a pendulum (Åström & Furuta, Automatica 36, 2000), as an nsgui
user controller: the example of docs/controllers.md, "Writing a controller in Python".

With E = ½ vᵀM(q)v + U(q) the mechanical energy and a torque u on the pivot, dE/dt = u·θ̇ (no
friction). The law u = k (E* − E) θ̇, saturated by the actuator's limit, gives
dE/dt = k (E* − E) θ̇² ≥ 0 while E < E*: every swing pumps energy in until E reaches the target
E* = U(hanging) + level · (U(upright) − U(hanging)); level = 1 brings the pendulum up to the top.
At rest (θ̇ = 0) the law does nothing, so it kicks with `kick` N·m for a start.
"""
import math

import numpy as np

from nsgui import Controller, Param, Signal


class EnergyPump(Controller):
    help = "u = k (E* − E) θ̇ on the pivot, E* a fraction `level` of the way to the upright energy"
    params = {
        "gain": Param(5.0, ge=0, unit="1/(rad²·s⁻¹)", help="k: N·m per J of energy error and rad/s"),
        "level": Param(1.0, ge=0, le=1.5, help="target energy: 0 hanging, 1 upright"),
        "kick": Param(0.5, ge=0, unit="N·m", help="torque while the pendulum is at rest"),
    }
    signals = (
        Signal("energy", "J", "E = ½ vᵀMv + U, from the hanging rest"),
        Signal("target", "J", "E*"),
        Signal("swings", "", "reversals of θ̇ so far"),
    )

    def start(self, s):
        j = self.coords[0]
        hanging, upright = s.q.copy(), s.q.copy()
        hanging[j], upright[j] = 0.0, math.pi
        self.U0 = s.model.potential_energy(hanging)
        self.target = self.level * (s.model.potential_energy(upright) - self.U0)
        self.swings = 0          # state: kept by snapshots, restored on resume
        self.direction = 0.0

    def sample(self, s):
        w = s.v[self.coords[0]]
        E = 0.5 * s.v @ s.M @ s.v + s.model.potential_energy(s.q) - self.U0
        direction = float(np.sign(w))
        if direction and self.direction and direction != self.direction:
            self.swings += 1
        if direction:
            self.direction = direction
        u = self.gain * (self.target - E) * w if abs(w) > 1e-6 else self.kick
        return [u], {"energy": E, "target": self.target, "swings": self.swings}
