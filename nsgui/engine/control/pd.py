"""PD on one actuator toward a desired trajectory: u = kp (q_d − q) + kd (v_d − v) + feedforward, plus
the coordinate's gravity term when compensating. Sampled every step it is implicit by default: its
Jacobians (−kp, −kd) enter the iteration matrix, which keeps stiff gains stable (docs/controllers.md).

P = [kp, kd, feedforward, gravity compensation (0/1), extra desired velocity, trajectory...]; without
a trajectory the scene's `target` is a constant q_d and `target_v` the desired velocity (the older
form). Signals [q_d, q_d − q]."""

from numba import njit

from .trajectories import initial_value, pack_trajectory, trajectory


def pack(c, model, coords):
    """Parameters, initial state and initial signals of a scene `pd` controller."""
    extra_v = c.target_v if c.trajectory is None else 0.0
    q_d = initial_value(c.trajectory, c.target)
    return ([c.kp, c.kd, c.feedforward, float(bool(c.gravity_compensation)), extra_v]
            + pack_trajectory(c.trajectory, c.target), [], [q_d, q_d - model.q0[coords[0]]])


def implicit(c):
    """Whether this controller's Jacobians may enter the iteration matrix (if sampled every step)."""
    return bool(c.implicit)


@njit(cache=True)
def pd_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    j = coords[0]
    kp, kd = P[0], P[1]
    q_d, v_d, _a = trajectory(P, 5, t)
    v_d += P[4]
    u[0] = kp * (q_d - d.q[j]) + kd * (v_d - d.v[j]) + P[2]
    if P[3] != 0.0:
        u[0] -= d.grav[j]
    dudq[0, j] = -kp
    dudv[0, j] = -kd
    sig[0] = q_d
    sig[1] = q_d - d.q[j]
