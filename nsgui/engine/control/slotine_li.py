"""Slotine–Li passivity-based tracking (control digest (C6.1)-(C6.3)), in joint space or in task space.

Joint space (`slotine_li`), per actuated coordinate with q̃ = q − q_d:
    q̇_r = q̇_d − γ2 q̃,   s = q̇ − q̇_r,   u = M q̈_r + C(q, q̇) q̇_r − γ1 s [+ g(q)]
with the Christoffel C (Ṁ − 2C skew), so that in free motion M ṡ + C s + γ1 s = 0 and
V = ½ sᵀ M s + γ1 γ2 q̃ᵀ q̃ decreases: V̇ = −γ1 |q̃̇|² − γ1 γ2² |q̃|². Exact when every coordinate is
actuated (an unactuated one gets q̇_r = q̇, q̈_r = 0).

Task space (`slotine_li_task`), for a point X of a body (the end effector), X̃ = X − X_d:
    Ẋ_r = Ẋ_d − γ2 X̃,  s_X = Ẋ − Ẋ_r,  q̇_r = J⁻¹ Ẋ_r,  q̈_r = d/dt(J⁻¹ Ẋ_r) = J⁻¹ (Ẍ_r − J̇ q̇_r),
    u = M q̈_r + C q̇_r − γ1 Jᵀ s_X [+ g(q)]
which is the public code's τ = M J⁻¹ Ẍ_r + (C J⁻¹ + M d/dt J⁻¹) Ẋ_r − γ1 Jᵀ s_X, with
V = ½ s_Xᵀ M_X s_X + γ1 γ2 |X̃|² (M_X = J⁻ᵀ M J⁻¹). J is the point's 2 x 2 Jacobian in the block's two
actuated coordinates, which must be all of the model's (checked when packing). The law is explicit
(no Jacobians for the iteration matrix). Near a singular J (|det J| < 1e-9) it outputs 0.

`task_space_law` is shared with the switching scheme (bno.py), which adds a force along the surface
normal on top of it.
"""

import math

import numpy as np
from numba import njit

from nsgui.scene.geometry import body_poses, to_world
from .model_terms import christoffel_product, point_kinematics
from .trajectories import initial_value, pack_trajectory, trajectory

SINGULAR = 1e-9


def refused(c, message):
    """The SceneError of a block whose parameters do not fit the model (one line, with its path)."""
    from nsgui.scene import Problem, SceneError
    return SceneError([Problem(f"controllers[{c.name}]", message)])


def _check_all_coordinates(c, model, coords, what):
    if sorted(coords) != list(range(model.nq)):
        raise refused(c, f"{what} needs its actuators to drive every coordinate of the model ({model.nq}), "
                         f"not {len(coords)} of them")


def body_point(c, model):
    """(body index, point x, point y) of the block's `body` and `point` keys."""
    if c.body not in model.body_names:
        raise refused(c, f"body {c.body!r} is not a body of the scene")
    return float(model.body_names.index(c.body)), float(c.point[0]), float(c.point[1])


def point_position(scene, body, point):
    """World (x, y) of `point` (body frame) of the named body at the scene's initial coordinates."""
    x, y = to_world(body_poses(scene)[body], point)
    return float(x), float(y)


def _pack_targets(targets, holds):
    packed = [pack_trajectory(tr, hold) for tr, hold in zip(targets, holds)]
    offsets, body = [], []
    for p in packed:
        offsets.append(len(body))
        body += p
    return offsets, body


def pack(c, model, coords):
    """P = [0 (joint space)] + the joint-space parameters."""
    P, S, sig = pack_joint(c, model, coords)
    return [0.0] + P, S, sig


def pack_task(c, model, coords):
    """P = [1 (task space)] + the task-space parameters."""
    P, S, sig = pack_task_point(c, model, coords)
    return [1.0] + P, S, sig


def pack_joint(c, model, coords):
    """Joint space: P = [γ1, γ2, gravity (0/1), n, offsets of the n trajectories (from P[4 + n])...,
    trajectories...]; signals [q_d..., q_d − q..., V]."""
    n = len(coords)
    targets = list(c.targets) + [None] * (n - len(c.targets))
    holds = [model.q0[j] for j in coords]  # a missing trajectory holds the initial value
    offsets, body = _pack_targets(targets, holds)
    base = 4 + n
    P = [c.gamma1, c.gamma2, float(bool(c.gravity_compensation)), float(n)] + [float(base + o) for o in offsets] + body
    q_d = [initial_value(tr, hold) for tr, hold in zip(targets, holds)]
    return P, [], q_d + [qd - model.q0[j] for qd, j in zip(q_d, coords)] + [0.0]


def pack_task_frame(c, model, coords, what):
    """[γ1, γ2, gravity (0/1), body, point x, point y]: the head of a task-space law's P, checked."""
    frame = [c.gamma1, c.gamma2, float(bool(c.gravity_compensation)), *body_point(c, model)]
    if len(coords) != 2:
        raise refused(c, f"{what} drives two coordinates (x and y of the point), not {len(coords)}")
    _check_all_coordinates(c, model, coords, what)
    return frame


def pack_task_point(c, model, coords):
    """Task space: P = [γ1, γ2, gravity (0/1), body, point x, point y, offsets of the x_d and y_d
    trajectories, trajectories...]; signals [x_d, y_d, x, y, V]."""
    frame = pack_task_frame(c, model, coords, "task-space Slotine–Li")
    targets = list(c.targets) + [None] * (2 - len(c.targets))
    X0 = point_position(model.scene, c.body, c.point)
    offsets, body = _pack_targets(targets[:2], list(X0))
    base = 8
    P = frame + [float(base + offsets[0]), float(base + offsets[1])] + body
    xd, yd = (initial_value(tr, hold) for tr, hold in zip(targets[:2], X0))
    return P, [], [xd, yd, X0[0], X0[1], 0.0]


@njit(cache=True)
def slotine_li_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    if P[0] == 0.0:
        joint_space_law(m, d, t, P[1:], S, u, dudq, dudv, sig, coords)
    else:
        task_law(m, d, t, P[1:], S, u, dudq, dudv, sig, coords)


@njit(cache=True)
def joint_space_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    g1, g2, grav = P[0], P[1], P[2]
    na = int(P[3])
    nq = d.q.shape[0]
    w = np.zeros((5, nq))  # rows: q̇_r, q̈_r, s, C q̇_r, M q̈_r (then M s)
    qr_dot, qr_ddot, s, Cw, tmp = w[0], w[1], w[2], w[3], w[4]
    qr_dot[:] = d.v
    V = 0.0
    for i in range(na):
        j = coords[i]
        q_d, v_d, a_d = trajectory(P, int(P[4 + i]), t)
        e = d.q[j] - q_d
        qr_dot[j] = v_d - g2 * e
        qr_ddot[j] = a_d - g2 * (d.v[j] - v_d)
        s[j] = d.v[j] - qr_dot[j]
        V += g1 * g2 * e * e
        sig[i] = q_d
        sig[na + i] = -e
    christoffel_product(m, d, qr_dot, Cw)
    _mv(d.M, qr_ddot, tmp)
    for i in range(na):
        j = coords[i]
        # d.grav = −dU/dq: compensating adds g(q) = dU/dq
        u[i] = tmp[j] + Cw[j] - g1 * s[j] - (d.grav[j] if grav != 0.0 else 0.0)
    _mv(d.M, s, tmp)
    sig[2 * na] = V + 0.5 * _dot(s, tmp)


@njit(cache=True)
def _mv(A, x, out):
    """out = A x by loops (BLAS calls cost more than these tiny products)."""
    for i in range(A.shape[0]):
        acc = 0.0
        for k in range(A.shape[1]):
            acc += A[i, k] * x[k]
        out[i] = acc


@njit(cache=True)
def _dot(a, b):
    acc = 0.0
    for k in range(a.shape[0]):
        acc += a[k] * b[k]
    return acc


@njit(cache=True)
def task_space_law(m, d, P, coords, xd, yd, vxd, vyd, axd, ayd, fx, fy, u, out):
    """u: the task-space Slotine–Li inputs toward (x_d, y_d) plus Jᵀ (fx, fy) (an extra force at the
    point); out = [x, y, V, ẋ, ẏ]. P starts [γ1, γ2, gravity, body, point x, point y]. Returns False
    (u = 0) at a singular Jacobian."""
    g1, g2, grav = P[0], P[1], P[2]
    b, lx, ly = int(P[3]), P[4], P[5]
    nq = d.q.shape[0]
    X, Xv = np.empty(2), np.empty(2)
    J, Jdot = np.empty((2, nq)), np.empty((2, nq))
    point_kinematics(m, d, b, lx, ly, X, Xv, J, Jdot)
    out[0], out[1], out[3], out[4] = X[0], X[1], Xv[0], Xv[1]
    c0, c1 = coords[0], coords[1]
    a, bb, c, dd = J[0, c0], J[0, c1], J[1, c0], J[1, c1]
    det = a * dd - bb * c
    if abs(det) < SINGULAR:
        u[0] = 0.0
        u[1] = 0.0
        out[2] = math.nan
        return False
    ex, ey = X[0] - xd, X[1] - yd
    xr_v, yr_v = vxd - g2 * ex, vyd - g2 * ey                     # Ẋ_r
    xr_a, yr_a = axd - g2 * (Xv[0] - vxd), ayd - g2 * (Xv[1] - vyd)  # Ẍ_r
    sx, sy = Xv[0] - xr_v, Xv[1] - yr_v
    w = np.zeros((4, nq))  # rows: q̇_r, q̈_r, C q̇_r, then M q̈_r / s in joint space
    qr_v, qr_a, Cw, tmp = w[0], w[1], w[2], w[3]
    qr_v[c0] = (dd * xr_v - bb * yr_v) / det
    qr_v[c1] = (a * yr_v - c * xr_v) / det
    rx = xr_a - _dot(Jdot[0], qr_v)
    ry = yr_a - _dot(Jdot[1], qr_v)
    qr_a[c0] = (dd * rx - bb * ry) / det
    qr_a[c1] = (a * ry - c * rx) / det
    christoffel_product(m, d, qr_v, Cw)
    _mv(d.M, qr_a, tmp)
    Fx, Fy = fx - g1 * sx, fy - g1 * sy
    for i in range(2):
        k = coords[i]
        u[i] = tmp[k] + Cw[k] + J[0, k] * Fx + J[1, k] * Fy - (d.grav[k] if grav != 0.0 else 0.0)
    sq0 = (dd * sx - bb * sy) / det  # s in joint space, J⁻¹ s_X: ½ s_qᵀ M s_q = ½ s_Xᵀ M_X s_X
    sq1 = (a * sy - c * sx) / det
    M = d.M
    kin = 0.5 * (M[c0, c0] * sq0 * sq0 + 2.0 * M[c0, c1] * sq0 * sq1 + M[c1, c1] * sq1 * sq1)
    out[2] = kin + g1 * g2 * (ex * ex + ey * ey)
    return True


@njit(cache=True)
def task_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    xd, vxd, axd = trajectory(P, int(P[6]), t)
    yd, vyd, ayd = trajectory(P, int(P[7]), t)
    out = np.zeros(5)
    task_space_law(m, d, P, coords, xd, yd, vxd, vyd, axd, ayd, 0.0, 0.0, u, out)
    sig[0], sig[1], sig[2], sig[3], sig[4] = xd, yd, out[0], out[1], out[2]
