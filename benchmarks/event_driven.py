"""Loop time of the event-driven integrator: the bouncing ball over 10 s (goal ≤ 5 ms), and the
other scenes it runs, against time stepping on the same row grid.

    python benchmarks/event_driven.py

Loop time: one Simulator.run call over the whole duration (the compiled loop with its rows, the
kernels already loaded), best of 7 runs; wall (perf_counter) and CPU of this process (process_time:
what other processes on a loaded machine do not inflate). Quote both with the load (`uptime`).
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
    """(best wall, best CPU) seconds of the run, and the run's result."""
    model = compile_scene(scene)
    nsteps = int(round(duration / model.dt))
    Simulator(model).run(1)  # loads the kernels
    wall = cpu = float("inf")
    for _ in range(repeat):
        sim = Simulator(model)
        t0, c0 = time.perf_counter(), time.process_time()
        sim.run(nsteps)
        c1, t1 = time.process_time(), time.perf_counter()
        wall, cpu = min(wall, t1 - t0), min(cpu, c1 - c0)
    return (wall, cpu), simulate(model, duration=duration)


def main():
    print(f"{'scene':<22} {'edits':<28} {'rows':>6} {'impacts':>7} {'event-driven wall / CPU':>24} "
          f"{'time stepping wall / CPU':>25}")
    for name, edits, duration in CASES:
        scene = load_scene(example_path(name))
        if edits:
            scene = scene.with_values(edits)
        ed, res = loop_time(scene.with_values({"settings.integrator": "event_driven"}), duration)
        ts, _ = loop_time(scene, duration)
        label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in edits.items()) or "-"
        print(f"{name:<22} {label:<28} {res.summary['rows']:>6} {res.summary['impacts']:>7} "
              f"{ed[0] * 1e3:>11.2f} / {ed[1] * 1e3:6.2f} ms {ts[0] * 1e3:>12.2f} / {ts[1] * 1e3:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
