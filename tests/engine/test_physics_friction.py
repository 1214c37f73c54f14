"""Coulomb friction against the time-stepping digest §8.2 (T8.6)–(T8.7) and the two-corner load split §8.4 (T8.10)."""

import numpy as np
import pytest

from nsgui.engine import codes

from tests.helpers import Run, example

G = 9.81
MU = 0.3
M = 1.0
V0 = 2.0
T_STOP = V0 / (MU * G)              # (T8.6)
D_STOP = V0 ** 2 / (2 * MU * G)


@pytest.mark.parametrize("projection", [False, True])
def test_sliding_block_stops_at_closed_form_time_and_distance(projection):
    run = Run(example("sliding_block"), projection=projection)
    h = run.h
    x, vx = run.Q[:, 0], run.V[:, 0]
    k_stop = int(np.argmax(vx <= 0.0))
    assert k_stop > 0 and abs(run.t[k_stop] - T_STOP) <= 1.5 * h      # within a step or two
    assert np.all(vx[k_stop:] == 0.0)
    assert abs(x[-1] / D_STOP - 1) < 1e-3
    # while sliding: mean friction force -mu m g, normal m g, exactly per step (constant forces)
    sliding = slice(1, k_stop - 1)
    np.testing.assert_allclose(run.pt[sliding, 0], -MU * M * G * h, rtol=1e-12)
    np.testing.assert_allclose(run.pn[1:, 0], M * G * h, rtol=1e-12)
    assert np.all(run.status[sliding, 0] == codes.SLIP) and np.all(run.status[k_stop + 1:, 0] == codes.STICK)
    np.testing.assert_allclose(np.diff(vx[:k_stop]), -MU * G * h, rtol=1e-9)
    # the block neither sinks nor turns
    assert np.abs(run.Q[:, 1]).max() < 1e-12 and np.abs(run.Q[:, 2]).max() < 1e-12
    # the kinetic energy went into friction: mu m g d_stop = m v0^2 / 2
    S = run.S
    assert abs(S["energy.friction"][-1] - 0.5 * M * V0 ** 2) < 1e-9
    assert abs(S["energy.dissipated"][-1] - 0.5 * M * V0 ** 2) < 1e-9
    assert S["energy.kinetic"][-1] == 0.0


def test_push_below_friction_limit_sticks():
    """(T8.7) F = 2 N <= mu m g: stick, r_T = -F exactly, no motion."""
    run = Run(example("sliding_block_push2"))
    h = run.h
    np.testing.assert_allclose(run.pt[1:, 0], -2.0 * h, rtol=1e-13)
    np.testing.assert_allclose(run.pn[1:, 0], M * G * h, rtol=1e-13)
    assert np.all(run.status[1:, 0] == codes.STICK)
    assert np.all(run.Q == run.Q[0]) and np.all(run.V == 0.0)


@pytest.mark.parametrize("solver", ["auto", "lemke", "nsgs"])
def test_push_above_friction_limit_slides(solver):
    """(T8.7) F = 5 N > mu m g: a = F/m - mu g, x = a t^2 / 2 (fitted), friction -mu m g per step."""
    F = 5.0
    a = F / M - MU * G
    run = Run(example("sliding_block_push5"), solver=solver)
    h = run.h
    t, x = run.t, run.Q[:, 0]
    c2, c1, c0 = np.polyfit(t, x, 2)
    assert abs(2 * c2 / a - 1) < 1e-9 and abs(c1) < 1e-9 and abs(c0) < 1e-9
    np.testing.assert_allclose(x, 0.5 * a * t ** 2, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(run.pt[1:, 0], -MU * M * G * h, rtol=1e-9)
    assert np.all(run.status[2:, 0] == codes.SLIP)
    # balance: work of the push = kinetic energy + friction loss
    S = run.S
    assert abs(F * x[-1] - S["energy.kinetic"][-1] - S["energy.friction"][-1]) < 1e-9 * F * x[-1]


def _box_run(solver):
    run = Run(example("sliding_box"), solver=solver)      # projection on (the scene's default)
    g, pts, nrm = run.model.contact_frames(run.Q[0])
    bottom = np.nonzero(np.abs(g) < 1e-12)[0]
    assert len(bottom) == 2
    back, front = bottom[np.argsort(pts[bottom, 0])]      # sliding towards +x: the right corner leads
    return run, back, front


@pytest.mark.parametrize("solver", ["auto", "lemke", "nsgs"])
def test_sliding_box_load_split_follows_moment_balance(solver):
    """(T8.10): N_front - N_back = mu H_b / w m g, N_front + N_back = m g, deceleration mu g."""
    w, Hb = 0.4, 0.2
    run, back, front = _box_run(solver)
    h = run.h
    vx = run.V[:, run.model.coord_names.index("box.x")]
    k_stop = int(np.argmax(vx <= 1e-9))
    assert abs(run.t[k_stop] - T_STOP) <= 1.5 * h
    sliding = slice(1, k_stop - 1)
    Nf, Nb = run.pn[sliding, front] / h, run.pn[sliding, back] / h
    np.testing.assert_allclose(Nf - Nb, MU * Hb / w * M * G, rtol=1e-6)
    np.testing.assert_allclose(Nf + Nb, M * G, rtol=1e-7)   # NSGS stops at tolerance 1e-10
    np.testing.assert_allclose(Nf, M * G / 2 * (1 + MU * Hb / w), rtol=1e-6)
    # both corners slide with friction -mu N each; the top corners carry nothing
    np.testing.assert_allclose(run.pt[sliding, front], -MU * run.pn[sliding, front], rtol=1e-6)
    np.testing.assert_allclose(run.pt[sliding, back], -MU * run.pn[sliding, back], rtol=1e-6)
    top = [c for c in range(4) if c not in (front, back)]
    assert np.all(run.pn[:, top] == 0.0)
    np.testing.assert_allclose(np.diff(vx[:k_stop]), -MU * G * h, rtol=1e-6)
    assert abs(run.Q[-1, 0] / D_STOP - 1) < 1e-3
    assert np.abs(run.Q[:, 2]).max() < 1e-9               # no rotation while 2 mu h_G < w
    # at rest: only the sums are determined (§8.4): normals m g h in total, tangential sum 0
    rest = slice(k_stop + 2, None)
    np.testing.assert_allclose(run.pn[rest, front] + run.pn[rest, back], M * G * h, rtol=1e-7)
    assert np.abs(run.pt[rest, front] + run.pt[rest, back]).max() < 1e-7 * M * G * h


def test_friction_never_exceeds_the_cone_and_dissipates():
    """(D6.1)–(D6.3) on every step of the box run: |r_T| <= mu r_N, r_T u_T <= 0."""
    run, back, front = _box_run("auto")
    assert np.all(np.abs(run.pt) <= MU * run.pn * (1 + 1e-9) + 1e-15)
    for k in range(1, len(run.t)):
        _, HT = run.model.contact_jacobians(run.Q[k - 1])
        uT = HT @ run.V[k]
        assert np.all(run.pt[k] * uT <= 1e-9 * np.abs(run.pt[k]))   # creep at rest ~1e-12 m/s
    assert np.all(np.diff(run.S["energy.friction"]) >= -1e-15)
