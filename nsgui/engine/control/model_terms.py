"""Model quantities the control laws need beyond what a step evaluates (d.M, d.bias, d.grav): the
kinematics of a point of a body (position, velocity, Jacobian and its time derivative) and the
Christoffel product C(q, v) w that passivity-based laws need (C with Ṁ − 2C skew-symmetric).

They use the finite-difference scratch of Data (fd_kin, fd_bias, fd_grav), free at sample time.
"""

import numpy as np
from numba import njit

from ..dynamics import body_kinematics, com_terms


@njit(cache=True)
def point_jacobian(m, kin, b, lx, ly, J):
    """J (2 x nq) of the point (lx, ly) of body b (body frame) in the kinematics kin; returns the
    point's world position (x, y)."""
    pos, ang, Jp, Ja = kin.pos, kin.ang, kin.Jp, kin.Ja
    c, s = np.cos(ang[b]), np.sin(ang[b])
    rx, ry = c * lx - s * ly, s * lx + c * ly
    J[:, :] = 0.0
    for k in range(m.plen[b]):
        j = m.path[b, k]
        J[0, j] = Jp[b, 0, j] - ry * Ja[b, j]
        J[1, j] = Jp[b, 1, j] + rx * Ja[b, j]
    return pos[b, 0] + rx, pos[b, 1] + ry


@njit(cache=True)
def point_kinematics(m, d, b, lx, ly, X, V, J, Jdot):
    """Position X, velocity V = J v, Jacobian J and its time derivative Jdot (central difference
    along v, exact to O(ε²)) of the point (lx, ly) of body b at the state of d."""
    q, v = d.q, d.v
    X[0], X[1] = point_jacobian(m, d.kin, b, lx, ly, J)
    V[0] = J[0] @ v
    V[1] = J[1] @ v
    speed = np.sqrt(v @ v)
    eps = 1e-6 / max(speed, 1.0)
    qq = d.fd_q
    Jp = np.zeros_like(J)
    Jm = np.zeros_like(J)
    qq[:] = q + eps * v
    body_kinematics(m, qq, v, d.fd_kin)
    point_jacobian(m, d.fd_kin, b, lx, ly, Jp)
    qq[:] = q - eps * v
    body_kinematics(m, qq, v, d.fd_kin)
    point_jacobian(m, d.fd_kin, b, lx, ly, Jm)
    Jdot[:, :] = (Jp - Jm) / (2.0 * eps)


@njit(cache=True)
def bias_at(m, d, q, w, out):
    """c(q, w): the velocity-product forces at configuration q and velocity w (gravity apart)."""
    body_kinematics(m, q, w, d.fd_kin)
    com_terms(m, d.fd_kin, d.M, out, d.fd_grav, False)


@njit(cache=True)
def christoffel_product(m, d, w, out):
    """out = C(q, v) w with the Christoffel C (C(q, v) v = c(q, v)), by polarization of the quadratic
    form c(q, ·): C(q, v) w = ½ [c(q, v + w) − c(q, v) − c(q, w)]."""
    q, v = d.q, d.v
    tmp = d.fd_bias
    bias_at(m, d, q, v + w, out)
    bias_at(m, d, q, w, tmp)
    for i in range(out.shape[0]):
        out[i] = 0.5 * (out[i] - d.bias[i] - tmp[i])
