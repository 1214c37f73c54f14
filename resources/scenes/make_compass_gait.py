"""Write compass_gait.json: the passive compass gait of Goswami et al. (issue 12 §1) on its periodic gait.

Run from the repository root: `.venv/bin/python resources/scenes/make_compass_gait.py`.
mh = 10 kg at the hip, m = 5 kg on each leg at a = 0.5 m from the foot, legs of 1 m, g = 9.81, a slope
of 3°, point feet with plastic sticking strikes, each foot's contact on only once ahead of the other.
The scene is `nsgui.scene.walkers.compass_gait` (also the editor's template). It starts just after a
strike at the fixed point of the step map, found by Newton on P(s) − s = 0 (central-difference
Jacobian) with the two-angle model of `nsgui.scene.compass_gait`; this prints it.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from nsgui.scene import save_scene  # noqa: E402
from nsgui.scene.compass_gait import CompassGait  # noqa: E402
from nsgui.scene.walkers import compass_gait  # noqa: E402

PARAMETERS = dict(hip_mass=10.0, leg_mass=5.0, slope_deg=3.0, a=0.5, leg=1.0)


def main() -> None:
    p = PARAMETERS
    model = CompassGait(hip_mass=p["hip_mass"], leg_mass=p["leg_mass"], a=p["a"], leg=p["leg"],
                        slope=math.radians(p["slope_deg"]))
    s, period, residual = model.fixed_point()
    print(f"fixed point just after a strike: theta1 = {s[0]:.12f} rad, dtheta1 = {s[1]:.12f} rad/s, "
          f"dtheta2 = {s[2]:.12f} rad/s; step {period:.12f} s, |P(s) - s| = {residual:.1e}")
    save_scene(compass_gait(**p), HERE / "compass_gait.json")


if __name__ == "__main__":
    main()
