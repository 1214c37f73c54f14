"""The Poincaré section of a walker: the state just after a heel strike, in reduced coordinates.

On the section the new stance foot (contact `stance`) touches the ground at a fixed place along it
and sticks (its velocity is zero), and the trailing foot (contact `trailing`, the previous stance
foot) touches the ground too. Those are 3 position and 2 velocity constraints: the section
coordinates are the scene's coordinates and rates minus as many *dependent* ones, which are solved
from the constraints (free-joint translations are made dependent first: the position along the slope
is a symmetry, not a state). The rimless wheel keeps one rate; the compass gait one angle and two
rates (walking.md §7.3).

After a step the roles have moved on (the struck foot is the new stance foot): `relabel` renames the
walker so that the struck foot plays the part of `stance` again — a permutation of the bodies
(the compass gait's legs swap) and a turn of a body's frame (the rimless wheel's next spoke) — and
solves the joint coordinates that put the bodies where they are. The renamed state must be the same
motion of the same masses (centre of mass, kinetic energy, angular momentum), which allows a point
mass on a joint to ride on either body (the compass gait's hip mass).
"""

from __future__ import annotations

import math

import numpy as np

from ...scene.geometry import rot
from ..codes import BF_INERTIA, BF_MASS


class GaitError(ValueError):
    """A gait analysis that cannot go on; the message is one line saying where and why."""


def _angle(p):
    return math.atan2(p[1], p[0])


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def _dependent_columns(C, preferred, tol=1e-9):
    """Columns of C to solve the constraints C dx = 0 for: the preferred ones first when they add to
    the rank, then by column-pivoted elimination; raises GaitError if C has not full row rank."""
    m = C.shape[0]
    order = list(preferred) + [j for j in range(C.shape[1]) if j not in preferred]
    chosen = []
    for j in order:  # greedy: keep a column if it raises the rank
        trial = chosen + [j]
        if np.linalg.matrix_rank(C[:, trial], tol * max(1.0, np.abs(C).max())) == len(trial):
            chosen = trial
        if len(chosen) == m:
            return sorted(chosen)
    return None


class Section:
    """Reduced coordinates of a walker's post-strike states (`names`), to and from full (q, v)."""

    def __init__(self, model, q_ref, stance, trailing):
        self.model = model
        self.stance, self.trailing = int(stance), int(trailing)
        self.q_ref = np.array(q_ref, float)
        _gap, pa, nrm = model.contact_frames(self.q_ref)
        self._tangent = np.array([nrm[self.stance, 1], -nrm[self.stance, 0]])
        self._s_ref = float(pa[self.stance] @ self._tangent)
        n = model.nq
        scene = model.scene
        translations = [model.coord_names.index(f"{j.name}.{c}") for j in scene.joints if j.type == "free"
                        for c in ("x", "y")]
        Cq = self._position_jacobian(self.q_ref)
        dep_q = _dependent_columns(Cq, translations)
        HN, HT = model.contact_jacobians(self.q_ref)
        dep_v = _dependent_columns(np.vstack([HN[self.stance], HT[self.stance]]), translations)
        if dep_q is None or dep_v is None:
            names = model.contact_names
            raise GaitError(f"section at contacts '{names[self.stance]}' (stance) and "
                            f"'{names[self.trailing]}' (trailing): the feet's constraints are singular "
                            "(both feet on one body point, or a foot the joints cannot move)")
        self.dep_q, self.dep_v = dep_q, dep_v
        self.free_q = [j for j in range(n) if j not in dep_q]
        self.free_v = [j for j in range(n) if j not in dep_v]
        self.names = ([f"q.{model.coord_names[j]}" for j in self.free_q]
                      + [f"v.{model.coord_names[j]}" for j in self.free_v])

    # ---------------------------------------------------------------- constraints
    def _constraints(self, q):
        gap, pa, _nrm = self.model.contact_frames(q)
        return np.array([gap[self.stance], pa[self.stance] @ self._tangent - self._s_ref, gap[self.trailing]])

    def _position_jacobian(self, q, h=1e-7):
        C = np.empty((3, len(q)))
        for j in range(len(q)):
            e = np.zeros(len(q))
            e[j] = h
            C[:, j] = (self._constraints(q + e) - self._constraints(q - e)) / (2 * h)
        return C

    # ---------------------------------------------------------------- charts
    def coordinates(self, q, v):
        """The section coordinates (in `names` order) of a full state."""
        return np.concatenate([np.asarray(q)[self.free_q], np.asarray(v)[self.free_v]])

    def state(self, x, q_guess=None):
        """The full (q, v) of section coordinates x: dependent coordinates by Newton on the position
        constraints, dependent rates from the stance foot's zero velocity."""
        x = np.asarray(x, float)
        nfq = len(self.free_q)
        q = np.array(self.q_ref if q_guess is None else q_guess, float)
        q[self.free_q] = x[:nfq]
        for _ in range(30):
            c = self._constraints(q)
            if np.abs(c).max() < 1e-13:
                break
            C = self._position_jacobian(q)[:, self.dep_q]
            q[self.dep_q] -= np.linalg.solve(C, c)
        else:
            raise GaitError(f"section state {self.describe(x)}: the feet cannot both touch the ground "
                            f"(constraint residual {np.abs(c).max():.2e})")
        HN, HT = self.model.contact_jacobians(q)
        Cv = np.vstack([HN[self.stance], HT[self.stance]])
        v = np.zeros(self.model.nq)
        v[self.free_v] = x[nfq:]
        v[self.dep_v] = np.linalg.solve(Cv[:, self.dep_v], -Cv[:, self.free_v] @ v[self.free_v])
        return q, v

    def describe(self, x):
        return "(" + ", ".join(f"{n} = {val:.6g}" for n, val in zip(self.names, x)) + ")"

    # ---------------------------------------------------------------- relabelling
    def _body_of(self, c):
        m = self.model
        owner = m.contact_owner[c]
        body = m.scene.contacts[owner].a.body
        return m.body_names.index(body)

    def _local_point(self, q, c):
        """Contact c's point on its foot, in its body's frame."""
        _gap, pa, _nrm = self.model.contact_frames(q)
        b = self._body_of(c)
        pose = self.model.body_poses(q)[b]
        return rot(-pose[2]) @ (pa[c] - pose[:2])

    def relabel(self, q, v, struck):
        """The state (q, v), with contact `struck` the new stance foot, renamed so that `stance` is
        the stance foot again: body(struck) -> body(stance), body(stance) -> body(trailing), each
        body's frame turned so the foot lands on the foot (GaitError if the walker is not symmetric)."""
        m = self.model
        bs, bt, bn = self._body_of(self.stance), self._body_of(self.trailing), self._body_of(struck)
        sigma = {b: b for b in range(m.nbodies)}
        pairs = [(bn, bs, struck, self.stance), (bs, bt, self.stance, self.trailing)]
        delta = {}
        for src, dst, c_src, c_dst in pairs:
            l_src, l_dst = self._local_point(self.q_ref, c_src), self._local_point(self.q_ref, c_dst)
            if abs(np.hypot(*l_src) - np.hypot(*l_dst)) > 1e-9:
                raise GaitError(f"the walker is not symmetric: foot '{m.contact_names[c_src]}' is not as far from "
                                f"its body's origin as '{m.contact_names[c_dst]}'")
            d = _wrap(_angle(l_src) - _angle(l_dst))
            if src in delta and abs(_wrap(delta[src] - d)) > 1e-9:
                raise GaitError(f"the walker is not symmetric: feet '{m.contact_names[struck]}', "
                                f"'{m.contact_names[self.stance]}' and '{m.contact_names[self.trailing]}' "
                                f"are not evenly spaced on body '{m.body_names[src]}'")
            delta[src] = d
            sigma[src] = dst
        if sorted(sigma.values()) != list(range(m.nbodies)):
            raise GaitError("the walker is not symmetric: the feet's bodies cannot be swapped "
                            f"({m.body_names[bn]} -> {m.body_names[bs]} -> {m.body_names[bt]})")
        kin = m._kin(q, v)
        target = np.zeros((m.nbodies, 3))
        twist = np.zeros((m.nbodies, 3))
        for b, dst in sigma.items():
            target[dst] = (*kin.pos[b], kin.ang[b] + delta.get(b, 0.0))
            twist[dst] = (*kin.vel[b], kin.omg[b])
        q1, v1 = self._solve_joints(target, twist, struck)
        self._check_same_motion(q, v, q1, v1, struck)
        return q1, v1

    def _check_same_motion(self, q, v, q1, v1, struck):
        """The renamed state must be the same motion of the same masses: the walker's centre of mass,
        its velocity, its kinetic energy and its angular momentum about the centre of mass agree.
        (A point mass on a joint may belong to either body: the compass gait's hip mass rides on one
        leg.) Else the walker is not symmetric under the renaming: GaitError."""
        a, b = self._mass_figures(q, v), self._mass_figures(q1, v1)
        scale = max(1.0, float(np.abs(a).max()))
        if np.abs(a - b).max() > 1e-8 * scale:
            m = self.model
            raise GaitError("the walker is not symmetric: after the strike at "
                            f"'{m.contact_names[struck]}' its renamed bodies carry other masses "
                            f"(centre of mass, kinetic energy or angular momentum differ by "
                            f"{np.abs(a - b).max():.2e})")

    def _mass_figures(self, q, v):
        m = self.model
        kin = m._kin(q, v)
        masses = m.arrays.bf[:, BF_MASS]
        inertia = m.arrays.bf[:, BF_INERTIA]
        coms = m.com_positions(q)
        vcom = np.array([kin.vel[b] + kin.omg[b] * np.array([-(coms[b] - kin.pos[b])[1], (coms[b] - kin.pos[b])[0]])
                         for b in range(m.nbodies)])
        total = masses.sum()
        G = masses @ coms / total
        VG = masses @ vcom / total
        ke = 0.5 * v @ m.mass_matrix(q) @ v
        rel, vrel = coms - G, vcom - VG
        L = float(np.sum(masses * (rel[:, 0] * vrel[:, 1] - rel[:, 1] * vrel[:, 0])) + inertia @ kin.omg)
        return np.array([*G, *VG, ke, L])

    def _solve_joints(self, target, twist, struck):
        """Joint coordinates and rates putting every body at `target` with `twist` (Gauss–Newton on the
        exact body Jacobians, from the reference section configuration)."""
        m = self.model
        q = self.q_ref.copy()
        # start from the reference shifted along the ground (the struck foot is a step ahead)
        for _ in range(50):
            kin = m._kin(q)
            r = np.concatenate([(target[:, :2] - kin.pos).ravel(), _wrap(target[:, 2] - kin.ang)])
            if np.abs(r).max() < 1e-13:
                break
            J = np.concatenate([kin.Jp.reshape(-1, m.nq), kin.Ja])
            dq, *_ = np.linalg.lstsq(J, r, rcond=None)
            q += dq
            if np.abs(dq).max() < 1e-15:
                break
        if np.abs(r).max() > 1e-10:
            raise GaitError(f"after the strike at '{m.contact_names[struck]}': no joint coordinates put "
                            f"the renamed bodies in place (residual {np.abs(r).max():.2e})")
        kin = m._kin(q)
        J = np.concatenate([kin.Jp.reshape(-1, m.nq), kin.Ja])
        rhs = np.concatenate([twist[:, :2].ravel(), twist[:, 2]])
        v, *_ = np.linalg.lstsq(J, rhs, rcond=None)
        return q, v
