"""nsgui against the 2-D engines a Python user picks instead (pymunk, Box2D, MuJoCo), on the same work.

    .venv/bin/python benchmarks/peers.py [--cases ball,bead_column_100,...] [--rounds 5] [--quick]
                                          [--venv DIR] [--json FILE] [--no-fresh-processes]

The peers are never dependencies of nsgui: the first run creates a benchmark venv (default
benchmarks/.peers-venv, git-ignored) and pip-installs pymunk, box2d and mujoco there. Each peer runs in
its own subprocess of that venv (this file with --worker ENGINE, reading one JSON job per line), and so does
nsgui (a worker of the project's python, numba warmed up on a throwaway simulator first). Every engine gets a
new process in each round: this machine runs a process in one of two speed modes (up to 2x apart) for its
whole life, so with one process per engine a whole run's median would be that of one draw of the modes.
--no-fresh-processes keeps one process per engine for the whole run (nsgui in this process).

Each case is read from an nsgui scene (an example file, or a generator for the bead columns of
200-1000 beads) and handed to every engine as the same plain description: masses, inertias, radii,
box sizes, initial poses and velocities, obstacles, gravity, step and duration, per-contact
restitution and friction. Only the stepping loops are timed (nsgui: `Simulator.run` with recording
on, t and q by default, what the peers' poses give, or every signal with --record all, as the app
does, into a buffer allocated before the timing; pymunk `space.step`, Box2D `world.Step`, MuJoCo
`mj_step`), in two pieces (to 3/4 of the run, then the rest) so the rest creep can be read in between. The engines are interleaved:
every round runs every case on every engine, in a rotating order. Printed: median steps/s over the
rounds, the ratios nsgui/peer, the fitted cost exponent vs N on the bead columns, and the accuracy
figures at the end of the run, each computed the same way for every engine:
- ground: the normal force on the ground over the total weight (1 at rest),
- overlap: the summed geometric overlap of all shape pairs and of shapes with obstacles (m),
- sink: how far the top of a column or pyramid is below its rest height without overlap (m),
- creep: the largest displacement of a body over the last quarter of the run (m), for heaps at rest.

Where the engines cannot do the same work (documented in docs/benchmarks.md, issue 13):
- restitution: pymunk multiplies the two shapes' elasticities and frictions, Box2D takes the larger
  restitution and the geometric mean of the frictions: per-shape values are chosen so that every
  contact gets the scene's values. Box2D makes impacts slower than 1 m/s plastic (b2_velocityThreshold,
  compiled in). MuJoCo has no restitution coefficient: contacts are spring-dampers (solref =
  (0.02 s, damping ratio zeta)) with zeta chosen so that the linear spring-damper's restitution is
  e: zeta = -ln e / sqrt(pi^2 + ln^2 e) (e = 0: zeta = 1, its default).
- contact models: pymunk, Box2D and MuJoCo keep contacts soft or with a slop (pymunk collision_slop
  set to 5 mm instead of its pixel-sized default 0.1, Box2D's 5 mm slop and 1 cm polygon skin,
  MuJoCo's soft constraints); nsgui's Moreau-Jean contacts are rigid and the projection removes
  penetrations deeper than 1 um.
- solvers at their defaults: pymunk 10 iterations, Box2D 8 velocity + 3 position iterations, MuJoCo
  Newton solver, pyramidal cones, Euler integrator; sleeping off everywhere (Box2D's default is on).
- joints: nsgui's bead columns are beads on vertical prismatic joints; MuJoCo uses one slide joint per
  bead, pymunk and Box2D free bodies on x = 0 (frictionless, every normal is vertical: they stay on
  x = 0). The double pendulum's point masses are bodies with massless rods; pymunk uses pin joints,
  Box2D rigid distance joints (bodies that do not rotate), MuJoCo a hinge chain; the point masses are
  disks of radius 1 mm against a wall moved back by 1 mm, and MuJoCo needs a positive body inertia
  (1e-9 kg m^2). MuJoCo's world is 3-D: bodies move in its x-z plane (slide x, slide z, hinge -y),
  disks are spheres and boxes 0.2 m deep.
- contact pairs: the peers find them with their broad phases; nsgui scenes list them (the heaps list
  every pair that can touch, tests/engine/test_heaps.py).
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")   # tiny problems: BLAS threads only add overhead (see run_all.py)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEERS = ("pymunk", "box2d", "mujoco")
PACKAGES = ("pymunk", "box2d", "mujoco", "numpy")
DEFAULT_VENV = os.path.join(HERE, ".peers-venv")
BEADS = (10, 50, 100, 200, 500, 1000)
PYRAMID_ROWS = {"box_pyramid_55": 10}   # generated pyramids (make_heaps.box_pyramid(rows)): 55 boxes
# a dropped 200-disk pile (make_heaps.disk_pile()), on request only: its landing steps take Lemke 0.1-30 s
# of CPU each (solvers/fc2d_auto.py; docs/benchmarks.md, sessions 8-16); the 200-disk example starts packed
PILES = {"disk_pile_200_dropped": ()}
DEFAULT_CASES = ("ball", "sliding_box", "double_pendulum", *(f"bead_column_{n}" for n in BEADS), "box_pyramid",
                 *PYRAMID_ROWS, "disk_pile", "disk_pile_200")
CASES = (*DEFAULT_CASES, *PILES)
EXAMPLE_OF = {"ball": "bouncing_ball", "sliding_box": "sliding_box", "double_pendulum": "double_pendulum_wall"}
AT_REST = ("sliding_box", "box_pyramid", *PYRAMID_ROWS, "disk_pile", "disk_pile_200", *PILES)   # and the bead columns: heaps whose creep is read
POINT_R = 1e-3       # the peers' disk for a point shape (the obstacles it touches move back by as much)
MUJOCO_DEPTH = 0.2   # MuJoCo boxes are 3-D
WARMUP_STEPS = 500   # nsgui: steps run once per case before the timed rounds
REPLY = "@@peers "   # prefix of a worker's answer line (anything else on stdout is an engine's chatter)


# ---------------------------------------------------------------- the same work for every engine

def scene_of(case):
    """The nsgui scene of a case."""
    import runpy
    from nsgui.examples import example_path
    from nsgui.scene import load_scene
    if case.startswith("bead_column_"):
        make = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_bead_columns.py"))
        return make["bead_column"](int(case.rsplit("_", 1)[1]))
    heaps = os.path.join(ROOT, "resources", "scenes", "make_heaps.py")
    if case in PYRAMID_ROWS:
        return runpy.run_path(heaps)["box_pyramid"](PYRAMID_ROWS[case])
    if case in PILES:
        return runpy.run_path(heaps)["disk_pile"](*PILES[case])
    return load_scene(example_path(EXAMPLE_OF.get(case, case)))


def spec_of(case, scene, model):
    """The plain description every engine builds: bodies (shape, mass, inertia, pose, velocity, how
    they move), obstacles (half-planes), rigid rods (links), contacts (scene pairs, e, mu)."""
    from nsgui.scene import body_mass_properties
    s = scene.settings
    q0 = model.q0
    poses = model.body_poses(q0)
    joint_of = {j.child: j for j in scene.joints}
    index = {b.name: i for i, b in enumerate(scene.bodies)}
    bodies, links = [], []
    touching = {c.a.body: c.a.shape for c in scene.contacts}
    touching.update({c.b.body: c.b.shape for c in scene.contacts if c.b.body})
    for i, b in enumerate(scene.bodies):
        mass, inertia, com = body_mass_properties(b)
        sh = next((x for x in b.shapes if x.name == touching.get(b.name)), b.shapes[0])
        if np.abs(com).max() > 0 or np.abs(sh.offset).max() > 0 or sh.angle:
            raise SystemExit(f"{case}: body {b.name!r}: its contact shape is not at its centre of mass")
        j = joint_of[b.name]
        v = scene.initial.v
        body = dict(name=b.name, m=mass, I=inertia, x=float(poses[i, 0]), y=float(poses[i, 1]),
                    th=float(poses[i, 2]), vx=0.0, vy=0.0, w=0.0)
        if j.type == "free":
            body.update(move="free", vx=v.get(f"{j.name}.x", 0.0), vy=v.get(f"{j.name}.y", 0.0),
                        w=v.get(f"{j.name}.theta", 0.0))
        elif j.type == "prismatic" and list(j.axis) == [0.0, 1.0] and j.parent == "world":
            body.update(move="slide_y", vy=v.get(j.name, 0.0))
        elif j.type == "revolute":   # a point mass on a massless rod from its parent's point
            parent = -1 if j.parent == "world" else index[j.parent]
            links.append([parent, i, list(map(float, poses[parent, :2])) if parent >= 0 else list(j.anchor_parent)])
            body.update(move="linked")
            if v.get(j.name, 0.0):
                raise SystemExit(f"{case}: initial joint speeds are not translated")
        else:
            raise SystemExit(f"{case}: joint {j.name!r} ({j.type}) is not translated")
        if sh.type == "disk":
            body.update(shape="disk", r=float(sh.radius))
        elif sh.type == "box":
            body.update(shape="box", w=float(sh.width), h=float(sh.height))
        elif sh.type == "point":
            body.update(shape="point", r=0.0)
        else:
            raise SystemExit(f"{case}: shape type {sh.type!r} is not translated")
        bodies.append(body)
    obstacles = [dict(name=o.name, point=list(o.point), normal=list(np.asarray(o.normal) / np.linalg.norm(o.normal)))
                 for o in scene.obstacles]
    contacts = [dict(a=index[c.a.body], b=index[c.b.body] if c.b.body else c.b.obstacle,
                     e=float(c.restitution), mu=float(c.friction)) for c in scene.contacts]
    column = case.startswith("bead_column_")
    top = None
    if column:
        r = bodies[0]["r"]
        top = [len(bodies) - 1, r + 2 * r * (len(bodies) - 1)]
    elif case == "box_pyramid" or case in PYRAMID_ROWS:
        hi = max(range(len(bodies)), key=lambda k: bodies[k]["y"])
        rows = round((bodies[hi]["y"] - bodies[0]["y"]) / bodies[0]["h"])   # rows - 1 (they start DROP apart)
        top = [hi, bodies[0]["h"] / 2 + rows * bodies[0]["h"]]
    nsteps = int(round(s.duration / s.dt))
    return dict(case=case, dt=float(s.dt), steps=nsteps, g=-float(scene.gravity[1]), bodies=bodies,
                obstacles=obstacles, links=links, contacts=contacts, top=top,
                ground="ground" if any(o["name"] == "ground" for o in obstacles) else None,
                at_rest=column or case in AT_REST)


def materials(spec):
    """Per shape (e, mu) for bodies and obstacles, and which side decides a body-obstacle contact:
    'obstacles' when bodies also touch each other (then every body-body pair has one (e, mu)),
    else 'bodies' (each body carries its obstacle contacts' values)."""
    pairs = [(c["e"], c["mu"]) for c in spec["contacts"] if isinstance(c["b"], int)]
    if pairs:
        if len(set(pairs)) > 1:
            raise SystemExit(f"{spec['case']}: body-body contacts with different materials")
        body = {i: pairs[0] for i in range(len(spec["bodies"]))}
        obst = {}
        for c in spec["contacts"]:
            if not isinstance(c["b"], int):
                if obst.setdefault(c["b"], (c["e"], c["mu"])) != (c["e"], c["mu"]):
                    raise SystemExit(f"{spec['case']}: obstacle {c['b']!r} with different materials")
        return "obstacles", body, obst
    body = {}
    for c in spec["contacts"]:
        if body.setdefault(c["a"], (c["e"], c["mu"])) != (c["e"], c["mu"]):
            raise SystemExit(f"{spec['case']}: body {c['a']} with different materials")
    return "bodies", body, {}


def obstacle_offset(spec, name):
    """How far the peers move an obstacle back: POINT_R if point shapes touch it."""
    pts = [c for c in spec["contacts"] if c["b"] == name and spec["bodies"][c["a"]]["shape"] == "point"]
    return POINT_R if pts else 0.0


# ---------------------------------------------------------------- accuracy figures (any engine)

def corners(b, X):
    c, s = math.cos(X[2]), math.sin(X[2])
    hw, hh = b["w"] / 2, b["h"] / 2
    return np.array([[X[0] + c * dx - s * dy, X[1] + s * dx + c * dy]
                     for dx, dy in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))])


def _box_overlap(P, Q):
    """Penetration depth of two convex quads (separating-axis test): 0 when apart."""
    depth = math.inf
    for poly in (P, Q):
        for k in range(4):
            e = poly[(k + 1) % 4] - poly[k]
            n = np.array([-e[1], e[0]]) / math.hypot(*e)
            a, b = P @ n, Q @ n
            depth = min(depth, min(a.max(), b.max()) - max(a.min(), b.min()))
            if depth <= 0:
                return 0.0
    return depth


def overlap_sum(spec, X):
    """Summed overlap (m) of every pair of shapes and of every shape with every obstacle; X (n, 3)."""
    B = spec["bodies"]
    total = 0.0
    for o in spec["obstacles"]:
        p, n = np.array(o["point"]), np.array(o["normal"])
        for b, x in zip(B, X):
            if b["shape"] == "box":
                total += max(0.0, -float(((corners(b, x) - p) @ n).min()))
            else:
                total += max(0.0, b["r"] - float((x[:2] - p) @ n))
    disks = [k for k, b in enumerate(B) if b["shape"] == "disk"]
    if len(disks) > 1:
        C, r = X[disks, :2], np.array([B[k]["r"] for k in disks])
        iu = np.triu_indices(len(disks), 1)
        d = np.hypot(*(C[:, None, :] - C[None, :, :]).transpose(2, 0, 1))[iu]
        total += float(np.maximum(0.0, (r[:, None] + r[None, :])[iu] - d).sum())
    boxes = [k for k, b in enumerate(B) if b["shape"] == "box"]
    quads = {k: corners(B[k], X[k]) for k in boxes}
    for i in boxes:
        for j in boxes:
            if i < j and np.abs(X[i, :2] - X[j, :2]).max() < B[i]["w"] + B[j]["w"] + B[i]["h"] + B[j]["h"]:
                total += _box_overlap(quads[i], quads[j])
    return total


def figures(spec, X_start, X_quarter, X_end, ground_force):
    weight = spec["g"] * sum(b["m"] for b in spec["bodies"])
    top = spec["top"]
    return dict(ground=ground_force / weight if spec["ground"] else None,
                overlap=overlap_sum(spec, X_end),
                sink=(top[1] - float(X_end[top[0], 1])) if top else None,
                creep=float(np.abs(X_end[:, :2] - X_quarter[:, :2]).max()) if spec["at_rest"] else None,
                fall=float(X_start[:, 1].max() - X_end[:, 1].max()))


# ---------------------------------------------------------------- nsgui (its worker, or this process)

def nsgui_case(case, record="all", warm=True):
    from nsgui.engine import Simulator, compile_scene
    scene = scene_of(case)
    model = compile_scene(scene)
    spec = spec_of(case, scene, model)
    try:   # numba compiled (or loaded from its cache) and the caches warm before any timing
        if warm:
            Simulator(model).run(min(spec["steps"], WARMUP_STEPS), signals=recorded_signals(model, record))
    except Exception:  # noqa: BLE001 -- a failing case is reported by its timed run
        pass
    return scene, model, spec


def _use_checkout():
    """This checkout's nsgui first on the path, numba's contiguity warnings off (the main process and the
    nsgui worker alike)."""
    sys.path[:0] = [ROOT]
    import warnings
    warnings.filterwarnings("ignore", message=".*faster on contiguous arrays.*")


def recorded_signals(model, record):
    """What nsgui records: "all" every signal (as the app does), "positions" t and q, what the peers
    can be asked for (the other signals of a step are then not computed: energies, forces)."""
    return None if record == "all" else ["t"] + [n for n in model.signal_names if n.startswith("q.")]


def run_nsgui(scene, model, spec, steps, record="all"):
    """Seconds spent in Simulator.run over the two pieces, and the figures. The rows go into a
    buffer allocated before the timing, as the peers' worlds are built before it."""
    from nsgui.engine import Simulator
    sim = Simulator(model)
    signals = recorded_signals(model, record)
    buf = np.zeros((steps, len(signals or model.signal_names)))   # zeros: its pages faulted in now
    n1 = steps * 3 // 4
    X0 = model.body_poses(sim.q)
    t0 = clock()
    sim.run(n1, out=buf, signals=signals)
    t1 = clock()
    X1 = model.body_poses(sim.q)
    t2 = clock()
    sim.run(steps - n1, out=buf[n1:], signals=signals)
    t3 = clock()
    force = 0.0
    if spec["ground"]:
        last = sim.signals()  # the last step's row, whatever was recorded
        for cand, owner in zip(model.contact_names, model.contact_owner):
            if owner >= 0 and scene.contacts[owner].b.obstacle == "ground":
                force += last[f"contact.{cand}.pn"] / model.dt
    return (t1 - t0) + (t3 - t2), figures(spec, X0, X1, model.body_poses(sim.q), force)


class clock:
    """Wall (perf_counter) and CPU (process_time) seconds at once: `clock() - clock()` is
    [wall, cpu]. The CPU time is what a loaded machine does not inflate (each engine runs in its own
    process, so process_time is its loop's alone)."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def __sub__(self, other):
        return Elapsed(self.wall - other.wall, self.cpu - other.cpu)


class Elapsed(list):
    def __init__(self, wall, cpu):
        super().__init__([wall, cpu])

    def __add__(self, other):
        return Elapsed(self[0] + other[0], self[1] + other[1])


# ---------------------------------------------------------------- the peers (worker processes)

MUJOCO_TIMECONST = 0.02   # s: MuJoCo's default contact time constant, kept for every contact


def zeta_of(e):
    """Damping ratio of a linear spring-damper whose coefficient of restitution is e."""
    if e <= 0.0:
        return 1.0
    if e >= 1.0:
        return 0.0
    le = math.log(e)
    return -le / math.sqrt(math.pi ** 2 + le ** 2)


def mujoco_solref(e):
    """MuJoCo's solref for restitution e: its default (0.02 s, damping ratio 1) for e = 0, else the
    direct form (-stiffness, -damping) of a spring-damper of natural frequency 1 / 0.02 s whose damping
    ratio gives e. (The (timeconst, dampratio) form cannot: it raises the stiffness as 1 / dampratio^2,
    and the ball of e = 0.9 flew off to 470 m.)"""
    if e <= 0.0:
        return f"{MUJOCO_TIMECONST} 1"
    w0 = 1.0 / MUJOCO_TIMECONST
    return f"{-w0 * w0} {-max(2.0 * zeta_of(e) * w0, 1e-9)}"


def _obstacle_line(o, offset, length=1e4):
    p, n = np.array(o["point"]) - offset * np.array(o["normal"]), np.array(o["normal"])
    t = np.array([n[1], -n[0]])
    return p, n, p - length * t, p + length * t


def _over(x, by):
    """x / by for per-shape values whose product makes a contact's value."""
    if by == 0.0 and x != 0.0:
        raise RuntimeError("an obstacle's material cannot be made from the bodies' (product or max rule)")
    return x / by if by else 0.0


def _radius(b):
    return b["r"] if b["shape"] == "disk" else POINT_R


class Pymunk:
    def __init__(self, spec):
        import pymunk
        self.spec, self.dt = spec, spec["dt"]
        space = self.space = pymunk.Space()
        space.gravity = (0.0, -spec["g"])
        space.collision_slop = 0.005
        mode, bmat, omat = materials(spec)
        self.bodies = []
        for i, b in enumerate(spec["bodies"]):
            inf = b["move"] == "linked" or b["I"] == 0.0
            body = pymunk.Body(b["m"], math.inf if inf else b["I"])
            body.position, body.angle = (b["x"], b["y"]), b["th"]
            body.velocity, body.angular_velocity = (b["vx"], b["vy"]), b["w"]
            if b["shape"] == "box":
                shape = pymunk.Poly.create_box(body, (b["w"], b["h"]), 0.0)
            else:
                shape = pymunk.Circle(body, _radius(b))
            e, mu = bmat.get(i, (0.0, 0.0))
            if mode == "obstacles":            # products: body-body pairs get e and mu
                e, mu = math.sqrt(e), math.sqrt(mu)
            shape.elasticity, shape.friction = e, mu
            if b["move"] == "linked":
                shape.filter = pymunk.ShapeFilter(group=1)
            space.add(body, shape)
            self.bodies.append((body, shape))
        self.static = {}
        for o in spec["obstacles"]:
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
            _, n, a, bb = _obstacle_line(o, obstacle_offset(spec, o["name"]))
            seg = pymunk.Segment(body, tuple(a), tuple(bb), 0.0)
            if mode == "obstacles":           # body value sqrt(x_bb) times this = the obstacle's x
                seg.elasticity, seg.friction = (_over(x, math.sqrt(xb))
                                                for x, xb in zip(omat.get(o["name"], (0.0, 0.0)), bmat[0]))
            else:
                seg.elasticity = seg.friction = 1.0
            space.add(body, seg)
            self.static[o["name"]] = (body, n)
        for parent, child, anchor in spec["links"]:
            a = self.bodies[parent][0] if parent >= 0 else space.static_body
            space.add(pymunk.PinJoint(a, self.bodies[child][0], (0, 0) if parent >= 0 else tuple(anchor), (0, 0)))

    def step(self, n):
        step, dt = self.space.step, self.dt
        for _ in range(n):
            step(dt)

    def poses(self):
        return np.array([[b.position.x, b.position.y, b.angle] for b, _ in self.bodies])

    def ground_force(self):
        body, n = self.static["ground"]
        total = []
        body.each_arbiter(lambda arb: total.append(abs(arb.total_impulse.dot(tuple(n)))))
        return sum(total) / self.dt


class Box2D:
    VELOCITY_ITERATIONS, POSITION_ITERATIONS = 8, 3

    def __init__(self, spec):
        import Box2D as b2
        self.spec, self.dt = spec, spec["dt"]
        world = self.world = b2.b2World(gravity=(0.0, -spec["g"]), doSleep=False)
        mode, bmat, omat = materials(spec)
        self.bodies = []
        for i, b in enumerate(spec["bodies"]):
            body = world.CreateDynamicBody(position=(b["x"], b["y"]), angle=b["th"],
                                           fixedRotation=b["move"] == "linked" or b["I"] == 0.0)
            if b["shape"] == "box":
                shape, area = b2.b2PolygonShape(box=(b["w"] / 2, b["h"] / 2)), b["w"] * b["h"]
            else:
                shape, area = b2.b2CircleShape(radius=_radius(b)), math.pi * _radius(b) ** 2
            e, mu = bmat.get(i, (0.0, 0.0))
            # contacts take the larger restitution and the geometric mean of the frictions: with the
            # obstacles deciding, an obstacle's friction is mu_o^2 / mu_bb; with the bodies, it is 1
            fx = body.CreateFixture(shape=shape, density=b["m"] / area, restitution=e,
                                    friction=mu if mode == "obstacles" else mu * mu)
            if b["move"] == "linked":
                fx.filterData.groupIndex = -1        # the pendulum's masses do not collide
            md = body.massData
            md.mass, md.center, md.I = b["m"], (0.0, 0.0), max(b["I"], 0.0)
            body.massData = md
            body.linearVelocity, body.angularVelocity = (b["vx"], b["vy"]), b["w"]
            self.bodies.append(body)
        self.static = {}
        for o in spec["obstacles"]:
            _, n, a, bb = _obstacle_line(o, obstacle_offset(spec, o["name"]))
            body = world.CreateStaticBody()
            e, mu = omat.get(o["name"], (0.0, 0.0))
            if mode == "obstacles" and e < bmat[0][0]:
                raise RuntimeError("Box2D: an obstacle's restitution below the bodies' (max rule)")
            body.CreateFixture(shape=b2.b2EdgeShape(vertices=[tuple(a), tuple(bb)]),
                               restitution=e if mode == "obstacles" else 0.0,
                               friction=_over(mu * mu, bmat[0][1]) if mode == "obstacles" else 1.0)
            self.static[o["name"]] = (body, n)
        anchor_body = world.CreateStaticBody()
        for parent, child, anchor in spec["links"]:
            a = self.bodies[parent] if parent >= 0 else anchor_body
            world.CreateDistanceJoint(bodyA=a, bodyB=self.bodies[child],
                                      anchorA=a.position if parent >= 0 else tuple(anchor),
                                      anchorB=self.bodies[child].position, frequencyHz=0.0, dampingRatio=0.0)

    def step(self, n):
        step, dt, vi, pi = self.world.Step, self.dt, self.VELOCITY_ITERATIONS, self.POSITION_ITERATIONS
        for _ in range(n):
            step(dt, vi, pi)

    def poses(self):
        return np.array([[b.position[0], b.position[1], b.angle] for b in self.bodies])

    def ground_force(self):
        body, _ = self.static["ground"]
        total = 0.0
        for edge in body.contacts:
            c = edge.contact
            if c.touching:
                total += sum(p.normalImpulse for p in c.manifold.points[:c.manifold.pointCount])
        return total / self.dt


class MuJoCo:
    def __init__(self, spec):
        import mujoco
        self.mj, self.spec = mujoco, spec
        mode, bmat, omat = materials(spec)

        def geom_material(e, mu, priority):
            return (f'friction="{mu} 0 0" condim="{3 if mu > 0 else 1}" solref="{mujoco_solref(e)}" '
                    f'priority="{priority}"')

        world, children = [], {i: [] for i in range(len(spec["bodies"]))}
        linked = {child: (parent, anchor) for parent, child, anchor in spec["links"]}
        for o in spec["obstacles"]:
            p, n, _, _ = _obstacle_line(o, obstacle_offset(spec, o["name"]))
            e, mu = omat.get(o["name"], (0.0, 0.0))
            world.append(f'<geom name="{o["name"]}" type="plane" size="0 0 1" pos="{p[0]} 0 {p[1]}" '
                         f'zaxis="{n[0]} 0 {n[1]}" {geom_material(e, mu, 1 if mode == "obstacles" else 0)}/>')

        def body_xml(i):
            b = spec["bodies"][i]
            e, mu = bmat.get(i, (0.0, 0.0))
            mat = geom_material(e, mu, 1 if mode == "bodies" else 0)
            if b["shape"] == "box":
                geom = f'<geom type="box" size="{b["w"] / 2} {MUJOCO_DEPTH / 2} {b["h"] / 2}" {mat}/>'
            else:
                geom = f'<geom type="sphere" size="{_radius(b)}" {mat}/>'
            inertia = max(b["I"], 1e-9)
            if i in linked:
                parent, anchor = linked[i]
                base = (spec["bodies"][parent]["x"], spec["bodies"][parent]["y"]) if parent >= 0 else anchor
                joints = (f'<joint type="hinge" axis="0 -1 0" pos="{base[0] - b["x"]} 0 {base[1] - b["y"]}"/>')
                if parent >= 0:   # nested: position relative to the parent body
                    pos = f'{b["x"] - base[0]} 0 {b["y"] - base[1]}'
                else:
                    pos = f'{b["x"]} 0 {b["y"]}'
            elif b["move"] == "slide_y":
                joints, pos = '<joint type="slide" axis="0 0 1"/>', f'{b["x"]} 0 {b["y"]}'
            else:
                joints = ('<joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 0 1"/>'
                          '<joint type="hinge" axis="0 -1 0"/>')
                pos = f'{b["x"]} 0 {b["y"]}'
            inner = "".join(body_xml(k) for k in children[i])
            return (f'<body name="b{i}" pos="{pos}" euler="0 {-math.degrees(b["th"])} 0">{joints}'
                    f'<inertial pos="0 0 0" mass="{b["m"]}" diaginertia="{inertia} {inertia} {inertia}"/>'
                    f'{geom}{inner}</body>')

        roots = []
        for i in range(len(spec["bodies"])):
            parent = linked.get(i, (-1,))[0]
            (children[parent] if parent >= 0 else roots).append(i)
        xml = (f'<mujoco><option timestep="{spec["dt"]}" gravity="0 0 {-spec["g"]}"/>'
               f'<worldbody>{"".join(world)}{"".join(body_xml(i) for i in roots)}</worldbody></mujoco>')
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)
        # initial velocities (free bodies: slide x, slide z, hinge; beads: slide z)
        for i, b in enumerate(spec["bodies"]):
            jid = self.model.body_jntadr[self.model.body(f"b{i}").id]
            dof = self.model.jnt_dofadr[jid]
            if b["move"] == "free":
                self.data.qvel[dof:dof + 3] = (b["vx"], b["vy"], b["w"])
            elif b["move"] == "slide_y":
                self.data.qvel[dof] = b["vy"]
        self.body_ids = [self.model.body(f"b{i}").id for i in range(len(spec["bodies"]))]
        self.ground_id = self.model.geom("ground").id if spec["ground"] else -1

    def step(self, n):
        step, m, d = self.mj.mj_step, self.model, self.data
        for _ in range(n):
            step(m, d)

    def poses(self):
        xp = self.data.xpos[self.body_ids]
        R = self.data.xmat[self.body_ids]      # rotation about -y: angle from R[0, 0], R[2, 0]
        return np.column_stack([xp[:, 0], xp[:, 2], np.arctan2(R[:, 6], R[:, 0])])

    def ground_force(self):
        f = np.zeros(6)
        total = 0.0
        for k in range(self.data.ncon):
            c = self.data.contact[k]
            if self.ground_id in (c.geom1, c.geom2):
                self.mj.mj_contactForce(self.model, self.data, k, f)
                total += f[0]
        return total


ENGINES = {"pymunk": Pymunk, "box2d": Box2D, "mujoco": MuJoCo}


def run_peer(engine, spec, steps):
    sim = ENGINES[engine](spec)
    n1 = steps * 3 // 4
    X0 = sim.poses()
    t0 = clock()
    sim.step(n1)
    t1 = clock()
    X1 = sim.poses()
    t2 = clock()
    sim.step(steps - n1)
    t3 = clock()
    force = sim.ground_force() if spec["ground"] else 0.0
    return (t1 - t0) + (t3 - t2), figures(spec, X0, X1, sim.poses(), force)


def worker(engine):
    """Answer JSON jobs {spec, steps} from stdin, one per line, with {seconds, figures} or {error}. The
    nsgui worker (the default, a new one each round; run with the project's python) takes {case, steps,
    record} and builds and warms each case once, as the main process does with --no-fresh-processes."""
    out = sys.stdout
    sys.stdout = sys.stderr                  # engines' prints never mix with the answers
    built = {}
    if engine == "nsgui":
        _use_checkout()
    for line in sys.stdin:
        job = json.loads(line)
        try:
            if engine == "nsgui":
                case = job["case"]
                if case not in built:
                    built[case] = nsgui_case(case, job["record"])
                seconds, figs = run_nsgui(*built[case], job["steps"], job["record"])
            else:
                seconds, figs = run_peer(engine, job["spec"], job["steps"])
            answer = dict(seconds=seconds, figures=figs)
        except Exception as exc:  # a case an engine cannot build: reported in its cell
            answer = dict(error=f"{type(exc).__name__}: {exc}")
        out.write(REPLY + json.dumps(answer) + "\n")
        out.flush()


class Peer:
    """A worker subprocess of the benchmark venv."""

    def __init__(self, engine, python):
        self.engine = engine
        # cwd: MuJoCo writes MUJOCO_LOG.TXT where it runs
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", engine], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1, cwd=tempfile.gettempdir())

    def run(self, spec, steps, **job):
        self.proc.stdin.write(json.dumps(dict(spec=spec, steps=steps, **job)) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            if line.startswith(REPLY):
                return json.loads(line[len(REPLY):])
        return dict(error=f"the {self.engine} worker ended")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


# ---------------------------------------------------------------- the benchmark venv

def ensure_venv(path):
    """The venv's python, creating the venv and installing the peers when missing; None with a
    one-line message on failure."""
    python = os.path.join(path, "bin", "python")
    check = [python, "-c", "import pymunk, Box2D, mujoco, numpy"]
    if os.path.exists(python) and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    print(f"creating the benchmark venv {path} (pip install {' '.join(PACKAGES)}) ...", flush=True)
    steps = [[sys.executable, "-m", "venv", path], [python, "-m", "pip", "install", "-q", *PACKAGES]]
    for cmd in steps:
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
            print(f"peers.py: could not set up {path}: {' '.join(cmd[:3])}: {last}", file=sys.stderr)
            return None
    return python


def versions(python):
    code = ("import json, pymunk, Box2D, mujoco; print(json.dumps({'pymunk': pymunk.version, "
            "'box2d': Box2D.__version__, 'mujoco': mujoco.__version__}))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else {}


# ---------------------------------------------------------------- report

def fit_exponent(ns, secs_per_step):
    """Least-squares slope of log(cost per step) against log N."""
    if len(ns) < 2:
        return None
    return float(np.polyfit(np.log(ns), np.log(secs_per_step), 1)[0])


def fmt(x, kind):
    if x is None:
        return "—"
    if kind == "rate":
        return f"{x:,.0f}"
    if kind == "ratio":
        return f"{x:.2f}"
    return f"{x:.3g}"


def rate_table(cases, engines, results, steps_of, which):
    """Median steps per second (which = 0: wall, 1: CPU) and the ratios nsgui / peer."""
    rate = {(c, e): statistics.median(steps_of[c] / s[which] for s in results[c][e]["seconds"])
            for c in cases for e in engines if results[c][e]["seconds"]}
    lines = ["| case | steps | " + " | ".join(f"{e} steps/s" for e in engines) + " | "
             + " | ".join(f"nsgui/{e}" for e in engines[1:]) + " |",
             "|---|---:|" + "---:|" * (2 * len(engines) - 1)]
    for c in cases:
        cells = [fmt(rate.get((c, e)), "rate") if (c, e) in rate else results[c][e].get("error", "—")[:40]
                 for e in engines]
        ratios = [fmt(rate[(c, "nsgui")] / rate[(c, e)], "ratio") if (c, "nsgui") in rate and (c, e) in rate
                  else "—" for e in engines[1:]]
        lines.append(f"| {c} | {steps_of[c]} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return lines, rate


def report(cases, engines, results, steps_of):
    lines, rate = rate_table(cases, engines, results, steps_of, 0)
    cpu_lines, _ = rate_table(cases, engines, results, steps_of, 1)
    lines = ["Wall clock (perf_counter):", *lines, "", "Per CPU second (process_time of each engine's process):",
             *cpu_lines]
    lines += ["", "| case | engine | ground / weight | summed overlap (m) | top sink (m) | creep (m) |",
              "|---|---|---:|---:|---:|---:|"]
    for c in cases:
        for e in engines:
            f = results[c][e].get("figures")
            if f:
                ground = "—" if f["ground"] is None else f"{f['ground']:.10f}"
                lines.append(f"| {c} | {e} | {ground} | {fmt(f['overlap'], 'g')} | {fmt(f['sink'], 'g')} | "
                             f"{fmt(f['creep'], 'g')} |")
    errors = [f"- {c}, {e}: {results[c][e]['error']}" for c in cases for e in engines if "error" in results[c][e]]
    if errors:
        lines += ["", "Errors:", *errors]
    columns = [c for c in cases if c.startswith("bead_column_")]
    if len(columns) >= 2:
        lines += ["", "Cost per step against N (bead columns): fitted exponent over "
                  + ", ".join(c.rsplit("_", 1)[1] for c in columns) + "; local exponents between neighbours:"]
        ns = [int(c.rsplit("_", 1)[1]) for c in columns]
        for e in engines:
            pts = [(n, 1.0 / rate[(c, e)]) for n, c in zip(ns, columns) if (c, e) in rate]
            if len(pts) < 2:
                continue
            x, y = zip(*pts)
            local = ", ".join(f"{x[k]}→{x[k + 1]}: {math.log(y[k + 1] / y[k]) / math.log(x[k + 1] / x[k]):.2f}"
                              for k in range(len(x) - 1))
            lines.append(f"- {e}: N^{fit_exponent(x, y):.2f} ({local})")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES), help="comma-separated, from: " + ", ".join(CASES))
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is reported)")
    ap.add_argument("--quick", action="store_true", help="one round, a quarter of each run")
    ap.add_argument("--venv", default=DEFAULT_VENV, help="the benchmark venv (created when missing)")
    ap.add_argument("--engines", default="nsgui," + ",".join(PEERS), help="comma-separated subset")
    ap.add_argument("--json", help="also write the raw results to this file")
    ap.add_argument("--record", choices=("positions", "all"), default="positions",
                    help="what nsgui records per step: t and q (default; what a peer's poses give) or "
                         "every signal (energies, contact forces and statuses... as the app does)")
    ap.add_argument("--fresh-processes", action=argparse.BooleanOptionalAction, default=True,
                    help="every engine, nsgui too, in a new process for each round (the default: the machine's "
                         "per-process speed modes then vary from round to round for every engine alike, and the "
                         "median spans them); --no-fresh-processes: one process per engine for the whole run")
    ap.add_argument("--worker", choices=("nsgui", *PEERS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    engines = [e for e in args.engines.split(",") if e]
    if unknown or not set(engines) <= {"nsgui", *PEERS} or "nsgui" not in engines:
        print(f"peers.py: unknown case(s) {', '.join(unknown) or '-'} or engines {args.engines!r} (nsgui is needed)",
              file=sys.stderr)
        return 2
    rounds = 1 if args.quick else max(1, args.rounds)
    _use_checkout()
    python = ensure_venv(args.venv) if len(engines) > 1 else None
    if len(engines) > 1 and python is None:
        engines = ["nsgui"]
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"peers: {versions(python) if python else 'none'}; nsgui records {args.record}", flush=True)
    fresh = args.fresh_processes
    built = {c: nsgui_case(c, args.record, warm=not fresh) for c in cases}   # (fresh: the nsgui worker warms)
    steps_of = {c: max(4, built[c][2]["steps"] // (4 if args.quick else 1)) for c in cases}
    peers = {} if fresh else {e: Peer(e, python) for e in engines if e != "nsgui"}
    results = {c: {e: dict(seconds=[]) for e in engines} for c in cases}
    try:
        for r in range(rounds):
            if fresh:  # this round's processes (the last round's ended)
                for p in peers.values():
                    p.close()
                peers = {e: Peer(e, sys.executable if e == "nsgui" else python) for e in engines}
            for c in cases:
                scene, model, spec = built[c]
                order = engines[r % len(engines):] + engines[:r % len(engines)]
                for e in order:
                    if fresh:
                        answer = peers[e].run(spec, steps_of[c], case=c, record=args.record)
                    elif e == "nsgui":
                        try:
                            seconds, figs = run_nsgui(scene, model, spec, steps_of[c], args.record)
                            answer = dict(seconds=seconds, figures=figs)
                        except Exception as exc:  # noqa: BLE001 -- e.g. a step problem the solver fails on
                            answer = dict(error=f"failed: {exc}")
                    else:
                        answer = peers[e].run(spec, steps_of[c])
                    cell = results[c][e]
                    if "error" in answer:
                        cell["error"] = answer["error"]
                        continue
                    cell["seconds"].append(answer["seconds"])
                    cell["figures"] = answer["figures"]
                    print(f"round {r + 1}/{rounds} {c:18s} {e:7s} {steps_of[c] / answer['seconds'][0]:12,.0f} steps/s "
                          f"({steps_of[c] / answer['seconds'][1]:,.0f} per CPU s)",
                          flush=True)
    finally:
        for p in peers.values():
            p.close()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(report(cases, engines, results, steps_of))
    if args.json:
        sys.path[:0] = [ROOT]
        from nsgui.atomic import atomic_write_text
        atomic_write_text(args.json, json.dumps(dict(results=results, steps=steps_of), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
