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
