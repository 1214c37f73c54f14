"""Joint-space computed torque: u = M(q)(q̈_d + kd ė + kp e) + c(q, q̇) − g(q) on the actuated
coordinates, e = q_d − q. The full generalized force is computed and each actuator takes its
coordinate's entry, so the cancellation is exact only when every coordinate is actuated.

Why it is fragile with impacts (control.md §5): the law cancels the smooth dynamics, but impacts are
neither predictable in time nor cancellable (they are impulses), and it keeps no energy-like function
that impacts would decrease: after an impact the error jumps and the law drives hard against the
contact. Passivity-based laws (Slotine–Li, the thesis' PD) are the ones to use with contacts.

P = [kp, kd, number of actuators, offset of each trajectory in P..., trajectories...];
signals [q_d per actuator, e per actuator]."""

import numpy as np
from numba import njit

from .trajectories import initial_value, pack_trajectory, trajectory


def pack(c, model, coords):
    n = len(coords)
    targets = list(c.targets) + [None] * (n - len(c.targets))
    holds = [model.q0[j] for j in coords]  # a missing trajectory holds the initial value
    packed = [pack_trajectory(tr, hold) for tr, hold in zip(targets, holds)]
    offsets, k = [], 3 + n
    for p in packed:
        offsets.append(float(k))
        k += len(p)
    q_d = [initial_value(tr, hold) for tr, hold in zip(targets, holds)]
    return ([c.kp, c.kd, float(n)] + offsets + [x for p in packed for x in p], [],
            q_d + [qd - model.q0[j] for qd, j in zip(q_d, coords)])


@njit(cache=True)
def computed_torque_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    kp, kd, na = P[0], P[1], int(P[2])
    nq = d.q.shape[0]
    acc = np.zeros(nq)
    for i in range(na):
        j = coords[i]
        q_d, v_d, a_d = trajectory(P, int(P[3 + i]), t)
        e = q_d - d.q[j]
        acc[j] = a_d + kd * (v_d - d.v[j]) + kp * e
        sig[i] = q_d
        sig[na + i] = e
    tau = d.M @ acc + d.bias - d.grav
    for i in range(na):
        u[i] = tau[coords[i]]
