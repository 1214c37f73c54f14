"""Loop time of the event-driven integrator: the bouncing ball over 10 s (goal ≤ 5 ms), and the
other scenes it runs, against time stepping on the same row grid.

    python benchmarks/event_driven.py

Loop time: one Simulator.run call over the whole duration (the compiled loop with its rows, the
kernels already loaded), best of 7 runs.
"""

import sys

import time

from nsgui.engine import compile_scene, simulate
from nsgui.engine.simulator import Simulator
from nsgui.examples import example_path
from nsgui.scene import load_scene

CASES = (  # example, its edits, duration (s)
    ("bouncing_ball", {}, 10.0),
    ("bouncing_ball", {"contacts[0].restitution": 0.5}, 10.0),
    ("bouncing_ball", {"settings.dt": 1e-3}, 10.0),
    ("falling_rod", {}, 3.0),
    ("double_pendulum_wall", {}, 5.0),
    ("rocking_block", {"contacts[0].friction": 0.0}, 3.0),
)


def loop_time(scene, duration, repeat=7):
    model = compile_scene(scene)
    nsteps = int(round(duration / model.dt))
    Simulator(model).run(1)  # loads the kernels
    best = float("inf")
    for _ in range(repeat):
        sim = Simulator(model)
        t0 = time.perf_counter()
        sim.run(nsteps)
        best = min(best, time.perf_counter() - t0)
    return best, simulate(model, duration=duration)


def main():
    print(f"{'scene':<22} {'edits':<34} {'rows':>6} {'impacts':>7} {'event-driven':>13} {'time stepping':>14}")
    for name, edits, duration in CASES:
        scene = load_scene(example_path(name))
        if edits:
            scene = scene.with_values(edits)
        ed, res = loop_time(scene.with_values({"settings.integrator": "event_driven"}), duration)
        ts, _ = loop_time(scene, duration)
        label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in edits.items()) or "-"
        print(f"{name:<22} {label:<34} {res.summary['rows']:>6} {res.summary['impacts']:>7} "
              f"{ed * 1e3:>10.2f} ms {ts * 1e3:>11.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
