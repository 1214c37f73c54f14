"""The friction-cone monitor of a law's desired contact forces (walking.md §4.2): which contact forces
would hold the robot at rest at the desired posture q_d, and can the ground give them?

At rest at q_d the contact forces λ must balance the law's constant terms (control.md (C4.1)):
H_N(q_d)ᵀ λ_N + H_T(q_d)ᵀ λ_T = b, with b the desired reaction r'_μ1d on the actuated coordinates and
g2(q_d) = dU/dq on the others (the base). The contacts are those closed at q_d (gap below 1 µm). The
least-squares solution of least norm is taken: the normal forces of a rigid foot on heel and toe
are then exact (its wrench fixes them), while the split of its tangential force between heel and toe,
which no rigid model fixes, is shared evenly. A negative λ_N means the law asks the ground to pull:
no motion of the robot can deliver its desired posture with those forces.
"""

import numpy as np
from numba import njit

from ..codes import CF_MU
from .desired_posture import contact_rows_at

CLOSED = 1e-6            # m: a contact with a gap below this at q_d carries a desired force
INSIDE, SLIPS, PULLS = 0, 1, 2


@njit(cache=True)
def desired_contact_demand(m, d, q_d, b):
    """(smallest desired normal force (N), INSIDE / SLIPS / PULLS) of the forces λ with
    H(q_d)ᵀ λ = b over the contacts closed at q_d; (0, INSIDE) if none is closed."""
    nq = q_d.shape[0]
    nc = m.ci.shape[0]
    rowsN = np.zeros((nc, nq))
    rowsT = np.zeros((nc, nq))
    closed = np.zeros(nc, np.int64)
    k = 0
    for c in range(nc):
        g = contact_rows_at(m, d, q_d.copy(), c, rowsN[k], rowsT[k])
        if g < CLOSED:
            closed[k] = c
            k += 1
    if k == 0:
        return 0.0, INSIDE
    A = np.zeros((nq, 2 * k))
    for i in range(k):
        A[:, i] = rowsN[i]
        A[:, k + i] = rowsT[i]
    lam = np.linalg.lstsq(A, b.copy(), rcond=1e-10)[0]
    fmin = lam[0]
    flag = INSIDE
    for i in range(k):
        fn, ft = lam[i], lam[k + i]
        fmin = min(fmin, fn)
        if fn < 0.0:
            flag = PULLS
        elif abs(ft) > m.cf[closed[i], CF_MU] * fn * (1.0 + 1e-9) + 1e-9 and flag == INSIDE:
            flag = SLIPS
    return fmin, flag
