"""Write biped_standing.json (and biped.json): the 7-link planar biped of nsgui/scene/planar_biped.py
at the builders' defaults (docs/walking.md §3).

Run from the repository root: `.venv/bin/python resources/scenes/make_bipeds.py`. The tests compare
each file with its builder at its defaults.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from nsgui.scene import save_scene  # noqa: E402
from nsgui.scene.planar_biped import standing_biped7, walking_biped  # noqa: E402

SCENES = {"biped_standing.json": standing_biped7, "biped.json": walking_biped}

if __name__ == "__main__":
    for name, build in SCENES.items():
        save_scene(build(), HERE / name)
        print("wrote", HERE / name)
