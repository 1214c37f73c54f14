"""Analytic force Jacobians K = ∂F/∂q and C = ∂F/∂v of trees of revolute (and welded) joints under
gravity and joint springs/dampers: what the iteration matrix Ŵ = M - hθC - h²θ²K needs, without the 2n
force evaluations of finite differences (evaluation.force_jacobians, still used for anything else).

With only revolute joints every segment of a body's chain to the root turns at its body's ω, which
depends on v alone, so with qdd = 0 the com of body b accelerates by a_b = -Σ_i ω_i² s_i (s_i the chain's
segments: joint point to joint point within body B_i, the last one to b's com p_b). Joint j (of body J,
joint point w_J) takes F_j = Σ_{b below J} m_b (p_b - w_J) × T_b with T_b = g - a_b, so (i_K: K's place
on b's chain, root first; S1_K = Σ_{i >= i_K} ω_i² s_i, S2_K = Σ_{i >= i_K} 2 ω_i s_i, P1_K = Σ_{i < i_K} ω_i² s_i):
  ∂F_j/∂v_k = Σ_b m_b d_J × S2_K                              (d_J = p_b - w_J)
  ∂F_j/∂q_k = Σ_b m_b (-d_J·g - d_J·P1_K)                    K at or above J (q_k turns p_b and w_J)
            = Σ_b m_b (-(p_b - w_K)·T_b + d_J·S1_K)          K below J (q_k turns p_b and s_i, i >= i_K)
using that a turn about w_K moves x below K by perp(x - w_K), and perp(u) × z = -u·z, u × perp(z) = u·z.
"""
from numba import njit

from .codes import (BF_ACX, BF_ACY, BF_COMX, BF_COMY, BF_MASS, BI_COORD, BI_JTYPE, BI_PARENT, FIXED, FS_GX,
                    FS_GY, JF_C, JF_K, REVOLUTE)


@njit(cache=True)
def analytic_jacobians_apply(m):
    """True when the model's forces have analytic Jacobians here: every joint revolute or welded, no
    point spring, damper or constant force (joint springs and dampers are fine)."""
    if m.si.shape[0] + m.fi.shape[0] > 0:
        return False
    bi = m.bi
    for b in range(bi.shape[0]):
        if bi[b, BI_JTYPE] != REVOLUTE and bi[b, BI_JTYPE] != FIXED:
            return False
    return True


@njit(cache=True)
def revolute_force_jacobians(m, d):
    """d.K = ∂F/∂q and d.C = ∂F/∂v at the kinematics d.kin (of (d.q, d.v)), for a model where
    analytic_jacobians_apply holds. d.fd_kin.pos is scratch (the joint points)."""
    bi, bf, gx, gy = m.bi, m.bf, m.fs[FS_GX], m.fs[FS_GY]
    kin, K, C = d.kin, d.K, d.C
    pos, cs, omg = kin.pos, kin.cs, kin.omg
    wpt = d.fd_kin.pos
    K[:, :] = 0.0
    C[:, :] = 0.0
    nb = bi.shape[0]
    for b in range(nb):  # each body's joint point, in the world
        c, s = cs[b, 0], cs[b, 1]
        wpt[b, 0] = pos[b, 0] + c * bf[b, BF_ACX] - s * bf[b, BF_ACY]
        wpt[b, 1] = pos[b, 1] + s * bf[b, BF_ACX] + c * bf[b, BF_ACY]
    for b in range(nb):
        mass = bf[b, BF_MASS]
        if mass == 0.0:
            continue
        c, s = cs[b, 0], cs[b, 1]
        px = pos[b, 0] + c * bf[b, BF_COMX] - s * bf[b, BF_COMY]
        py = pos[b, 1] + s * bf[b, BF_COMX] + c * bf[b, BF_COMY]
        # T_b = g + Σ ω_i² s_i over the whole chain
        tx, ty = gx, gy
        x, yx, yy = b, px, py
        while x >= 0:
            w2 = omg[x] * omg[x]
            tx += w2 * (yx - wpt[x, 0])
            ty += w2 * (yy - wpt[x, 1])
            yx, yy, x = wpt[x, 0], wpt[x, 1], bi[x, BI_PARENT]
        # K's walk up the chain (suffix sums S1, S2 at K), then J's walk from b (J below K until K passed)
        s1x = s1y = s2x = s2y = 0.0
        kb, yx, yy = b, px, py
        while kb >= 0:
            sx, sy = yx - wpt[kb, 0], yy - wpt[kb, 1]
            s1x += omg[kb] * omg[kb] * sx
            s1y += omg[kb] * omg[kb] * sy
            s2x += 2.0 * omg[kb] * sx
            s2y += 2.0 * omg[kb] * sy
            if bi[kb, BI_JTYPE] == REVOLUTE:
                k = bi[kb, BI_COORD]
                p1x, p1y = tx - gx - s1x, ty - gy - s1y
                rkx, rky = px - wpt[kb, 0], py - wpt[kb, 1]
                below = True  # J at or below K
                jb = b
                while jb >= 0:
                    if bi[jb, BI_JTYPE] == REVOLUTE:
                        j = bi[jb, BI_COORD]
                        dx, dy = px - wpt[jb, 0], py - wpt[jb, 1]
                        C[j, k] += mass * (dx * s2y - dy * s2x)
                        if below:  # K at or above J
                            K[j, k] += mass * (-(dx * gx + dy * gy) - (dx * p1x + dy * p1y))
                        else:
                            K[j, k] += mass * (-(rkx * tx + rky * ty) + (dx * s1x + dy * s1y))
                    if jb == kb:
                        below = False
                    jb = bi[jb, BI_PARENT]
            yx, yy, kb = wpt[kb, 0], wpt[kb, 1], bi[kb, BI_PARENT]
    ji, jf = m.ji, m.jf
    for e in range(ji.shape[0]):
        j = ji[e]
        K[j, j] -= jf[e, JF_K]
        C[j, j] -= jf[e, JF_C]
