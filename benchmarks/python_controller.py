"""Speed of a controller written in Python (a `python` block, issue 10 item 6).

    .venv/bin/python benchmarks/python_controller.py [--repeat 5]

The pendulum swing-up example (resources/examples/controllers/pendulum_swing_up.json, its
EnergyPump law) for 10 s at h = 1 ms, in steps per second of stepping, against the same pendulum
without the block: at the example's period (10 ms: one Python call and one kernel call per 10
steps) and sampled every step (period null: one of each per step). CPU time of Simulator.run, best
of --repeat runs with the median beside it; compilation and kernel loading excluded.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import Simulator, compile_scene  # noqa: E402
from nsgui.engine.control.python_block import allow_code  # noqa: E402
from nsgui.scene import load_scene, scene_from_dict, scene_to_dict  # noqa: E402

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "resources", "examples",
                       "controllers", "pendulum_swing_up.json")


def cpu_seconds(scene, repeat):
    model = compile_scene(scene)
    n = int(round(scene.settings.duration / scene.settings.dt))
    out = []
    for _ in range(repeat):
        sim = Simulator(model)
        sim.run(0)
        c0 = time.process_time()
        sim.run(n)
        out.append(time.process_time() - c0)
    return out, n


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    allow_code(os.path.dirname(EXAMPLE))
    d = scene_to_dict(load_scene(EXAMPLE))
    every_step = dict(d, controllers=[dict(d["controllers"][0], period=None)])
    variants = (("no controller", dict(d, controllers=[])), ("python block, period 10 ms", d),
                ("python block, every step", every_step))
    for label, sd in variants:
        times, n = cpu_seconds(scene_from_dict(sd), args.repeat)
        print(f"{label:28s} {n / min(times):10,.0f} steps/s  (median {n / statistics.median(times):,.0f})")


if __name__ == "__main__":
    main()
