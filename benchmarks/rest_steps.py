"""A heap's resting steps timed in chunks: CPU µs a step of Simulator.run, as peers.py runs it.

    [PYTHONPATH=CHECKOUT] .venv/bin/python benchmarks/rest_steps.py [--cases box_pyramid,box_pyramid_55]
                                              [--settle 1500] [--chunks 40] [--steps 100]

Runs each case of peers.py (`--record positions`: the lazy geometry) for --settle steps unrecorded, then
--chunks calls of --steps steps, and prints the smallest, first-quartile and median CPU µs a step of the
chunks. On a shared machine a whole process runs fast or slow (by up to 2×): compare trees alternately
and by their smallest chunks. The landing is not in it (peers.py and step_phases.py time it).
"""
import os

import single_blas  # noqa: F401,E402  (before numpy loads: BLAS on one thread)

import argparse  # noqa: E402
import runpy  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.append(ROOT)  # after PYTHONPATH: PYTHONPATH=OTHER_CHECKOUT times that checkout's engine


def rest_steps(case, settle, chunks, steps):
    """CPU µs a step of each chunk of resting steps."""
    from nsgui.engine import Simulator, compile_scene
    peers = runpy.run_path(os.path.join(HERE, "peers.py"), run_name="peers")
    model = compile_scene(peers["scene_of"](case))
    signals = peers["recorded_signals"](model, "positions")
    sim = Simulator(model)
    sim.run(settle, record=False)
    buf = np.zeros((steps, len(signals)))
    out = []
    for _ in range(chunks):
        t0 = time.process_time()
        sim.run(steps, out=buf, signals=signals)
        out.append((time.process_time() - t0) / steps * 1e6)
    return np.array(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="box_pyramid,box_pyramid_55")
    ap.add_argument("--settle", type=int, default=1500)
    ap.add_argument("--chunks", type=int, default=40)
    ap.add_argument("--steps", type=int, default=100)
    a = ap.parse_args(argv)
    import nsgui
    print(f"nsgui from {os.path.dirname(nsgui.__file__)}")
    for case in a.cases.split(","):
        t = rest_steps(case, a.settle, a.chunks, a.steps)
        print(f"{case:16s} CPU us a step: min {t.min():.1f}  q25 {np.percentile(t, 25):.1f}  median {np.median(t):.1f}"
              f"  (1-min load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
