"""Planar multibody dynamics of a kinematic tree: kinematics, M(q), bias, gravity, force elements.

Numba kernels over the compiled model's arrays (ModelArrays, columns named in codes.py) writing a
Kinematics (arrays.py). Jacobians are dense
(nb, 2, nq) / (nb, nq) arrays but only the columns on each body's path to the root are ever written
(`path`), so the cost is O(sum of path lengths) rather than O(nb * nq).

Recursion (forward pass, parent before child; R(a) the rotation by a, perp(x, y) = (-y, x)):
  joint point  w   = p_parent + R(th_parent) s      s = anchor_p (+ q axis), or (x, y) for free joints
  child frame  p_c = w - R(th_c) anchor_c,          th_c = th_parent + angle (+ q)
Velocity-product ("bias") accelerations are the accelerations with qdd = 0 (planar: no angular bias).
"""

import numpy as np
from numba import njit

from .codes import (BF_ACX, BF_ACY, BF_ANGLE, BF_APX, BF_APY, BF_AXX, BF_AXY, BF_COMX, BF_COMY, BF_INERTIA,
                    BF_MASS, BI_COORD, BI_JTYPE, BI_PARENT, FF_FX, FF_FY, FF_PX, FF_PY, FREE, FS_GX, FS_GY, JF_C,
                    JF_K, JF_REST, PRISMATIC, REVOLUTE, SF_AX, SF_AY, SF_BX, SF_BY, SF_C, SF_K, SF_L0)


@njit(cache=True)
def body_kinematics(m, q, v, kin, jacobians=True):
    """Frame poses, velocities, bias accelerations and Jacobians of every body at (q, v), into kin;
    jacobians=False leaves the Jacobians as they are (a new v at the same q: their dense rows are most of
    the cost on a long column, one cache line per body). The Jacobians of a body on a free or prismatic
    joint to the world do not depend on q: written at the first pass only (kin.jconst)."""
    bi, bf, order, path, plen = m.bi, m.bf, m.order, m.path, m.plen
    pos, ang, vel, omg, acc, Jp, Ja, cs = kin.pos, kin.ang, kin.vel, kin.omg, kin.acc, kin.Jp, kin.Ja, kin.cs
    written = kin.jconst[0] != 0.0
    for k in range(order.shape[0]):
        b = order[k]
        par = bi[b, BI_PARENT]
        jt = bi[b, BI_JTYPE]
        qi = bi[b, BI_COORD]
        if par >= 0:
            ppx, ppy, thp = pos[par, 0], pos[par, 1], ang[par]
            vpx, vpy, wp = vel[par, 0], vel[par, 1], omg[par]
            apx, apy = acc[par, 0], acc[par, 1]
            c, s = cs[par, 0], cs[par, 1]  # cos, sin of thp, as the parent computed them
        else:
            ppx = ppy = thp = vpx = vpy = wp = apx = apy = 0.0
            c, s = 1.0, 0.0  # (cos and sin of 0)
        sdx = sdy = 0.0
        if jt == FREE:
            sx, sy = q[qi], q[qi + 1]
            sdx, sdy = v[qi], v[qi + 1]
            th = thp + q[qi + 2]
            w = wp + v[qi + 2]
        elif jt == PRISMATIC:
            sx = bf[b, BF_APX] + q[qi] * bf[b, BF_AXX]
            sy = bf[b, BF_APY] + q[qi] * bf[b, BF_AXY]
            sdx, sdy = v[qi] * bf[b, BF_AXX], v[qi] * bf[b, BF_AXY]
            th = thp + bf[b, BF_ANGLE]
            w = wp
        elif jt == REVOLUTE:
            sx, sy = bf[b, BF_APX], bf[b, BF_APY]
            th = thp + bf[b, BF_ANGLE] + q[qi]
            w = wp + v[qi]
        else:
            sx, sy = bf[b, BF_APX], bf[b, BF_APY]
            th = thp + bf[b, BF_ANGLE]
            w = wp
        rsx, rsy = c * sx - s * sy, s * sx + c * sy          # R(thp) s
        rdx, rdy = c * sdx - s * sdy, s * sdx + c * sdy      # R(thp) s'
        wx, wy = ppx + rsx, ppy + rsy
        wvx, wvy = vpx - wp * rsy + rdx, vpy + wp * rsx + rdy
        wax = apx - wp * wp * rsx - 2.0 * wp * rdy
        way = apy - wp * wp * rsy + 2.0 * wp * rdx
        if abs(th) < 7.450580596923828e-09:
            # |th| < 2^-27 (th = ±0 included): cos th rounds to 1 (1 - th²/2 is within half an ulp of it) and sin th
            # to th (th³/6 below half an ulp of th): libm's numbers, without the calls (a resting pile's bodies
            # turn by ~1e-11 rad: two calls per body and step, ~a third of this loop)
            cc, sc = 1.0, th
        else:
            cc, sc = np.cos(th), np.sin(th)
        cs[b, 0], cs[b, 1] = cc, sc
        if jt == FREE:
            acx = acy = 0.0
        else:
            acx = cc * bf[b, BF_ACX] - sc * bf[b, BF_ACY]
            acy = sc * bf[b, BF_ACX] + cc * bf[b, BF_ACY]
        pos[b, 0], pos[b, 1] = wx - acx, wy - acy
        ang[b] = th
        vel[b, 0], vel[b, 1] = wvx + w * acy, wvy - w * acx
        omg[b] = w
        acc[b, 0], acc[b, 1] = wax + w * w * acx, way + w * w * acy
        if not jacobians or (written and par < 0 and (jt == FREE or jt == PRISMATIC)):
            continue
        for kk in range(plen[b]):
            j = path[b, kk]
            if par >= 0:
                jx = Jp[par, 0, j] - rsy * Ja[par, j]
                jy = Jp[par, 1, j] + rsx * Ja[par, j]
                ja = Ja[par, j]
            else:
                jx = jy = ja = 0.0
            if jt == FREE:
                if j == qi:
                    jx += c
                    jy += s
                elif j == qi + 1:
                    jx -= s
                    jy += c
                elif j == qi + 2:
                    ja += 1.0
            elif jt == PRISMATIC and j == qi:
                jx += c * bf[b, BF_AXX] - s * bf[b, BF_AXY]
                jy += s * bf[b, BF_AXX] + c * bf[b, BF_AXY]
            elif jt == REVOLUTE and j == qi:
                ja += 1.0
            Jp[b, 0, j] = jx + acy * ja
            Jp[b, 1, j] = jy - acx * ja
            Ja[b, j] = ja
    if jacobians:
        kin.jconst[0] = 1.0


@njit(cache=True, inline="always")
def com_terms(m, kin, M, bias, grav, want_mass):
    """M(q) (if want_mass), bias c(q, v) and gravity generalized force; returns the gravity potential."""
    bf, path, plen, gx, gy = m.bf, m.path, m.plen, m.fs[FS_GX], m.fs[FS_GY]
    pos, omg, acc, Jp, Ja, cs = kin.pos, kin.omg, kin.acc, kin.Jp, kin.Ja, kin.cs
    nb = pos.shape[0]
    bi = m.bi
    jconst = kin.jconst[0] != 0.0  # (body_kinematics wrote the free bodies' constant Jacobians)
    if want_mass:
        M[:, :] = 0.0
    bias[:] = 0.0
    grav[:] = 0.0
    U = 0.0
    for b in range(nb):
        mass = bf[b, BF_MASS]
        inertia = bf[b, BF_INERTIA]
        c, s = cs[b, 0], cs[b, 1]
        rx = c * bf[b, BF_COMX] - s * bf[b, BF_COMY]
        ry = s * bf[b, BF_COMX] + c * bf[b, BF_COMY]
        w = omg[b]
        ax = acc[b, 0] - w * w * rx
        ay = acc[b, 1] - w * w * ry
        U -= mass * (gx * (pos[b, 0] + rx) + gy * (pos[b, 1] + ry))
        n = plen[b]
        qi = bi[b, BI_COORD]
        if (not want_mass and jconst and n == 3 and bi[b, BI_PARENT] < 0 and bi[b, BI_JTYPE] == FREE
                and path[b, 0] == qi and path[b, 1] == qi + 1 and path[b, 2] == qi + 2):
            # a free body on the world: its Jacobians are body_kinematics' constants (Jp = [[1, +0, +0], [+0, 1,
            # +0]], Ja = [+0, +0, 1]) written in, the loop's sums on the same numbers without their loads
            # (written out: an inlined helper given bias and grav would keep their reference counts)
            cx1, cy1 = 1.0 - ry * 0.0, 0.0 + rx * 0.0
            bias[qi] += mass * (cx1 * ax + cy1 * ay)
            grav[qi] += mass * (cx1 * gx + cy1 * gy)
            cx1, cy1 = 0.0 - ry * 0.0, 1.0 + rx * 0.0
            bias[qi + 1] += mass * (cx1 * ax + cy1 * ay)
            grav[qi + 1] += mass * (cx1 * gx + cy1 * gy)
            cx1, cy1 = 0.0 - ry * 1.0, 0.0 + rx * 1.0
            bias[qi + 2] += mass * (cx1 * ax + cy1 * ay)
            grav[qi + 2] += mass * (cx1 * gx + cy1 * gy)
            continue
        for k1 in range(n):
            j1 = path[b, k1]
            cx1 = Jp[b, 0, j1] - ry * Ja[b, j1]
            cy1 = Jp[b, 1, j1] + rx * Ja[b, j1]
            bias[j1] += mass * (cx1 * ax + cy1 * ay)
            grav[j1] += mass * (cx1 * gx + cy1 * gy)
            if want_mass:
                for k2 in range(n):
                    j2 = path[b, k2]
                    cx2 = Jp[b, 0, j2] - ry * Ja[b, j2]
                    cy2 = Jp[b, 1, j2] + rx * Ja[b, j2]
                    M[j1, j2] += mass * (cx1 * cx2 + cy1 * cy2) + inertia * Ja[b, j1] * Ja[b, j2]
    return U


@njit(cache=True)
def point_jacobian_add(b, wx, wy, m, kin, dirx, diry, scale, row):
    """row += scale * dir^T J_w for the world point w rigidly attached to body b (b < 0: world, no-op)."""
    if b < 0:
        return
    path, plen, pos, Jp, Ja = m.path, m.plen, kin.pos, kin.Jp, kin.Ja
    rx, ry = wx - pos[b, 0], wy - pos[b, 1]
    for k in range(plen[b]):
        j = path[b, k]
        jx = Jp[b, 0, j] - ry * Ja[b, j]
        jy = Jp[b, 1, j] + rx * Ja[b, j]
        row[j] += scale * (dirx * jx + diry * jy)


@njit(cache=True)
def point_world(b, lx, ly, pos, ang):
    if b < 0:
        return lx, ly
    c, s = np.cos(ang[b]), np.sin(ang[b])
    return pos[b, 0] + c * lx - s * ly, pos[b, 1] + s * lx + c * ly


@njit(cache=True)
def point_velocity(b, wx, wy, pos, vel, omg):
    if b < 0:
        return 0.0, 0.0
    rx, ry = wx - pos[b, 0], wy - pos[b, 1]
    return vel[b, 0] - omg[b] * ry, vel[b, 1] + omg[b] * rx


@njit(cache=True)
def element_forces(m, q, v, kin, Q):
    """Adds spring/damper/constant forces at (q, v) to Q. Returns their potential energy."""
    si, sf, ji, jf, fi, ff = m.si, m.sf, m.ji, m.jf, m.fi, m.ff
    pos, ang, vel, omg = kin.pos, kin.ang, kin.vel, kin.omg
    U = 0.0
    for e in range(si.shape[0]):
        a, b = si[e, 0], si[e, 1]
        ax, ay = point_world(a, sf[e, SF_AX], sf[e, SF_AY], pos, ang)
        bx, by = point_world(b, sf[e, SF_BX], sf[e, SF_BY], pos, ang)
        dx, dy = bx - ax, by - ay
        L = np.sqrt(dx * dx + dy * dy)
        k, c, L0 = sf[e, SF_K], sf[e, SF_C], sf[e, SF_L0]
        if L > 1e-12:
            nx, ny = dx / L, dy / L
        else:
            nx, ny = 0.0, 0.0
        vax, vay = point_velocity(a, ax, ay, pos, vel, omg)
        vbx, vby = point_velocity(b, bx, by, pos, vel, omg)
        Ldot = nx * (vbx - vax) + ny * (vby - vay)
        fs = k * (L - L0)
        fd = c * Ldot
        U += 0.5 * k * (L - L0) ** 2
        f = fs + fd  # tension: pulls a towards b
        point_jacobian_add(a, ax, ay, m, kin, nx, ny, f, Q)
        point_jacobian_add(b, bx, by, m, kin, nx, ny, -f, Q)
    for e in range(ji.shape[0]):
        j = ji[e]
        k, c, rest = jf[e, JF_K], jf[e, JF_C], jf[e, JF_REST]
        U += 0.5 * k * (q[j] - rest) ** 2
        Q[j] += -k * (q[j] - rest) - c * v[j]
    for e in range(fi.shape[0]):
        b = fi[e]
        px, py = point_world(b, ff[e, FF_PX], ff[e, FF_PY], pos, ang)
        U -= ff[e, FF_FX] * px + ff[e, FF_FY] * py
        point_jacobian_add(b, px, py, m, kin, ff[e, FF_FX], ff[e, FF_FY], 1.0, Q)
    return U


@njit(cache=True)
def damper_power(m, v, kin, row):
    """Power of the dampers (<= 0) at velocity v with the geometry of the current kinematics.

    With v = v_θ of a step and the start-of-step geometry this books h·|power| as the step's loss,
    exact for linear dampers under θ = ½ (the scheme's own discrete energy identity). row: scratch."""
    si, sf, ji, jf, pos, ang = m.si, m.sf, m.ji, m.jf, kin.pos, kin.ang
    P = 0.0
    for e in range(si.shape[0]):
        c = sf[e, SF_C]
        if c == 0.0:
            continue
        a, b = si[e, 0], si[e, 1]
        ax, ay = point_world(a, sf[e, SF_AX], sf[e, SF_AY], pos, ang)
        bx, by = point_world(b, sf[e, SF_BX], sf[e, SF_BY], pos, ang)
        dx, dy = bx - ax, by - ay
        L = np.sqrt(dx * dx + dy * dy)
        if L <= 1e-12:
            continue
        row[:] = 0.0
        point_jacobian_add(b, bx, by, m, kin, dx / L, dy / L, 1.0, row)
        point_jacobian_add(a, ax, ay, m, kin, dx / L, dy / L, -1.0, row)
        Ldot = row @ v
        P -= c * Ldot * Ldot
    for e in range(ji.shape[0]):
        P -= jf[e, JF_C] * v[ji[e]] * v[ji[e]]
    return P
