"""A gait analysis (nsgui/engine/gait) in a child process, for the window's Gait analysis panel.

The analysis runs hundreds of return-map steps (seconds to minutes for a sweep): in the GUI's process
it would hold the GIL and stall the frames, so it runs in its own process (spawned, niced, like the
simulation's) and sends plain dicts back through a queue: ("progress", fraction, text, entry or
None), then ("result", dict) or ("error", one-line message). `GaitJob.poll()` hands them over
without blocking; `cancel()` ends the child.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue

ITERATES = 30   # steps of the map shown from the scene's first strike (step-to-step plots, cobweb)


def run_job(scene_dict, section, sweep_text, put):
    """The analysis itself (what the child runs; `put` receives the messages)."""
    from nsgui.engine.gait import GaitError, SectionEvent
    from nsgui.engine.gait.analysis import analyse, parse_sweep, sweep
    from nsgui.scene import SceneError, scene_from_dict
    try:
        scene = scene_from_dict(scene_dict)
        event = SectionEvent.parse(section)
        swept = parse_sweep(sweep_text) if sweep_text else None
        put(("progress", 0.0, "finding the fixed point…", None))
        out, _P, _fp = analyse(scene, event, iterates=ITERATES, cycle=True)
        if swept:
            path, values = swept

            def progress(fraction, entry):
                put(("progress", fraction, f"{path} = {entry['value']:.5g}: |λ| max {max(entry['moduli']):.4g}",
                     entry))
            result = sweep(scene, path, values, event, progress=progress, cycles=True)
            out["sweep"] = result["sweep"]
            out["bifurcations"] = result["bifurcations"]
            out["sweep_parameter"] = path
        put(("result", out))
    except (GaitError, SceneError) as e:
        put(("error", str(e).splitlines()[0] if str(e) else type(e).__name__))
    except Exception as e:  # a failure in the analysis must reach the panel, not kill it silently
        put(("error", f"{type(e).__name__}: {e}".splitlines()[0]))


def _child_main(q, scene_dict, section, sweep_text):
    try:
        os.nice(10)   # the window's responsiveness comes first
    except (AttributeError, OSError):
        pass
    run_job(scene_dict, section, sweep_text, q.put)


class GaitJob:
    """One analysis running in a child process."""

    def __init__(self, scene_dict, section="impact", sweep_text=None):
        ctx = mp.get_context("spawn")
        self._queue = ctx.Queue()
        self._proc = ctx.Process(target=_child_main, args=(self._queue, scene_dict, section, sweep_text),
                                 daemon=True, name="nsgui-gait")
        self._proc.start()
        self.finished = False

    def poll(self):
        """The messages that have arrived (never blocks); an ("error", ...) if the child died."""
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if any(m[0] in ("result", "error") for m in out):
            self.finished = True
        elif not self.finished and not self._proc.is_alive() and self._queue.empty():
            self.finished = True
            out.append(("error", f"the analysis process stopped (exit code {self._proc.exitcode})"))
        return out

    def cancel(self):
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join(timeout=2)
        self.finished = True
