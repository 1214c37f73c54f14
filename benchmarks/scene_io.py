"""Scene reading and writing speed: `load_scene` (parse, validate, canonical form, dataclasses) and
`dumps_scene` of an example, best CPU time per call (process time, so that other processes on the
machine count less than in wall time).

    .venv/bin/python benchmarks/scene_io.py                        # bead_column_100
    .venv/bin/python benchmarks/scene_io.py --scene two_link_arm --repeat 60
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nsgui.scene import dumps_scene, load_scene  # noqa: E402


def best_ms(fn, number: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - t) / number)
    return min(times) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="bead_column_100", help="example name (resources/scenes/NAME.json)")
    ap.add_argument("--number", type=int, default=10, help="calls per timing")
    ap.add_argument("--repeat", type=int, default=40, help="timings; the best is shown")
    args = ap.parse_args()
    path = os.path.join(ROOT, "resources", "scenes", f"{args.scene}.json")
    scene = load_scene(path)
    load = best_ms(lambda: load_scene(path), args.number, args.repeat)
    dump = best_ms(lambda: dumps_scene(scene), args.number, args.repeat)
    print(f"{args.scene}: load_scene {load:.2f} ms, dumps_scene {dump:.2f} ms (best CPU time of {args.repeat} x "
          f"{args.number} calls)")


if __name__ == "__main__":
    main()
