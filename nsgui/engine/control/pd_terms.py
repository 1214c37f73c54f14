"""What the passivity-based PD laws (the thesis manipulator law (1.1) and the biped standing law
(6.10)) share: per-actuator gains from a scene list, the packing of one trajectory per actuator, and
the spring–damper part −W(q − q_d) − T q̇ with its Jacobians for the iteration matrix."""

from numba import njit

from nsgui.scene import SceneError

from .trajectories import initial_value, pack_trajectory


def per_actuator(values, n, where):
    """n gains from a scene list: one value for every actuator, or one per actuator."""
    values = [float(x) for x in values]
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise SceneError(f"{where}: {len(values)} values for {n} actuators (give one for all, or one each)")
    return values


def pack_targets(targets, model, coords, first):
    """(offsets, packed floats, q_d(0)) of one trajectory per actuator, packed from P[first] on after
    the n offsets; a missing trajectory holds the coordinate's initial value."""
    n = len(coords)
    targets = list(targets) + [None] * (n - len(targets))
    holds = [float(model.q0[j]) for j in coords]
    packed = [pack_trajectory(tr, hold) for tr, hold in zip(targets, holds)]
    offsets, k = [], first + n
    for p in packed:
        offsets.append(float(k))
        k += len(p)
    q_d = [initial_value(tr, hold) for tr, hold in zip(targets, holds)]
    return offsets, [x for p in packed for x in p], q_d


@njit(cache=True)
def spring_damper(d, i, j, W, T, q_d, u, dudq, dudv):
    """u[i] = −W (q_j − q_d) − T q̇_j, its Jacobians (−W, −T) in row i; returns e = q_j − q_d."""
    e = d.q[j] - q_d
    u[i] = -W * e - T * d.v[j]
    dudq[i, j] = -W
    dudv[i, j] = -T
    return e
