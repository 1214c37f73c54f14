"""Exact planar gap functions, contact points and normals for every candidate contact point.

A candidate is a circle (centre fixed on body A, radius ra >= 0: a disk, a capsule end, a polygon vertex
or a point) against one feature of B: a half-plane, a world segment, a circle on a body, or a rounded
convex polygon on a body (a capsule is a 2-vertex polygon rounded by its radius). Joint limits are
candidates too (B type LIMIT). The normal n points from B to A; the gap is n-distance between the
surfaces (negative = penetration); the tangent is t = (n_y, -n_x) (ground normal +y gives tangent +x).
"""

import numpy as np
from numba import njit

from .codes import (CF_ALX, CF_ALY, CF_B0, CF_B1, CF_B2, CF_B3, CF_RA, CF_RB, CI_ABODY, CI_BBODY, CI_BTYPE,
                    CI_VCOUNT, CI_VSTART, HALFPLANE, LIMIT, POLYGON, SEGMENT)


# a polygon candidate's CF_B0: the polygon's bounding radius about its body's origin (its vertices' largest
# norm; the feature's geometry does not read it)
CF_BOUND = CF_B0
# a polygon candidate's CF_B1, CF_B2: the half width and half height of a rectangle centred on its body's
# origin, its sides along the body's axes (compile.py; 0 for any other polygon): rectangle_side, no edges
CF_HX, CF_HY = CF_B1, CF_B2

# a polygon's edges in the world frame, one row per edge k (vertex k to vertex k + 1): what the gaps of
# every point against it share (evaluation computes them once per polygon, not once per candidate point)
E_AX, E_AY, E_EX, E_EY, E_L2, E_NX, E_NY = range(7)
N_EDGE = 7


@njit(cache=True, inline="always")
def _closest_on_segment(px, py, ax, ay, bx, by):
    ex, ey = bx - ax, by - ay
    L2 = ex * ex + ey * ey
    s = 0.0
    if L2 > 0.0:
        s = ((px - ax) * ex + (py - ay) * ey) / L2
        if s < 0.0:
            s = 0.0
        elif s > 1.0:
            s = 1.0
    return ax + s * ex, ay + s * ey, s


@njit(cache=True, inline="always")
def _unit_or(dx, dy, fx, fy):
    d = np.sqrt(dx * dx + dy * dy)
    if d > 1e-14:
        return dx / d, dy / d, d
    return fx, fy, 0.0


@njit(cache=True)
def cos_sin(th):
    """(cos th, sin th), without the calls for th = 0 (bodies on prismatic joints, upright at rest):
    the same numbers, sin(±0) being ±0."""
    if th == 0.0:
        return 1.0, th
    return np.cos(th), np.sin(th)


@njit(cache=True, inline="always")
def body_point(px, py, co, si, lx, ly):
    """The world point of body-frame point (lx, ly) of a body at (px, py) rotated by (co, si)."""
    return px + co * lx - si * ly, py + si * lx + co * ly


@njit(cache=True)
def candidate_geometry(c, q, ci, cf, verts, pos, ang):
    """Returns (gap, nx, ny, pax, pay, pbx, pby) for candidate c; pa on A's surface, pb on B's."""
    bt = ci[c, CI_BTYPE]
    if bt == LIMIT:
        return limit_geometry(q[ci[c, CI_VSTART]], ci[c, CI_VCOUNT], cf[c, CF_B0])
    a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
    ca, sa = cos_sin(ang[a]) if a >= 0 else (1.0, 0.0)
    cb, sb = cos_sin(ang[b]) if b >= 0 else (1.0, 0.0)
    # (evaluation._contact_geometry gathers the same scalars, with each body's rotation computed once)
    cx, cy = cf[c, CF_ALX], cf[c, CF_ALY]
    if a >= 0:
        cx, cy = body_point(pos[a, 0], pos[a, 1], ca, sa, cx, cy)
    bpx, bpy = (pos[b, 0], pos[b, 1]) if b >= 0 else (0.0, 0.0)
    return feature_geometry(bt, cx, cy, cf[c, CF_RA], cf[c, CF_RB], cf[c, CF_B0], cf[c, CF_B1], cf[c, CF_B2],
                            cf[c, CF_B3], b >= 0, bpx, bpy, cb, sb, verts, ci[c, CI_VSTART], ci[c, CI_VCOUNT])


@njit(cache=True, inline="always")
def limit_geometry(qj, sign, bound):
    """A joint limit's (gap, no normal, no points): sign (+1 lower, -1 upper) times coordinate - bound."""
    return float(sign) * (qj - bound), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0


@njit(cache=True)
def feature_geometry(bt, cx, cy, ra, rb, f0, f1, f2, f3, on_b, bpx, bpy, cb, sb, verts, v0, nv):
    """candidate_geometry of the circle of radius ra centred at (cx, cy) (world) against B's feature of
    type bt (its CF_B0..CF_B3 values f0..f3, its polygon verts[v0:v0 + nv]); on_b: the feature is on a
    body at (bpx, bpy) rotated by (cb, sb). Scalars, but for the vertices: each array argument of a call
    costs its reference counts (~5 ns), as much as a candidate's arithmetic."""
    if bt != POLYGON:
        return point_feature_geometry(bt, cx, cy, ra, rb, f0, f1, f2, f3, on_b, bpx, bpy, cb, sb)
    if f1 > 0.0 and on_b:  # a rectangle on its body (CF_HX, CF_HY): as evaluation's loop computes it
        sd, nx, ny = rectangle_side(cx - bpx, cy - bpy, cb, sb, f1, f2)
        return surface_points(sd, nx, ny, cx, cy, ra, rb)
    # POLYGON (vertices local to body b, counter-clockwise)
    edges = np.empty((nv, N_EDGE))
    polygon_edges(verts, v0, nv, on_b, bpx, bpy, cb, sb, edges, 0)
    sd, nx, ny = polygon_side(cx, cy, edges, 0, nv)
    return surface_points(sd, nx, ny, cx, cy, ra, rb)


@njit(cache=True, inline="always")
def point_feature_geometry(bt, cx, cy, ra, rb, f0, f1, f2, f3, on_b, bpx, bpy, cb, sb):
    """feature_geometry of a feature that is no polygon (a half-plane, a segment, a circle), compiled into
    its callers: without feature_geometry's allocation, a caller that calls nothing else keeps its arrays
    without reference counts (evaluation._contact_geometry)."""
    if bt == HALFPLANE:
        nx, ny = f2, f3
        sd = nx * (cx - f0) + ny * (cy - f1)
    elif bt == SEGMENT:
        sd, nx, ny = _segment_side(cx, cy, f0, f1, f2, f3)
    else:  # CIRCLE
        bx_, by_ = f0, f1
        if on_b:
            bx_, by_ = body_point(bpx, bpy, cb, sb, bx_, by_)
        # fallback normal: +y (beads stacked on a vertical line never coincide in practice)
        nx, ny, sd = _unit_or(cx - bx_, cy - by_, 0.0, 1.0)
    return surface_points(sd, nx, ny, cx, cy, ra, rb)


@njit(cache=True, inline="always")
def surface_points(sd, nx, ny, cx, cy, ra, rb):
    """(gap, nx, ny, pax, pay, pbx, pby) of the circle of radius ra centred at (cx, cy), at signed
    distance sd along the normal from B's feature (rounded by rb)."""
    gap = sd - ra - rb
    pax, pay = cx - ra * nx, cy - ra * ny
    pbx, pby = cx - (sd - rb) * nx, cy - (sd - rb) * ny
    return gap, nx, ny, pax, pay, pbx, pby


@njit(cache=True, inline="always")
def _segment_side(cx, cy, ax_, ay_, bx_, by_):
    """(signed distance, normal) of the point (cx, cy) from the world segment a -> b (its free side is
    the left)."""
    px, py, s = _closest_on_segment(cx, cy, ax_, ay_, bx_, by_)
    ex, ey = bx_ - ax_, by_ - ay_
    el = np.sqrt(ex * ex + ey * ey)
    lnx, lny = -ey / el, ex / el  # left normal of a->b: the free side
    if 0.0 < s < 1.0:
        return lnx * (cx - ax_) + lny * (cy - ay_), lnx, lny
    nx, ny, sd = _unit_or(cx - px, cy - py, lnx, lny)
    return sd, nx, ny


@njit(cache=True, inline="always")
def polygon_edges(verts, v0, nv, on_body, bpx, bpy, cb, sb, out, o0):
    """out[o0 + k] = edge k of the polygon verts[v0:v0 + nv] (body frame, counter-clockwise; world frame
    if not on_body) of the body at (bpx, bpy) rotated by (cb, sb): its first vertex, its vector to the
    next one, its squared length and (nv >= 3) its outward normal, all in the world frame. Compiled into
    its caller (a call with two arrays cost ~35 ns, a box's edges ~100 ns); each vertex is put in the world
    frame once, edge k's second vertex being edge k + 1's first (the same numbers as twice)."""
    fx, fy = verts[v0, 0], verts[v0, 1]
    if on_body:
        fx, fy = body_point(bpx, bpy, cb, sb, fx, fy)
    ax_, ay_ = fx, fy
    for k in range(nv):
        if k + 1 < nv:
            bx_, by_ = verts[v0 + k + 1, 0], verts[v0 + k + 1, 1]
            if on_body:
                bx_, by_ = body_point(bpx, bpy, cb, sb, bx_, by_)
        else:
            bx_, by_ = fx, fy
        ex, ey = bx_ - ax_, by_ - ay_
        i = o0 + k  # (2-D indices, not a row view: a view costs reference counts)
        out[i, E_AX], out[i, E_AY], out[i, E_EX], out[i, E_EY], out[i, E_L2] = ax_, ay_, ex, ey, ex * ex + ey * ey
        if nv >= 3:
            el = np.sqrt(ex * ex + ey * ey)
            out[i, E_NX], out[i, E_NY] = ey / el, -ex / el  # outward normal of a CCW polygon
        ax_, ay_ = bx_, by_


@njit(cache=True)
def polygon_side(cx, cy, edges, o0, nv):
    """(signed distance, normal) of the point (cx, cy) from the polygon of nv edges edges[o0:o0 + nv]
    (polygon_edges)."""
    best_in = -1e300
    bnx = bny = 0.0
    if nv >= 3:
        # inside (every edge's signed distance <= 0): the largest one and its normal, and the closest point
        # is not needed (a resting contact's corner is inside: its divisions are saved; the same answer)
        for k in range(nv):
            i = o0 + k
            onx, ony = edges[i, E_NX], edges[i, E_NY]
            sde = onx * (cx - edges[i, E_AX]) + ony * (cy - edges[i, E_AY])
            if sde > best_in:
                best_in = sde
                bnx, bny = onx, ony
        if best_in <= 0.0:
            return best_in, bnx, bny
    best_d2 = 1e300
    qx = qy = 0.0
    foot_edge = -1  # the edge whose inside holds the closest point (-1: a vertex)
    for k in range(nv):
        i = o0 + k
        ax_, ay_, ex, ey, L2 = edges[i, E_AX], edges[i, E_AY], edges[i, E_EX], edges[i, E_EY], edges[i, E_L2]
        # the closest point of the edge: _closest_on_segment's s, divided only when it is not clamped
        # (num <= 0 gives s <= 0 and num >= L2 gives s >= 1; between them the quotient as it was)
        num = (cx - ax_) * ex + (cy - ay_) * ey
        s = 0.0
        if L2 > 0.0 and num > 0.0:
            s = 1.0 if num >= L2 else min(num / L2, 1.0)
        px, py = ax_ + s * ex, ay_ + s * ey
        d2 = (cx - px) ** 2 + (cy - py) ** 2
        if d2 < best_d2:
            best_d2 = d2
            qx, qy = px, py
            foot_edge = i if 0.0 < s < 1.0 else -1
    if nv >= 3 and foot_edge >= 0:
        # outside, the closest point inside an edge: that edge's normal and signed distance, as inside. Not
        # (c - foot) / |c - foot|: at the gaps of resting contacts (1e-13 m) its sideways part is round-off and
        # tilted the normal by up to 3e-3 rad, anew at every step (a resting pyramid's NSGS then took 20-30 sweeps)
        onx, ony = edges[foot_edge, E_NX], edges[foot_edge, E_NY]
        return onx * (cx - edges[foot_edge, E_AX]) + ony * (cy - edges[foot_edge, E_AY]), onx, ony
    nx, ny, sd = _unit_or(cx - qx, cy - qy, bnx, bny)
    if nv < 3 and sd == 0.0 and nx == 0.0 and ny == 0.0:
        nx, ny = 0.0, 1.0
    return sd, nx, ny


@njit(cache=True, inline="always")
def rectangle_side(dx, dy, cb, sb, hx, hy):
    """polygon_side of the point at (dx, dy) from the origin of a body rotated by (cb, sb) against the
    rectangle |x| <= hx, |y| <= hy of its frame (compile.py's box polygon (-hx, -hy), (hx, -hy), (hx, hy),
    (-hx, hy)), without its world edges: the point in the body's frame, each face's signed distance a
    subtraction, each normal a column of the rotation. The same rules as polygon_side (the faces tried in
    its edge order, so the same face wins a tie; outside, the face's normal and distance when the closest
    point is inside that face, else the direction from the corner), its numbers to round-off (~1e-16 m)."""
    lx = cb * dx + sb * dy
    ly = cb * dy - sb * dx
    best, nx, ny = -ly - hy, sb, -cb   # bottom (edge 0), right, top, left
    s = lx - hx
    if s > best:
        best, nx, ny = s, cb, sb
    s = ly - hy
    if s > best:
        best, nx, ny = s, -sb, cb
    s = -lx - hx
    if s > best:
        best, nx, ny = s, -cb, -sb
    if best <= 0.0:
        return best, nx, ny
    ox = lx - hx if lx > hx else (lx + hx if lx < -hx else 0.0)   # beyond the faces, in the body's frame
    oy = ly - hy if ly > hy else (ly + hy if ly < -hy else 0.0)
    if ox == 0.0 or oy == 0.0:
        return best, nx, ny   # the closest point on one face (the largest distance's): its normal
    d = np.sqrt(ox * ox + oy * oy)
    if d > 1e-14:  # beyond a corner: the direction from it (polygon_side's _unit_or)
        return d, (cb * ox - sb * oy) / d, (sb * ox + cb * oy) / d
    return 0.0, nx, ny
