"""Bit-identity check of the engine across a refactoring: record every example's signals with one
checkout, compare them with another's.

    PYTHONPATH=OLD_CHECKOUT .venv/bin/python benchmarks/identical.py --save /tmp/ref.npz
    PYTHONPATH=NEW_CHECKOUT .venv/bin/python benchmarks/identical.py --compare /tmp/ref.npz [--tol 1e-9]

Runs through the public API only (simulate, Simulator, Model's queries), so any two commits that keep
it can be compared: every example scene for 300 steps with projection off and on and each solver, a
Python controller, get_state/set_state, reset, unrecorded runs. Arrays must be equal bit for bit
(np.array_equal, NaN equal to NaN); events and summaries (but the wall time) must be equal too.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

SCENES = Path(__file__).resolve().parents[1] / "resources" / "scenes"
LEMKE_CONTACTS = 300   # scenes with more contacts are run with the auto and nsgs solvers only
NSTEPS = 300


def load_scene(path):
    try:  # the scene package since issue 9; before it, the engine re-exported it
        from nsgui.scene import load_scene as load
    except ImportError:
        from nsgui.scene import load_scene as load
    return load(path)


def _scene_runs(out):
    from nsgui.engine import simulate
    for path in sorted(SCENES.glob("*.json")):
        scene = load_scene(path)
        for projection in (False, True):
            for solver in ("auto", "lemke", "nsgs"):
                if solver == "lemke" and len(scene.contacts) > LEMKE_CONTACTS:
                    continue  # Lemke's dense tableau at every step: disk_pile_200 (591 contacts) would take hours
                key = f"{path.stem}/{'proj' if projection else 'std'}/{solver}"
                r = simulate(scene, duration=NSTEPS * scene.settings.dt, projection=projection, solver=solver)
                for name, values in r.signals.items():
                    out[f"{key}/sig/{name}"] = values
                out[f"{key}/events"] = np.array([f"{e.t!r}|{e.kind}|{e.name}|{e.detail}" for e in r.events])
                out[f"{key}/summary"] = np.array(sorted(f"{k}={v!r}" for k, v in r.summary.items()
                                                        if k not in ("wall_time", "steps_per_second")))


def _model_queries(out):
    from nsgui.engine import compile_scene
    for path in sorted(SCENES.glob("*.json")):
        m = compile_scene(load_scene(path))
        q = m.q0 + 0.01 * np.arange(m.nq)
        out[f"{path.stem}/model/poses"] = m.body_poses(q)
        gap, pts, nrm = m.contact_frames(q)
        out[f"{path.stem}/model/frames"] = np.concatenate([gap, pts.ravel(), nrm.ravel()])
        HN, HT = m.contact_jacobians(q)
        out[f"{path.stem}/model/jac"] = np.concatenate([HN.ravel(), HT.ravel()])
        out[f"{path.stem}/model/U"] = np.array([m.potential_energy(q)])
        out[f"{path.stem}/model/M"] = m.mass_matrix(q)
        out[f"{path.stem}/model/names"] = np.array(m.signal_names)


def _simulator_paths(out):
    from nsgui.engine import Simulator, compile_scene
    arm = compile_scene(load_scene(SCENES / "two_link_arm.json"))
    sim = Simulator(arm)

    def law(t, q, v, model):
        return 2.0 * (0.3 - q[0]) - 0.5 * v[0] + 0.1 * np.sin(5 * t)

    sim.set_controller(arm.actuator_names[0], law, period=0.004)
    a = sim.run(150)
    state = sim.get_state()
    b = sim.run(150)
    sim.set_state(state)
    c = sim.run(150)
    out["arm/python_ctrl"] = np.vstack([a, b, c])
    out["arm/stats"] = np.array(sorted(f"{k}={v!r}" for k, v in sim.stats.items()))
    sim.reset()
    out["arm/reset_row"] = sim.signal_vector()
    sim.run(77, record=False)
    out["arm/unrecorded_row"] = sim.signal_vector()
    for name in ("bead_column_10", "newtons_cradle", "rocking_block"):
        m = compile_scene(load_scene(SCENES / f"{name}.json"))
        sim = Simulator(m)
        rows = [sim.step() for _ in range(40)]
        sim.run(60, record=False)
        rows.append(sim.signal_vector())
        out[f"{name}/stepwise"] = np.vstack(rows)


def record():
    out = {}
    _scene_runs(out)
    _model_queries(out)
    _simulator_paths(out)
    return out


def compare(ref, new, tol=0.0):
    """Keys that differ; with tol > 0, float arrays within tol (relative to the array's largest
    magnitude) pass, and those that differ are given with their largest difference."""
    bad = []
    for k in sorted(set(ref) | set(new)):
        if k not in ref or k not in new:
            bad.append(f"{k}: only in {'reference' if k in ref else 'new run'}")
            continue
        a, b = ref[k], new[k]
        if a.dtype.kind in "fc":
            same = a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
            if not same and tol > 0.0 and a.shape == b.shape:
                scale = max(float(np.nanmax(np.abs(a), initial=0.0)), 1e-300)
                diff = float(np.nanmax(np.abs(a - b), initial=0.0)) / scale
                same = diff <= tol and np.array_equal(np.isnan(a), np.isnan(b))
                if not same:
                    bad.append(f"{k}: differs by {diff:.1e} of its largest value")
                    continue
        else:
            same = a.shape == b.shape and bool(np.all(a == b))
        if not same:
            bad.append(f"{k}: differs")
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="NPZ")
    g.add_argument("--compare", metavar="NPZ")
    ap.add_argument("--tol", type=float, default=0.0,
                    help="with --compare: float arrays within this relative difference pass (a change of "
                         "the solvers' arithmetic; default 0: bit for bit)")
    args = ap.parse_args(argv)
    import nsgui
    print(f"nsgui from {Path(nsgui.__file__).parent}", file=sys.stderr)
    out = record()
    if args.save:
        np.savez_compressed(args.save, **out)
        print(f"{len(out)} arrays saved to {args.save}")
        return 0
    with np.load(args.compare) as f:
        ref = {k: f[k] for k in f.files}
    bad = compare(ref, out, args.tol)
    for line in bad:
        print(line)
    print(f"{len(ref) - len(bad)} of {len(ref)} arrays identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
