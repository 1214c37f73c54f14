"""The thesis manipulator law (1.1) with the corrected sign (control.md §2, errata 000-5):

    f_c = −W (q − q_d(t)) − T q̇ − r_d − f_u,   r_d = H_N(q_d)ᵀ λ_d,   λ_d ≥ 0,

W, T diagonal (one gain per actuator), f_u = gravity (compensated when asked: −d.grav, nsgui's
d.grav being −dU/dq), r_d the desired contact force of one contact candidate, placed by its normal
row at the desired configuration (the actuated coordinates at q_d(t), the others as they are). The
feed-forward −r_d pushes the arm into the surface; at the equilibrium (q_d, 0) the surface answers
with +r_d, i.e. a normal force λ_d, provided q_d lies on the surface (the `desired_gap` signal is 0).
It derives from the shaped potential P = ½ (q − q_d)ᵀ W (q − q_d) + r_dᵀ (q − q_d) (C2.3), so
K + P decreases by at least q̇ᵀ T q̇ dt (plus impact losses) with gravity compensated.

P = [n, λ_d, candidate (−1: none), gravity compensation (0/1), W (n), T (n), trajectory offsets (n),
trajectories...]; signals [q_d (n), q_d − q (n), P, λ_d, gap at q_d]."""

import numpy as np
from numba import njit

from nsgui.scene import SceneError

from .desired_posture import normal_row_at
from .pd_terms import pack_targets, per_actuator, spring_damper
from .trajectories import trajectory


def pack(c, model, coords):
    n = len(coords)
    W = per_actuator(c.W, n, f"controller {c.name!r}: W")
    T = per_actuator(c.T, n, f"controller {c.name!r}: T")
    cand = -1
    if c.contact:
        if c.contact not in model.contact_names:
            points = [x for x in model.contact_names if x.startswith(c.contact + "[")]
            hint = f" (it has {len(points)} points: name one, e.g. {points[0]!r})" if points else ""
            raise SceneError(f"controller {c.name!r}: contact: no contact point named {c.contact!r}{hint}")
        cand = model.contact_names.index(c.contact)
    elif c.force > 0.0:
        raise SceneError(f"controller {c.name!r}: force: a desired contact force needs a `contact`")
    offsets, packed, q_d = pack_targets(c.targets, model, coords, 4 + 2 * n)
    err = [qd - model.q0[j] for qd, j in zip(q_d, coords)]
    # before the first sample the potential lacks its r_d term (r_d needs the model's kinematics)
    pot = sum(0.5 * w * e * e for w, e in zip(W, err))
    return ([float(n), float(c.force), float(cand), float(bool(c.gravity_compensation))] + W + T + offsets
            + packed, [], q_d + err + [pot, float(c.force), 0.0])


def implicit(c):
    return bool(c.implicit)


@njit(cache=True)
def manipulator_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    n, lam, cand, comp = int(P[0]), P[1], int(P[2]), P[3] != 0.0
    q_d = d.q.copy()  # the desired configuration: actuated coordinates at q_d(t), the others as they are
    for i in range(n):
        q_d[coords[i]] = trajectory(P, int(P[4 + 2 * n + i]), t)[0]
    r_d = np.zeros_like(q_d)
    gap = 0.0
    if cand >= 0:
        gap = normal_row_at(m, d, q_d, cand, r_d)
        r_d *= lam
    pot = 0.0
    for i in range(n):
        j = coords[i]
        e = spring_damper(d, i, j, P[4 + i], P[4 + n + i], q_d[j], u, dudq, dudv)
        u[i] -= r_d[j]
        if comp:
            u[i] -= d.grav[j]
        pot += 0.5 * P[4 + i] * e * e + r_d[j] * e
        sig[i] = q_d[j]
        sig[n + i] = -e
    sig[2 * n] = pot
    sig[2 * n + 1] = lam
    sig[2 * n + 2] = gap
