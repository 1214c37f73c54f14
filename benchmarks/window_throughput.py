"""Rows per second in the window running flat out, against headless `Simulator.run` on the same steps.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/window_throughput.py [SCENE...] [--seconds 3] [--rounds 3]

For each scene the main window runs the scene as fast as it can (3D view and plots following live)
and counts the rows that reach its history during `--seconds`. The window is then paused and, in
the same process, a headless `Simulator.run` steps the very same stretch of the run (the steps
before it run untimed), so both figures cover the same physics under nearly the same machine load.
This is repeated `--rounds` times; each line shows the rounds' median, and the ratio is the median
of the rounds' ratios (the issue's goal: >= 0.8).
"""

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

SCENES = ("default", "two_link_arm", "bead_column_10")
CHUNK = 50_000  # rows per headless call: bounded memory, negligible call overhead


class Headless:
    """A fresh simulator of the scene that follows the window's run: row i is made by step i."""

    def __init__(self, scene):
        from nsgui.engine import Simulator, compile_scene
        from nsgui.scene import load_scene
        self.sim = Simulator(compile_scene(load_scene(scene)))
        self.row = 0

    def _run(self, nsteps, record):
        while nsteps:
            k = min(nsteps, CHUNK)
            self.sim.run(k, record=record)
            nsteps -= k
            self.row += k

    def rows_per_s(self, first, last):
        """Time the steps that make rows first .. last - 1 (those before run untimed)."""
        self._run(first - 1 - self.row, record=False)
        t0 = time.perf_counter()
        self._run(last - first, record=True)
        return (last - first) / (time.perf_counter() - t0)


def spin(app, seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.0005)


def measure(app, scene, seconds, rounds):
    from nsgui.views.main_window import MainWindow
    w = MainWindow()
    w.resize(1500, 920)
    w.show()
    w.open_scene(scene)
    c = w.controller
    w.set_speed(None)
    w.play()
    deadline = time.perf_counter() + 120  # the first run may compile the engine
    while (c.recorder is None or len(c.recorder) < 100) and time.perf_counter() < deadline:
        spin(app, 0.01)
    spin(app, 1.5)  # steady state: the first paints are done
    headless = Headless(scene)
    out = []
    for _ in range(rounds):
        first, t0 = len(c.recorder), time.perf_counter()
        spin(app, seconds)
        last, wall = len(c.recorder), time.perf_counter() - t0
        c.pause()
        window = (last - first) / wall
        out.append((window, headless.rows_per_s(first, last)))
        w.play()
        spin(app, 0.5)
    c.pause()
    w.document.undo_stack.setClean()
    w.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="*",
                    default=[os.path.join(ROOT, "resources", "scenes", s + ".json") for s in SCENES])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication
    app = QApplication(sys.argv[:1])
    print(f"{'scene':24s} {'window rows/s':>14s} {'headless rows/s':>16s} {'ratio':>6s}   rounds' ratios")
    for scene in args.scenes:
        rounds = measure(app, scene, args.seconds, args.rounds)
        ratios = [wr / hr for wr, hr in rounds]
        print(f"{os.path.basename(scene):24s} {statistics.median(r[0] for r in rounds):14,.0f} "
              f"{statistics.median(r[1] for r in rounds):16,.0f} {statistics.median(ratios):6.2f}   "
              + " ".join(f"{x:.2f}" for x in ratios), flush=True)
    print(f"{os.cpu_count()} CPUs, 1-min load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
