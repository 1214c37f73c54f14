"""The thesis biped standing law (6.10) (control.md §4):

    τ = −W (q1 − q1d) + g1(q_d) − r'_μ1d − T q̇1,

a PD on the actuated joints q1 with a CONSTANT pre-compensation of gravity and of the desired
contact forces, both taken at the full desired posture q_d (floating base included): g1(q_d) is the
actuated rows of dU/dq at q_d (−d.grav in nsgui's sign), r'_μ1d one value per actuator. Full gravity
compensation g1(q) is not allowed: the law must derive from the potential
P̃ = ½ (q1 − q1d)ᵀ W (q1 − q1d) + (r'_μ1d − g1(q_d))ᵀ (q1 − q1d), so that K + U + P̃ decreases.

q_d stands at rest only if the desired forces are consistent with gravity (C4.1):
−[r'_μ1d; g2(q_d)] ∈ N(q_d), i.e. the generalized contact force that holds q_d, restricted to the
joints, is r'_μ1d; otherwise the robot settles at the minimizer of U + P̃ over the admissible set.

The friction-cone monitor (cone_monitor.py) checks the desired forces once, at the first sample: the
smallest normal force of the contact forces that hold q_d, and whether one of them pulls or leaves
its friction cone.

P = [n, W (n), T (n), r'_μ1d (n), q_d (nq)]; S = [monitored, smallest desired normal force, demand];
signals [q_d (n), q_d − q (n), g1(q_d) − r'_μ1d (n), P̃, smallest desired normal force, demand]."""

import numpy as np
from numba import njit

from nsgui.scene import SceneError

from .cone_monitor import desired_contact_demand
from .desired_posture import gravity_at
from .pd_terms import per_actuator, spring_damper


def desired_posture(c, model):
    """The full desired configuration: the scene's initial one, overridden by `posture`."""
    q_d = np.array(model.q0, float)
    for name, value in c.posture.items():
        if name not in model.coord_names:
            raise SceneError(f"controller {c.name!r}: posture: no coordinate named {name!r} "
                             f"(coordinates: {', '.join(model.coord_names)})")
        q_d[model.coord_names.index(name)] = value
    return q_d


def pack(c, model, coords):
    n = len(coords)
    W = per_actuator(c.W, n, f"controller {c.name!r}: W")
    T = per_actuator(c.T, n, f"controller {c.name!r}: T")
    r = per_actuator(c.desired_reaction, n, f"controller {c.name!r}: desired_reaction") \
        if c.desired_reaction else [0.0] * n
    q_d = desired_posture(c, model)
    target = [float(q_d[j]) for j in coords]
    err = [float(q_d[j] - model.q0[j]) for j in coords]
    # the pre-compensation needs the model's kinematics: known from the first sample on
    return ([float(n)] + W + T + r + q_d.tolist(), [0.0, 0.0, 0.0],
            target + err + [0.0] * n + [sum(0.5 * w * e * e for w, e in zip(W, err)), 0.0, 0.0])


def implicit(c):
    return bool(c.implicit)


@njit(cache=True)
def standing_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    n = int(P[0])
    q_d = P[1 + 3 * n:]
    g = np.zeros_like(q_d)
    gravity_at(m, d, q_d.copy(), g)  # −dU/dq at q_d: recomputed, constant in the state
    pot = 0.0
    for i in range(n):
        j = coords[i]
        e = spring_damper(d, i, j, P[1 + i], P[1 + n + i], q_d[j], u, dudq, dudv)
        pre = -g[j] - P[1 + 2 * n + i]     # g1(q_d) − r'_μ1d, with g1 = dU/dq = −grav
        u[i] += pre
        pot += 0.5 * P[1 + i] * e * e - pre * e
        sig[i] = q_d[j]
        sig[n + i] = -e
        sig[2 * n + i] = pre
    sig[3 * n] = pot
    if S[0] == 0.0:
        # the desired reaction on every coordinate: r'_μ1d on the driven ones, g2(q_d) = dU/dq elsewhere
        b = -g
        for i in range(n):
            b[coords[i]] = P[1 + 2 * n + i]
        S[1], flag = desired_contact_demand(m, d, q_d, b)
        S[0], S[2] = 1.0, flag
    sig[3 * n + 1] = S[1]
    sig[3 * n + 2] = S[2]
