"""Where the GUI thread's time goes while a run goes flat out: a cProfile of the GUI thread, and the
stacks of the slowest event-loop slices (each event dispatched by Qt, timed; a sampling thread
records the GUI thread's Python stack every 2 ms so a slow slice can be attributed).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python benchmarks/gui_profile.py SCENE [--seconds 4] [--top 30]

Prints the slices over 30 ms (what was dispatched, to whom, the CPU time the GUI thread used in it:
much less than the slice means the thread waited for a CPU or the GIL, and the functions seen most
in it), then
the cProfile's top functions by own time and by cumulative time.
"""

import argparse
import cProfile
import collections
import gc
import os
import pstats
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SLOW = 0.030  # seconds: slices reported


def stack_of(frame, depth=40):
    out = []
    while frame is not None and len(out) < depth:
        code = frame.f_code
        out.append(f"{os.path.basename(code.co_filename)}:{code.co_name}")
        frame = frame.f_back
    return out


class Sampler(threading.Thread):
    """Samples the GUI thread's stack (needs the GIL: C code holding it shows as its Python caller)."""

    def __init__(self, ident, interval=0.002):
        super().__init__(daemon=True)
        self.target, self.interval, self.samples, self.running = ident, interval, [], True

    def run(self):
        while self.running:
            f = sys._current_frames().get(self.target)
            if f is not None:
                self.samples.append((time.perf_counter(), stack_of(f)))
            time.sleep(self.interval)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scene")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--stacks", type=int, default=0, help="print this many frames of each slow slice's most seen stack")
    args = ap.parse_args()
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    slices = []
    depth = [0]

    class TimedApp(QApplication):
        recording = False

        def notify(self, receiver, event):
            if not self.recording or depth[0]:
                return super().notify(receiver, event)
            depth[0] += 1
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return super().notify(receiver, event)
            finally:
                depth[0] -= 1
                dt = time.perf_counter() - t0
                if dt > SLOW:
                    cpu = time.thread_time() - c0
                    try:
                        name = f"{type(receiver).__name__} {receiver.objectName()}"
                    except Exception:
                        name = "?"
                    slices.append((t0, dt, cpu, QEvent.Type(event.type()).name, name))

    app = TimedApp(sys.argv[:1])
    from nsgui.views.latency import EventLoopProbe
    from nsgui.views.main_window import MainWindow
    w = MainWindow()
    w.resize(1500, 920)
    w.show()
    w.open_scene(args.scene)
    c = w.controller
    w.set_speed(None)
    w.play()
    deadline = time.perf_counter() + 120
    while (c.recorder is None or len(c.recorder) < 100) and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.005)
    end = time.perf_counter() + 1.5
    while time.perf_counter() < end:
        app.processEvents()
    collections_seen = []  # (start, seconds, generation) of the garbage collector's passes

    def on_gc(phase, info, _start=[0.0]):
        if phase == "start":
            _start[0] = time.perf_counter()
        elif app.recording:
            collections_seen.append((_start[0], time.perf_counter() - _start[0], info["generation"]))
    gc.callbacks.append(on_gc)
    sampler = Sampler(threading.get_ident())
    probe = EventLoopProbe(5)
    prof = cProfile.Profile()
    sampler.start()
    probe.start()
    app.recording = True
    cpu0, t_start = time.process_time(), time.perf_counter()
    prof.enable()
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.0005)
    prof.disable()
    app.recording = False
    cpu = time.process_time() - cpu0
    gaps = probe.stop()
    sampler.running = False
    c.pause()
    print(f"{os.path.basename(args.scene)}: {len(c.recorder)} rows, max gap {max(gaps)} ms, "
          f"gaps > 50 ms: {sum(g > 50 for g in gaps)}, process CPU {cpu / args.seconds:.2f} cores, "
          f"load {os.getloadavg()[0]:.2f}")
    slow_gc = [(t, d, g) for t, d, g in collections_seen if d > 0.005]
    print(f"garbage collections: {len(collections_seen)}, "
          f"{1000 * sum(d for _t, d, _g in collections_seen):.0f} ms in all; over 5 ms: "
          + ", ".join(f"gen {g} {1000 * d:.0f} ms at {t - t_start:.3f}s" for t, d, g in slow_gc))
    kinds = collections.Counter(type(o).__name__ for o in gc.get_objects())
    print(f"objects the collector tracks (not frozen): {sum(kinds.values())}, most: "
          + ", ".join(f"{k} {n}" for k, n in kinds.most_common(6)))
    print(f"\nslices over {SLOW * 1000:.0f} ms ({len(slices)}):")
    for t0, dt, cpu, kind, name in sorted(slices, key=lambda s: -s[1])[:25]:
        seen = collections.Counter()
        for ts, st in sampler.samples:
            if t0 <= ts <= t0 + dt:
                for fn in dict.fromkeys(st[:12]):
                    seen[fn] += 1
        top = ", ".join(f"{fn} {n}" for fn, n in seen.most_common(10))
        print(f"  {1000 * dt:6.1f} ms (GUI thread CPU {1000 * cpu:5.1f} ms) at {t0 - t_start:6.3f}s {kind:16s} "
              f"{name:24s} | {top}")
        if args.stacks:
            stacks = collections.Counter(tuple(st) for ts, st in sampler.samples if t0 <= ts <= t0 + dt)
            for st, n in stacks.most_common(1):
                print(f"      most seen stack ({n} samples): " + " < ".join(st[:args.stacks]))
    stats = pstats.Stats(prof)
    for key in ("tottime", "cumulative"):
        print(f"\n--- by {key} ---")
        stats.sort_stats(key).print_stats(args.top)
    w.document.undo_stack.setClean()
    w.close()


if __name__ == "__main__":
    main()
