"""Speed of the walking biped headless (issue 12 §3; goal: ≥ 20× real time at its default step).

    .venv/bin/python benchmarks/biped.py [--repeat 5] [--gaits]

resources/scenes/biped.json (the 7-link biped under SIMBICON, h = 2 ms, 20 s with its push at 10 s)
and biped_standing.json (law 6.10, h = 1 ms, 3 s): simulated seconds per second of stepping with the
rows recorded, as the window and `nsgui run` do. Each figure is the process CPU time of Simulator.run
over the whole scene (the machine is shared: CPU time is what the run costs; wall time, also shown,
counts the others' load), best of --repeat fresh simulators with the median beside it; compilation,
kernel loading and the push's first call are excluded by a warm-up run.

--gaits also prints the gait figures of docs/walking.md §3 (nsgui/scene/planar_biped.walking_biped):
steps, distance, mean speed and fall from the walker metrics, and the spread of the stride speeds
over the last 5 s, for flat ground, the scene's push, other pushes and ±2° slopes.
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
from nsgui.scene.planar_biped import walking_biped  # noqa: E402

GAITS = [("flat ground, no push", dict(push=(0.0, 0.0))), ("biped.json: 30 N·s forward at 10 s", {}),
         ("40 N·s forward", dict(push=(40.0, 0.0))), ("40 N·s backward", dict(push=(-40.0, 0.0))),
         ("2° uphill", dict(slope_deg=2.0, push=(0.0, 0.0))), ("2° downhill", dict(slope_deg=-2.0, push=(0.0, 0.0))),
         ("flat, h = 1 ms", dict(push=(0.0, 0.0), dt=1e-3))]


def gait_row(label, params):
    import numpy as np
    from nsgui.engine.simulate import simulate
    r = simulate(walking_biped(**params))
    w, sig = r.summary["walker"], r.signals
    t, x = sig["t"], sig["q.base.x"]
    strikes = np.flatnonzero(np.diff(sig["controller.walk.steps"]) > 0) + 1
    strikes = strikes[t[strikes] > t[-1] - 5.0]
    a, b = strikes[:-2:2], strikes[2::2]
    v = (x[b] - x[a]) / (t[b] - t[a])
    spread = f"{100 * np.ptp(v) / abs(v.mean()):.2f} %" if len(v) > 1 else "—"
    return (f"| {label} | {w['steps']} | {w['distance']:.2f} | {w['mean_speed']:.3f} | "
            f"{v.mean() if len(v) else float('nan'):.3f} | {spread} | {'yes' if w['fallen'] else 'no'} | "
            f"{r.summary['energy_residual']:.2g} |")


def timings(scene, repeat):
    """[(wall s, CPU s)] of stepping the whole scene with rows recorded, each on a fresh simulator."""
    model = compile_scene(scene)
    n = int(round(scene.settings.duration / scene.settings.dt))
    Simulator(model).run(n)  # warm-up: kernel loading and the first calls of the push's Python path
    out = []
    for _ in range(repeat):
        sim = Simulator(model)
        sim.run(0)
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run(n)
        out.append((time.perf_counter() - w0, time.process_time() - c0))
    return out, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gaits", action="store_true", help="also the gait figures of docs/walking.md §3")
    args = ap.parse_args()
    print("| scene | h (s) | simulated (s) | steps/s (CPU, best / median) | × real time (CPU best) | × real time (wall best) |")
    print("|---|---|---|---|---|---|")
    for name in ("biped", "biped_standing"):
        scene = load_scene(example_path(name))
        t, n = timings(scene, args.repeat)
        cpu = [c for _, c in t]
        wall = [w for w, _ in t]
        T = scene.settings.duration
        print(f"| {name} | {scene.settings.dt:g} | {T:g} | {n / min(cpu):,.0f} / {n / statistics.median(cpu):,.0f} | "
              f"{T / min(cpu):.1f} | {T / min(wall):.1f} |")
    if args.gaits:
        print("\n| 20 s walk | steps | distance (m) | mean speed (m/s) | stride speed, last 5 s (m/s) | "
              "its spread | fallen | max energy residual (J) |")
        print("|---|---|---|---|---|---|---|---|")
        for label, params in GAITS:
            print(gait_row(label, params))


if __name__ == "__main__":
    main()
