"""Newton's cradle: horizontal momentum through the impacts, momentum passed along, energy with e = 1.

Five point masses m on strings l: horizontal momentum p = Σ m l cos θ_i θ'_i. The contact percussions are
internal (equal and opposite along the normal), so an impact step changes p only through gravity and the
strings over the step, O(h) and small near the bottom.

The scene as written has the balls exactly touching: a simultaneous-impact LCP then treats the touching
chain as one body (the dynamics digest §5.7) and which contacts join is decided by round-off gaps of ±1e-17, so
the pass-along is checked on a cradle built here with 0.1 mm gaps (binary impacts, one per step).
"""

import numpy as np
import pytest

from nsgui.engine import codes

from tests.helpers import Run, example, example_dict, scene_from_dict

M, L, R = 0.1, 0.5, 0.05
G = 9.81
GAP = 1e-4


def momentum(Q, V):
    return (M * L * np.cos(Q) * V).sum(axis=1)


def gapped_cradle():
    d = example_dict("newtons_cradle")
    for i, j in enumerate(d["joints"]):
        j["anchor_parent"] = [i * (2 * R + GAP), 0.5]
    return scene_from_dict(d)


@pytest.mark.parametrize("gapped", [False, True])
def test_impacts_conserve_horizontal_momentum(gapped):
    scene = gapped_cradle() if gapped else example("newtons_cradle")
    run = Run(scene, projection=False, duration=1.0)
    h = run.h
    p = momentum(run.Q, run.V)
    rows = run.impact_rows()
    # near the bottom the strings are vertical and carry no horizontal impulse; tilted collisions
    # (later swings) load the pivots, so only those are held to conservation
    bottom = [k for k in rows if np.abs(np.sin(run.Q[k])).max() < 0.05]
    assert len(bottom) >= 2
    for k in bottom:
        # over the step: dp/dt = -Σ m sin θ (g cos θ + l θ'²) (gravity and string tension), plus the
        # impulse's velocity change going through Ŵ = M - h²θ²K (T3.2, T3.5) instead of M: p h² g / (4 l)
        q, v = run.Q[k - 1], run.V[k - 1]
        tol = 2 * h * (M * np.abs(np.sin(q)) * (G + L * v ** 2)).sum() + 2 * abs(p[k - 1]) * h ** 2 * G / L
        assert abs(p[k] - p[k - 1]) <= tol, (run.t[k], p[k - 1], p[k], tol)
    # the first impact carries the whole swing's momentum m l θ'(bottom) = m sqrt(2 g l (1 - cos 30°))
    p_swing = M * np.sqrt(2 * G * L * (1 - np.cos(np.pi / 6)))
    assert p[rows[0] - 1] == pytest.approx(p_swing, rel=1e-3)


def test_gapped_cradle_passes_momentum_along():
    """Guards the lever-arm fix (a0f190c): with U_k 0.9x too small each binary impact returned 90%."""
    run = Run(gapped_cradle(), projection=False, duration=0.45)
    rows = run.impact_rows()
    first = rows[0]
    w_in = run.V[first - 1, 0]                       # ball0's swing speed just before the first impact
    # one binary impact per step, left to right
    hit = [int(np.nonzero(run.status[first + i] == codes.IMPACT)[0][0]) for i in range(4)]
    assert hit == [0, 1, 2, 3]
    after = run.V[first + 4]
    assert after[4] == pytest.approx(w_in, rel=2e-3)           # the last ball leaves with the speed
    assert np.abs(after[:4]).max() < 2e-3 * w_in               # the others nearly stop
    # e = 1: the exchange keeps the energy (up to the O(h²) of the nonlinear strings)
    assert abs(run.E[first + 4] - run.E[first - 1]) < 1e-6 * run.E[0]


def test_gapped_cradle_with_projection_creates_no_energy():
    """Guards a0f190c: closed contacts separating fast used to stay active with e = 0, and the binding
    U⁺ >= 0 did positive work λ U⁻/2 (+2.6e-2 J at t = 0.363 s with E0 = 0.066 J)."""
    run = Run(gapped_cradle(), duration=0.5)
    tol = 5 * M * G ** 2 * run.h ** 2
    assert np.diff(run.E).max() <= tol
