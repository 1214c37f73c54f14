"""Periodic gaits: fixed points of the return map P (or of P∘P for period 2) by Newton (walking.md
(W7.1)) with a central finite-difference Jacobian, and their eigenvalues.

The map is computed by an adaptive integrator, so it carries a small noise: its residual at a fixed
point is about 1e-12 (the walkers' scenes; 2e-11 for the rimless wheel, whose I = 1e-6 makes M⁻¹
large). A central difference has truncation error ~h² and noise error ~noise/h: the step
h_j = noise^(1/3) max(1, |x_j|) balances them. Newton's iterations use noise = NOISE (h = 1e-4
relative); the Jacobian at the fixed point, whose eigenvalues are reported, uses the noise measured
there (the residual left, relative), and its steps are reported. (A fixed 1e-10, steps of 5e-4,
left truncation errors of 1e-4 in the compass gait's eigenvalues: its stride map's eigenvalues
were the squares of its step map's only to 9e-5.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .section import GaitError

NOISE = 1e-12             # relative noise of one return-map evaluation, before it is measured
NOISE_FLOOR = 1e-14       # the smallest noise assumed (round-off of a step)
TOL = 1e-11               # Newton stops when |P(x) - x| is below TOL max(1, |x|)
MAX_NEWTON = 20
MARGIN = 1e-6             # |λ| within this of 1: the verdict is "marginal"
TRIVIAL_NOTE = ("the section is reduced: the trailing foot touching the ground (the section constraint) "
                "and the position along the slope fix dependent coordinates, the stance foot's zero "
                "velocity dependent rates; the map of the full state would have trivial eigenvalues "
                "0 (one per removed coordinate or rate) and 1 (the translation), excluded here")


def fd_steps(x, noise=NOISE):
    return noise ** (1 / 3) * np.maximum(1.0, np.abs(x))


def jacobian(f, x, steps=None):
    """Central finite-difference Jacobian of f at x, and the steps used."""
    x = np.asarray(x, float)
    h = fd_steps(x) if steps is None else steps
    J = np.empty((len(x), len(x)))
    for j in range(len(x)):
        e = np.zeros(len(x))
        e[j] = h[j]
        J[:, j] = (f(x + e) - f(x - e)) / (2 * h[j])
    return J, h


def verdict(moduli):
    top = max(moduli) if len(moduli) else 0.0
    if top < 1.0 - MARGIN:
        return "stable"
    if top > 1.0 + MARGIN:
        return "unstable"
    return "marginal"


@dataclass
class FixedPoint:
    x: np.ndarray
    residual: float            # |P^k(x) - x| (max norm) at the returned x
    iterations: int
    jacobian: np.ndarray       # D(P^k) at x
    fd_step: np.ndarray        # the finite-difference steps of the Jacobian
    eigenvalues: np.ndarray    # complex
    history: list = field(default_factory=list)   # residual after each Newton iteration

    @property
    def moduli(self):
        return np.abs(self.eigenvalues)

    @property
    def stable(self):
        return verdict(self.moduli) == "stable"


def power(P, k):
    if k == 1:
        return P

    def Pk(x):
        for _ in range(k):
            x = P(x)
        return x
    return Pk


def newton(P, x0, k=1, describe=None, max_iter=MAX_NEWTON):
    """The fixed point of P^k near x0 (GaitError, saying where and with what residual, if Newton
    does not converge)."""
    f = power(P, k)
    x = np.array(x0, float)
    describe = describe or (lambda x: np.array2string(x, precision=6))
    history = []
    best = (np.inf, x)
    scale = max(1.0, float(np.abs(x).max()))   # of the start: a runaway x must not loosen the test
    for it in range(max_iter + 1):
        Px = f(x)
        r = Px - x
        res = float(np.abs(r).max())
        history.append(res)
        if res < best[0]:
            best = (res, x.copy())
        if res < TOL * scale:
            break
        if it == max_iter:
            raise GaitError(f"Newton did not converge after {max_iter} iterations: at {describe(best[1])} "
                            f"the residual |P(x) - x| is {best[0]:.3e}")
        if it > 3 and res > 0.5 * history[-2] and res < 1e3 * TOL * scale:
            break  # the map's noise floor: Newton cannot do better
        J, _h = jacobian(f, x)
        A = J - np.eye(len(x))
        try:
            if np.linalg.svd(A, compute_uv=False).min() < 1e-9:
                raise np.linalg.LinAlgError
            dx = np.linalg.solve(A, -r)
        except np.linalg.LinAlgError:
            raise GaitError(f"Newton stopped at {describe(x)}: DP - I is singular (an eigenvalue 1: a fold), "
                            f"residual {res:.3e}") from None
        x = x + dx
    x = best[1]
    # the final Jacobian's steps from the noise measured: the residual left at the fixed point
    noise = max(best[0] / scale, NOISE_FLOOR)
    J, h = jacobian(f, x, fd_steps(x, noise))
    return FixedPoint(x=x, residual=best[0], iterations=len(history) - 1,
                      jacobian=J, fd_step=h, eigenvalues=np.linalg.eigvals(J), history=history)
