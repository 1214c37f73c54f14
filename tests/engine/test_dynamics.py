"""Smooth dynamics of the compiled model against the dynamics digest §2.2, §7.4 (D7.5) and the control digest (C8.1)."""

import glob
import os

import numpy as np
import pytest

from nsgui.scene import scene_from_dict
from nsgui.engine import compile_scene, simulate

from tests.helpers import SCENES, example, example_dict

G0 = 9.81
ALL_EXAMPLES = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(SCENES, "*.json")))


def random_states(model, n, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield model.q0 + rng.normal(scale=0.7, size=model.nq), rng.normal(size=model.nq)


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_mass_matrix_symmetric_positive_definite(name):
    model = compile_scene(example(name))
    for q, _ in random_states(model, 5):
        M = model.mass_matrix(q)
        assert M.shape == (model.nq, model.nq)
        np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-13 * np.abs(M).max())
        assert np.linalg.eigvalsh(M).min() > 0


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_energy_identity_of_the_coriolis_terms(name):
    """(§2.2 b) q̇ᵀ(Ṁ - 2N)q̇ = 0 for c = N q̇, with Ṁ by central differences of M along q̇."""
    model = compile_scene(example(name))
    for q, v in random_states(model, 4, seed=1):
        eps = 1e-6
        Mdot = (model.mass_matrix(q + eps * v) - model.mass_matrix(q - eps * v)) / (2 * eps)
        c = model.bias(q, v)
        lhs = v @ Mdot @ v - 2 * v @ c
        scale = abs(v @ Mdot @ v) + abs(v @ c) + 1.0
        assert abs(lhs) < 1e-7 * scale, (name, lhs)


# ----------------------------------------------------------------------------- cart–pendulum (D7.5)
M1, I1, M2, I2, A, B = 2.0, 0.3, 0.7, 0.05, 0.15, 0.6


def cart_pendulum(v0=(0.0, 0.0), q0=(0.0, 0.0), duration=2.0, dt=1e-3):
    """Bastin Ex. 2.2: cart on a horizontal rail (prismatic x1), pendulum on a revolute joint at offset a
    on the cart, CoM at distance b below the pivot when θ2 = 0 (q > 0 swings it towards +x)."""
    return scene_from_dict({
        "format": "nsgui-scene", "version": 1, "gravity": [0.0, -G0],
        "bodies": [
            {"name": "cart", "mass": M1, "inertia": I1, "shapes": [{"type": "box", "width": 0.4, "height": 0.2}]},
            {"name": "pend", "mass": M2, "inertia": I2, "com": [0.0, 0.0], "shapes": [{"type": "disk", "radius": 0.05}]},
        ],
        "joints": [
            {"name": "x1", "type": "prismatic", "parent": "world", "child": "cart", "axis": [1.0, 0.0]},
            {"name": "theta2", "type": "revolute", "parent": "cart", "child": "pend",
             "anchor_parent": [A, 0.0], "anchor_child": [0.0, B]},
        ],
        "initial": {"q": {"x1": q0[0], "theta2": q0[1]}, "v": {"x1": v0[0], "theta2": v0[1]}},
        "settings": {"dt": dt, "duration": duration, "projection": False},
    })


def test_cart_pendulum_terms_equal_closed_forms():
    model = compile_scene(cart_pendulum())
    assert model.coord_names == ["x1", "theta2"]
    for q, v in random_states(model, 8, seed=2):
        th, thd = q[1], v[1]
        M = np.array([[M1 + M2, M2 * B * np.cos(th)], [M2 * B * np.cos(th), I2 + M2 * B ** 2]])
        C = np.array([[0.0, -M2 * B * thd * np.sin(th)], [0.0, 0.0]])
        g = np.array([0.0, M2 * G0 * B * np.sin(th)])          # ∂U/∂q, on the left of (D7.5)
        np.testing.assert_allclose(model.mass_matrix(q), M, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(model.bias(q, v), C @ v, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(model.gravity_force(q), -g, rtol=1e-12, atol=1e-13)
        # potential energy: U = -m2 g0 b cos θ2 (+ a constant: the cart's height does not change)
        U0 = model.potential_energy(np.zeros(2))
        assert model.potential_energy(q) - U0 == pytest.approx(M2 * G0 * B * (1 - np.cos(th)), abs=1e-12)


def test_cart_pendulum_conserves_energy_and_horizontal_momentum():
    """With F = T = 0 (D7.5): E = ½ q̇ᵀMq̇ - m2 g0 b cos θ2 and p = (m1+m2) ẋ1 + m2 b cos θ2 θ̇2 are
    constants. The §3 step freezes M at q_k (the time-stepping digest §3.1 item 7): O(h²) per step, so the
    drift over a run is first order in h (measured 3.0e-3 relative on E at h = 1e-3 over 3 s), not O(h²)."""
    drifts = []
    for dt in (2e-3, 1e-3):
        res = simulate(cart_pendulum(v0=(0.5, 2.0), q0=(0.0, 0.8), duration=3.0, dt=dt))
        S = res.signals
        x1d, th, thd = S["v.x1"], S["q.theta2"], S["v.theta2"]
        p = (M1 + M2) * x1d + M2 * B * np.cos(th) * thd
        K = 0.5 * ((M1 + M2) * x1d ** 2 + 2 * M2 * B * np.cos(th) * x1d * thd + (I2 + M2 * B ** 2) * thd ** 2)
        E = K - M2 * G0 * B * np.cos(th)
        np.testing.assert_allclose(S["energy.kinetic"], K, rtol=1e-12, atol=1e-12)
        dE = np.abs(E - E[0]).max() / abs(E[0])
        dp = np.abs(p - p[0]).max() / abs(p[0])
        assert dE < 4 * dt and dp < dt, (dt, dE, dp)
        # no contacts: the residual is the drift itself
        np.testing.assert_allclose(S["energy.residual"], S["energy.total"] - S["energy.total"][0], atol=1e-12)
        drifts.append((dE, dp))
    for i in range(2):
        ratio = drifts[0][i] / drifts[1][i]
        assert 1.7 < ratio < 2.4, (i, drifts)                       # first order in h


# ----------------------------------------------------------------------------- two-link arm (C8.1)
def two_link(m1, m2, i1, i2, l1=0.5, l2=0.5):
    d = example_dict("two_link_arm")
    d["bodies"][0].update(mass=m1, inertia=i1)
    d["bodies"][1].update(mass=m2, inertia=i2)
    d["actuators"] = []
    return compile_scene(scene_from_dict(d))


def test_two_link_arm_mass_matrix_and_gravity_match_c81_with_unequal_masses():
    """m1 != m2 catches both printed errors of 004 (errata 004-E5 M11, 004-E6 G1)."""
    m1, m2, i1, i2, l1, l2 = 1.0, 2.5, 0.7, 0.4, 0.5, 0.5
    model = two_link(m1, m2, i1, i2)
    assert model.coord_names == ["shoulder", "elbow"]
    for q, v in random_states(model, 8, seed=3):
        t1, t2 = q
        c2 = np.cos(t2)
        M11 = m1 * l1 ** 2 / 4 + m2 * (l1 ** 2 + l2 ** 2 / 4 + l1 * l2 * c2) + i1 + i2
        M12 = m2 * l2 ** 2 / 4 + m2 * l1 * l2 / 2 * c2 + i2
        M22 = m2 * l2 ** 2 / 4 + i2
        np.testing.assert_allclose(model.mass_matrix(q), [[M11, M12], [M12, M22]], rtol=1e-13, atol=1e-14)
        G1 = G0 / 2 * (l1 * (m1 + 2 * m2) * np.cos(t1) + m2 * l2 * np.cos(t1 + t2))
        G2 = m2 * G0 * l2 / 2 * np.cos(t1 + t2)
        np.testing.assert_allclose(model.gravity_force(q), [-G1, -G2], rtol=1e-12, atol=1e-13)
        # Christoffel C of (C8.1): C q̇ is the bias, and Ṁ - 2C is skew-symmetric
        beta = 0.5 * m2 * l1 * l2 * np.sin(t2)
        C = np.array([[-beta * v[1], -beta * (v[0] + v[1])], [beta * v[0], 0.0]])
        np.testing.assert_allclose(model.bias(q, v), C @ v, rtol=1e-12, atol=1e-13)
        eps = 1e-6
        Mdot = (model.mass_matrix(q + eps * v) - model.mass_matrix(q - eps * v)) / (2 * eps)
        S = Mdot - 2 * C
        np.testing.assert_allclose(S, -S.T, atol=1e-8)
        # the printed (wrong) forms would differ by these amounts: the test can tell
        assert abs((m1 + 2 * m2) - (2 * m1 + m2)) > 0.5


def test_double_pendulum_mass_matrix_closed_form():
    """Point masses m on massless 1 m rods, θ2 relative: M = [[m1 + 2m2(1 + cos θ2), m2(1 + cos θ2)], [., m2]]."""
    model = compile_scene(example("double_pendulum_wall"))
    for q, v in random_states(model, 6, seed=4):
        c2 = np.cos(q[1])
        np.testing.assert_allclose(model.mass_matrix(q), [[1 + 2 * (1 + c2), 1 + c2], [1 + c2, 1.0]],
                                   rtol=1e-13, atol=1e-14)
        g = 10.0
        grav = [-g * (2 * np.sin(q[0]) + np.sin(q[0] + q[1])), -g * np.sin(q[0] + q[1])]
        np.testing.assert_allclose(model.gravity_force(q), grav, rtol=1e-12, atol=1e-13)


def _reference_cart_pendulum(q, v, h, n, theta=0.5):
    """The time-stepping digest (T3.2)–(T3.6) written out for (D7.5): F = -C q̇ - g, Jacobians in closed form."""
    out = [np.r_[q, v]]
    for _ in range(n):
        th, thd = q[1], v[1]
        s, c = np.sin(th), np.cos(th)
        M = np.array([[M1 + M2, M2 * B * c], [M2 * B * c, I2 + M2 * B ** 2]])
        F = np.array([M2 * B * thd ** 2 * s, -M2 * G0 * B * s])
        K = np.array([[0.0, M2 * B * thd ** 2 * c], [0.0, -M2 * G0 * B * c]])      # ∂F/∂q
        C = np.array([[0.0, 2 * M2 * B * thd * s], [0.0, 0.0]])                   # ∂F/∂v
        W = M - h * theta * C - h * h * theta * theta * K
        v_new = v + np.linalg.solve(W, h * (F + h * theta * K @ v))
        q = q + h * (theta * v_new + (1 - theta) * v)
        v = v_new
        out.append(np.r_[q, v])
    return np.array(out)


def test_cart_pendulum_step_is_the_section3_scheme():
    """The run equals a direct transcription of §3 (so the O(h) drift above is the scheme's, not a bug)."""
    h = 1e-3
    res = simulate(cart_pendulum(v0=(0.5, 2.0), q0=(0.0, 0.8), duration=1.0, dt=h))
    S = res.signals
    got = np.column_stack([S["q.x1"], S["q.theta2"], S["v.x1"], S["v.theta2"]])
    ref = _reference_cart_pendulum(np.array([0.0, 0.8]), np.array([0.5, 2.0]), h, len(got) - 1)
    # the engine differentiates F numerically (central differences): agreement to ~1e-9
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", ["biped", "four_bar", "double_pendulum_wall", "rocking_block"])
def test_body_kinematics_without_jacobians_keeps_them_and_computes_the_same_frames(name):
    """refresh_velocities' pass (a new v at the same q): every pose, velocity and bias acceleration
    bit for bit those of the full pass, the Jacobians left as they were."""
    from nsgui.engine.arrays import Kinematics, to_struct
    from nsgui.engine.dynamics import body_kinematics
    model = compile_scene(example(name))
    m = model.struct
    for q, v in random_states(model, 3):
        full = Kinematics.zeros(model.nbodies, model.nq)
        body_kinematics(m, q, v, to_struct(full))
        part = Kinematics.zeros(model.nbodies, model.nq)
        part.Jp[...] = 7.0  # what the pass must leave
        part.Ja[...] = 7.0
        body_kinematics(m, q, v, to_struct(part), False)
        for field in ("pos", "ang", "vel", "omg", "acc", "cs"):
            np.testing.assert_array_equal(getattr(part, field), getattr(full, field), err_msg=field)
        assert (part.Jp == 7.0).all() and (part.Ja == 7.0).all()
        assert np.abs(full.Jp).max() > 0  # (the full pass did write them)


@pytest.mark.parametrize("name", ["bead_column_10", "disk_pile", "biped", "rocking_block", "double_pendulum_wall"])
def test_constant_jacobians_written_once_stay_those_of_a_full_pass(name):
    """body_kinematics writes the Jacobians of bodies on free or prismatic joints to the world at its
    first pass only (they do not depend on q): after passes at other states (with and without the
    Jacobians), every Jacobian is bit for bit that of a first pass at the last state."""
    from nsgui.engine.arrays import Kinematics, to_struct
    from nsgui.engine.dynamics import body_kinematics
    model = compile_scene(example(name))
    m = model.struct
    kept = Kinematics.zeros(model.nbodies, model.nq)
    for k, (q, v) in enumerate(random_states(model, 4)):
        body_kinematics(m, q, v, to_struct(kept), k != 2)
    assert kept.jconst[0] == 1.0
    fresh = Kinematics.zeros(model.nbodies, model.nq)
    body_kinematics(m, q, v, to_struct(fresh))
    body_kinematics(m, q, v, to_struct(kept))
    np.testing.assert_array_equal(kept.Jp, fresh.Jp)
    np.testing.assert_array_equal(kept.Ja, fresh.Ja)


@pytest.mark.parametrize("nb,n", [(1, 1), (1, 6), (6, 1), (3, 9), (7, 9), (10, 10), (4, 13), (13, 4), (200, 600)])
def test_jacobian_arrays_keep_every_entry_in_its_own_place(nb, n):
    """Kinematics' Jp and Ja (arrays.jacobian_arrays, laid out along the bodies' own coordinates) start
    at zero and hold any values written to their (nb, 2, nq) and (nb, nq) entries, each apart from all
    the others: what dense arrays hold."""
    from nsgui.engine.arrays import jacobian_arrays
    rng = np.random.default_rng(nb * 100 + n)
    Jp, Ja = jacobian_arrays(nb, n)
    assert Jp.shape == (nb, 2, n) and Ja.shape == (nb, n)
    assert not Jp.any() and not Ja.any()
    A, B = rng.standard_normal((nb, 2, n)), rng.standard_normal((nb, n))
    Jp[...] = A
    Ja[...] = B
    np.testing.assert_array_equal(Jp, A)
    np.testing.assert_array_equal(Ja, B)
    for b, x, j in zip(rng.integers(0, nb, 20), rng.integers(0, 2, 20), rng.integers(0, n, 20)):
        Jp[b, x, j] = -1.0  # one entry changes alone
        A[b, x, j] = -1.0
        np.testing.assert_array_equal(Jp, A)
        np.testing.assert_array_equal(Ja, B)


@pytest.mark.parametrize("name", ["bead_column_10", "disk_pile", "biped", "four_bar"])
def test_body_kinematics_on_the_laid_out_jacobians_is_that_on_dense_ones(name):
    """body_kinematics into Kinematics.zeros (the Jacobians laid out along the bodies' coordinates) and
    into dense zero arrays: every pose, velocity, acceleration and Jacobian entry bit for bit the same."""
    from nsgui.engine.arrays import Kinematics, to_struct
    from nsgui.engine.dynamics import body_kinematics
    model = compile_scene(example(name))
    m = model.struct
    nb, n = model.nbodies, model.nq
    for q, v in random_states(model, 3):
        laid = Kinematics.zeros(nb, n)
        dense = Kinematics(*(np.zeros(getattr(laid, f).shape) for f in Kinematics._fields))
        assert not laid.Jp.flags.c_contiguous and dense.Jp.flags.c_contiguous
        body_kinematics(m, q, v, to_struct(laid))
        body_kinematics(m, q, v, to_struct(dense))
        for field in Kinematics._fields:
            np.testing.assert_array_equal(getattr(laid, field), getattr(dense, field), err_msg=field)


def test_every_kinematics_has_one_kernel_type():
    """The laid-out Jacobians of one body on one coordinate are contiguous arrays, the others strided:
    the kernels still see one Kinematics type (Jp and Ja in any layout), so no model compiles the
    kernels a second time."""
    import numba
    from nsgui.engine.arrays import Kinematics, to_struct
    dense = Kinematics(np.zeros((2, 2)), np.zeros(2), np.zeros((2, 2)), np.zeros(2), np.zeros((2, 2)),
                       np.zeros((2, 2, 2)), np.zeros((2, 2)), np.zeros((2, 2)), np.zeros(1))
    kinds = {numba.typeof(to_struct(k)) for k in (dense, *(Kinematics.zeros(nb, n) for nb, n in
                                                         ((1, 1), (1, 3), (10, 10), (3, 9), (0, 0))))}
    assert len(kinds) == 1
