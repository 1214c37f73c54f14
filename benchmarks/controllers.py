"""Speed of controllers inside the compiled loop (issue 10).

    .venv/bin/python benchmarks/controllers.py [--repeat 5]

- the two-link arm of seed 004 (resources/scenes/two_link_tracking.json) under its switching
  tracking controller (`bno`, task-space Slotine–Li in every phase) against the same arm with no
  controller (the block removed: the arm falls onto the ground and its joint limits), in steps per
  second of stepping (goal: controlled ≥ 0.7 × uncontrolled);
- the loop time of one 5-s tracking cycle at h = 1e-4 (50,000 steps; goal ≤ 0.25 s).

Each figure is the process CPU time of Simulator.run over the cycle with its rows recorded (the
machine is shared: CPU time is what the run costs, wall time also counts the others' load), best of
--repeat runs with the median beside it; compilation and kernel loading excluded.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import Simulator, compile_scene  # noqa: E402
from nsgui.examples import example_path  # noqa: E402
from nsgui.scene import load_scene  # noqa: E402


def timings(scene, repeat):
    """[(wall s, CPU s)] of stepping one cycle with rows recorded, each on a fresh simulator."""
    model = compile_scene(scene)
    n = int(round(scene.settings.duration / scene.settings.dt))
    out = []
    for _ in range(repeat):
        sim = Simulator(model)
        sim.run(0)  # loads the compiled kernel
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run(n)
        out.append((time.perf_counter() - w0, time.process_time() - c0))
    return out, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    scene = load_scene(example_path("two_link_tracking")).with_values({"settings.duration": 5.0})
    free = scene.with_values({"controllers": []})
    rows = {}
    for label, sc in (("controlled (bno)", scene), ("uncontrolled", free)):
        t, n = timings(sc, args.repeat)
        rows[label] = (min(c for _, c in t), statistics.median(c for _, c in t), min(w for w, _ in t), n)
    print(f"{'arm, one 5-s cycle, h = 1e-4':28} {'CPU s best':>11} {'median':>8} {'wall s best':>12} "
          f"{'steps/s (CPU)':>14}")
    for label, (best, med, wall, n) in rows.items():
        print(f"{label:28} {best:11.3f} {med:8.3f} {wall:12.3f} {n / best:14,.0f}")
    c, u = rows["controlled (bno)"], rows["uncontrolled"]
    print(f"controlled / uncontrolled speed: {u[0] / c[0]:.2f} (goal ≥ 0.7); "
          f"loop time of the cycle: {c[0]:.3f} s of CPU (goal ≤ 0.25 s)")

if __name__ == "__main__":
    main()
