"""The normal Jacobian rows of contacts at configurations, in one kernel call: what the simulator's
impact events need (Simulator._describe_impacts), without Model.contact_jacobians' every-contact
Python loop (60 µs a call on the bouncing ball, about as much as its 2000 steps' kernel per impact).
The values are those of Model.contact_jacobians, computed by the same kernels from the same inputs."""

import numpy as np
from numba import njit

from .contact_geometry import candidate_geometry
from .contact_rows import contact_rows
from .dynamics import body_kinematics


@njit(cache=True)
def normal_row(m, kin, c, q, out):
    """out (nq,) = the normal row of candidate c at q (velocities zero, as Model.contact_jacobians);
    kin: a Kinematics struct used as scratch."""
    n = q.shape[0]
    body_kinematics(m, q, np.zeros(n), kin)
    nc = m.ci.shape[0]
    nrm, pa, pb = np.zeros((nc, 2)), np.zeros((nc, 2)), np.zeros((nc, 2))
    _g, nrm[c, 0], nrm[c, 1], pa[c, 0], pa[c, 1], pb[c, 0], pb[c, 1] = candidate_geometry(
        c, q, m.ci, m.cf, m.verts, kin.pos, kin.ang)
    width = m.ccols.shape[1]
    valsN, valsT = np.zeros(width), np.zeros(width)
    contact_rows(c, m, kin, nrm, pa, pb, valsN, valsT)
    out[:] = 0.0
    for k in range(m.ccn[c]):
        out[m.ccols[c, k]] = valsN[k]


@njit(cache=True)
def normal_rows(m, kin, cs, Q, out):
    """out[i] = the normal row of candidate cs[i] at Q[i] (normal_row), for every i."""
    for i in range(cs.shape[0]):
        normal_row(m, kin, cs[i], Q[i], out[i])
