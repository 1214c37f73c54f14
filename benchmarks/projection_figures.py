"""The figures of issue 11 §1 (position projection), re-measured: docs/numerics.md, Projection.

    PYTHONPATH=. .venv/bin/python benchmarks/projection_figures.py

Energy rise with e = 1 (rod, ball, 10 beads), the slide and impacts of a point mass pivoting on one
foot (μ = 2), the impacts of the standing biped with projection, and the rimless wheel's rolling speed
against its closed form (the oracles of tests/engine/test_projection.py).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import codes  # noqa: E402
from tests.engine.test_projection import (LEG, issue11_wheel, measured_speed, one_foot,  # noqa: E402
    rimless_wheel_speed)
from tests.helpers import Run, example, with_restitution  # noqa: E402


def energy_rise(name, h, duration):
    run = Run(with_restitution(name, 1.0), dt=h, duration=duration, projection=True)
    return 100 * (run.E.max() - run.E[0]) / abs(run.E[0])


def main():
    print("| case | figure |\n|---|---|")
    for name, h, duration in (("falling_rod", 1e-3, 100.0), ("bouncing_ball", 0.05, 20.0),
                              ("bouncing_ball", 0.25, 20.0), ("bead_column_10", 0.1, 20.0)):
        print(f"| {name}, e = 1, h = {h}, {duration:g} s | energy rise {energy_rise(name, h, duration):+.2f} % |")
    for projection in (False, True):
        for tilt in (0.05, 0.2):
            run = Run(one_foot(tilt, projection=projection))
            foot_x = run.Q[:, 0] + LEG * np.sin(run.Q[:, 2])
            impacts = int((run.status[:, 0] == codes.IMPACT).sum())
            print(f"| one foot, tilt {tilt}, projection {projection}, 0.4 s | slide {1e3 * np.ptp(foot_x):.4f} mm, "
                  f"{impacts} impacts |")
    run = Run(example("biped_point_feet"), projection=True)
    print(f"| biped_point_feet, projection, 3 s | {len(run.impact_rows())} impacts in {len(run.t) - 1} steps |")
    scene = issue11_wheel()   # issue 11's wheel, under time stepping
    exact = rimless_wheel_speed(scene)
    for projection in (False, True):
        for h in (1e-3, 5e-3):
            run = Run(scene, dt=h, duration=6.0, projection=projection)
            speed, strikes = measured_speed(run)
            print(f"| rimless wheel, h = {h}, projection {projection} | speed {100 * (speed / exact - 1):+.2f} % "
                  f"(closed form {exact:.5f} m/s), {strikes} impacts after 1 s |")


if __name__ == "__main__":
    main()
