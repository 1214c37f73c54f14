"""Scene -> Model: the arrays the numba kernels run on (ModelArrays), the names of every signal, and
geometry queries.

The model is constant during a run (MuJoCo's mjModel); each simulator owns its Data (mjData).
"""

from dataclasses import dataclass

import numpy as np

from . import codes
from . import contact_geometry as cg
from . import dynamics as dyn
from nsgui.scene import Scene, SceneError, Problem, body_mass_properties, sorted_joints, validate_scene
from nsgui.scene.geometry import rot
from .arrays import Kinematics, ModelArrays, to_struct
from .codes import JOINT_TYPES, SOLVERS
from .control.build import build_controllers, set_signal_columns
from .contact_rows import _minv_diagonal, contact_rows
from .loops import loop_residuals, loop_rows
from .signals import SignalLayout


def shape_circles(shape):
    """A side of a contact: the circles (local centre, radius) standing for the shape's surface."""
    off = np.asarray(shape.offset, float)
    R = rot(shape.angle or 0.0)
    if shape.type == "disk":
        return [(off, float(shape.radius))]
    if shape.type == "point":
        return [(off, 0.0)]
    if shape.type == "capsule":
        e = R @ np.array([shape.length / 2.0, 0.0])
        return [(off - e, float(shape.radius or 0.0)), (off + e, float(shape.radius or 0.0))]
    return [(v, 0.0) for v in shape_vertices(shape)]


# True: a rectangle centred on its body, its sides along the body's axes (a box shape without offset or
# angle), is flagged on its candidates (contact_geometry.CF_HX, CF_HY: the stepping loop's rectangle_side, no
# world edges, their square roots and divisions; a resting 55-box pyramid's evaluate_near ~35 % cheaper than
# by shared edges). Its gaps differ from the edges' by round-off (~1e-16 m), which a statically indeterminate
# pile turns into another valid force split (Lemke's friction forces by up to 5 N in the box pyramid); the
# physics figures stay (docs/benchmarks.md, session 19). False computes every polygon by its edges (tests
# compare the two)
RECTANGLES = True


def _rectangle(vs):
    """(half width, half height) of the polygon vs if it is the box (-w, -h), (w, -h), (w, h), (-w, h),
    else (0, 0)."""
    if len(vs) != 4:
        return 0.0, 0.0
    w, h = float(vs[2][0]), float(vs[2][1])
    box = ((-w, -h), (w, -h), (w, h), (-w, h))
    if not (w > 0.0 and h > 0.0 and all(float(v[0]) == x and float(v[1]) == y for v, (x, y) in zip(vs, box))):
        return 0.0, 0.0
    return w, h


def shape_vertices(shape):
    """Vertices (body frame, counter-clockwise) of a box or polygon; the two ends of a capsule."""
    off = np.asarray(shape.offset, float)
    R = rot(shape.angle or 0.0)
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
        bodies = self._build_bodies(scene)
        candidates = self._build_candidates(scene, bodies["path"], bodies["plen"])
        forces = self._build_forces(scene)
        loops = self._build_loops(scene, bodies["path"], bodies["plen"])
        self.actuator_names = [a.name for a in scene.actuators]
        self.q0 = np.array([scene.initial.q.get(c, 0.0) for c in self.coord_names], float)
        self.v0 = np.array([scene.initial.v.get(c, 0.0) for c in self.coord_names], float)
        controllers, self.controller_blocks, ctrl_signals, ctrl_units, implicit = build_controllers(
            scene, self, [self.coord_of_joint[a.joint] for a in scene.actuators], self.coord_units)
        fs = np.zeros(codes.N_FS)
        fs[codes.FS_H], fs[codes.FS_THETA], fs[codes.FS_GAMMA], fs[codes.FS_TOL] = s.dt, s.theta, s.gamma, s.tolerance
        fs[codes.FS_IMPACT], fs[codes.FS_STICK] = s.impact_threshold, 1e-7
        fs[codes.FS_GX], fs[codes.FS_GY] = scene.gravity
        # with projection, resting gaps sit at +-round-off: a contact left 1e-11 open must stay in the
        # problem or it chatters (one free-fall step in three)
        fs[codes.FS_ACTIVATION] = 1e-9 if s.projection else 0.0
        # with projection, bounces slower than a few steps of gravity are plastic: the projection would
        # otherwise feed a micro-bouncing of amplitude ~|g|h forever
        fs[codes.FS_REST_V] = 3.0 * float(np.hypot(*scene.gravity)) * s.dt if s.projection else 0.0
        fs[codes.FS_PROJ_TOL] = 1e-6  # projection removes penetrations deeper than 1 µm
        isets = np.zeros(codes.N_IS, np.int64)
        isets[codes.IS_SOLVER], isets[codes.IS_MAXIT] = SOLVERS[s.solver], s.max_iterations
        isets[codes.IS_PROJECTION] = int(bool(s.projection))  # IS_CONST_M, IS_CONST_F: _detect_constant_terms
        isets[codes.IS_IMPLICIT] = int(implicit)
        switched = [self.contact_names[c] for c in candidates["switched"]]
        self.loop_names = [lj.name for lj in scene.loops]
        self.layout = SignalLayout.of(self.nq, self.ncontacts, len(self.actuator_names), len(ctrl_signals),
                                      len(switched), len(self.loop_names))
        set_signal_columns(controllers["ki"], self.controller_blocks, self.layout.controllers)
        zeros = np.zeros((self.nq, self.nq))
        self._set_arrays(ModelArrays(**bodies, **candidates, **loops, **forces, **controllers, fs=fs, isets=isets,
                                     M_const=zeros, Minv_const=zeros, **_tree_csr(None, None, None, None),
                                     layout=self.layout))
        self._close_loops(scene)
        self._resolve_spring_lengths()
        self._detect_constant_terms()
        self.signal_names = SignalLayout.names(self.coord_names, self.contact_names, self.actuator_names,
                                               ctrl_signals, switched, self.loop_names)
        self.signal_units = self._signal_units()
        self.signal_units.update(zip(ctrl_signals, ctrl_units))

    def _signal_units(self):
        """Unit of every signal (SI, "" for the contact status): what a plot's axis names."""
        units = {"t": "s"}
        for c, u in zip(self.coord_names, self.coord_units):
            units[f"q.{c}"], units[f"v.{c}"] = u, f"{u}/s"
        per_loop = {"fx": "N", "fy": "N", "torque": "N·m", "error": "m"}
        per_contact = {"gap": "m", "pn": "N·s", "pt": "N·s", "fn": "N", "ft": "N", "status": "", "enabled": ""}
        for n in self.signal_names:
            kind, _, rest = n.partition(".")
            if kind == "energy":
                units[n] = "J"
            elif kind == "contact":
                units[n] = per_contact[rest.rsplit(".", 1)[1]]
            elif kind == "loop":
                units[n] = per_loop[rest.rsplit(".", 1)[1]]
            elif kind == "perturb":
                units[n] = "" if rest == "body" else ("N" if rest in ("fx", "fy") else "m")
        for a, c in zip(self.actuator_names, self.arrays.ai[:, codes.AI_COORD]):  # a torque on an angle, a force on a length
            units[f"u.{a}"] = "N·m" if self.coord_units[c] == "rad" else "N"
        return units

    # ------------------------------------------------------------------ building
    def _build_bodies(self, scene):
        self.body_names = [b.name for b in scene.bodies]
        bidx = {n: i for i, n in enumerate(self.body_names)}
        self.body_index = bidx
        nb = len(scene.bodies)
        self.nbodies = nb
        bi = np.full((nb, codes.N_BI), -1, np.int64)
        bf = np.zeros((nb, codes.N_BF))
        order = []
        coords = []
        units = []  # of each coordinate: rad for an angle, m for a length
        self.coord_of_joint = {}
        for j in sorted_joints(scene):
            b = bidx[j.child]
            jt = JOINT_TYPES[j.type]
            bi[b, codes.BI_PARENT] = -1 if j.parent == "world" else bidx[j.parent]
            bi[b, codes.BI_JTYPE] = jt
            if jt == codes.FREE:
                bi[b, codes.BI_COORD] = len(coords)
                for suffix in ("x", "y", "theta"):
                    self.coord_of_joint[f"{j.name}.{suffix}"] = len(coords)
                    coords.append(f"{j.name}.{suffix}")
                    units.append("rad" if suffix == "theta" else "m")
            elif jt != codes.FIXED:
                bi[b, codes.BI_COORD] = len(coords)
                self.coord_of_joint[j.name] = len(coords)
                coords.append(j.name)
                units.append("rad" if jt == codes.REVOLUTE else "m")
            axis = np.asarray(j.axis, float)
            axis = axis / np.linalg.norm(axis) if np.linalg.norm(axis) > 0 else np.array([1.0, 0.0])
            bf[b, codes.BF_APX:codes.BF_APY + 1] = j.anchor_parent
            bf[b, codes.BF_ACX:codes.BF_ACY + 1] = j.anchor_child
            bf[b, codes.BF_AXX:codes.BF_AXY + 1] = axis
            bf[b, codes.BF_ANGLE] = j.angle
            order.append(b)
        for b, body in enumerate(scene.bodies):
            mass, inertia, com = body_mass_properties(body)
            bf[b, codes.BF_MASS], bf[b, codes.BF_INERTIA] = mass, inertia
            bf[b, codes.BF_COMX:codes.BF_COMY + 1] = com
        self.coord_names = coords
        self.coord_units = units
        self.nq = len(coords)
        paths = [[] for _ in range(nb)]
        for b in order:
            par, jt, first = bi[b, codes.BI_PARENT], bi[b, codes.BI_JTYPE], bi[b, codes.BI_COORD]
            own = []
            if jt == codes.FREE:
                own = [first, first + 1, first + 2]
            elif jt != codes.FIXED:
                own = [first]
            paths[b] = (paths[par] if par >= 0 else []) + own
        width = max([len(p) for p in paths] + [1])
        path = np.zeros((nb, width), np.int64)
        plen = np.array([len(p) for p in paths], np.int64)
        for b, p in enumerate(paths):
            path[b, :len(p)] = p
        return dict(bi=bi, bf=bf, order=np.array(order, np.int64), path=path, plen=plen)

    def _build_candidates(self, scene, path, plen):
        obst = {o.name: o for o in scene.obstacles}
        cands = []
        verts = []

        blocks = {}  # (body, vertices) -> the start of its block in verts

        def b_side(bbody, shape):
            if shape.type in ("disk", "point"):
                c = np.asarray(shape.offset, float)
                return [codes.CIRCLE, bbody, 0, 0], [c[0], c[1], 0.0, 0.0, float(shape.radius or 0.0)]
            vs = shape_vertices(shape)
            # one block per body's polygon, whatever the number of contacts against it: the stepping loop
            # computes a polygon's world edges once per block (a pyramid's box is B in up to 6 contacts)
            key = (bbody, tuple((float(v[0]), float(v[1])) for v in vs))
            if key not in blocks:
                blocks[key] = len(verts)
                verts.extend(vs)
            start = blocks[key]
            rb = float(shape.radius or 0.0) if shape.type == "capsule" else 0.0
            # the polygon's bounding radius about the body's origin (contact_geometry.CF_BOUND): what the
            # stepping loop's geometry skips candidates out of reach by
            bound = float(np.sqrt((np.asarray(vs, float) ** 2).sum(axis=1)).max())
            hx, hy = _rectangle(vs) if RECTANGLES and rb == 0.0 else (0.0, 0.0)
            return [codes.POLYGON, bbody, start, len(vs)], [bound, hx, hy, 0.0, rb]   # CF_B0 .. CF_B3, CF_RB

        for ci_, con in enumerate(scene.contacts):
            a_body = self.body_index[con.a.body]
            a_shape = _shape(scene, con.a.body, con.a.shape)
            e, mu, et = float(con.restitution), float(con.friction), float(con.tangential_restitution)
            if con.impact_law == "moreau":  # the thesis' e in [0, 2): the same law (errata 000-1)
                e = e / (2.0 - e)
            pairs = []  # (a body, a shape, B ints, B floats)
            if con.b.obstacle is not None:
                o = obst[con.b.obstacle]
                if o.type == "segment":
                    bint = [codes.SEGMENT, -1, 0, 0]
                    bfl = [o.a[0], o.a[1], o.b[0], o.b[1], 0.0]
                else:
                    n = np.asarray(o.normal, float)
                    n = n / np.linalg.norm(n)
                    bint = [codes.HALFPLANE, -1, 0, 0]
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
                ints = [abody, bint[0], bint[1], bint[2], bint[3]]  # CI_* columns
                floats = [centre[0], centre[1], ra, e, mu, bfl[0], bfl[1], bfl[2], bfl[3], bfl[4], et]
                cands.append(Candidate(name, ci_, ints, floats))
        for j in scene.joints:
            if j.limits is None or j.type in ("fixed", "free"):
                continue
            qi = self.coord_of_joint[j.name]
            for side, bound, sgn in (("lower", j.limits.lower, 1), ("upper", j.limits.upper, -1)):
                if bound is None:
                    continue
                ints = [-1, codes.LIMIT, -1, qi, sgn]
                floats = [0.0, 0.0, 0.0, float(j.limits.restitution), 0.0, float(bound), 0.0, 0.0, 0.0, 0.0, 0.0]
                cands.append(Candidate(f"{j.name}.{side}", -1, ints, floats))
        self.contact_names = [c.name for c in cands]
        self.contact_owner = [c.owner for c in cands]
        self.ncontacts = len(cands)
        # the generalized coordinates each candidate's Jacobian rows can touch (sparse rows)
        cols = []
        for c in cands:
            if c.ints[codes.CI_BTYPE] == codes.LIMIT:
                cols.append([c.ints[codes.CI_VSTART]])
            else:
                a, b = c.ints[codes.CI_ABODY], c.ints[codes.CI_BBODY]
                pa = list(path[a, :plen[a]])
                pb = list(path[b, :plen[b]]) if b >= 0 else []
                cols.append(sorted(set(pa) | set(pb)))
        width = max([len(x) for x in cols] + [1])
        ccols = np.zeros((len(cands), width), np.int64)
        for i, x in enumerate(cols):
            ccols[i, :len(x)] = x
        swi, swf = self._build_switches(scene, cands)
        return dict(ci=np.array([c.ints for c in cands], np.int64).reshape(len(cands), codes.N_CI),
                    swi=swi, swf=swf, switched=np.nonzero(swi[:, codes.SWI_KIND])[0].astype(np.int64),
                    cf=np.array([c.floats for c in cands], float).reshape(len(cands), codes.N_CF),
                    verts=np.array(verts, float).reshape(len(verts), 2),
                    ccols=ccols, ccn=np.array([len(x) for x in cols], np.int64))

    def _build_switches(self, scene, cands):
        """SWI_*, SWF_* rows of every candidate (a scene contact's switch applies to all its points)."""
        swi = np.zeros((len(cands), codes.N_SWI), np.int64)
        swf = np.zeros((len(cands), codes.N_SWF))
        swi[:, codes.SWI_BODY] = -1
        for k, c in enumerate(cands):
            sw = scene.contacts[c.owner].switch if c.owner >= 0 else None
            if sw is None:
                continue
            ref = sw.reference
            body = -1 if ref is None or ref.body in (None, "world") else self.body_index[ref.body]
            point = (0.0, 0.0) if ref is None else ref.point
            axis = np.asarray(sw.axis, float) / np.linalg.norm(sw.axis)
            swi[k] = [codes.SWITCH_KINDS[sw.when], body, int(bool(sw.approaching))]
            swf[k] = [point[0], point[1], axis[0], axis[1]]
        return swi, swf

    def _build_loops(self, scene, path, plen):
        """LI_*, LF_* rows of the loop-closing joints and the coordinates each one's rows touch."""
        li, lf, cols = [], [], []
        for lj in scene.loops:
            a = self.body_index[lj.a.body]
            b = -1 if lj.b.body == "world" else self.body_index[lj.b.body]
            axis = np.asarray(lj.axis, float) / np.linalg.norm(lj.axis)
            angle = np.nan if lj.angle is None else float(lj.angle)  # nan: set by _close_loops
            li.append([JOINT_TYPES[lj.type], a, b])
            lf.append([*lj.a.point, *lj.b.point, axis[0], axis[1], angle])
            cols.append(sorted(set(path[a, :plen[a]]) | (set(path[b, :plen[b]]) if b >= 0 else set())))
        width = max([len(x) for x in cols] + [1])
        lcols = np.zeros((len(cols), width), np.int64)
        for i, x in enumerate(cols):
            lcols[i, :len(x)] = x
        return dict(li=np.array(li, np.int64).reshape(len(li), codes.N_LI),
                    lf=np.array(lf, float).reshape(len(lf), codes.N_LF),
                    lcols=lcols, lcn=np.array([len(x) for x in cols], np.int64))

    def _close_loops(self, scene):
        """Assembles the initial state on the loop joints: q0 moved onto g(q) = 0 (Newton, least-norm)
        and v0 onto H_b v = 0, the coordinates and velocities `initial` names moving only where the
        others cannot close the loops. A prismatic loop's null `angle` is its initial relative angle."""
        a = self.arrays
        if a.li.shape[0] == 0:
            return
        _pos, ang = self._poses(self.q0)
        for l in range(a.li.shape[0]):
            if np.isnan(a.lf[l, codes.LF_ANGLE]):
                b = a.li[l, codes.LI_B]
                a.lf[l, codes.LF_ANGLE] = ang[a.li[l, codes.LI_A]] - (ang[b] if b >= 0 else 0.0)

        def closest(x, wanted, given, H):
            # least-norm change of the coordinates `initial` leaves out; of all if those cannot do it
            w = np.array([0.0 if c in given else 1.0 for c in self.coord_names])
            A = (H * w) @ H.T
            if np.linalg.cond(A) > 1e10:
                w[:] = 1.0
                A = H @ H.T
            A[np.diag_indices_from(A)] += 1e-14 * (1.0 + np.diag(A))
            return x - w * (H.T @ np.linalg.solve(A, wanted))

        q = self.q0.copy()
        for _ in range(50):
            g, H = self.loop_constraints(q)
            if np.max(np.abs(g)) <= 1e-13 or not np.all(np.isfinite(q)):
                break
            q = closest(q, g, scene.initial.q, H)
        g, H = self.loop_constraints(q)
        bad = np.abs(g) > 1e-9
        if not np.all(np.isfinite(g)) or bad.any():
            l = int(np.argmax(bad | ~np.isfinite(g))) // codes.LOOP_ROWS
            raise SceneError([Problem(f"loops[{l}]", f"loop joint {self.loop_names[l]!r} cannot close at the "
                                      f"initial configuration (residual {np.max(np.abs(g)):.3g}): set initial.q "
                                      "nearer a closed configuration")])
        self.q0 = q
        self.v0 = closest(self.v0, H @ self.v0, scene.initial.v, H)

    def loop_constraints(self, q):
        """(g, H_b): the loop joints' residuals g(q) (LOOP_ROWS per loop; m, or rad for a prismatic
        loop's angle) and their Jacobian rows ∂g/∂q (dense, rows × nq)."""
        a = self.arrays
        k = codes.LOOP_ROWS * a.li.shape[0]
        ks = to_struct(self._kin(q))
        g = np.zeros(k)
        width = max(a.lcols.shape[1], 1)
        rcols, rvals, rnnz = np.zeros((k, width), np.int64), np.zeros((k, width)), np.zeros(k, np.int64)
        loop_residuals(self.struct, ks, g)
        loop_rows(self.struct, ks, rcols, rvals, rnnz)
        H = np.zeros((k, self.nq))
        for r in range(k):
            np.add.at(H[r], rcols[r, :rnnz[r]], rvals[r, :rnnz[r]])
        return g, H

    def _build_forces(self, scene):
        springs, sfl, jsi, jsf, fi, ff = [], [], [], [], [], []
        self._spring_rest_unknown = []
        for f in scene.forces:
            if f.type == "spring":
                a = -1 if f.a.body == "world" else self.body_index[f.a.body]
                b = -1 if f.b.body == "world" else self.body_index[f.b.body]
                springs.append([a, b])
                sfl.append([f.a.point[0], f.a.point[1], f.b.point[0], f.b.point[1],  # SF_* columns
                            f.stiffness, f.damping, 0.0 if f.rest_length is None else f.rest_length])
                if f.rest_length is None:
                    self._spring_rest_unknown.append(len(springs) - 1)
            elif f.type == "joint_spring":
                jsi.append(self.coord_of_joint[f.joint])
                jsf.append([f.stiffness, f.damping, f.rest])  # JF_* columns
            elif f.type == "force":
                fi.append(-1 if f.body == "world" else self.body_index[f.body])
                ff.append([f.point[0], f.point[1], f.force[0], f.force[1]])  # FF_* columns
        return dict(si=np.array(springs, np.int64).reshape(len(springs), 2),
                    sf=np.array(sfl, float).reshape(len(sfl), codes.N_SF),
                    ji=np.array(jsi, np.int64).reshape(len(jsi)),
                    jf=np.array(jsf, float).reshape(len(jsf), codes.N_JF),
                    fi=np.array(fi, np.int64).reshape(len(fi)),
                    ff=np.array(ff, float).reshape(len(ff), codes.N_FF))

    def _resolve_spring_lengths(self):
        if not self._spring_rest_unknown:
            return
        pos, ang = self._poses(self.q0)
        si, sf = self.arrays.si, self.arrays.sf
        for e in self._spring_rest_unknown:
            pa = self._world_point(si[e, 0], sf[e, codes.SF_AX:codes.SF_AY + 1], pos, ang)
            pb = self._world_point(si[e, 1], sf[e, codes.SF_BX:codes.SF_BY + 1], pos, ang)
            sf[e, codes.SF_L0] = float(np.linalg.norm(pb - pa))

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
        a = self.arrays
        a.isets[codes.IS_CONST_M], a.isets[codes.IS_CONST_F] = int(const_M), int(const_F)
        if const_M:
            Minv = np.linalg.inv(M0)
            self._set_arrays(a._replace(M_const=M0, Minv_const=Minv, **_tree_csr(a.path, a.plen, M0, Minv)))

    def _set_arrays(self, arrays):
        """arrays: what Python reads; struct: the same arrays as the kernels take them."""
        self.arrays = arrays
        self.struct = to_struct(arrays)

    # ------------------------------------------------------------------ queries
    def _kin(self, q, v=None):
        v = np.zeros(self.nq) if v is None else np.asarray(v, float)
        kin = Kinematics.zeros(self.nbodies, self.nq)
        dyn.body_kinematics(self.struct, np.asarray(q, float), v, to_struct(kin))
        return kin

    def _poses(self, q):
        k = self._kin(q)
        return k.pos, k.ang

    @staticmethod
    def _world_point(b, local, pos, ang):
        if b < 0:
            return np.asarray(local, float)
        return pos[b] + rot(ang[b]) @ np.asarray(local, float)

    def _terms(self, q, v):
        k = self._kin(q, v)
        n = self.nq
        M, bias, grav = np.zeros((n, n)), np.zeros(n), np.zeros(n)
        U = dyn.com_terms(self.struct, to_struct(k), M, bias, grav, True)
        return k, M, bias, grav, U

    def body_poses(self, q):
        """(nbodies, 3): world x, y and angle of each body frame (scene body order)."""
        pos, ang = self._poses(q)
        return np.column_stack([pos, ang])

    def com_positions(self, q):
        pos, ang = self._poses(q)
        bf = self.arrays.bf
        return np.array([self._world_point(b, bf[b, codes.BF_COMX:codes.BF_COMY + 1], pos, ang)
                         for b in range(self.nbodies)])

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
        Ue = dyn.element_forces(self.struct, np.asarray(q, float), np.zeros(self.nq), to_struct(k),
                                np.zeros(self.nq))
        return U + Ue

    def _free_forces(self, q, v):
        k, M, bias, grav, U = self._terms(q, v)
        F = grav - bias
        dyn.element_forces(self.struct, np.asarray(q, float), np.asarray(v, float), to_struct(k), F)
        return F

    def _geometry(self, q, k):
        """(gap (nc,), normal (nc, 2), point on a (nc, 2), point on b (nc, 2)) at q with kinematics k."""
        a, nc = self.arrays, self.ncontacts
        gap, nrm, pa, pb = np.zeros(nc), np.zeros((nc, 2)), np.zeros((nc, 2)), np.zeros((nc, 2))
        for c in range(nc):
            g, nx, ny, pax, pay, pbx, pby = cg.candidate_geometry(c, q, a.ci, a.cf, a.verts, k.pos, k.ang)
            gap[c], nrm[c], pa[c], pb[c] = g, (nx, ny), (pax, pay), (pbx, pby)
        return gap, nrm, pa, pb

    def contact_frames(self, q):
        """(gap (nc,), point on a (nc, 2), normal from b to a (nc, 2)) at configuration q."""
        q = np.asarray(q, float)
        gap, nrm, pa, _pb = self._geometry(q, self._kin(q))
        return gap, pa, nrm

    def contact_jacobians(self, q):
        """(HN, HT): normal and tangential rows of every contact point, shape (nc, nq)."""
        q = np.asarray(q, float)
        k = self._kin(q)
        a, nc, n = self.arrays, self.ncontacts, self.nq
        HN, HT = np.zeros((nc, n)), np.zeros((nc, n))
        _gap, nrm, pa, pb = self._geometry(q, k)
        width = a.ccols.shape[1]
        ks = to_struct(k)
        valsN, valsT = np.zeros(width), np.zeros(width)
        for c in range(nc):
            contact_rows(c, self.struct, ks, nrm, pa, pb, valsN, valsT)
            cols = a.ccols[c, :a.ccn[c]]
            HN[c, cols] = valsN[:len(cols)]
            HT[c, cols] = valsT[:len(cols)]
        return HN, HT


def _tree_csr(path, plen, M, Minv):
    """M and M⁻¹ in compressed sparse rows with one pattern: each coordinate couples only with those of
    its kinematic tree (the coordinates on a body's path to the world share one), so a column of
    separate beads or a pile of free bodies has O(n) entries, not n² (contact_rows.delassus_csr)."""
    if M is None:
        return dict(mi_ptr=np.zeros(1, np.int64), mi_col=np.zeros(0, np.int64), mi_val=np.zeros(0), m_val=np.zeros(0),
                    mi_diag=np.zeros(0, np.int64))
    n = M.shape[0]
    root = list(range(n))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for b in range(plen.shape[0]):
        cols = path[b, :plen[b]]
        for j in cols[1:]:
            root[find(j)] = find(cols[0])
    tree = np.array([find(i) for i in range(n)])
    cols = [np.flatnonzero(tree == tree[i]) for i in range(n)]
    ptr = np.concatenate([[0], np.cumsum([len(c) for c in cols])]).astype(np.int64)
    col = np.concatenate(cols).astype(np.int64) if n else np.zeros(0, np.int64)
    rows = np.repeat(np.arange(n), [len(c) for c in cols])
    mi_val = Minv[rows, col].copy()
    # mi_diag: M⁻¹'s diagonal places once per model (constant), not at every step problem
    return dict(mi_ptr=ptr, mi_col=col, mi_val=mi_val, m_val=M[rows, col].copy(),
                mi_diag=_minv_diagonal(ptr, col, mi_val, n))


def _shape(scene, body_name, shape_name):
    body = next(b for b in scene.bodies if b.name == body_name)
    return next(s for s in body.shapes if s.name == shape_name)


def compile_scene(scene: Scene) -> Model:
    """Validate and compile; SceneError lists every problem."""
    problems = validate_scene(scene)
    if problems:
        raise SceneError(problems)
    return Model(scene)
