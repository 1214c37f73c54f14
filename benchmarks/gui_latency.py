"""GUI responsiveness while a run goes flat out: event-loop gaps (a 5 ms timer), 3D frames and plot
repaints per second, and the steps per second the engine reaches with the GUI attached.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/gui_latency.py [SCENE] [--seconds 4]

Prints one line per scene. The goal is a maximum gap under 50 ms: a figure that depends on the
machine's load, so it is measured here; the test suite only checks for stalls (500 ms).
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_MS = 50
sys.path.insert(0, ROOT)


def measure(app, scene, seconds):
    import numpy as np
    from nsgui.views.latency import EventLoopProbe
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
        app.processEvents()
        time.sleep(0.005)
    end = time.perf_counter() + 1.5  # steady state: the first paints are done
    while time.perf_counter() < end:
        app.processEvents()
    frames, paints = [0], [0]
    if w.view3d.display is not None and hasattr(w.view3d.display, "frameRendered"):
        w.view3d.display.frameRendered.connect(lambda: frames.__setitem__(0, frames[0] + 1))
    plot = w.plots.cards[0].plot if w.plots.cards else None
    if plot is not None:
        original = plot.paintEvent

        def counting(ev):
            paints[0] += 1
            original(ev)
        plot.paintEvent = counting
    probe = EventLoopProbe(5)
    rows0, t_sim0 = len(c.recorder), c.recorder.t_end
    probe.start()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.0005)
    gaps = probe.stop()
    rows, t_sim = len(c.recorder) - rows0, c.recorder.t_end - t_sim0
    c.pause()
    g = np.array(gaps)
    result = dict(scene=os.path.basename(scene), max_gap_ms=float(g.max()), p95_gap_ms=float(np.percentile(g, 95)),
                  median_gap_ms=float(np.median(g)), frames_3d_per_s=frames[0] / seconds,
                  plot_paints_per_s=paints[0] / seconds, rows_per_s=rows / seconds,
                  realtime_factor=t_sim / seconds, renderer=w.view3d.renderer())
    w.document.undo_stack.setClean()
    w.close()
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="*", default=[os.path.join(ROOT, "resources", "scenes", s + ".json")
                                                  for s in ("default", "bead_column_50", "two_link_arm")])
    ap.add_argument("--seconds", type=float, default=4.0)
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication
    app = QApplication(sys.argv[:1])
    print(f"{'scene':24s} {'max gap':>8s} {'p95':>6s} {'median':>6s} {'3D fps':>7s} {'plot fps':>8s} "
          f"{'rows/s':>8s}  {'< 50 ms':7s} renderer")
    for scene in args.scenes:
        r = measure(app, scene, args.seconds)
        print(f"{r['scene']:24s} {r['max_gap_ms']:6.0f}ms {r['p95_gap_ms']:4.0f}ms {r['median_gap_ms']:4.0f}ms "
              f"{r['frames_3d_per_s']:7.1f} {r['plot_paints_per_s']:8.1f} {r['rows_per_s']:8.0f}  "
              f"{'yes' if r['max_gap_ms'] < GOAL_MS else 'NO':7s} {r['renderer']}")
    print(f"1-min load average at the end {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
