"""Scene -> Model: the arrays the numba kernels run on, the names of every signal, and geometry queries.

The model is constant during a run (MuJoCo's mjModel); the simulator owns the changing state.
"""

from dataclasses import dataclass

import numpy as np

from . import contact_geometry as cg
from . import dynamics as dyn
from nsgui.scene import Scene, SceneError, Problem, body_mass_properties, sorted_joints, validate_scene
from .stepper import CONTACT_SIGNALS

JTYPES = {"fixed": dyn.FIXED, "revolute": dyn.REVOLUTE, "prismatic": dyn.PRISMATIC, "free": dyn.FREE}
SOLVERS = {"auto": 0, "lemke": 1, "nsgs": 2}
CONTROLLERS = {"none": 0, "constant": 1, "pd": 2}


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def shape_circles(shape):
    """A side of a contact: the circles (local centre, radius) standing for the shape's surface."""
    off = np.asarray(shape.offset, float)
    R = _rot(shape.angle or 0.0)
    if shape.type == "disk":
        return [(off, float(shape.radius))]
    if shape.type == "point":
        return [(off, 0.0)]
    if shape.type == "capsule":
        e = R @ np.array([shape.length / 2.0, 0.0])
        return [(off - e, float(shape.radius or 0.0)), (off + e, float(shape.radius or 0.0))]
    return [(v, 0.0) for v in shape_vertices(shape)]


def shape_vertices(shape):
    """Vertices (body frame, counter-clockwise) of a box or polygon; the two ends of a capsule."""
    off = np.asarray(shape.offset, float)
    R = _rot(shape.angle or 0.0)
    if shape.type == "box":
        w, h = shape.width / 2.0, shape.height / 2.0
        local = [(-w, -h), (w, -h), (w, h), (-w, h)]
    elif shape.type == "polygon":
        local = shape.vertices
    elif shape.type == "capsule":
        local = [(-shape.length / 2.0, 0.0), (shape.length / 2.0, 0.0)]
    else:
        return []
    return [off + R @ np.asarray(p, float) for p in local]


@dataclass
class Candidate:
    name: str
    owner: int          # index of the scene contact (-1 for a joint limit)
    ints: list
    floats: list


class Model:
    """A compiled scene. Build it with compile_scene(scene)."""

    def __init__(self, scene: Scene):
        self.scene = scene
        s = scene.settings
        self.dt = float(s.dt)
        self._build_bodies(scene)
        self._build_candidates(scene)
        self._build_forces(scene)
        self._build_actuators(scene)
        self.fs = np.array([s.dt, s.theta, s.gamma, s.tolerance, s.impact_threshold,
                            scene.gravity[0], scene.gravity[1], 1e-7,
                            # with projection, resting gaps sit at +-round-off: a contact left 1e-11 open
                            # must stay in the problem or it chatters (one free-fall step in three)
                            1e-9 if s.projection else 0.0,
                            # with projection, bounces slower than a few steps of gravity are plastic: the
                            # projection would otherwise feed a micro-bouncing of amplitude ~|g|h forever
                            3.0 * float(np.hypot(*scene.gravity)) * s.dt if s.projection else 0.0,
                            1e-6], float)  # projection removes penetrations deeper than 1 µm
        self.isets = np.array([SOLVERS[s.solver], s.max_iterations, int(bool(s.projection)), 0, 0], np.int64)
        self.q0 = np.array([scene.initial.q.get(c, 0.0) for c in self.coord_names], float)
        self.v0 = np.array([scene.initial.v.get(c, 0.0) for c in self.coord_names], float)
        self._resolve_spring_lengths()
        self._detect_constant_terms()
        self.signal_names = (["t"] + [f"q.{c}" for c in self.coord_names] + [f"v.{c}" for c in self.coord_names]
                             + [f"energy.{e}" for e in ("kinetic", "potential", "total", "dissipated", "impact",
                                                        "friction", "damping", "actuators", "projection",
                                                        "residual")]
                             + [f"contact.{c}.{k}" for c in self.contact_names for k in CONTACT_SIGNALS]
                             + [f"u.{a}" for a in self.actuator_names])
        self.signal_index = {n: i for i, n in enumerate(self.signal_names)}
        self.signal_units = self._signal_units()

    def _signal_units(self):
        """Unit of every signal (SI, "" for the contact status): what a plot's axis names."""
        units = {"t": "s"}
        for c, u in zip(self.coord_names, self.coord_units):
            units[f"q.{c}"], units[f"v.{c}"] = u, f"{u}/s"
        per_contact = {"gap": "m", "pn": "N·s", "pt": "N·s", "fn": "N", "ft": "N", "status": ""}
        for n in self.signal_names:
            kind, _, rest = n.partition(".")
            if kind == "energy":
                units[n] = "J"
            elif kind == "contact":
                units[n] = per_contact[rest.rsplit(".", 1)[1]]
        for a, (c, _ctype) in zip(self.actuator_names, self.ai):  # a torque on an angle, a force on a length
            units[f"u.{a}"] = "N·m" if self.coord_units[c] == "rad" else "N"
        return units

    # ------------------------------------------------------------------ building
    def _build_bodies(self, scene):
        self.body_names = [b.name for b in scene.bodies]
        bidx = {n: i for i, n in enumerate(self.body_names)}
        self.body_index = bidx
        nb = len(scene.bodies)
        self.nbodies = nb
        bi = np.full((nb, 3), -1, np.int64)
        bf = np.zeros((nb, 11))
        order = []
        coords = []
        units = []  # of each coordinate: rad for an angle, m for a length
        self.coord_of_joint = {}
        for j in sorted_joints(scene):
            b = bidx[j.child]
            jt = JTYPES[j.type]
            bi[b, 0] = -1 if j.parent == "world" else bidx[j.parent]
            bi[b, 1] = jt
            if jt == dyn.FREE:
                bi[b, 2] = len(coords)
                for suffix in ("x", "y", "theta"):
                    self.coord_of_joint[f"{j.name}.{suffix}"] = len(coords)
                    coords.append(f"{j.name}.{suffix}")
                    units.append("rad" if suffix == "theta" else "m")
            elif jt != dyn.FIXED:
                bi[b, 2] = len(coords)
                self.coord_of_joint[j.name] = len(coords)
                coords.append(j.name)
                units.append("rad" if jt == dyn.REVOLUTE else "m")
            axis = np.asarray(j.axis, float)
            axis = axis / np.linalg.norm(axis) if np.linalg.norm(axis) > 0 else np.array([1.0, 0.0])
            bf[b, 0:2] = j.anchor_parent
            bf[b, 2:4] = j.anchor_child
            bf[b, 4:6] = axis
            bf[b, 6] = j.angle
            order.append(b)
        for b, body in enumerate(scene.bodies):
            mass, inertia, com = body_mass_properties(body)
            bf[b, 7], bf[b, 8] = mass, inertia
            bf[b, 9:11] = com
        self.coord_names = coords
        self.coord_units = units
        self.nq = len(coords)
        self.joints_sorted = sorted_joints(scene)
        self.bi, self.bf, self.order = bi, bf, np.array(order, np.int64)
        paths = [[] for _ in range(nb)]
        for b in order:
            par = bi[b, 0]
            own = []
            if bi[b, 1] == dyn.FREE:
                own = [bi[b, 2], bi[b, 2] + 1, bi[b, 2] + 2]
            elif bi[b, 1] != dyn.FIXED:
                own = [bi[b, 2]]
            paths[b] = (paths[par] if par >= 0 else []) + own
        width = max([len(p) for p in paths] + [1])
        self.path = np.zeros((nb, width), np.int64)
        self.plen = np.array([len(p) for p in paths], np.int64)
        for b, p in enumerate(paths):
            self.path[b, :len(p)] = p

    def _build_candidates(self, scene):
        obst = {o.name: o for o in scene.obstacles}
        cands = []
        verts = []

        def b_side(bbody, shape):
            if shape.type in ("disk", "point"):
                c = np.asarray(shape.offset, float)
                return [cg.CIRCLE, bbody, 0, 0], [c[0], c[1], 0.0, 0.0, float(shape.radius or 0.0)]
            vs = shape_vertices(shape)
            start = len(verts)
            verts.extend(vs)
            rb = float(shape.radius or 0.0) if shape.type == "capsule" else 0.0
            return [cg.POLYGON, bbody, start, len(vs)], [0.0, 0.0, 0.0, 0.0, rb]

        for ci_, con in enumerate(scene.contacts):
            a_body = self.body_index[con.a.body]
            a_shape = _shape(scene, con.a.body, con.a.shape)
            e, mu = float(con.restitution), float(con.friction)
            pairs = []  # (a body, a shape, B ints, B floats)
            if con.b.obstacle is not None:
                o = obst[con.b.obstacle]
                if o.type == "segment":
                    bint = [cg.SEGMENT, -1, 0, 0]
                    bfl = [o.a[0], o.a[1], o.b[0], o.b[1], 0.0]
                else:
                    n = np.asarray(o.normal, float)
                    n = n / np.linalg.norm(n)
                    bint = [cg.HALFPLANE, -1, 0, 0]
                    bfl = [o.point[0], o.point[1], n[0], n[1], 0.0]
                pairs.append((a_body, a_shape, bint, bfl))
            else:
                b_body = self.body_index[con.b.body]
                b_shape = _shape(scene, con.b.body, con.b.shape)
                round_a = a_shape.type in ("disk", "point")
                round_b = b_shape.type in ("disk", "point")
                if round_a or not round_b:
                    bint, bfl = b_side(b_body, b_shape)
                    pairs.append((a_body, a_shape, bint, bfl))
                if not round_a:
                    bint, bfl = b_side(a_body, a_shape)
                    pairs.append((b_body, b_shape, bint, bfl))
            points = []
            for abody, ashape, bint, bfl in pairs:
                for centre, ra in shape_circles(ashape):
                    points.append((abody, centre, ra, bint, bfl))
            for k, (abody, centre, ra, bint, bfl) in enumerate(points):
                name = con.name if len(points) == 1 else f"{con.name}[{k}]"
                ints = [abody, bint[0], bint[1], bint[2], bint[3], ci_]
                floats = [centre[0], centre[1], ra, e, mu, bfl[0], bfl[1], bfl[2], bfl[3], bfl[4]]
                cands.append(Candidate(name, ci_, ints, floats))
        for j in scene.joints:
            if j.limits is None or j.type in ("fixed", "free"):
                continue
            qi = self.coord_of_joint[j.name]
            for side, bound, sgn in (("lower", j.limits.lower, 1), ("upper", j.limits.upper, -1)):
                if bound is None:
                    continue
                ints = [-1, cg.LIMIT, -1, qi, sgn, -1]
                floats = [0.0, 0.0, 0.0, float(j.limits.restitution), 0.0, float(bound), 0.0, 0.0, 0.0, 0.0]
                cands.append(Candidate(f"{j.name}.{side}", -1, ints, floats))
        self.candidates = cands
        self.contact_names = [c.name for c in cands]
        self.contact_owner = [c.owner for c in cands]
        self.ncontacts = len(cands)
        self.ci = np.array([c.ints for c in cands], np.int64).reshape(len(cands), 6)
        self.cf = np.array([c.floats for c in cands], float).reshape(len(cands), 10)
        self.verts = np.array(verts, float).reshape(len(verts), 2)
        # the generalized coordinates each candidate's Jacobian rows can touch (sparse rows)
        cols = []
        for c in cands:
            if c.ints[1] == cg.LIMIT:
                cols.append([c.ints[3]])
            else:
                a, b = c.ints[0], c.ints[2]
                pa = list(self.path[a, :self.plen[a]])
                pb = list(self.path[b, :self.plen[b]]) if b >= 0 else []
                cols.append(sorted(set(pa) | set(pb)))
        width = max([len(x) for x in cols] + [1])
        self.ccols = np.zeros((len(cands), width), np.int64)
        self.ccn = np.array([len(x) for x in cols], np.int64)
        for i, x in enumerate(cols):
            self.ccols[i, :len(x)] = x

    def _build_forces(self, scene):
        springs, sfl, jsi, jsf, fi, ff = [], [], [], [], [], []
        self._spring_rest_unknown = []
        for f in scene.forces:
            if f.type == "spring":
                a = -1 if f.a.body == "world" else self.body_index[f.a.body]
                b = -1 if f.b.body == "world" else self.body_index[f.b.body]
                springs.append([a, b])
                sfl.append([f.a.point[0], f.a.point[1], f.b.point[0], f.b.point[1],
                            f.stiffness, f.damping, 0.0 if f.rest_length is None else f.rest_length])
                if f.rest_length is None:
                    self._spring_rest_unknown.append(len(springs) - 1)
            elif f.type == "joint_spring":
                jsi.append(self.coord_of_joint[f.joint])
                jsf.append([f.stiffness, f.damping, f.rest])
            elif f.type == "force":
                fi.append(-1 if f.body == "world" else self.body_index[f.body])
                ff.append([f.point[0], f.point[1], f.force[0], f.force[1]])
        self.si = np.array(springs, np.int64).reshape(len(springs), 2)
        self.sf = np.array(sfl, float).reshape(len(sfl), 7)
        self.ji = np.array(jsi, np.int64).reshape(len(jsi))
        self.jf = np.array(jsf, float).reshape(len(jsf), 3)
        self.fi = np.array(fi, np.int64).reshape(len(fi))
        self.ff = np.array(ff, float).reshape(len(ff), 4)

    def _build_actuators(self, scene):
        ai, af = [], []
        for a in scene.actuators:
            c = a.controller
            ai.append([self.coord_of_joint[a.joint], CONTROLLERS[c.type]])
            af.append([c.kp, c.kd, c.target, c.target_v, c.feedforward, float(bool(c.gravity_compensation)),
                       np.inf if a.limit is None else a.limit, c.period or 0.0, c.value])
        self.actuator_names = [a.name for a in scene.actuators]
        self.ai = np.array(ai, np.int64).reshape(len(ai), 2)
        self.af = np.array(af, float).reshape(len(af), 9)

    def _resolve_spring_lengths(self):
        if not self._spring_rest_unknown:
            return
        pos, ang = self._poses(self.q0)
        for e in self._spring_rest_unknown:
            pa = self._world_point(self.si[e, 0], self.sf[e, 0:2], pos, ang)
            pb = self._world_point(self.si[e, 1], self.sf[e, 2:4], pos, ang)
            self.sf[e, 6] = float(np.linalg.norm(pb - pa))

    def _detect_constant_terms(self):
        """M(q) and F(q, v) constant (prismatic chains, free bodies without offsets): factor M once."""
        rng = np.random.default_rng(1)
        M0 = self.mass_matrix(self.q0)
        F0 = self._free_forces(self.q0, self.v0)
        const_M = const_F = True
        for _ in range(3):
            q = self.q0 + rng.normal(size=self.nq)
            v = self.v0 + rng.normal(size=self.nq)
            if not np.allclose(self.mass_matrix(q), M0, rtol=1e-13, atol=1e-13):
                const_M = False
            if not np.allclose(self._free_forces(q, v), F0, rtol=1e-13, atol=1e-13):
                const_F = False
        const_F = const_F and const_M
        try:
            np.linalg.cholesky(M0)
        except np.linalg.LinAlgError:
            bad = [self.coord_names[i] for i in range(self.nq) if M0[i, i] <= 1e-15]
            raise SceneError([Problem("bodies", "the mass matrix is singular at the initial configuration"
                                      + (f" (no inertia on {', '.join(bad)})" if bad else "")
                                      + ": give the bodies mass and inertia")]) from None
        self.isets[3], self.isets[4] = int(const_M), int(const_F)
        self.M_const = M0 if const_M else np.zeros((self.nq, self.nq))
        self.Minv_const = np.linalg.inv(M0) if const_M else np.zeros((self.nq, self.nq))

    # ------------------------------------------------------------------ queries
    def kernel_args(self):
        return (self.bi, self.bf, self.order, self.path, self.plen, self.ci, self.cf, self.verts,
                self.si, self.sf, self.ji, self.jf, self.fi, self.ff, self.ai, self.af)

    def _kin(self, q, v=None):
        n, nb = self.nq, self.nbodies
        v = np.zeros(n) if v is None else np.asarray(v, float)
        arrays = dict(pos=np.zeros((nb, 2)), ang=np.zeros(nb), vel=np.zeros((nb, 2)), omg=np.zeros(nb),
                      acc=np.zeros((nb, 2)), Jp=np.zeros((nb, 2, n)), Ja=np.zeros((nb, n)))
        dyn.body_kinematics(np.asarray(q, float), v, self.bi, self.bf, self.order, self.path, self.plen,
                            arrays["pos"], arrays["ang"], arrays["vel"], arrays["omg"], arrays["acc"],
                            arrays["Jp"], arrays["Ja"])
        return arrays

    def _poses(self, q):
        k = self._kin(q)
        return k["pos"], k["ang"]

    @staticmethod
    def _world_point(b, local, pos, ang):
        if b < 0:
            return np.asarray(local, float)
        return pos[b] + _rot(ang[b]) @ np.asarray(local, float)

    def _terms(self, q, v):
        k = self._kin(q, v)
        n = self.nq
        M, bias, grav = np.zeros((n, n)), np.zeros(n), np.zeros(n)
        U = dyn.com_terms(self.bf, k["pos"], k["ang"], k["omg"], k["acc"], self.fs[5], self.fs[6], self.path,
                          self.plen, k["Jp"], k["Ja"], M, bias, grav, True)
        return k, M, bias, grav, U

    def body_poses(self, q):
        """(nbodies, 3): world x, y and angle of each body frame (scene body order)."""
        pos, ang = self._poses(q)
        return np.column_stack([pos, ang])

    def com_positions(self, q):
        pos, ang = self._poses(q)
        return np.array([self._world_point(b, self.bf[b, 9:11], pos, ang) for b in range(self.nbodies)])

    def mass_matrix(self, q):
        return self._terms(q, np.zeros(self.nq))[1]

    def bias(self, q, v):
        """Coriolis and centrifugal generalized forces c(q, v) (M qdd + c = forces)."""
        return self._terms(q, v)[2]

    def gravity_force(self, q):
        """Generalized force of gravity (= -dU/dq)."""
        return self._terms(q, np.zeros(self.nq))[3]

    def potential_energy(self, q):
        k, M, bias, grav, U = self._terms(q, np.zeros(self.nq))
        F = np.zeros(self.nq)
        Ue, _ = dyn.element_forces(np.asarray(q, float), np.zeros(self.nq), self.si, self.sf, self.ji, self.jf,
                                   self.fi, self.ff, self.path, self.plen, k["pos"], k["ang"], k["vel"],
                                   k["omg"], k["Jp"], k["Ja"], F, np.zeros(self.nq))
        return U + Ue

    def _free_forces(self, q, v):
        k, M, bias, grav, U = self._terms(q, v)
        F = grav - bias
        dyn.element_forces(np.asarray(q, float), np.asarray(v, float), self.si, self.sf, self.ji, self.jf,
                           self.fi, self.ff, self.path, self.plen, k["pos"], k["ang"], k["vel"], k["omg"],
                           k["Jp"], k["Ja"], F, np.zeros(self.nq))
        return F

    def contact_frames(self, q):
        """(gap (nc,), point on a (nc, 2), normal from b to a (nc, 2)) at configuration q."""
        q = np.asarray(q, float)
        k = self._kin(q)
        nc = self.ncontacts
        gap, pts, nrm = np.zeros(nc), np.zeros((nc, 2)), np.zeros((nc, 2))
        for c in range(nc):
            g, nx, ny, pax, pay, pbx, pby = cg.candidate_geometry(c, q, self.ci, self.cf, self.verts,
                                                                  k["pos"], k["ang"])
            gap[c], pts[c], nrm[c] = g, (pax, pay), (nx, ny)
        return gap, pts, nrm

    def contact_jacobians(self, q):
        """(HN, HT): normal and tangential rows of every contact point, shape (nc, nq)."""
        from .stepper import _contact_rows_sparse
        q = np.asarray(q, float)
        k = self._kin(q)
        nc, n = self.ncontacts, self.nq
        HN, HT = np.zeros((nc, n)), np.zeros((nc, n))
        nrm, pa, pb = np.zeros((nc, 2)), np.zeros((nc, 2)), np.zeros((nc, 2))
        for c in range(nc):
            g, nx, ny, pax, pay, pbx, pby = cg.candidate_geometry(c, q, self.ci, self.cf, self.verts,
                                                                  k["pos"], k["ang"])
            nrm[c], pa[c], pb[c] = (nx, ny), (pax, pay), (pbx, pby)
        width = self.ccols.shape[1]
        valsN, valsT = np.zeros(width), np.zeros(width)
        for c in range(nc):
            _contact_rows_sparse(c, self.ci, nrm, pa, pb, self.ccols, self.ccn, k["pos"], k["Jp"], k["Ja"],
                                 valsN, valsT)
            cols = self.ccols[c, :self.ccn[c]]
            HN[c, cols] = valsN[:len(cols)]
            HT[c, cols] = valsT[:len(cols)]
        return HN, HT


def _shape(scene, body_name, shape_name):
    body = next(b for b in scene.bodies if b.name == body_name)
    return next(s for s in body.shapes if s.name == shape_name)


def compile_scene(scene: Scene) -> Model:
    """Validate and compile; SceneError lists every problem."""
    problems = validate_scene(scene)
    if problems:
        raise SceneError(problems)
    return Model(scene)
