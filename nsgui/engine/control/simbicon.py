"""A SIMBICON walking controller (Yin, Loken & van de Panne, "SIMBICON: simple biped locomotion
control", SIGGRAPH 2007) for a planar biped with hips, knees and ankles (docs/walking.md §3).

A four-state machine, its state in the controller state (Resume and scrubbing restore it):

    0 left stance, right swing lifts   --(swing_time elapsed)-->            1
    1 left stance, right swing lands   --(right foot strikes the ground)--> 2
    2 right stance, left swing lifts   --(swing_time elapsed)-->            3
    3 right stance, left swing lands   --(left foot strikes the ground)-->  0

A strike is a positive normal percussion on one of the foot's contacts in the last step, counted only
once the swing foot has been off the ground in this swing (a toe that drags at the switch does not
end the step). Each state pair (lift, land) has its own targets. Every joint is a PD toward its target
angle, τ = kp (target − q) − kd q̇, but two:

- the swing hip aims the swing thigh at a WORLD angle (from the downward vertical, forward positive),
  with SIMBICON's balance feedback: φ_d = swing_hip + cd·d + cv·v, where d is the horizontal distance
  from the stance ankle to the centre of mass and v the centre of mass's horizontal velocity: a
  robot falling forward steps further forward;
- the stance hip holds the torso upright in the world: the torso needs τ_torso = torso_kp (θ_d − θ)
  − torso_kd ω (θ the torso's world angle, counter-clockwise: a negative θ_d leans it forward), which
  both hips exert on it with opposite sign, so τ_stance hip = −τ_torso − τ_swing hip.

Actuators, in the block's order: hip, knee, ankle of the left leg, then of the right leg (knee
angles negative when bent, ankle angles positive when the toes rise). Their Jacobians enter the
iteration matrix (implicit, by default): the PD terms and the torso's, not the feedback's.

P = [torso, foot_l, foot_r, swing_time, kp (3), kd (3), torso_kp, torso_kd, torso, targets of the
lift and land states (7 each: swing hip, cd, cv, swing knee, swing ankle, stance knee, stance ankle),
n_l, n_r, contacts of the left foot (n_l), of the right foot (n_r)];
S = [state, state start time, steps, swing foot lifted];
signals [state, support, steps, balance d, balance v, swing hip target].
"""

import math

from numba import njit

from ..codes import BF_COMX, BF_COMY, BF_MASS
from .slotine_li import refused

(P_TORSO, P_FOOT_L, P_FOOT_R, P_SWING_TIME, P_KP, P_KD, P_TKP, P_TKD, P_TTARGET, P_PHASES) = (0, 1, 2, 3, 4, 7,
                                                                                             10, 11, 12, 13)
N_PHASE = 7
(T_HIP, T_CD, T_CV, T_SW_KNEE, T_SW_ANKLE, T_ST_KNEE, T_ST_ANKLE) = range(N_PHASE)
P_NCONTACTS = P_PHASES + 2 * N_PHASE
S_STATE, S_START, S_STEPS, S_LIFTED = range(4)
FLIGHT, LEFT, RIGHT, DOUBLE = 0, 1, 2, 3
POSITIVE = 1e-12   # N·s: a percussion above this loads the foot


def foot_contacts(model, foot, where):
    """Indices of the contact candidates on body `foot` (its heel and toe)."""
    scene = model.scene
    out = [model.contact_names.index(c.name) for c in scene.contacts
           if getattr(c.a, "body", None) == foot and c.name in model.contact_names]
    if not out:
        raise refused(where, f"the foot {foot!r} has no contact with the ground")
    return out


def pack(c, model, coords):
    if len(coords) != 6:
        raise refused(c, f"{len(coords)} actuators: give six, the hip, knee and ankle of the left leg, "
                         "then of the right leg")
    for key in ("torso", *c.feet):
        if key not in model.body_names:
            raise refused(c, f"no body named {key!r}")
    if len(c.feet) != 2:
        raise refused(c, f"feet: {len(c.feet)} bodies; give two, the left foot then the right one")
    for key, n in (("kp", 3), ("kd", 3), ("swing_hip", 2), ("cd", 2), ("cv", 2), ("swing_knee", 2),
                   ("swing_ankle", 2), ("stance_knee", 2), ("stance_ankle", 2)):
        if len(getattr(c, key)) != n:
            raise refused(c, f"{key}: {len(getattr(c, key))} values; give {n}"
                             + (" (hip, knee, ankle)" if n == 3 else " (lift, land)"))
    left, right = (foot_contacts(model, f, c) for f in c.feet)
    phases = []
    for k in range(2):
        phases += [c.swing_hip[k], c.cd[k], c.cv[k], c.swing_knee[k], c.swing_ankle[k], c.stance_knee[k],
                   c.stance_ankle[k]]
    P = ([float(model.body_names.index(c.torso)), float(model.body_names.index(c.feet[0])),
          float(model.body_names.index(c.feet[1])), c.swing_time] + list(c.kp) + list(c.kd)
         + [c.torso_kp, c.torso_kd, c.torso_angle] + phases + [float(len(left)), float(len(right))]
         + [float(i) for i in left + right])
    S = [float(c.start), 0.0, 0.0, 0.0]
    return P, S, [float(c.start), float(DOUBLE), 0.0, 0.0, 0.0, 0.0]


def implicit(c):
    return bool(c.implicit)


@njit(cache=True)
def _loaded(d, P, first, n):
    for k in range(n):
        if d.lamN[int(P[first + k])] > POSITIVE:
            return True
    return False


@njit(cache=True)
def centre_of_mass(m, kin):
    """(x, y, vx, vy) of the whole robot's centre of mass."""
    bf = m.bf
    mt = x = y = vx = vy = 0.0
    for b in range(bf.shape[0]):
        mb = bf[b, BF_MASS]
        c, s = math.cos(kin.ang[b]), math.sin(kin.ang[b])
        lx, ly = bf[b, BF_COMX], bf[b, BF_COMY]
        rx, ry = c * lx - s * ly, s * lx + c * ly
        w = kin.omg[b]
        mt += mb
        x += mb * (kin.pos[b, 0] + rx)
        y += mb * (kin.pos[b, 1] + ry)
        vx += mb * (kin.vel[b, 0] - w * ry)
        vy += mb * (kin.vel[b, 1] + w * rx)
    return x / mt, y / mt, vx / mt, vy / mt


@njit(cache=True)
def _pd(d, i, j, kp, kd, target, u, dudq, dudv):
    u[i] = kp * (target - d.q[j]) - kd * d.v[j]
    dudq[i, j] -= kp
    dudv[i, j] -= kd


@njit(cache=True)
def simbicon_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    kin = d.kin
    nl, nr = int(P[P_NCONTACTS]), int(P[P_NCONTACTS + 1])
    on_l = _loaded(d, P, P_NCONTACTS + 2, nl)
    on_r = _loaded(d, P, P_NCONTACTS + 2 + nl, nr)
    state = int(S[S_STATE])
    # ---- the state machine: lift phases end on time, landing phases on the swing foot's strike
    swing_on = on_r if state < 2 else on_l
    if not swing_on:
        S[S_LIFTED] = 1.0
    if state % 2 == 0 and t - S[S_START] >= P[P_SWING_TIME] - 1e-9:
        state += 1
        S[S_START] = t
    elif state % 2 == 1 and swing_on and S[S_LIFTED] != 0.0:
        state = (state + 1) % 4
        S[S_START] = t
        S[S_STEPS] += 1.0
        S[S_LIFTED] = 0.0
    S[S_STATE] = state
    # ---- targets of the state
    ph = P_PHASES + N_PHASE * (state % 2)
    st = 0 if state < 2 else 1      # stance leg: 0 left, 1 right
    sw = 1 - st
    i_st, i_sw = 3 * st, 3 * sw
    foot_st = int(P[P_FOOT_L + st])
    xg, _yg, vxg, _vyg = centre_of_mass(m, kin)
    dist = xg - kin.pos[foot_st, 0]   # from the stance ankle (the foot's frame) to the CoM
    b = int(P[P_TORSO])
    theta, omega = kin.ang[b], kin.omg[b]
    phi = P[ph + T_HIP] + P[ph + T_CD] * dist + P[ph + T_CV] * vxg
    # knees and ankles: PD toward their relative targets
    _pd(d, i_sw + 1, coords[i_sw + 1], P[P_KP + 1], P[P_KD + 1], P[ph + T_SW_KNEE], u, dudq, dudv)
    _pd(d, i_sw + 2, coords[i_sw + 2], P[P_KP + 2], P[P_KD + 2], P[ph + T_SW_ANKLE], u, dudq, dudv)
    _pd(d, i_st + 1, coords[i_st + 1], P[P_KP + 1], P[P_KD + 1], P[ph + T_ST_KNEE], u, dudq, dudv)
    _pd(d, i_st + 2, coords[i_st + 2], P[P_KP + 2], P[P_KD + 2], P[ph + T_ST_ANKLE], u, dudq, dudv)
    # swing hip: the thigh's world angle θ + q_hip toward φ
    j = coords[i_sw]
    kp, kd = P[P_KP], P[P_KD]
    u[i_sw] = kp * (phi - theta - d.q[j]) - kd * d.v[j]
    Ja = kin.Ja[b]
    for k in range(Ja.shape[0]):
        dudq[i_sw, k] -= kp * Ja[k]
    dudq[i_sw, j] -= kp
    dudv[i_sw, j] -= kd
    # stance hip: what the torso needs, less what the swing hip already exerts on it
    tkp, tkd = P[P_TKP], P[P_TKD]
    torso = tkp * (P[P_TTARGET] - theta) - tkd * omega
    u[i_st] = -torso - u[i_sw]
    for k in range(Ja.shape[0]):
        dudq[i_st, k] = tkp * Ja[k] - dudq[i_sw, k]
        dudv[i_st, k] = tkd * Ja[k] - dudv[i_sw, k]
    sig[0] = state
    sig[1] = DOUBLE if on_l and on_r else (LEFT if on_l else (RIGHT if on_r else FLIGHT))
    sig[2] = S[S_STEPS]
    sig[3] = dist
    sig[4] = vxg
    sig[5] = phi
