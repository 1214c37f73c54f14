"""Peak memory of a long headless run: `nsgui run SCENE --out FILE` in a child process, its peak
resident set size (getrusage of the waited child), wall time and file size.

    .venv/bin/python benchmarks/headless_memory.py                      # 1e7 steps of bead_column_10 -> .h5
    .venv/bin/python benchmarks/headless_memory.py --steps 1e6 --scene bouncing_ball --format csv

The issue's goal: 1e7 steps of bead_column_10 with --out x.h5 under 300 MB peak RSS (before the
rows were streamed to the file, the ball alone peaked at 5.2 GB for 1e7 steps).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="bead_column_10", help="example name (resources/scenes/NAME.json)")
    ap.add_argument("--steps", type=float, default=1e7)
    ap.add_argument("--format", choices=["h5", "csv"], default="h5")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--dir", default=None, help="folder of the output file (default: a temporary one)")
    args = ap.parse_args()
    scene = os.path.join(ROOT, "resources", "scenes", f"{args.scene}.json")
    with open(scene, encoding="utf-8") as f:
        dt = json.load(f)["settings"]["dt"]
    steps = int(args.steps)
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        out = os.path.join(d, f"run.{args.format}")
        cmd = [sys.executable, "-m", "nsgui", "run", scene, "--duration", repr(steps * dt), "--out", out,
               "--every", str(args.every), "--quiet", "--summary-json", os.path.join(d, "s.json")]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
        wall = time.perf_counter() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # kB on Linux
        if p.returncode != 0:
            sys.exit(f"the run failed ({p.returncode}): {p.stderr.strip()}")
        with open(os.path.join(d, "s.json"), encoding="utf-8") as f:
            s = json.load(f)
        size = os.path.getsize(out)
    print(f"{args.scene}: {s['steps']:,} steps (dt = {dt:g} s), {s['rows']:,} rows to .{args.format} "
          f"({size / 1e9:.2f} GB); peak RSS {peak_kb / 1024:.0f} MB; {wall:.0f} s wall, "
          f"{s['steps_per_second']:,.0f} steps/s while stepping")


if __name__ == "__main__":
    main()
