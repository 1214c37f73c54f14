"""The passive walkers' figures in docs/walking.md §1, re-measured (event-driven, and time stepping).

    PYTHONPATH=. .venv/bin/python benchmarks/walker_figures.py
"""
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import simulate  # noqa: E402
from nsgui.scene.compass_gait import CompassGait  # noqa: E402
from nsgui.scene.walkers import compass_gait, rimless_gait  # noqa: E402
from tests.engine.test_compass_gait import strikes  # noqa: E402
from tests.engine.test_rimless_wheel import parameters, stances  # noqa: E402
from tests.helpers import example  # noqa: E402


def rimless():
    scene = example("rimless_wheel")
    t0 = time.perf_counter()
    result = simulate(scene, duration=20.0)
    wall = time.perf_counter() - t0
    m, inertia, L, n, gamma, _feet = parameters(scene)
    _rate, r, _k = rimless_gait(m, L, n, gamma, inertia)
    ev, st = stances(scene, result)
    ratios = np.sqrt((st[1:, 0] - st[:-1, 2]) / (st[:-1, 0] - st[:-1, 2]))
    times = np.array([e.t for e in ev])
    drop = m * 9.81 * 2 * L * math.sin(math.pi / n) * math.sin(gamma)
    print(f"| rimless wheel, 20 s event-driven ({wall:.1f} s wall) | {len(ev)} strikes, step {np.diff(times).mean():.9f} s, "
          f"speed {2 * L * math.sin(math.pi / n) / np.diff(times).mean():.6f} m/s; max dev of w+/w- from r {np.abs(ratios - r).max():.1e}, "
          f"r - cos 2a {r - math.cos(2 * math.pi / n):.2e}; loss per strike {drop:.10f} J, "
          f"max dev of loss from drop {np.abs(st[:-1, 0] - st[1:, 0] - drop).max():.1e} J |")


def compass():
    model = CompassGait()
    s, period, residual = model.fixed_point()
    _p, _t, x, _sol = model.step(s)
    step = math.sin(x[0] - model.slope) - math.sin(x[1] - model.slope)
    _x, lift, (pn, pt) = model.strike(x)
    print(f"| compass gait, two-angle model | s* = ({s[0]:.9f}, {s[1]:.9f}, {s[2]:.9f}), residual {residual:.0e}, "
          f"step {period:.9f} s, length {step:.9f} m, speed {step / period:.6f} m/s; trailing foot leaves at "
          f"{lift:.4f} m/s; strike percussion, tangential over normal {abs(pt / pn):.3f} |")
    for integrator, dt, duration in (("event_driven", 1e-3, 31 * period), ("time_stepping", 1e-3, 23.0),
                                     ("time_stepping", 1e-4, 23.0)):
        t0 = time.perf_counter()
        result = simulate(compass_gait(integrator=integrator), dt=dt, duration=duration)
        wall = time.perf_counter() - t0
        impacts = [e for e in result.events if e.kind == "impact"]
        # a strike is an impact of the other foot (time stepping at h = 1e-3 logs some twice)
        result.events = [e for k, e in enumerate(impacts) if k == 0 or e.name != impacts[k - 1].name]
        times, which, where, energy, events = strikes(result)
        impacts = len(impacts)
        lengths = np.hypot(*np.diff(where, axis=0).T)
        loss = energy[:-1, 0] - energy[1:, 0]
        drop = 20.0 * 9.81 * -np.diff(where[:, 1])
        print(f"| compass gait, {integrator} h = {dt:g}, {duration:.1f} s ({wall:.1f} s wall) | {impacts} impacts, "
              f"{len(times)} strikes, "
              f"feet alternate: {bool(np.all(which[1:] != which[:-1]))}, step time max dev "
              f"{np.abs(np.diff(times) - period).max():.1e} s, length max dev {np.abs(lengths - step).max():.1e} m, "
              f"max dev of loss from drop {np.abs(loss - drop).max():.1e} J |")


if __name__ == "__main__":
    print("| case | figures |\n|---|---|")
    rimless()
    compass()
