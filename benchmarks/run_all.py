"""Speed of nsgui's stepping loop on the example scenes, side by side with Siconos 4.4.

    .venv/bin/python benchmarks/run_all.py [--quick] [--only NAME[,NAME...]] [--repeat N] [--no-siconos]

For each example: nsgui steps/s of `Simulator.run(n)` (projection off, the scene's Moreau–Jean settings,
numba warmed up on a throwaway simulator first, best of --repeat fresh runs), and, when
`/usr/bin/python3 -c "import siconos"` works, Siconos's steps/s of its stepping loop measured in the
same run (benchmarks/siconos_scenes.py in a subprocess) and the ratio nsgui/Siconos. Prints a Markdown
table and writes it, with the machine description, to benchmarks/results.md (atomically).
--quick: one repeat and at most 1000 steps per example (both engines).
"""
import os

import single_blas  # noqa: F401,E402  (before numpy loads: BLAS on one thread)

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # benchmarks/ and the repo root (nsgui)

# numba's '@ is faster on contiguous arrays' notes from the engine are not benchmark output
warnings.filterwarnings("ignore", message=".*faster on contiguous arrays.*")

SICONOS_PY = "/usr/bin/python3"
RESULTS = os.path.join(HERE, "results.md")
QUICK_MAX_STEPS = 1000


def nsgui_available():
    try:
        from nsgui.scene import load_scene  # noqa: F401
        from nsgui.engine import Simulator, compile_scene  # noqa: F401
        import scene_params  # noqa: F401
        return True, ""
    except Exception as exc:  # missing module or broken import: report it, keep the Siconos side
        return False, f"{type(exc).__name__}: {exc}"


def siconos_available():
    try:
        out = subprocess.run([SICONOS_PY, "-c", "import siconos.kernel, siconos; print(siconos.__file__)"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    return out.returncode == 0, out.stderr.strip().splitlines()[-1] if out.returncode else ""


def time_nsgui(scene, nsteps, repeat, min_time=0.0):
    """Best wall time of Simulator.run(nsteps) over at least `repeat` fresh simulators (numba already
    warm), repeated (up to 50 runs) until `min_time` seconds of loop time are spent."""
    from nsgui.engine import Simulator, SimulationError, compile_scene
    model = compile_scene(scene)
    Simulator(model).run(min(10, nsteps))  # warm-up: numba compilation / cache load
    times = []
    while len(times) < repeat or (sum(times) < min_time and len(times) < 50):
        sim = Simulator(model)
        t0 = time.perf_counter()
        try:
            sim.run(nsteps)
        except SimulationError as exc:
            return dict(error=f"failed at step {sim.step_count}: {exc}")
        times.append(time.perf_counter() - t0)
    return dict(steps=nsteps, best_s=min(times), steps_per_s=nsteps / min(times), repeat=len(times))


def time_siconos(key, params, repeat, min_time=0.0):
    cmd = [SICONOS_PY, os.path.join(HERE, "siconos_scenes.py"), "--json", "--repeat", str(repeat),
           "--min-time", str(min_time), "--no-save",
           "--params", json.dumps({key: params}), key]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        msg = (out.stderr.strip().splitlines() or ["no message"])[-1]
        return dict(error=f"siconos_scenes.py failed: {msg}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return dict(nproc=os.cpu_count(), cpu=model, python=platform.python_version(), load=load)


def fmt(x, digits=0):
    return "—" if x is None else f"{x:,.{digits}f}"


def table(rows):
    out = ["| example | steps | nsgui steps/s | Siconos 4.4 steps/s | nsgui / Siconos |",
           "|---|---:|---:|---:|---:|"]
    for r in rows:
        ns, si = r["nsgui"], r["siconos"]
        ns_txt = fmt(ns.get("steps_per_s")) if "steps_per_s" in ns else ns.get("error", "not available")
        si_txt = fmt(si.get("steps_per_s")) if "steps_per_s" in si else si.get("error", "not available")
        ratio = ns["steps_per_s"] / si["steps_per_s"] if "steps_per_s" in ns and "steps_per_s" in si else None
        steps = ns.get("steps") or si.get("steps")
        if "steps" in ns and "steps" in si and ns["steps"] != si["steps"]:
            steps = f"{ns['steps']} / {si['steps']}"
        out.append(f"| {r['key']} | {steps if steps is not None else '—'} | {ns_txt} | {si_txt} | "
                   f"{'—' if ratio is None else f'{ratio:.2f}'} |")
    return "\n".join(out)


def write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".results.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 repeat, at most %d steps per example" % QUICK_MAX_STEPS)
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="example(s) to run (repeatable, or comma-separated)")
    ap.add_argument("--repeat", type=int, default=None, help="timed runs per engine and example (default 5 nsgui, 3 Siconos)")
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="per engine and example, repeat (up to 50 runs) until this much loop time is spent (default 1 s)")
    ap.add_argument("--no-siconos", action="store_true", help="skip the Siconos side")
    ap.add_argument("--output", default=RESULTS, help="Markdown file written with the table (default benchmarks/results.md)")
    args = ap.parse_args(argv)

    ok_ns, why_ns = nsgui_available()
    ok_si, why_si = (False, "skipped (--no-siconos)") if args.no_siconos else siconos_available()
    if ok_ns:
        from scene_params import EXAMPLES, load_example, siconos_params
        keys = list(EXAMPLES)
    else:
        print(f"nsgui engine not available: {why_ns}", file=sys.stderr)
        keys = ["bouncing_ball", "falling_rod", "sliding_box", "double_pendulum",
                "bead_column_10", "bead_column_50", "bead_column_100"]
    only = [k for item in args.only for k in item.split(",") if k]
    bad = [k for k in only if k not in keys]
    if bad:
        print(f"unknown example(s): {', '.join(bad)}; known: {', '.join(keys)}", file=sys.stderr)
        return 2
    keys = only or keys
    if not ok_si:
        print(f"Siconos not available with {SICONOS_PY}: {why_si}", file=sys.stderr)
    rep_ns = args.repeat or (1 if args.quick else 5)
    rep_si = args.repeat or (1 if args.quick else 3)
    min_time = 0.0 if args.quick else args.min_time

    rows = []
    for key in keys:
        row = dict(key=key, nsgui=dict(error="not available"), siconos=dict(error="not available"))
        params = {}
        if ok_ns:
            try:
                scene = load_example(key)
                n = int(round(scene.settings.duration / scene.settings.dt))
                if args.quick and n > QUICK_MAX_STEPS:
                    n = QUICK_MAX_STEPS
                    scene.settings.duration = n * scene.settings.dt
                params = siconos_params(key, scene)
                row["nsgui"] = time_nsgui(scene, n, rep_ns, min_time)
            except Exception as exc:  # a broken example must not hide the others
                row["nsgui"] = dict(error=f"{type(exc).__name__}: {exc}")
        elif args.quick:
            params = {"T": QUICK_MAX_STEPS * (0.005 if key == "bouncing_ball" else
                                              5e-4 if key == "double_pendulum" else 1e-3)}
        if ok_si:
            row["siconos"] = time_siconos(key, params, rep_si, min_time)
        rows.append(row)
        print(f"{key}: nsgui {fmt(row['nsgui'].get('steps_per_s'))} steps/s, "
              f"Siconos {fmt(row['siconos'].get('steps_per_s'))} steps/s", file=sys.stderr, flush=True)

    md = table(rows)
    print(md)
    m = machine()
    text = "\n".join([
        "# Benchmark results (generated by benchmarks/run_all.py)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {m['nproc']} CPU(s), {m['cpu']}, "
        f"Python {m['python']}, 1-min load average at the end {m['load']:.2f}"
        + (" (--quick: 1 repeat, at most %d steps)" % QUICK_MAX_STEPS if args.quick else
           f" (best of at least {rep_ns} nsgui / {rep_si} Siconos runs, repeated until {min_time:g} s"
           " of loop time)") + ".",
        "Stepping loop only: nsgui `Simulator.run(n)` with projection off; Siconos "
        "`while s.hasNextEvent(): s.computeOneStep(); s.nextStep()`. See docs/benchmarks.md.",
        "",
        md,
        "",
    ])
    write_atomic(os.path.abspath(args.output), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
