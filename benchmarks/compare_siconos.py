"""Step-by-step comparison of nsgui's Moreau–Jean scheme with Siconos 4.4's MoreauJeanOSI.

    .venv/bin/python benchmarks/compare_siconos.py [--all] [--threshold 1e-9] [EXAMPLE ...]

Runs both on the same scene (projection off, θ = 0.5) and prints, per example, the max difference of
q and of v over the run, and the first step where either differs by more than --threshold. The
nsgui scheme is meant to reproduce MoreauJeanOSI to round-off (the time-stepping digest §3, docs/numerics.md).
For the double pendulum (non-constant mass) Siconos's Newton loop may take a second iteration, so
it is also run with the Newton loop capped at one iteration (the linearly implicit scheme).
Siconos runs in a subprocess of /usr/bin/python3 (benchmarks/siconos_scenes.py).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # benchmarks/ and the repo root (nsgui)
from scene_params import EXAMPLES, load_example, siconos_params  # noqa: E402

# numba's '@ is faster on contiguous arrays' notes from the engine are not benchmark output
warnings.filterwarnings("ignore", message=".*faster on contiguous arrays.*")

SICONOS_PY = "/usr/bin/python3"
DEFAULT_EXAMPLES = ["bouncing_ball", "falling_rod", "double_pendulum"]


def nsgui_trajectory(scene):
    """Rows (t, q, v) per step, row 0 the initial state, with the plain scheme of the scene."""
    from nsgui.engine import Simulator, compile_scene
    model = compile_scene(scene)
    sim = Simulator(model)
    n = int(round(scene.settings.duration / scene.settings.dt))
    first = np.concatenate([[0.0], sim.q, sim.v])
    rows = sim.run(n)[:, :1 + 2 * model.nq]
    return np.vstack([first, rows]), model.coord_names


def siconos_trajectory(key, params, workdir):
    cmd = [SICONOS_PY, os.path.join(HERE, "siconos_scenes.py"), "--json", "--repeat", "0", "--save", workdir,
           "--params", json.dumps({key: params}), key]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"siconos_scenes.py failed for {key}:\n{out.stderr.strip()}")
    info = json.loads(out.stdout.strip().splitlines()[-1])
    return np.load(info["trajectory"]), info


def compare(a, b, nq, threshold):
    """Max |Δq|, max |Δv|, and the first row where |Δ| > threshold (or None)."""
    n = min(len(a), len(b))
    dt_max = float(np.max(np.abs(a[:n, 0] - b[:n, 0])))
    dq = np.abs(a[:n, 1:1 + nq] - b[:n, 1:1 + nq])
    dv = np.abs(a[:n, 1 + nq:1 + 2 * nq] - b[:n, 1 + nq:1 + 2 * nq])
    worst = np.maximum(dq.max(axis=1), dv.max(axis=1))
    over = np.nonzero(worst > threshold)[0]
    first = int(over[0]) if over.size else None
    return dict(rows=n, len_nsgui=len(a), len_siconos=len(b), max_dt=dt_max, max_dq=float(dq.max()),
                max_dv=float(dv.max()), argmax_dq=int(dq.max(axis=1).argmax()),
                argmax_dv=int(dv.max(axis=1).argmax()), first_over=first,
                dq_per_coord=dq.max(axis=0).tolist(), dv_per_coord=dv.max(axis=0).tolist())


def describe(key, res, a, b, names, nq):
    lines = [f"max |dq| = {res['max_dq']:.3e} (step {res['argmax_dq']}, t = {a[res['argmax_dq'], 0]:.4f}),  "
             f"max |dv| = {res['max_dv']:.3e} (step {res['argmax_dv']}, t = {a[res['argmax_dv'], 0]:.4f})"]
    lines.append("  per coordinate |dq|: " + ", ".join(f"{n} {d:.2e}" for n, d in zip(names, res["dq_per_coord"])))
    lines.append("  per coordinate |dv|: " + ", ".join(f"{n} {d:.2e}" for n, d in zip(names, res["dv_per_coord"])))
    k = res["first_over"]
    if k is None:
        lines.append("  no step differs by more than the threshold")
    else:
        lines.append(f"  first step over threshold: {k} (t = {a[k, 0]:.4f})")
        for label, r in (("nsgui", a), ("Siconos", b)):
            prev = r[k - 1] if k > 0 else r[k]
            lines.append(f"    {label:8s} q {np.array2string(prev[1:1 + nq], precision=12)} -> "
                         f"{np.array2string(r[k, 1:1 + nq], precision=12)}  v -> "
                         f"{np.array2string(r[k, 1 + nq:1 + 2 * nq], precision=12)}")
    if res["len_nsgui"] != res["len_siconos"] or res["max_dt"] > 1e-9:
        lines.append(f"  time grids differ: {res['len_nsgui']} vs {res['len_siconos']} rows, max |dt| {res['max_dt']:.2e}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("examples", nargs="*", help="default: " + ", ".join(DEFAULT_EXAMPLES))
    ap.add_argument("--all", action="store_true", help="every benchmark example")
    ap.add_argument("--threshold", type=float, default=1e-9, help="|difference| reported as a departure")
    ap.add_argument("--theta", type=float, default=0.5)
    ap.add_argument("--strict", action="store_true", help="exit with status 1 if any example departs")
    args = ap.parse_args(argv)
    keys = list(EXAMPLES) if args.all else (args.examples or DEFAULT_EXAMPLES)
    bad = [k for k in keys if k not in EXAMPLES]
    if bad:
        print(f"unknown example(s): {', '.join(bad)}; known: {', '.join(EXAMPLES)}", file=sys.stderr)
        return 2
    if subprocess.run([SICONOS_PY, "-c", "import siconos.kernel"], capture_output=True).returncode != 0:
        print(f"Siconos is not importable with {SICONOS_PY} (apt-get install python3-siconos)", file=sys.stderr)
        return 2
    departed = []
    with tempfile.TemporaryDirectory(prefix="nsgui_compare_") as work:
        for key in keys:
            scene = load_example(key)
            scene.settings.theta = args.theta
            params = siconos_params(key, scene)
            a, names = nsgui_trajectory(scene)
            nq = len(names)
            variants = [("Siconos default Newton loop", params)]
            if key == "double_pendulum":
                variants.append(("Siconos Newton loop capped at 1 iteration",
                                 dict(params, newton_max_iterations=1)))
            for label, p in variants:
                b, info = siconos_trajectory(key, p, work)
                res = compare(a, b, nq, args.threshold)
                print(f"## {key} vs {label} (Newton iterations max {info.get('newton_max')}, "
                      f"mean {info.get('newton_mean', 0):.4f})")
                print(describe(key, res, a, b, names, nq), flush=True)
                if res["first_over"] is not None and label.startswith("Siconos default"):
                    departed.append(key)
    if departed:
        print(f"departing from Siconos by more than {args.threshold:g}: {', '.join(departed)}")
    return 1 if (args.strict and departed) else 0


if __name__ == "__main__":
    sys.exit(main())
