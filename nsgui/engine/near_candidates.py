"""The near candidates (a Verlet list) of a lazy run (stepper._steps: nobody reads the gaps between steps).

evaluation.evaluate_skipping tests every candidate point against a polygon at every step and skips those
out of reach (at rest, 900 of the 55-box pyramid's 1120): the test itself, the normal velocities, the
activation, the projection's test and the smallest gap then still loop over all of them. Here the
candidates that stay out of reach while no body moves by more than a skin are listed once: a point whose
distance to the polygon's body origin exceeds the reach of evaluate_skipping's test (_out_of_reach) by
more than the skin at the list's build is left out of those loops until a body's motion since the build,
plus how far it can move in a step (the γ h speed term of the test), could use up half the skin. A
candidate left out is one _out_of_reach declares out of reach at each of those steps (bounds below), so
it is inactive, never the smallest gap, never in the projection, exactly as when skipped: the steps are
the same bit for bit. Its gap, normal and normal velocity are left as they were (nothing reads them
before complete_geometry gives every candidate its geometry at the end of the call). The list is tested
at the end-of-step evaluation; a step whose projection is due may move the bodies after it, so the stepper
then makes every candidate live (the projection's move leaves every candidate's exact geometry, and
without a move the values left are those of an evaluation where the point was out of reach: inactive)
until the next evaluation builds the list anew.

Bounds, per body i since the build (computed values; norms by sums of absolute values, >= Euclidean):
M_i = |Δx| + |Δy| of its origin, T_i = |Δcos| + |Δsin| (a body-frame point at distance ρ moves by ρ T_i
at most: R(θ) - R(θ0) is a rotation scaled by |(Δcos, Δsin)|), S_i = |vx| + |vy|, W_i = |ω| now, and
ρ_i the largest arm of its candidates (|alx| + |aly| + r_a where it carries the point, the polygon's
bound + r_b where it carries the polygon). A point on a, polygon on b: its distance to b's origin
shrank by at most M_a + ρ_a T_a + M_b, and _out_of_reach's limit grew by γh (S_a + ρ_a W_a + S_b + ρ_b W_b)
and 1e-9 M_b; with P_i = M_i (1 + 1e-9) + γh S_i + ρ_i (T_i + γh W_i) both are within P_a + P_b <= skin
while every P_i <= skin / 2.

The quiet candidates (a second, finer tier): a point in reach whose exact gap at the build exceeds the
activation threshold by more than a finer skin (QUIET_SKIN of the smallest reach) is left out too, while every
P_i <= that skin / 2. The gap is the Euclidean distance from the point to the polygon less the radii (the
closest point, or the face's distance where the foot lies inside it), and moves by at most the point's motion
plus the largest motion of the polygon's points: M_a + ρ_a T_a + M_b + ρ_b T_b; |U_N| <= S_a + ρ_a W_a +
S_b + ρ_b W_b. So its gap + γ h U stays above the threshold (inactive), and above the gap at the build less
the finer skin: left out only when that exceeds the run's smallest gap so far (ST_MINGAP: never the smallest,
and positive: no projection test). At the rest of a 55-box pyramid that is 180 of its 400 candidates in reach
(the corners 1-50 mm from the neighbouring boxes). When the finer skin is used up but not the skin, the list
goes back to every candidate in reach (kept at live[nc + 1:], its count first) until the next build.
"""

import numpy as np
from numba import njit

from .codes import (CF_ALX, CF_ALY, CF_RA, CF_RB, CI_ABODY, CI_BBODY, CI_BTYPE, FS_ACTIVATION, FS_GAMMA, FS_H,
                    POLYGON, ST_MINGAP)
from .contact_geometry import CF_BOUND, body_point
from .dynamics import body_kinematics, element_forces
from .evaluation import _contact_geometry, _gravity_and_bias, _normal_velocities_of, _point_geometry, _polygon_geometry

SKIN = 0.1        # of the smallest reach (polygon bound + radii) of a candidate that can be skipped
QUIET_SKIN = 0.01  # ... of a quiet one (module doc)
MARGIN = 1e-6     # relative: round-off of the distances, far above it


@njit(cache=True)
def new_near(nc, nb):
    """A list not built yet. live: live[0] the count of live candidates (-1: every candidate), then
    they, in order (the loops over them: evaluation.live_count, live_candidate), and from live[nc + 1] the
    same for every candidate in reach (the quiet ones too); ref: per body its origin, cos, sin at the
    build and ρ, then the skin and the quiet skin (the skin when none is quiet) in the last row."""
    live = np.empty(2 * (nc + 1), np.int64)
    live[0] = -1
    return live, np.zeros((nb + 1, 5))


@njit(cache=True)
def evaluate_near(m, d, want_mass, live, ref):
    """evaluation.evaluate_skipping with the list: the same values of every live candidate (and the same
    potential energy, returned); the list rebuilt (at the skipping geometry of every candidate) when a
    body may have used up its share of the skin."""
    body_kinematics(m, d.q, d.v, d.kin)
    full = False
    valid = _near_valid(m, d, ref) if live[0] >= 0 else 0
    if valid == 2:  # the quiet skin used up: every candidate in reach is live again
        _near_unquiet(live, ref, d.kin.pos.shape[0])
    if valid != 0:
        deep, polygons = _point_geometry(m, d, live, live[0])
        skipped, deep_polygons = _polygon_geometry(m, d, True, live, live[0])
        skipped = skipped or live[0] < d.gap.shape[0]
        deep = deep or deep_polygons
    else:
        skipped, deep = _contact_geometry(m, d, True)
        _near_build(m, d, live, ref)
        full = True
    if skipped and deep:
        _contact_geometry(m, d, False)
        full = True
    Ug = _gravity_and_bias(m, d, want_mass)  # evaluation.evaluate_forces' sums
    Ue = 0.0
    if m.si.shape[0] + m.ji.shape[0] + m.fi.shape[0] > 0:
        Ue = element_forces(m, d.q, d.v, d.kin, d.F)
    _normal_velocities_of(m, d, live, -1 if full else live[0])
    return Ug + Ue


@njit(cache=True)
def _near_valid(m, d, ref):
    """Whether every body's P_i (module doc) is within half the skin (0: not, the list is built anew) and
    within half the quiet skin (1), or not that (2)."""
    kin = d.kin
    pos, cs, vel, omg = kin.pos, kin.cs, kin.vel, kin.omg
    gh = max(m.fs[FS_GAMMA], 0.0) * m.fs[FS_H]
    nb = pos.shape[0]
    half, half_quiet = 0.5 * ref[nb, 0], 0.5 * ref[nb, 1]
    valid = 1
    for i in range(nb):
        p = ((abs(pos[i, 0] - ref[i, 0]) + abs(pos[i, 1] - ref[i, 1])) * (1.0 + 1e-9)
             + gh * (abs(vel[i, 0]) + abs(vel[i, 1]))
             + ref[i, 4] * (abs(cs[i, 0] - ref[i, 2]) + abs(cs[i, 1] - ref[i, 3]) + gh * abs(omg[i])))
        if not p <= half:  # (not: a non-finite state rebuilds, and a rebuild leaves out nothing non-finite)
            return 0
        if p > half_quiet:
            valid = 2
    return valid


@njit(cache=True)
def _near_unquiet(live, ref, nb):
    """The list back to every candidate in reach (live[nc + 1:]), the quiet skin to the skin."""
    nc = live.shape[0] // 2 - 1
    n = live[nc + 1]
    for i in range(n + 1):
        live[i] = live[nc + 1 + i]
    ref[nb, 1] = ref[nb, 0]


@njit(cache=True)
def _near_build(m, d, live, ref):
    """The list at the kinematics in d.kin: ρ per body, the skin, and every candidate but the points
    against a polygon on a body, not pushed in the last step, farther than the test's reach plus the skin."""
    ci, cf, lamN, gap = m.ci, m.cf, d.lamN, d.gap
    mingap = d.stats[ST_MINGAP]
    kin = d.kin
    pos, cs = kin.pos, kin.cs
    nb = pos.shape[0]
    threshold = max(m.fs[FS_ACTIVATION], 0.0)
    for i in range(nb):
        ref[i, 0], ref[i, 1], ref[i, 2], ref[i, 3], ref[i, 4] = pos[i, 0], pos[i, 1], cs[i, 0], cs[i, 1], 0.0
    smallest = np.inf
    for c in range(ci.shape[0]):
        a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
        if ci[c, CI_BTYPE] != POLYGON or b < 0:
            continue
        reach = cf[c, CF_BOUND] + cf[c, CF_RA] + cf[c, CF_RB]
        smallest = min(smallest, reach)
        ref[b, 4] = max(ref[b, 4], cf[c, CF_BOUND] + cf[c, CF_RB])
        if a >= 0:
            ref[a, 4] = max(ref[a, 4], abs(cf[c, CF_ALX]) + abs(cf[c, CF_ALY]) + cf[c, CF_RA])
    skin = SKIN * smallest if np.isfinite(smallest) else 0.0
    quiet_skin = QUIET_SKIN * smallest if np.isfinite(smallest) else 0.0
    nc = ci.shape[0]
    n = nq = 0
    for c in range(nc):
        a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
        out = quiet = False
        if ci[c, CI_BTYPE] == POLYGON and b >= 0 and lamN[c] == 0.0 and skin > 0.0:
            cx, cy = cf[c, CF_ALX], cf[c, CF_ALY]
            if a >= 0:
                cx, cy = body_point(pos[a, 0], pos[a, 1], cs[a, 0], cs[a, 1], cx, cy)
            bpx, bpy = pos[b, 0], pos[b, 1]
            reach = cf[c, CF_BOUND] + cf[c, CF_RA] + cf[c, CF_RB]
            dist = np.sqrt((cx - bpx) ** 2 + (cy - bpy) ** 2)
            scale = 1.0 + reach + dist + abs(bpx) + abs(bpy)
            out = dist - reach - threshold - 1e-9 * scale - MARGIN * scale > skin
            # the caller's skipping geometry at these kinematics: the exact gap, or a lower bound of it
            g = gap[c]
            quiet = g - threshold - 1e-9 * scale - MARGIN * scale > quiet_skin and g - quiet_skin > mingap
        if not out:
            live[nc + 2 + n] = c
            n += 1
            if not quiet:
                live[1 + nq] = c
                nq += 1
    live[0] = nq
    live[nc + 1] = n
    ref[nb, 0] = skin
    ref[nb, 1] = quiet_skin if nq < n else skin
