"""Closed-form two-link arm of seed 004 (control digest (C8.1)-(C8.3), corrected per errata 004-E5..E7).

numpy only: an oracle for the engine's compiled arm and for the closed loops of the arm controllers.
θ = (θ1, θ2): θ1 from the x axis, θ2 relative to link 1; link i has mass mi, length li, its centre of
mass at mid-link and inertia Ii about it; gravity g along -y. Equations M θ̈ + C θ̇ + G = τ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Arm:
    m1: float = 1.0
    m2: float = 1.0
    l1: float = 0.5
    l2: float = 0.5
    I1: float = 1.0
    I2: float = 1.0
    g: float = 9.81

    def mass_matrix(self, th):
        m2, l1, l2 = self.m2, self.l1, self.l2
        c2 = np.cos(th[1])
        m11 = self.m1 * l1 ** 2 / 4 + m2 * (l1 ** 2 + l2 ** 2 / 4 + l1 * l2 * c2) + self.I1 + self.I2  # 004-E5
        m12 = m2 * l2 ** 2 / 4 + m2 * l1 * l2 / 2 * c2 + self.I2
        m22 = m2 * l2 ** 2 / 4 + self.I2
        return np.array([[m11, m12], [m12, m22]])

    def coriolis(self, th, dth):
        """The Christoffel C(θ, θ̇) (004-E7): Ṁ - 2C is skew-symmetric."""
        beta = 0.5 * self.m2 * self.l1 * self.l2 * np.sin(th[1])
        return np.array([[-beta * dth[1], -beta * (dth[0] + dth[1])],
                         [beta * dth[0], 0.0]])

    def mass_matrix_dot(self, th, dth):
        s2 = np.sin(th[1]) * dth[1]
        k = self.m2 * self.l1 * self.l2
        return np.array([[-k * s2, -k / 2 * s2], [-k / 2 * s2, 0.0]])

    def gravity(self, th):
        """G = dU/dθ (004-E6: l1 (m1 + 2 m2), not (2 m1 + m2))."""
        c1, c12 = np.cos(th[0]), np.cos(th[0] + th[1])
        g1 = self.g / 2 * (self.l1 * (self.m1 + 2 * self.m2) * c1 + self.m2 * self.l2 * c12)
        g2 = self.g / 2 * self.m2 * self.l2 * c12
        return np.array([g1, g2])

    def tip(self, th):
        """End-effector (x, y); y is the gap to the ground y = 0 (C8.2)."""
        return np.array([self.l1 * np.cos(th[0]) + self.l2 * np.cos(th[0] + th[1]),
                         self.l1 * np.sin(th[0]) + self.l2 * np.sin(th[0] + th[1])])

    def jacobian(self, th):
        s1, c1 = np.sin(th[0]), np.cos(th[0])
        s12, c12 = np.sin(th[0] + th[1]), np.cos(th[0] + th[1])
        l1, l2 = self.l1, self.l2
        return np.array([[-l1 * s1 - l2 * s12, -l2 * s12],
                         [l1 * c1 + l2 * c12, l2 * c12]])

    def jacobian_dot(self, th, dth):
        s1, c1 = np.sin(th[0]), np.cos(th[0])
        s12, c12 = np.sin(th[0] + th[1]), np.cos(th[0] + th[1])
        w1, w12 = dth[0], dth[0] + dth[1]
        l1, l2 = self.l1, self.l2
        return np.array([[-l1 * c1 * w1 - l2 * c12 * w12, -l2 * c12 * w12],
                         [-l1 * s1 * w1 - l2 * s12 * w12, -l2 * s12 * w12]])

    def acceleration(self, th, dth, tau):
        """θ̈ of the free arm (no contact) under joint torques tau."""
        return np.linalg.solve(self.mass_matrix(th), tau - self.coriolis(th, dth) @ dth - self.gravity(th))


def arm_scene(arm: Arm, theta0=(0.9, -1.6), ground=False, **settings):
    """The arm as a scene (SceneBuilder): body frames at the joints, links along body x, tip point at
    the end of link 2, no actuator; with `ground`, the frictionless contact `tip_ground` (e = 0.7) with
    the ground y = 0."""
    from nsgui.scene.builder import SceneBuilder

    b = SceneBuilder("reference arm", gravity=(0.0, -arm.g))
    link1 = b.body("link1", mass=arm.m1, inertia=arm.I1, com=(arm.l1 / 2, 0.0))
    link1.capsule(arm.l1, 0.03, offset=(arm.l1 / 2, 0.0), name="link")
    link2 = b.body("link2", mass=arm.m2, inertia=arm.I2, com=(arm.l2 / 2, 0.0))
    link2.capsule(arm.l2, 0.03, offset=(arm.l2 / 2, 0.0), name="link")
    tip = link2.point((arm.l2, 0.0), name="tip")
    b.revolute("shoulder", child=link1, q0=theta0[0])
    b.revolute("elbow", parent=link1, child=link2, anchor_parent=(arm.l1, 0.0), q0=theta0[1])
    if ground:
        b.contact(tip, b.ground(), restitution=0.7, friction=0.0, name="tip_ground")
    if settings:
        b.settings(**settings)
    return b.build()


# ---------------------------------------------------------------- closed loops (numpy, for solve_ivp)
def slotine_li_joint(arm: Arm, th, dth, qd, vd, ad, g1, g2, gravity=True):
    """(τ, V) of the joint-space Slotine–Li law (C6.1)-(C6.3)."""
    e = th - qd
    qr_v = vd - g2 * e
    qr_a = ad - g2 * (dth - vd)
    s = dth - qr_v
    M = arm.mass_matrix(th)
    tau = M @ qr_a + arm.coriolis(th, dth) @ qr_v - g1 * s + (arm.gravity(th) if gravity else 0.0)
    return tau, 0.5 * s @ M @ s + g1 * g2 * e @ e


def slotine_li_task(arm: Arm, th, dth, Xd, Vd, Ad, g1, g2, gravity=True):
    """(τ, V) of the task-space law τ = M J⁻¹Ẍ_r + (C J⁻¹ + M d/dt J⁻¹) Ẋ_r − γ1 Jᵀ s [+ G]."""
    J, Jd = arm.jacobian(th), arm.jacobian_dot(th, dth)
    Ji = np.linalg.inv(J)
    X, Xv = arm.tip(th), J @ dth
    Xr_v = Vd - g2 * (X - Xd)
    Xr_a = Ad - g2 * (Xv - Vd)
    s = Xv - Xr_v
    Ji_dot = -Ji @ Jd @ Ji
    M = arm.mass_matrix(th)
    tau = M @ Ji @ Xr_a + (arm.coriolis(th, dth) @ Ji + M @ Ji_dot) @ Xr_v - g1 * J.T @ s
    if gravity:
        tau = tau + arm.gravity(th)
    MX = Ji.T @ M @ Ji
    return tau, 0.5 * s @ MX @ s + g1 * g2 * (X - Xd) @ (X - Xd)


def circle(t, centre=(0.65, 0.0), radius=0.1, period=5.0):
    """(X_d, Ẋ_d, Ẍ_d) of the circle of seed 004."""
    w = 2 * np.pi / period
    c, s = np.cos(w * t), np.sin(w * t)
    return (np.array([centre[0] + radius * c, centre[1] + radius * s]), radius * w * np.array([-s, c]),
            -radius * w * w * np.array([c, s]))
