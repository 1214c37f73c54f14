"""Speed of controllers inside the compiled loop (issue 10).

    .venv/bin/python benchmarks/controllers.py [--repeat 5]

- the two-link arm of seed 004 (resources/scenes/two_link_tracking.json) under its switching
  tracking controller (`bno`, task-space Slotine–Li in every phase) against the same arm with no
  controller (the block removed: the arm falls onto the ground and its joint limits), in steps per
  second of stepping (goal: controlled ≥ 0.7 × uncontrolled);
- the loop time of one 5-s tracking cycle at h = 1e-4 (50,000 steps; goal ≤ 0.25 s).

Each figure is the best of --repeat runs (the machine is shared: the best is the least disturbed)
with the median beside it; stepping time only (summary["wall_time"]: no compilation, no rows kept).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import simulate  # noqa: E402
from nsgui.examples import example_path  # noqa: E402
from nsgui.scene import load_scene  # noqa: E402


def timings(scene, repeat):
    simulate(scene.with_values({"settings.duration": 0.01}), keep=False)  # load the kernel once
    out = []
    for _ in range(repeat):
        s = simulate(scene, keep=False).summary
        assert s["failure"] is None, s["failure"]
        out.append((s["wall_time"], s["steps"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    scene = load_scene(example_path("two_link_tracking")).with_values({"settings.duration": 5.0})
    free = scene.with_values({"controllers": []})
    rows = {}
    for label, sc in (("controlled (bno)", scene), ("uncontrolled", free)):
        t = timings(sc, args.repeat)
        best = min(w for w, _ in t)
        rows[label] = (best, statistics.median(w for w, _ in t), t[0][1])
    print(f"{'arm, one 5-s cycle, h = 1e-4':32} {'best loop s':>12} {'median s':>10} {'steps/s (best)':>15}")
    for label, (best, med, n) in rows.items():
        print(f"{label:32} {best:12.3f} {med:10.3f} {n / best:15,.0f}")
    c, u = rows["controlled (bno)"], rows["uncontrolled"]
    print(f"controlled / uncontrolled speed: {u[0] / c[0]:.2f} (goal ≥ 0.7); "
          f"loop time of the cycle: {c[0]:.3f} s (goal ≤ 0.25 s)")


if __name__ == "__main__":
    main()
