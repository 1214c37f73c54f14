"""Cost per step against the number of contacts: bead columns of N = 10 ... 1000 beads.

    .venv/bin/python benchmarks/scaling.py [--sizes 10,50,100,200,500,1000] [--steps 2000]
                                          [--start rest|drop] [--plain] [--repeat 3] [--record all|positions]

Each column is built in memory by resources/scenes/make_bead_columns.py, the generator of the
bead_column_N scene files (N beads of 1 dof on vertical prismatic joints, the ground under bead 0,
bead i+1 on bead i, e = 0.5, h = 1e-3, projection on as in the files; --plain: off, the standard
scheme, whose O(h) penetrations chatter and grow on a column stacked at round-off gaps). `--start rest` (default) stacks the beads touching and at rest, so
that every one of the N contacts is in every step's problem (the largest banded problem of that N);
`--start drop` drops them from the scenes' 1 mm gaps. Times `Simulator.run(steps)` with the rows
recorded (every signal, or with --record positions t and q into a buffer allocated before the timing, as
benchmarks/peers.py records them: at N = 1000 every signal is 10,000 columns a step, fresh memory whose
first writes cost as much as the step) (numba warmed up on a throwaway simulator first), best of --repeat fresh runs, and prints
µs/step in wall and process CPU time (time.process_time: what a loaded machine inflates less), the exponent fitted to log(cost) against log(N) over all sizes, the local exponents between
neighbouring sizes, and the exactness figures of the last run: the ground force against N m g and the
largest overlap.
"""
import os

import single_blas  # noqa: F401,E402  (before numpy loads: BLAS on one thread)

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import runpy  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT]  # nsgui from this checkout

_gen = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_bead_columns.py"))
bead_column, RADIUS, MASS = _gen["bead_column"], _gen["RADIUS"], _gen["MASS"]
G = 9.81


def column(n, start, projection):
    scene = bead_column(n, bottom=RADIUS, pitch=2 * RADIUS) if start == "rest" else bead_column(n)
    return scene if projection else scene.with_values({"settings.projection": False})


def time_column(n, steps, start, projection, repeat, record="all"):
    from nsgui.engine import Simulator, compile_scene
    model = compile_scene(column(n, start, projection))
    names = model.signal_names
    signals = None if record == "all" else ["t"] + [s for s in names if s.startswith("q.")]
    Simulator(model).run(5, signals=signals)  # kernels loaded
    best, cpu, sim, overlap = float("inf"), float("inf"), None, 0.0
    for _ in range(repeat):
        sim = Simulator(model)
        out = None if signals is None else np.zeros((steps, len(signals)))
        t0, c0 = time.perf_counter(), time.process_time()
        sim.run(steps, out=out, signals=signals)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
        overlap = max(overlap, sim.stats["max_penetration"])  # (the smallest gap of every step)
    fn = sim.signals()["contact.bead0_ground.fn"]
    return best / steps * 1e6, cpu / steps * 1e6, fn, overlap


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,50,100,200,500,1000")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--start", choices=("rest", "drop"), default="rest")
    ap.add_argument("--plain", action="store_true", help="projection off (the standard scheme)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--record", choices=("all", "positions"), default="all",
                    help="every signal (default) or t and q (what peers.py records)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average before: {os.getloadavg()}")
    print(f"start {args.start}, projection {'off' if args.plain else 'on'}, {args.steps} steps, "
          f"best of {args.repeat}, recording {args.record}")
    print("| N | µs/step (wall) | µs/step (CPU) | steps/s (wall) | ground force / N m g − 1 | max overlap (m) |")
    print("|---:|---:|---:|---:|---:|---:|")
    wall, cpu = [], []
    for n in sizes:
        us, cus, fn, overlap = time_column(n, args.steps, args.start, not args.plain, args.repeat, args.record)
        wall.append(us)
        cpu.append(cus)
        print(f"| {n} | {us:.1f} | {cus:.1f} | {1e6 / us:,.0f} | {fn / (n * MASS * G) - 1:.1e} | {overlap:.1e} |",
              flush=True)
    for label, cost in (("wall", wall), ("CPU", cpu)):
        x, y = np.log(sizes), np.log(cost)
        slope = np.polyfit(x, y, 1)[0]
        local = ", ".join(f"{a}→{b}: {(y[i + 1] - y[i]) / (x[i + 1] - x[i]):.2f}"
                          for i, (a, b) in enumerate(zip(sizes, sizes[1:])))
        print(f"fitted exponent, {label} (cost ∝ N^p over {sizes[0]}..{sizes[-1]}): p = {slope:.2f}; local: {local}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
