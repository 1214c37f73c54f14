"""The free velocity of a model whose forces depend on the state (the double pendulum: M(q), analytic
Jacobians): v_free = v + Ŵ⁻¹ h (F + Qact + hθ K v), Ŵ = M - hθC - h²θ²K, against numpy on random states;
and its K v for two coordinates, written out in stepper._free_rhs, is BLAS's (numba's np.dot) bit for bit,
as the larger models' K v is (a plain loop's sums moved the last bits of the chaotic pendulum)."""
import numpy as np
from numba import njit

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.evaluation import evaluate
from nsgui.scene import scene_from_dict
from tests.helpers import example_dict


@njit
def _blas_kv(K, v):
    out = np.empty(v.shape[0])
    np.dot(K, v, out)
    return out


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


def test_two_coordinate_kv_is_blas_bit_for_bit():
    rng = np.random.default_rng(11)
    for _ in range(200):
        _model, m, d, dat = _pendulum_at(rng)
        assert st.free_velocity_of_inputs(m, d) == st.OK
        # d.fd_Fp holds the step's K v (the Jacobians are left in d.K)
        assert np.array_equal(dat.fd_Fp, _blas_kv(dat.K, dat.v)), "K v differs from BLAS's in the last bits"
