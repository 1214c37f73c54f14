"""Write rimless_wheel.json: McGeer's rimless wheel (issue 12 §1) on its periodic gait.

Run from the repository root: `.venv/bin/python resources/scenes/make_rimless_wheel.py`.
M = 1 kg at the hub, 8 massless spokes of 1 m with point feet, a slope of 0.08 rad, plastic sticking
strikes, the event-driven integrator. The scene is `nsgui.scene.walkers.rimless_wheel` (also the
editor's template): it starts just after a strike at the closed-form gait's post-impact rate.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from nsgui.scene import save_scene  # noqa: E402
from nsgui.scene.walkers import rimless_wheel  # noqa: E402


def main() -> None:
    save_scene(rimless_wheel(mass=1.0, leg=1.0, spokes=8, slope=0.08), HERE / "rimless_wheel.json")


if __name__ == "__main__":
    main()
