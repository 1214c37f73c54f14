"""The model evaluated at a state (numba kernels): kinematics, M, smooth forces, contact geometry, and
the finite-difference force Jacobians of the iteration matrix."""

import numpy as np
from numba import njit

from .codes import (CF_ALX, CF_ALY, CF_B0, CF_B1, CF_B2, CF_B3, CF_RA, CF_RB, CI_ABODY, CI_BBODY, CI_BTYPE,
                    CI_VCOUNT, CI_VSTART, FS_ACTIVATION, FS_GAMMA, FS_H, FS_PROJ_TOL, IS_CONST_M, LIMIT, POLYGON)
from .contact_geometry import (CF_BOUND, CF_HX, CF_HY, body_point, limit_geometry, point_feature_geometry,
                               polygon_edges, polygon_side, rectangle_side, surface_points)
from .dynamics import body_kinematics, com_terms, element_forces


@njit(cache=True)
def evaluate(m, d, want_mass):
    """Kinematics, M (if want_mass), smooth forces F (actuators apart) and every candidate's geometry
    and normal velocity at (d.q, d.v), into d. Returns the potential energy (gravity + elements)."""
    evaluate_geometry(m, d)
    return evaluate_forces(m, d, want_mass)


@njit(cache=True)
def evaluate_geometry(m, d):
    """evaluate's first part: the kinematics and every candidate's gap, normal and contact points (what
    the position projection's iterations read)."""
    body_kinematics(m, d.q, d.v, d.kin)
    _contact_geometry(m, d, False)


@njit(cache=True)
def evaluate_skipping(m, d, want_mass):
    """evaluate for a step whose gaps nobody records (stepper._steps, when neither the rows nor a
    controller or a switch read them): a candidate point provably out of reach in the next step is
    skipped (_contact_geometry's `skipping`). Returns the potential energy; complete_geometry then
    gives every candidate its exact geometry."""
    body_kinematics(m, d.q, d.v, d.kin)
    skipped, deep = _contact_geometry(m, d, True)
    if skipped and deep:
        _contact_geometry(m, d, False)
    return evaluate_forces(m, d, want_mass)


@njit(cache=True)
def complete_geometry(m, d):
    """Every candidate's gap, normal, points and normal velocity at the kinematics in d.kin, the
    skipped ones included: what evaluate leaves (the same sums on the same numbers)."""
    _contact_geometry(m, d, False)
    _normal_velocities_of(m, d)


@njit(cache=True)
def evaluate_forces(m, d, want_mass):
    """evaluate's second part, at the kinematics evaluate_geometry left: M (if want_mass), F, the
    normal velocities; returns the potential energy."""
    U = smooth_forces(m, d, want_mass)
    _normal_velocities_of(m, d)
    return U


@njit(cache=True)
def smooth_forces(m, d, want_mass):
    """evaluate_forces without the normal velocities (a caller that changes v next computes them then):
    M (if want_mass) and F at the kinematics in d; returns the potential energy."""
    Ug = _gravity_and_bias(m, d, want_mass)
    Ue = 0.0
    if m.si.shape[0] + m.ji.shape[0] + m.fi.shape[0] > 0:  # (the call alone costs as much as a step's geometry)
        Ue = element_forces(m, d.q, d.v, d.kin, d.F)
    return Ug + Ue


@njit(cache=True)
def _gravity_and_bias(m, d, want_mass):
    """evaluate_forces' M (if want_mass), gravity and bias terms (dynamics.com_terms, compiled in: this
    calls nothing, and its arrays cost no reference counts) and F = grav - bias; returns the gravity
    potential."""
    kin, F, grav, bias = d.kin, d.F, d.grav, d.bias
    Ug = com_terms(m, kin, d.M, bias, grav, want_mass)
    for i in range(F.shape[0]):  # F = grav - bias, without a temporary array
        F[i] = grav[i] - bias[i]
    return Ug


@njit(cache=True)
def refresh_velocities(m, d):
    """What evaluate computes from d.v alone, after a change of v at the same q, for models whose
    forces do not depend on v (IS_CONST_F): the bodies' velocities and the candidates' normal
    velocities (same arithmetic as evaluate: the same numbers), without the geometry's cost (nor the
    Jacobians': q has not changed)."""
    body_kinematics(m, d.q, d.v, d.kin, False)
    _normal_velocities_of(m, d)


@njit(cache=True)
def mass_times(m, d, w, out):
    """out = M w: by tree (sparse, ModelArrays.mi_*) when M is constant, else with d.M."""
    if m.isets[IS_CONST_M] != 0:
        ptr, col, val = m.mi_ptr, m.mi_col, m.m_val
        for i in range(w.shape[0]):
            s = 0.0
            for p in range(ptr[i], ptr[i + 1]):
                s += val[p] * w[col[p]]
            out[i] = s
    else:
        out[:] = d.M @ w


@njit(cache=True)
def kinetic_energy(m, d, v):
    """½ vᵀ M v (O(n) for separate bodies of constant M: no dense n x n product per step)."""
    Mv = d.row_n
    mass_times(m, d, v, Mv)
    return 0.5 * (v @ Mv)


@njit(cache=True)
def _contact_geometry(m, d, skipping):
    """Gap, normal and contact points of every candidate; returns (whether any was skipped, whether a
    computed one lies deeper than the projection tolerance).

    skipping: a point against a polygon on a body, not pushed in the last step, whose centre is farther
    from the body's origin than the polygon's bounding radius (CF_BOUND) plus the radii, plus how far the
    gap can close in a step (γ h times a bound of |u_N|: the bodies' speeds and turning rates at their
    reach), plus the activation threshold, is not computed: its gap gets the lower bound that distance
    gives (> 0, above the threshold: inactive in the step, never the smallest gap, never in the
    projection), its normal zero (so its normal velocity is 0) and both points its centre. When a
    computed point lies deeper than the projection tolerance, the caller computes them all (the
    projection then takes in every point closer than the deepest penetration).
    The candidates against a polygon are _polygon_geometry's, the others _point_geometry's: that one
    calls nothing, and its arrays cost no reference counts (a ground, a circle: the box, the columns)."""
    deep, polygons = _point_geometry(m, d)
    skipped = False
    if polygons:
        skipped, deep_polygons = _polygon_geometry(m, d, skipping)
        deep = deep or deep_polygons
    return skipped, deep


@njit(cache=True, error_model="numpy")
def _point_geometry(m, d, live=None, nlive=-1):
    """_contact_geometry of every candidate but those against a polygon: returns (whether one lies
    deeper than the projection tolerance, whether there are candidates against a polygon). Given the near
    list, of live[1:nlive + 1] (it holds every candidate not against a polygon, near_candidates._near_build:
    the same ones in the same order, without the pass over the others)."""
    if live is None:
        live = d.act  # (nlive < 0: unread; as in _normal_velocities_of)
    # structref fields bound once: each access to one costs a reference count
    ci, cf, q = m.ci, m.cf, d.q
    gap, nrm, pa, pb = d.gap, d.nrm, d.pa, d.pb
    kin = d.kin
    pos, cs = kin.pos, kin.cs  # each body's cos and sin of its angle, as body_kinematics computed them
    deepest = -m.fs[FS_PROJ_TOL]
    deep = polygons = False
    for i in range(live_count(ci.shape[0], nlive)):
        c = live_candidate(live, nlive, i)
        bt = ci[c, CI_BTYPE]
        if bt == POLYGON:
            polygons = True
            continue
        if bt == LIMIT:
            g, nx, ny, pax, pay, pbx, pby = limit_geometry(q[ci[c, CI_VSTART]], ci[c, CI_VCOUNT], cf[c, CF_B0])
        else:  # candidate_geometry's scalars, read here: a call with the arrays would cost more than its work
            a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
            cx, cy = cf[c, CF_ALX], cf[c, CF_ALY]
            if a >= 0:
                cx, cy = body_point(pos[a, 0], pos[a, 1], cs[a, 0], cs[a, 1], cx, cy)
            bpx, bpy, cb, sb = (pos[b, 0], pos[b, 1], cs[b, 0], cs[b, 1]) if b >= 0 else (0.0, 0.0, 1.0, 0.0)
            g, nx, ny, pax, pay, pbx, pby = point_feature_geometry(
                bt, cx, cy, cf[c, CF_RA], cf[c, CF_RB], cf[c, CF_B0], cf[c, CF_B1], cf[c, CF_B2], cf[c, CF_B3],
                b >= 0, bpx, bpy, cb, sb)
        _keep_geometry(c, g, nx, ny, pax, pay, pbx, pby, gap, nrm, pa, pb)
        if g < deepest:
            deep = True
    return deep, polygons


@njit(cache=True)
def _polygon_geometry(m, d, skipping, live=None, nlive=-1):
    """_contact_geometry of the candidates against a polygon: returns (whether one was skipped, whether a
    computed one lies deeper than the projection tolerance). Given the near list, only the candidates
    live[1:nlive + 1] (near_candidates.py: the others are provably out of reach), else every one."""
    if live is None:
        live = d.act  # (nlive < 0: unread; as in _normal_velocities_of)
    ci, cf, verts = m.ci, m.cf, m.verts
    gap, nrm, pa, pb = d.gap, d.nrm, d.pa, d.pb
    kin = d.kin
    pos, cs = kin.pos, kin.cs
    lamN, vel, omg = d.lamN, kin.vel, kin.omg
    gh = max(m.fs[FS_GAMMA], 0.0) * m.fs[FS_H]
    threshold = max(m.fs[FS_ACTIVATION], 0.0)
    deepest = -m.fs[FS_PROJ_TOL]
    skipped = deep = False
    # each polygon's world edges, computed for its first candidate point and read by the others; a polygon
    # is verts[v0:v0 + nv], one block per body's shape (compile.py: the points of every contact against it
    # share it). The flags are cleared at the first polygon that is no rectangle (none in a box pyramid)
    edges, done = d.edges, d.edge_done
    cleared = False
    for i in range(live_count(ci.shape[0], nlive)):
        c = live_candidate(live, nlive, i)
        if ci[c, CI_BTYPE] != POLYGON:
            continue
        a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
        cx, cy = cf[c, CF_ALX], cf[c, CF_ALY]
        if a >= 0:
            cx, cy = body_point(pos[a, 0], pos[a, 1], cs[a, 0], cs[a, 1], cx, cy)
        bpx, bpy, cb, sb = (pos[b, 0], pos[b, 1], cs[b, 0], cs[b, 1]) if b >= 0 else (0.0, 0.0, 1.0, 0.0)
        far = False
        if skipping and b >= 0 and lamN[c] == 0.0:
            # (the test written out with scalars: a helper taking the arrays cost more than the geometry)
            ra, rb, bound = cf[c, CF_RA], cf[c, CF_RB], cf[c, CF_BOUND]
            speed = abs(vel[b, 0]) + abs(vel[b, 1]) + abs(omg[b]) * (bound + rb)
            if a >= 0:
                arm = abs(cf[c, CF_ALX]) + abs(cf[c, CF_ALY]) + ra
                speed += abs(vel[a, 0]) + abs(vel[a, 1]) + abs(omg[a]) * arm
            g, far = _out_of_reach(cx - bpx, cy - bpy, bound + ra + rb, speed, gh, threshold, bpx, bpy)
            if far:
                skipped = True
                nx = ny = 0.0
                pax, pay, pbx, pby = cx, cy, cx, cy
        if not far:
            hx = cf[c, CF_HX]
            if hx > 0.0 and b >= 0:  # a rectangle centred on its body: no world edges (their square roots, divisions)
                sd, nx, ny = rectangle_side(cx - bpx, cy - bpy, cb, sb, hx, cf[c, CF_HY])
            else:
                v0, nv = ci[c, CI_VSTART], ci[c, CI_VCOUNT]
                if not cleared:
                    for k in range(done.shape[0]):
                        done[k] = False
                    cleared = True
                if not done[v0]:  # (one block per body's polygon, compile.py: every point against it shares it)
                    polygon_edges(verts, v0, nv, b >= 0, bpx, bpy, cb, sb, edges, v0)
                    done[v0] = True
                sd, nx, ny = polygon_side(cx, cy, edges, v0, nv)
            g, nx, ny, pax, pay, pbx, pby = surface_points(sd, nx, ny, cx, cy, cf[c, CF_RA], cf[c, CF_RB])
        _keep_geometry(c, g, nx, ny, pax, pay, pbx, pby, gap, nrm, pa, pb)
        if g < deepest:
            deep = True
    return skipped, deep


@njit(cache=True, inline="always")
def _keep_geometry(c, g, nx, ny, pax, pay, pbx, pby, gap, nrm, pa, pb):
    """Candidate c's gap, normal and points into d's arrays (no branch: compiled in, it keeps no reference
    counts)."""
    gap[c] = g
    nrm[c, 0], nrm[c, 1] = nx, ny
    pa[c, 0], pa[c, 1], pb[c, 0], pb[c, 1] = pax, pay, pbx, pby


@njit(cache=True, inline="always")
def _out_of_reach(dx, dy, reach, speed, gh, threshold, bpx, bpy):
    """_contact_geometry's test of a point at (dx, dy) from the origin of a polygon's body (at (bpx, bpy)):
    (the gap's lower bound, True) when the point is out of reach, else (0, False). reach: the polygon's
    bounding radius plus the radii; speed: a bound of |u_N|, |v_a| + |ω_a| (|centre - origin_a| + r_a) +
    |v_b| + |ω_b| (bound_b + r_b), each norm by the sum of the absolute values (>= the Euclidean one);
    the margin covers the round-off."""
    lim = reach + gh * speed + threshold + 1e-9 * (1.0 + reach + abs(bpx) + abs(bpy))
    d2 = dx * dx + dy * dy
    if not d2 > lim * lim:  # (not: a non-finite state is computed, never skipped)
        return 0.0, False
    return np.sqrt(d2) - reach, True


@njit(cache=True)
def _normal_velocities_of(m, d, live=None, nlive=-1):
    """d.un = the normal velocity of every candidate, or of the near candidates live[1:nlive + 1]
    (near_candidates.py; live_count), at the geometry and kinematics in d (_normal_velocities, compiled
    in: this calls nothing, and its arrays cost no reference counts)."""
    if live is None:
        live = d.act  # (nlive < 0: unread; bound here, not passed by the caller: that costs its reference counts)
    kin = d.kin
    _normal_velocities(m.ci, d.v, kin.pos, kin.vel, kin.omg, d.nrm, d.pa, d.pb, d.un, live, nlive)


@njit(cache=True, inline="always")
def live_count(nc, nlive):
    """How many candidates a loop over the near list visits: nlive (the list live[1:nlive + 1],
    near_candidates.py), or all nc when nlive < 0. With live_candidate, the loops
    `for i in range(live_count(nc, nlive)): c = live_candidate(live, nlive, i)`. The functions with such
    a loop take (live=None, nlive=-1): called without a list (a specialization where nlive is the
    constant -1), they read every candidate, live bound to any array (d.act) in the function itself."""
    return nc if nlive < 0 else nlive


@njit(cache=True, inline="always")
def live_candidate(live, nlive, i):
    """The loop's i-th candidate: live[1 + i], or i when every candidate is live (nlive < 0: live unread)."""
    return i if nlive < 0 else live[1 + i]


@njit(cache=True, inline="always")
def _normal_velocities(ci, v, pos, vel, omg, nrm, pa, pb, un, live, nlive):
    """un[c] = normal_velocity of every candidate (nlive >= 0: of live[1:nlive + 1]), in one loop, the
    helpers given scalars: a call per candidate with these arrays would cost their reference counts, ten
    times the arithmetic."""
    for i in range(live_count(ci.shape[0], nlive)):
        c = live_candidate(live, nlive, i)
        if ci[c, CI_BTYPE] == LIMIT:
            un[c] = ci[c, CI_VCOUNT] * v[ci[c, CI_VSTART]]
            continue
        nx, ny = nrm[c, 0], nrm[c, 1]
        if nx == 0.0 and ny == 0.0:  # a point evaluate_skipping left out of reach (no other has no normal)
            un[c] = 0.0
            continue
        a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
        pax, pay, pbx, pby = pa[c, 0], pa[c, 1], pb[c, 0], pb[c, 1]
        vax, vay = _point_velocity(vel[a, 0], vel[a, 1], omg[a], pos[a, 0], pos[a, 1], pax, pay)
        vbx = vby = 0.0
        if b >= 0:
            vbx, vby = _point_velocity(vel[b, 0], vel[b, 1], omg[b], pos[b, 0], pos[b, 1], pbx, pby)
        un[c] = _along(vax - vbx, vay - vby, nx, ny)[0]


@njit(cache=True)
def normal_velocity(c, ci, v, pos, vel, omg, nx, ny, pax, pay, pbx, pby):
    """Normal relative velocity of candidate c (a's point minus b's, along the normal) given its
    geometry and the kinematics (pos, vel, omg) it was found with."""
    return relative_velocity(c, ci, v, pos, vel, omg, nx, ny, pax, pay, pbx, pby)[0]


@njit(cache=True)
def relative_velocity(c, ci, v, pos, vel, omg, nx, ny, pax, pay, pbx, pby):
    """(normal, tangential) relative velocity of candidate c (tangent t = (n_y, −n_x)); a joint
    limit has no tangent. (_normal_velocities: the same for every candidate.)"""
    if ci[c, CI_BTYPE] == LIMIT:
        return ci[c, CI_VCOUNT] * v[ci[c, CI_VSTART]], 0.0
    a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
    vax, vay = _point_velocity(vel[a, 0], vel[a, 1], omg[a], pos[a, 0], pos[a, 1], pax, pay)
    vbx = vby = 0.0
    if b >= 0:
        vbx, vby = _point_velocity(vel[b, 0], vel[b, 1], omg[b], pos[b, 0], pos[b, 1], pbx, pby)
    return _along(vax - vbx, vay - vby, nx, ny)


@njit(cache=True, inline="always")
def _point_velocity(vx, vy, w, ox, oy, px, py):
    """Velocity of the world point (px, py) of a body whose origin (ox, oy) moves at (vx, vy), turning at w."""
    return vx - w * (py - oy), vy + w * (px - ox)


@njit(cache=True, inline="always")
def _along(rx, ry, nx, ny):
    """(normal, tangential) components of the relative velocity (rx, ry)."""
    return nx * rx + ny * ry, ny * rx - nx * ry


@njit(cache=True)
def _smooth_forces(m, d, q, v, F):
    """F(q, v) = gravity - bias + elements, with the finite-difference scratch of d (M untouched)."""
    kin, grav, bias = d.fd_kin, d.fd_grav, d.fd_bias
    body_kinematics(m, q, v, kin)
    com_terms(m, kin, d.M, bias, grav, False)
    for i in range(F.shape[0]):  # F = grav - bias, without a temporary array
        F[i] = grav[i] - bias[i]
    if m.si.shape[0] + m.ji.shape[0] + m.fi.shape[0] > 0:  # (as in evaluate)
        element_forces(m, q, v, kin, F)


@njit(cache=True)
def force_jacobians(m, d):
    """Finite differences of F(q, v) around (d.q, d.v), F0 = d.F: d.K = dF/dq, d.C = dF/dv.

    Forward differences (step sqrt(eps), relative error ~1e-8, far below what h²θ²K weighs in Ŵ) when
    only gravity and Coriolis terms act; central differences when springs or dampers do, so that
    linear elements get their exact Jacobian (to ~1e-10) and the θ = ½ scheme keeps their quadratic
    energy."""
    q, v, F0, K, C = d.q, d.v, d.F, d.K, d.C
    qq, vv, Fp, Fm = d.fd_q, d.fd_v, d.fd_Fp, d.fd_Fm
    n = q.shape[0]
    central = m.si.shape[0] + m.ji.shape[0] + m.fi.shape[0] > 0
    qq[:] = q
    vv[:] = v
    for j in range(n):
        for which in range(2):
            x = q[j] if which == 0 else v[j]
            eps = (1e-6 if central else 1.5e-8) * (1.0 + abs(x))
            if which == 0:
                qq[j] = x + eps
            else:
                vv[j] = x + eps
            _smooth_forces(m, d, qq, vv, Fp)
            if central:
                if which == 0:
                    qq[j] = x - eps
                else:
                    vv[j] = x - eps
                _smooth_forces(m, d, qq, vv, Fm)
            else:
                Fm[:] = F0
            if which == 0:
                qq[j] = x
            else:
                vv[j] = x
            D = K if which == 0 else C
            for i in range(n):
                D[i, j] = (Fp[i] - Fm[i]) / ((2.0 if central else 1.0) * eps)
