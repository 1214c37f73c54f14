"""The free velocity of a model whose forces depend on the state (the double pendulum: M(q), analytic
Jacobians): v_free = v + Ŵ⁻¹ h (F + Qact + hθ K v), Ŵ = M - hθC - h²θ²K, against numpy on random states;
and its K v for two coordinates, written out in stepper._free_rhs as OpenBLAS's dgemv sums it on this
machine (K[i, 0] v[0] fused onto the rounded K[i, 1] v[1]), rounded exactly so: checked against exact
rational arithmetic, not against the BLAS of the machine running the test (its kernel depends on the CPU).
`benchmarks/identical.py` is what shows it equal to BLAS's sums here."""
from fractions import Fraction

import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.evaluation import evaluate
from nsgui.engine.solvers._linalg import lu_factor_inplace, lu_solve_factored
from nsgui.scene import scene_from_dict
from tests.helpers import example_dict


def _fused_kv(K, v):
    """K[i, 0] v[0] + fl(K[i, 1] v[1]) with one rounding: exact rationals, rounded once by float()."""
    return np.array([float(Fraction(K[i, 0]) * Fraction(v[0]) + Fraction(K[i, 1] * v[1])) for i in range(2)])


def _pendulum_at(rng):
    model = compile_scene(scene_from_dict(example_dict("double_pendulum_wall")))
    sim = Simulator(model)
    m, d = sim._args
    dat = sim._data
    dat.q[:] = rng.uniform(-2.0, 2.0, 2)
    dat.v[:] = rng.uniform(-5.0, 5.0, 2) * 10.0 ** rng.uniform(-3, 1)
    dat.Qact[:] = rng.uniform(-1.0, 1.0, 2)
    evaluate(m, d, True)
    return model, m, d, dat


def test_free_velocity_against_numpy():
    rng = np.random.default_rng(7)
    for _ in range(50):
        model, m, d, dat = _pendulum_at(rng)
        assert st.free_velocity_of_inputs(m, d) == st.OK
        h, theta = model.dt, model.scene.settings.theta
        W = dat.M - h * theta * dat.C - h * h * theta * theta * dat.K
        rhs = h * (dat.F + dat.Qact + h * theta * dat.K @ dat.v)
        expected = dat.v + np.linalg.solve(W, rhs)
        assert np.allclose(dat.vfree, expected, rtol=1e-13, atol=1e-15 * np.abs(dat.v).max())
        assert np.any(dat.K != 0.0)  # (gravity's stiffness: the K v term is exercised)


def test_two_coordinate_kv_is_one_fused_rounding():
    rng = np.random.default_rng(11)
    for _ in range(200):
        _model, m, d, dat = _pendulum_at(rng)
        assert st.free_velocity_of_inputs(m, d) == st.OK
        # d.fd_Fp holds the step's K v (the Jacobians are left in d.K)
        assert np.array_equal(dat.fd_Fp, _fused_kv(dat.K, dat.v)), "K v is not K[i,0] v[0] fused onto fl(K[i,1] v[1])"


def _general_free_velocity(m, d, dat):
    """free_velocity_of_inputs' steps after the Jacobians as for any number of coordinates (what
    _free_velocity_two writes out for two): (whether Ŵ factored, then d.What, d.piv, d.fd_Fp, d.vfree)."""
    st._iteration_matrix(m, d)
    ok = lu_factor_inplace(dat.What, dat.piv)
    if ok:
        st._free_rhs(m, d)
        lu_solve_factored(dat.What, dat.piv, dat.vfree)
        st._add_velocity(d)
    return ok


def test_two_coordinates_written_out_equal_the_general_steps_bit_for_bit():
    """stepper._free_velocity_two against _iteration_matrix, lu_factor_inplace, _free_rhs, lu_solve_factored
    and _add_velocity: the same flag and the same bits in Ŵ's factors, the pivots, K v and v_free, on
    random states and Jacobians, either row as the pivot, and singular Ŵ (zero; singular after the first
    column), where both stop at the same place."""
    rng = np.random.default_rng(13)
    outputs = ("What", "piv", "fd_Fp", "vfree")
    seen = set()
    for trial in range(400):
        _model, m, d, dat = _pendulum_at(rng)
        dat.M[:, :] = rng.normal(size=(2, 2)) * 10.0 ** rng.uniform(-2, 2)
        dat.C[:, :] = rng.normal(size=(2, 2)) * 10.0 ** rng.uniform(-2, 3)
        dat.K[:, :] = rng.normal(size=(2, 2)) * 10.0 ** rng.uniform(-2, 5)
        dat.F[:] = rng.normal(size=2)
        if trial % 10 == 1:  # Ŵ = 0
            dat.M[:, :] = dat.C[:, :] = dat.K[:, :] = 0.0
        elif trial % 10 == 2:  # rank one: singular at the second column
            dat.M[:, :] = np.outer(rng.normal(size=2), rng.normal(size=2))
            dat.C[:, :] = dat.K[:, :] = 0.0
        start = {name: getattr(dat, name).copy() for name in outputs}
        ok_general = _general_free_velocity(m, d, dat)
        general = {name: getattr(dat, name).copy() for name in outputs}
        for name in outputs:
            getattr(dat, name)[...] = start[name]
        ok_two = st._free_velocity_two(m, d)
        assert ok_two == ok_general
        for name in outputs:
            got, want = getattr(dat, name), general[name]
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), (trial, name, got, want)
        seen.add((ok_general, int(dat.piv[0]) if ok_general else -1))
    assert {(True, 0), (True, 1), (False, -1)} <= seen
