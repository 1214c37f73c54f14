"""Model terms at a desired configuration rather than at the state: the gravity force g(q_d) that the
standing law pre-compensates, and a contact's normal row H_N(q_d) that places the manipulator's
desired contact force r_d = H_N(q_d)ᵀ λ_d. Both use the finite-difference scratch of Data (fd_kin,
fd_grav, fd_bias), free at sample time (model_terms.py)."""

import numpy as np
from numba import njit

from ..contact_geometry import candidate_geometry
from ..contact_rows import contact_rows
from ..dynamics import body_kinematics, com_terms


@njit(cache=True)
def gravity_at(m, d, q, out):
    """out = the generalized gravity force at configuration q (nsgui's sign: −dU/dq)."""
    body_kinematics(m, q, np.zeros_like(q), d.fd_kin)
    com_terms(m, d.fd_kin, d.M, d.fd_bias, out, False)


@njit(cache=True)
def contact_rows_at(m, d, q, c, outN, outT):
    """outN, outT (nq) = the normal and tangential Jacobian rows of contact candidate c at
    configuration q (the normal row is the gradient of its gap: a positive multiple pushes the
    contact open); returns the gap at q."""
    kin = d.fd_kin
    body_kinematics(m, q, np.zeros_like(q), kin)
    g, nx, ny, pax, pay, pbx, pby = candidate_geometry(c, q, m.ci, m.cf, m.verts, kin.pos, kin.ang)
    nrm = np.zeros((c + 1, 2))
    pa = np.zeros((c + 1, 2))
    pb = np.zeros((c + 1, 2))
    nrm[c, 0], nrm[c, 1] = nx, ny
    pa[c, 0], pa[c, 1], pb[c, 0], pb[c, 1] = pax, pay, pbx, pby
    width = m.ccols.shape[1]
    rowN, rowT = np.zeros(width), np.zeros(width)
    contact_rows(c, m, kin, nrm, pa, pb, rowN, rowT)
    outN[:] = 0.0
    outT[:] = 0.0
    for kk in range(m.ccn[c]):
        outN[m.ccols[c, kk]] += rowN[kk]
        outT[m.ccols[c, kk]] += rowT[kk]
    return g


@njit(cache=True)
def normal_row_at(m, d, q, c, out):
    """out (nq) = the normal Jacobian row of contact candidate c at configuration q; returns the gap."""
    return contact_rows_at(m, d, q, c, out, np.zeros_like(out))
