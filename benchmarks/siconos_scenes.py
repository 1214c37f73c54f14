#!/usr/bin/python3
"""The nsgui example scenes rebuilt with Siconos 4.4's Python API, for speed and trajectory comparison.

Run with the *system* interpreter (Debian python3-siconos), never the project venv:

    /usr/bin/python3 benchmarks/siconos_scenes.py [--json] [--repeat N] [--save DIR | --no-save] [--params JSON] [SCENE ...]

Each scene is a MoreauJeanOSI(theta) + TimeStepping simulation with an LCP (Lemke) or, for
friction, FrictionContact(2) (NSGS). Only the stepping loop
``while s.hasNextEvent(): s.computeOneStep(); s.nextStep()`` is timed, on a freshly built
simulation each repeat; the best repeat is reported. Then one more run records t, q, v per step to
``DIR/siconos_<scene>.npy`` (``--save DIR``, default /tmp/nsgui_siconos_traj; rows: t, q..., v...;
row 0 = initial state; ``--no-save`` skips it).

Parameters default to the values of the nsgui example scenes; ``--params`` overrides them
(a JSON object ``{scene: {key: value}}``; benchmarks/scene_params.py derives it from the nsgui JSON).
Siconos is a reference for comparison only, never an nsgui dependency.
"""
import os

import single_blas  # noqa: F401,E402  (before numpy loads: BLAS on one thread)

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN_SOURCE = os.path.join(HERE, "siconos_plugins.c")
PLUGIN_DIR = os.path.join("/tmp", "nsgui_siconos_plugins")
DEFAULT_SAVE = os.path.join("/tmp", "nsgui_siconos_traj")

# Defaults = the nsgui example scenes (see docs/benchmarks.md). Every value can be overridden.
DEFAULTS = {
    "bouncing_ball": dict(m=1.0, inertia=0.004, radius=0.1, q0=[0.0, 1.0, 0.0], v0=[0.0, 0.0, 0.0],
                          g=9.81, e=0.9, ground_y=0.0, h=0.005, T=10.0, theta=0.5),
    "falling_rod": dict(m=1.0, inertia=1.0 / 12.0, length=1.0, radius=0.0,
                        q0=[0.0, 1.0, math.radians(30.0)], v0=[0.0, 0.0, 0.0],
                        g=9.81, e=0.5, ground_y=0.0, h=1e-3, T=3.0, theta=0.5),
    "sliding_box": dict(m=1.0, inertia=(0.4 ** 2 + 0.2 ** 2) / 12.0, width=0.4, height=0.2,
                        q0=[0.0, 0.1, 0.0], v0=[2.0, 0.0, 0.0], g=9.81, e=0.0, mu=0.3,
                        ground_y=0.0, h=1e-3, T=1.5, theta=0.5, tolerance=1e-10, max_iterations=1000),
    "double_pendulum": dict(m1=1.0, m2=1.0, l1=1.0, l2=1.0, i1=0.0, i2=0.0, g=10.0, q0=[0.1, 0.2],
                            v0=[0.0, 0.0], relative=False, wall_x1=0.0, wall_x2=0.0, e1=1.0, e2=0.0,
                            h=5e-4, T=5.0, theta=0.5),
    "bead_column_10": dict(n=10, m=1.0, radius=0.1, y0=0.3, spacing=0.201, g=9.81, e=0.5,
                           ground_y=0.0, h=1e-3, T=2.0, theta=0.5),
    "bead_column_50": dict(n=50, m=1.0, radius=0.1, y0=0.3, spacing=0.201, g=9.81, e=0.5,
                           ground_y=0.0, h=1e-3, T=2.0, theta=0.5),
    "bead_column_100": dict(n=100, m=1.0, radius=0.1, y0=0.3, spacing=0.201, g=9.81, e=0.5,
                            ground_y=0.0, h=1e-3, T=2.0, theta=0.5),
}


def compile_plugins(defines):
    """Compile siconos_plugins.c with the given -D macros; return the library path without '.so'."""
    with open(PLUGIN_SOURCE, "rb") as f:
        src = f.read()
    flags = ["-D%s=%r" % (k, float(v) if not isinstance(v, bool) else int(v)) for k, v in sorted(defines.items())]
    key = hashlib.sha1(src + " ".join(flags).encode()).hexdigest()[:16]
    os.makedirs(PLUGIN_DIR, exist_ok=True)
    base = os.path.join(PLUGIN_DIR, "plug_" + key)
    if not os.path.exists(base + ".so"):
        tmp = base + ".%d.tmp.so" % os.getpid()
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", *flags, "-o", tmp, PLUGIN_SOURCE, "-lm"], check=True)
        os.replace(tmp, base + ".so")
    return base


class Built:
    """A ready Siconos simulation plus what is needed to read its state."""

    def __init__(self, sk, sim, dss, keep):
        self.sk, self.sim, self.dss, self.keep = sk, sim, dss, keep

    def state(self):
        q = np.concatenate([np.array(d.q(), dtype=float).ravel() for d in self.dss])
        v = np.concatenate([np.array(d.velocity(), dtype=float).ravel() for d in self.dss])
        return q, v


def _simulation(sk, nsds, p, friction=False):
    osi = sk.MoreauJeanOSI(p["theta"])
    td = sk.TimeDiscretisation(0.0, p["h"])
    if friction:
        import siconos.numerics as sn
        solver = p.get("fc_solver", "nsgs")  # 2-D NSGS is Siconos's default; lemke / enum for checks
        ids = {"nsgs": sn.SICONOS_FRICTION_2D_NSGS, "lemke": sn.SICONOS_FRICTION_2D_LEMKE,
               "enum": sn.SICONOS_FRICTION_2D_ENUM}
        osnspb = sk.FrictionContact(2, ids[solver])
        opts = osnspb.numericsSolverOptions()
        opts.dparam[0] = p["tolerance"]       # SICONOS_DPARAM_TOL
        opts.iparam[0] = p["max_iterations"]  # SICONOS_IPARAM_MAX_ITER
    else:
        osnspb = sk.LCP()  # default solver: Lemke
    sim = sk.TimeStepping(nsds, td, osi, osnspb)
    return sim, [osi, td, osnspb]


def _rigid_body(sk, p, keep):
    q0 = np.array(p["q0"], dtype=float)
    v0 = np.array(p["v0"], dtype=float)
    mass = np.diag([p["m"], p["m"], p["inertia"]]).astype(float)
    ds = sk.LagrangianLinearTIDS(q0, v0, mass)
    fext = np.array([0.0, -p["m"] * p["g"], 0.0])
    ds.setFExtPtr(fext)
    keep += [q0, v0, mass, fext]
    return ds


def build_bouncing_ball(sk, p):
    keep = []
    ds = _rigid_body(sk, p, keep)
    nsds = sk.NonSmoothDynamicalSystem(0.0, p["T"])
    nsds.insertDynamicalSystem(ds)
    C = np.array([[0.0, 1.0, 0.0]])
    off = np.array([-p["radius"] - p["ground_y"]])
    rel = sk.LagrangianLinearTIR(C, off)
    inter = sk.Interaction(sk.NewtonImpactNSL(p["e"]), rel)
    nsds.link(inter, ds)
    sim, objs = _simulation(sk, nsds, p)
    return Built(sk, sim, [ds], keep + [C, off, rel, inter, nsds] + objs)


def build_falling_rod(sk, p):
    keep = []
    ds = _rigid_body(sk, p, keep)
    nsds = sk.NonSmoothDynamicalSystem(0.0, p["T"])
    nsds.insertDynamicalSystem(ds)
    lib = compile_plugins(dict(ROD_HALF=p["length"] / 2.0, ROD_RADIUS=p["radius"], GROUND_Y=p["ground_y"]))
    for end in (0, 1):
        rel = sk.LagrangianScleronomousR("%s:rod_h%d" % (lib, end), "%s:rod_G%d" % (lib, end))
        inter = sk.Interaction(sk.NewtonImpactNSL(p["e"]), rel)
        nsds.link(inter, ds)
        keep += [rel, inter]
    sim, objs = _simulation(sk, nsds, p)
    return Built(sk, sim, [ds], keep + [nsds] + objs)


def build_sliding_box(sk, p):
    keep = []
    ds = _rigid_body(sk, p, keep)
    nsds = sk.NonSmoothDynamicalSystem(0.0, p["T"])
    nsds.insertDynamicalSystem(ds)
    lib = compile_plugins(dict(BOX_HW=p["width"] / 2.0, BOX_HH=p["height"] / 2.0, GROUND_Y=p["ground_y"]))
    for corner in (0, 1):
        rel = sk.LagrangianScleronomousR("%s:box_h%d" % (lib, corner), "%s:box_G%d" % (lib, corner))
        nsl = sk.NewtonImpactFrictionNSL(p["e"], 0.0, p["mu"], 2)
        inter = sk.Interaction(nsl, rel)
        nsds.link(inter, ds)
        keep += [rel, nsl, inter]
    sim, objs = _simulation(sk, nsds, p, friction=True)
    return Built(sk, sim, [ds], keep + [nsds] + objs)


def build_double_pendulum(sk, p):
    lib = compile_plugins(dict(PEND_M1=p["m1"], PEND_M2=p["m2"], PEND_L1=p["l1"], PEND_L2=p["l2"],
                               PEND_I1=p["i1"], PEND_I2=p["i2"], PEND_G=p["g"],
                               PEND_RELATIVE=bool(p["relative"]), WALL_X1=p["wall_x1"], WALL_X2=p["wall_x2"]))
    q0 = np.array(p["q0"], dtype=float)
    v0 = np.array(p["v0"], dtype=float)
    ds = sk.LagrangianDS(q0, v0, lib + ":pend_mass")
    ds.setComputeFGyrFunction(lib, "pend_FGyr")
    ds.setComputeJacobianFGyrqFunction(lib, "pend_jacFGyrq")
    ds.setComputeJacobianFGyrqDotFunction(lib, "pend_jacFGyrv")
    ds.setComputeFIntFunction(lib, "pend_FInt")
    ds.setComputeJacobianFIntqFunction(lib, "pend_jacFIntq")
    ds.setComputeJacobianFIntqDotFunction(lib, "pend_jacFIntv")
    nsds = sk.NonSmoothDynamicalSystem(0.0, p["T"])
    nsds.insertDynamicalSystem(ds)
    keep = [q0, v0]
    for k, e in ((0, p["e1"]), (1, p["e2"])):
        rel = sk.LagrangianScleronomousR("%s:pend_h%d" % (lib, k), "%s:pend_G%d" % (lib, k))
        inter = sk.Interaction(sk.NewtonImpactNSL(e), rel)
        nsds.link(inter, ds)
        keep += [rel, inter]
    sim, objs = _simulation(sk, nsds, p)
    if "newton_max_iterations" in p:
        sim.setNewtonMaxIteration(int(p["newton_max_iterations"]))
    return Built(sk, sim, [ds], keep + [nsds] + objs)


def build_bead_column(sk, p):
    """1-dof beads (coordinate = height of the centre). Contacts: `pairs` [[lower, upper], ...] with
    lower = -1 for the ground; default: the ground under bead 0 and each bead on the one below."""
    n, r = int(p["n"]), p["radius"]
    y_init = p.get("y_init") or [p["y0"] + p["spacing"] * i for i in range(n)]
    v_init = p.get("v_init") or [0.0] * n
    pairs = p.get("pairs") or [[-1, 0]] + [[i, i + 1] for i in range(n - 1)]
    nsds = sk.NonSmoothDynamicalSystem(0.0, p["T"])
    dss, keep = [], []
    for i in range(n):
        q0 = np.array([float(y_init[i])])
        v0 = np.array([float(v_init[i])])
        mass = np.array([[p["m"]]])
        fext = np.array([-p["m"] * p["g"]])
        ds = sk.LagrangianLinearTIDS(q0, v0, mass)
        ds.setFExtPtr(fext)
        nsds.insertDynamicalSystem(ds)
        dss.append(ds)
        keep += [q0, v0, mass, fext]
    for lower, upper in pairs:
        if lower < 0:  # ground: y_upper - r - ground_y >= 0
            C, off = np.array([[1.0]]), np.array([-r - p["ground_y"]])
        else:          # y_upper - y_lower - 2r >= 0
            C, off = np.array([[-1.0, 1.0]]), np.array([-2.0 * r])
        rel = sk.LagrangianLinearTIR(C, off)
        inter = sk.Interaction(sk.NewtonImpactNSL(p["e"]), rel)
        if lower < 0:
            nsds.link(inter, dss[upper])
        else:
            nsds.link(inter, dss[lower], dss[upper])
        keep += [C, off, rel, inter]
    sim, objs = _simulation(sk, nsds, p)
    return Built(sk, sim, dss, keep + [nsds] + objs)


BUILDERS = {
    "bouncing_ball": build_bouncing_ball,
    "falling_rod": build_falling_rod,
    "sliding_box": build_sliding_box,
    "double_pendulum": build_double_pendulum,
    "bead_column_10": build_bead_column,
    "bead_column_50": build_bead_column,
    "bead_column_100": build_bead_column,
}


# optional keys beyond DEFAULTS: explicit bead states and contact pairs, solver variants
OPTIONAL = {"y_init", "v_init", "pairs", "newton_max_iterations", "fc_solver"}


def params_for(name, overrides=None):
    """DEFAULTS[name] updated with overrides[name]; unknown keys are refused by name."""
    p = dict(DEFAULTS[name])
    extra = dict((overrides or {}).get(name, {}))
    unknown = sorted(set(extra) - set(p) - OPTIONAL)
    if unknown:
        raise ValueError("--params %s: unknown key(s) %s; known: %s"
                         % (name, ", ".join(unknown), ", ".join(sorted(set(p) | OPTIONAL))))
    p.update(extra)
    return p


def time_scene(sk, name, p, repeat, min_time=0.0):
    """Best and median wall time of the stepping loop over at least `repeat` fresh builds, repeated
    (up to 50 runs) until `min_time` seconds of loop time are spent (short scenes: less noise)."""
    times, steps = [], 0
    while len(times) < repeat or (sum(times) < min_time and len(times) < 50):
        b = BUILDERS[name](sk, p)
        s = b.sim
        t0 = time.perf_counter()
        k = 0
        while s.hasNextEvent():
            s.computeOneStep()
            s.nextStep()
            k += 1
        times.append(time.perf_counter() - t0)
        steps = k
    return dict(scene=name, steps=steps, best_s=min(times), median_s=float(np.median(times)),
                steps_per_s=steps / min(times), repeat=len(times))


def record_scene(sk, name, p):
    """One recorded run: rows (t, q, v), row 0 the initial state; also Newton iteration counts."""
    b = BUILDERS[name](sk, p)
    s = b.sim
    q, v = b.state()
    rows = [np.concatenate([[0.0], q, v])]
    newton = []
    while s.hasNextEvent():
        s.computeOneStep()
        newton.append(s.getNewtonNbIterations())
        t = s.nextTime()
        q, v = b.state()
        rows.append(np.concatenate([[t], q, v]))
        s.nextStep()
    return np.array(rows), np.array(newton)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenes", nargs="*", help="scene names (default: all): " + ", ".join(BUILDERS))
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per scene; the best is reported")
    ap.add_argument("--min-time", type=float, default=0.0,
                    help="keep repeating (up to 50 runs) until this much loop time is spent")
    ap.add_argument("--save", metavar="DIR", default=DEFAULT_SAVE,
                    help="also record t, q, v per step to DIR/siconos_<scene>.npy (default %(default)s)")
    ap.add_argument("--no-save", action="store_true", help="timing only, no recorded run")
    ap.add_argument("--params", default="{}", help="JSON {scene: {key: value}} overriding the defaults")
    ap.add_argument("--json", action="store_true", help="print one JSON object per scene instead of a table")
    args = ap.parse_args(argv)

    try:
        import siconos.kernel as sk
    except ImportError as exc:
        print("siconos is not importable with %s: %s" % (sys.executable, exc), file=sys.stderr)
        return 2
    unknown = [n for n in args.scenes if n not in BUILDERS]
    if unknown:
        print("unknown scene(s): %s; known: %s" % (", ".join(unknown), ", ".join(BUILDERS)), file=sys.stderr)
        return 2
    try:
        overrides = json.loads(args.params)
    except ValueError as exc:
        print("--params is not valid JSON: %s" % exc, file=sys.stderr)
        return 2

    names = args.scenes or list(BUILDERS)
    try:
        all_params = {name: params_for(name, overrides) for name in names}
    except (ValueError, AttributeError, TypeError) as exc:
        print(exc if isinstance(exc, ValueError) else "--params must map scene names to objects", file=sys.stderr)
        return 2
    if not args.json:
        print("| scene | steps | Siconos steps/s | best loop time (s) |")
        print("|---|---:|---:|---:|")
    for name in names:
        p = all_params[name]
        res = time_scene(sk, name, p, max(1, args.repeat), args.min_time) if args.repeat > 0 else dict(scene=name)
        if args.save and not args.no_save:
            os.makedirs(args.save, exist_ok=True)
            traj, newton = record_scene(sk, name, p)
            path = os.path.join(args.save, "siconos_%s.npy" % name)
            np.save(path + ".tmp.npy", traj)
            os.replace(path + ".tmp.npy", path)
            res.update(trajectory=path, newton_max=int(newton.max(initial=0)),
                       newton_mean=float(newton.mean()) if newton.size else 0.0)
        if args.json:
            print(json.dumps(res), flush=True)
        elif "steps_per_s" in res:
            print("| %s | %d | %.0f | %.3f |" % (name, res["steps"], res["steps_per_s"], res["best_s"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
