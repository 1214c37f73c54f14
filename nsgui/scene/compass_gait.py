"""The classic compass gait (Goswami, Espiau & Keramane; walking.md §7.2) in its two leg angles: its
swing dynamics, heel-strike map, step map and periodic gait. It places the compass-gait scene on its
gait (walkers.compass_gait) and is the tests' independent model of the walker the engine simulates.

Angles θ₁ (stance leg) and θ₂ (swing leg) are those of the foot → hip direction from the vertical,
positive toward +x, the downhill side of a slope of γ descending toward +x. With the stance foot at the
origin the hip is at l e(θ₁), e(θ) = (sin θ, cos θ), the stance leg's mass at a e(θ₁) and the swing
leg's at l e(θ₁) − b e(θ₂), b = l − a. The swing foot, l (e(θ₁) − e(θ₂)), is above the slope by
l (cos(θ₁ − γ) − cos(θ₂ − γ)) and ahead of the stance foot by l (sin(θ₁ − γ) − sin(θ₂ − γ)).
The section is the state just after a strike, where θ₂ − γ = −(θ₁ − γ): x = (θ₁, θ̇₁, θ̇₂).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache

import numpy as np
from scipy.integrate import solve_ivp


@dataclass(frozen=True)
class CompassGait:
    hip_mass: float = 10.0      # mh, kg
    leg_mass: float = 5.0       # m, kg, a point mass on each leg
    a: float = 0.5              # leg mass from the foot, m
    leg: float = 1.0            # l, m
    slope: float = np.deg2rad(3.0)   # γ, rad
    g: float = 9.81

    @property
    def b(self) -> float:
        return self.leg - self.a

    # -- swing phase: M(θ) θ̈ = f(θ, θ̇)
    def mass_matrix(self, th):
        mh, m, a, b, l = self.hip_mass, self.leg_mass, self.a, self.b, self.leg
        c12 = np.cos(th[0] - th[1])
        return np.array([[(mh + m) * l * l + m * a * a, -m * l * b * c12], [-m * l * b * c12, m * b * b]])

    def rhs(self, th, w):
        """f = −(Coriolis/centrifugal) − ∂V/∂θ with V = g Σ mᵢ yᵢ."""
        mh, m, a, b, l, g = self.hip_mass, self.leg_mass, self.a, self.b, self.leg, self.g
        s12 = np.sin(th[0] - th[1])
        return np.array([m * l * b * s12 * w[1] ** 2 + (mh * l + m * a + m * l) * g * np.sin(th[0]),
                         -m * l * b * s12 * w[0] ** 2 - m * b * g * np.sin(th[1])])

    def flow(self, _t, x):
        th, w = x[:2], x[2:]
        return np.r_[w, np.linalg.solve(self.mass_matrix(th), self.rhs(th, w))]

    def energy(self, x):
        """Kinetic + potential energy (J), the stance foot at height 0."""
        mh, m, a, b, l, g = self.hip_mass, self.leg_mass, self.a, self.b, self.leg, self.g
        th, w = x[:2], x[2:]
        kinetic = 0.5 * w @ self.mass_matrix(th) @ w
        return kinetic + g * (mh * l * np.cos(th[0]) + m * a * np.cos(th[0]) + m * (l * np.cos(th[0]) - b * np.cos(th[1])))

    # -- heel strike
    def strike(self, x):
        """Plastic strike at the swing foot, the old stance foot leaving, legs relabelled: the impulse at
        the new foot stops it, in the floating model (hip x, y, θ₁, θ₂). Returns (x⁺, upward speed of
        the foot that leaves: > 0 for a valid strike, percussion (normal, tangential) at the new foot)."""
        mh, m, a, b, l = self.hip_mass, self.leg_mass, self.a, self.b, self.leg
        th, w = x[:2], x[2:]
        hip_v = l * w[0] * np.array([np.cos(th[0]), -np.sin(th[0])])
        v = np.r_[hip_v, w]

        def point_jac(d, k):  # a point at hip − d e(θ_k)
            J = np.zeros((2, 4))
            J[:, :2] = np.eye(2)
            J[:, 2 + k] = -d * np.array([np.cos(th[k]), -np.sin(th[k])])
            return J
        bodies = [(mh, point_jac(0.0, 0)), (m, point_jac(l - a, 0)), (m, point_jac(b, 1))]
        M = sum(mi * J.T @ J for mi, J in bodies)
        Jf = point_jac(l, 1)                         # the new stance foot
        P = -np.linalg.solve(Jf @ np.linalg.solve(M, Jf.T), Jf @ v)
        v_plus = v + np.linalg.solve(M, Jf.T @ P)
        lift = point_jac(l, 0) @ v_plus               # the old stance foot after the strike
        n = np.array([np.sin(self.slope), np.cos(self.slope)])
        t = np.array([np.cos(self.slope), -np.sin(self.slope)])
        return np.r_[th[1], th[0], v_plus[3], v_plus[2]], float(n @ lift), (float(n @ P), float(t @ P))

    # -- one step
    def section_state(self, s):
        """The full state (θ₁, θ₂, θ̇₁, θ̇₂) of a section point s = (θ₁, θ̇₁, θ̇₂)."""
        return np.array([s[0], 2 * self.slope - s[0], s[1], s[2]])

    def step(self, s, rtol=1e-12, atol=1e-12, dense=False):
        """One step from the section point s: the swing until the swing foot comes down onto the slope
        ahead of the stance foot (it scuffs through at mid-stance: only a descending crossing ahead
        counts), then the strike. Returns (next section point, step time, pre-strike state, solution)."""
        gamma = self.slope

        def strike_guard(_t, x):       # θ₁ + θ₂ − 2γ: zero with the swing foot on the slope (or at the stance foot)
            return x[0] + x[1] - 2 * gamma
        strike_guard.terminal, strike_guard.direction = True, 1.0
        x, t0, pieces = self.section_state(s), 0.0, []
        for _ in range(10):
            sol = solve_ivp(self.flow, (t0, t0 + 20.0), x, method="DOP853", rtol=rtol, atol=atol,
                            events=strike_guard, dense_output=dense)
            pieces.append(sol)
            if sol.status != 1:
                raise ValueError("compass gait: no heel strike within 20 s (it fell)")
            t0, x = sol.t_events[0][0], sol.y_events[0][0]
            if x[0] > gamma:           # the swing foot ahead, coming down: a heel strike
                break
            x = x + 1e-12 * self.flow(t0, x)   # the lift-off itself, or the foot passing under: go on
        else:
            raise ValueError("compass gait: no heel strike")
        x_plus, _lift, _P = self.strike(x)
        return np.array([x_plus[0], x_plus[2], x_plus[3]]), t0, x, pieces

    def fixed_point(self, guess=(-0.22, 1.09, 0.38), tol=1e-12, fd=1e-6):
        """The periodic gait: Newton on P(s) − s = 0, central-difference Jacobian. Returns
        (s*, step time, |P(s*) − s*|); ValueError when Newton does not get there."""
        s = np.asarray(guess, float)
        for _ in range(20):
            p = self.step(s)[0]
            r = p - s
            if np.abs(r).max() < tol:
                break
            J = np.empty((3, 3))
            for k in range(3):
                e = np.zeros(3)
                e[k] = fd
                J[:, k] = (self.step(s + e)[0] - self.step(s - e)[0]) / (2 * fd)
            s = s - np.linalg.solve(J - np.eye(3), r)
        p, period, _x, _sol = self.step(s)
        residual = float(np.abs(p - s).max())
        if not residual < 1e-9:
            raise ValueError(f"compass gait: Newton did not find the periodic gait (|P(s) - s| = {residual:.1e})")
        return s, period, residual

    def gait(self):
        """The fixed point by continuation from the classic walker (mh 10, m 5, a 0.5, l 1, 3°), whose
        gait the default guess is near: the parameters move toward this model's in steps, each Newton
        starting from the last fixed point (halved steps where one fails)."""
        start = CompassGait(g=self.g)
        s = _classic_gait(self.g)
        done, step = 0.0, 1.0
        while done < 1.0:
            to = min(1.0, done + step)
            model = replace(start, **{f.name: (1 - to) * getattr(start, f.name) + to * getattr(self, f.name)
                                      for f in fields(self)})
            try:
                s, period, residual = model.fixed_point(guess=s)
            except ValueError:
                step /= 2
                if step < 1 / 64:
                    raise ValueError("compass gait: no periodic gait found for these parameters") from None
                continue
            done = to
            step = min(2 * step, 1.0 - done) if done < 1.0 else step
        return s, period, residual


@lru_cache(maxsize=4)
def _classic_gait(g):
    return CompassGait(g=g).fixed_point()[0]
