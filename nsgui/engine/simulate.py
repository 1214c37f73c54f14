"""Headless runs: simulate(scene) -> Result with every signal as an array, or streamed to a file."""

import copy
import json
import os
import shutil
import time
from dataclasses import dataclass, field

import numpy as np

from nsgui.scene import Scene

# .compile and .simulator load numba: imported where a run starts, so that importing nsgui.engine
# (which exports simulate) stays light

CALL_SECONDS = 0.05  # each kernel call lasts about this long at most, so a stop request is seen soon
CALL_BYTES = 4 << 20  # and hands over at most this many bytes of rows
MEMORY_SHARE = 0.8  # a run may keep its rows in at most this share of the available memory


@dataclass
class Result:
    signals: dict
    events: list
    summary: dict
    model: "Model" = field(repr=False, default=None)  # noqa: F821

    @property
    def t(self):
        return self.signals["t"]

    def __getitem__(self, name):
        return self.signals[name]


class RunTooLarge(MemoryError):
    """A run whose recorded rows cannot fit in memory (where="memory") or on the disk of its output
    file (where = that file), refused before it starts."""

    def __init__(self, rows, signals, nbytes, available, where="memory"):
        self.rows, self.signals, self.nbytes, self.available, self.where = rows, signals, nbytes, available, where
        if where == "memory":
            text = (f"this run would keep {rows:,} rows × {signals} signals = {human_bytes(nbytes)} in memory, "
                    f"more than the {human_bytes(available)} available: stream them to a file "
                    f"(simulate(..., out='run.h5')) or keep one row in N (every=N)")
        else:
            text = (f"this run would write about {human_bytes(nbytes)} ({rows:,} rows × {signals} signals) to "
                    f"{where}, more than the {human_bytes(available)} free there: keep one row in N (every=N)")
        super().__init__(text)


def human_bytes(n):
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} B"


def available_memory():
    """Bytes of memory the system can give without swapping (None if unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def configured_scene(scene: Scene, dt=None, duration=None, theta=None, projection=None, solver=None) -> Scene:
    """A copy of the scene with the given settings overridden."""
    scene = copy.deepcopy(scene)
    s = scene.settings
    for key, value in (("dt", dt), ("duration", duration), ("theta", theta), ("projection", projection),
                       ("solver", solver)):
        if value is not None:
            setattr(s, key, value)
    return scene


class _MemoryRows:
    """The recorded rows kept in one preallocated array (a signal per row: columns come out contiguous)."""

    def __init__(self, names, nrows):
        self.names = names
        self.data = np.empty((len(names), nrows))
        self.n = 0

    def append(self, rows):
        self.data[:, self.n:self.n + len(rows)] = rows.T
        self.n += len(rows)

    def signals(self):
        data = self.data if self.n == self.data.shape[1] else self.data[:, :self.n].copy()
        return {name: data[i] for i, name in enumerate(self.names)}


class _Discard:
    def append(self, rows):
        pass


def simulate(scene_or_model, dt=None, duration=None, theta=None, projection=None, solver=None,
             progress=None, chunk=100_000, every=1, out=None, attrs=None, keep=True, perturbations=None) -> Result:
    """Runs from t = 0 to the scene's duration.

    every: record the rows of steps 0, every, 2·every… only (the summary still covers every step).
    out: stream the recorded rows to this .csv / .h5 file as they are made (written atomically; an
    HDF5 file gets `attrs` and the summary, as JSON, on its root); Result.signals is then empty.
    keep=False: no rows kept at all (the summary and events only).
    perturbations: a perturbation.PerturbationSchedule (a recorded run's mouse pulls) applied at its times.
    progress(fraction) is called once the kernel is loaded, before the first step, and after each
    kernel call (about CALL_SECONDS apart at most); returning False stops the run there:
    summary['interrupted'] is True and the rows so far are kept, as after a failure. On a
    KeyboardInterrupt the rows so far are kept in `out` too (unless it cut a write in two: no file).

    A numerical failure ends the run early: the rows up to it are kept and summary['failure'] says
    what failed, when and where (an exception in a user controller's code too, with its traceback in
    summary['failure_traceback']). A run whose rows cannot fit in memory (no `out`) or on the disk of
    `out` raises RunTooLarge before it starts; a failure to write `out` raises WriteError and leaves
    no file.
    """
    from .compile import Model, compile_scene
    from .simulator import Simulator
    every = int(every)
    if every < 1:
        raise ValueError(f"every = {every}: must be a whole number ≥ 1")
    if isinstance(scene_or_model, Model):
        model = scene_or_model
        if any(x is not None for x in (dt, theta, projection, solver)):
            model = compile_scene(configured_scene(model.scene, dt, None, theta, projection, solver))
        T = duration if duration is not None else model.scene.settings.duration
    else:
        model = compile_scene(configured_scene(scene_or_model, dt, duration, theta, projection, solver))
        T = model.scene.settings.duration
    names = list(model.signal_names)
    nsteps = int(round(T / model.dt))
    nrec = nsteps // every + 1
    sim = Simulator(model)
    if perturbations is not None:
        sim.replay_perturbations(perturbations)
    sim.run(0)  # loads the compiled kernel (from numba's cache) outside the timed loop
    stopped = progress is not None and _stop_requested(progress(0.0))
    sink = _open_sink(names, nrec, out, keep)
    try:
        return _run(sim, sink, nsteps, every, progress, stopped, chunk, out, attrs)
    except KeyboardInterrupt:  # keep the rows so far unless the interrupt cut a write in two
        if out is not None and not sink.in_write:
            sink.close(attrs)
        else:
            _abort(sink)
        raise
    except BaseException:
        _abort(sink)
        raise


def _open_sink(names, nrec, out, keep):
    from .export import estimated_size, open_writer
    if out is not None:
        folder = os.path.dirname(os.path.abspath(out))
        need = estimated_size(out, nrec, len(names))
        try:
            free = shutil.disk_usage(folder).free
        except OSError:
            free = None
        if free is not None and need > free:
            raise RunTooLarge(nrec, len(names), need, free, where=str(out))
        return open_writer(out, names, expected_rows=nrec)
    if not keep:
        return _Discard()
    need = 8 * nrec * len(names)
    avail = available_memory()
    if avail is not None and need > MEMORY_SHARE * avail:
        raise RunTooLarge(nrec, len(names), need, avail)
    return _MemoryRows(names, nrec)


def _abort(sink):
    if hasattr(sink, "abort"):
        sink.abort()


def _run(sim, sink, nsteps, every, progress, interrupted, max_chunk, out, attrs):
    from .control.cycles import CycleRecorder
    from .walker import WalkerRecorder
    from .simulator import SimulationError
    model = sim.model
    first = sim.signal_vector()[None, :]
    sink.append(first)
    cycles = CycleRecorder.of(model)  # per-cycle metrics of a switching tracking controller, from every step
    walker = WalkerRecorder.of(model)  # steps, distance, speed, fall of a scene's walker, from every step
    for rec in (cycles, walker):
        if rec is not None:
            rec.append(first)
    res_col = model.layout.energy_column("residual")
    residual = abs(first[0, res_col])
    cap = max(1, min(int(max_chunk), CALL_BYTES // (8 * len(model.signal_names))))
    k = min(cap, 64)  # the first call measures the speed
    buf = np.empty((min(cap, max(nsteps, 1)), len(model.signal_names)))  # every call's rows, reused
    failure = failure_traceback = None
    wall = 0.0
    done = 0
    while done < nsteps and not interrupted:
        k = min(k, nsteps - done)
        t0 = time.perf_counter()
        try:
            rows = sim.run(k, out=buf)
        except SimulationError as e:
            rows = e.rows
            failure = str(e)
            failure_traceback = getattr(e, "user_traceback", None)
        elapsed = time.perf_counter() - t0
        wall += elapsed
        if len(rows):
            residual = max(residual, float(np.max(np.abs(rows[:, res_col]))))
            start = (-(done + 1)) % every  # row i of this call is the state after step done + 1 + i
            sink.append(rows[start::every])
            for rec in (cycles, walker):
                if rec is not None:
                    rec.append(rows.copy())  # rows is the reused buffer: a recorder may keep views
        done += len(rows)
        if failure:
            break
        # next call: about CALL_SECONDS long at the measured speed
        k = int(min(cap, 8 * k, max(1, k * CALL_SECONDS / max(elapsed, 1e-9))))
        if progress is not None:
            interrupted = _stop_requested(progress(done / nsteps))
    stats = sim.stats
    summary = {
        "scene": model.scene.name,
        "steps": sim.step_count,
        "t_end": sim.t,
        "wall_time": wall,
        "steps_per_second": sim.step_count / wall if wall > 0 else float("nan"),
        "impacts": stats["impacts"],
        "max_penetration": stats["max_penetration"],
        "energy_residual": residual,
        "solver_warnings": stats["solver_warnings"],
        "max_solver_iterations": stats["max_solver_iterations"],
        "failure": failure,
        "interrupted": bool(interrupted and done < nsteps),
        "every": every,
    }
    if cycles is not None:
        summary["controller"] = cycles.summary()
    if walker is not None:
        summary["walker"] = walker.summary()
    if failure_traceback:  # an exception in a user controller: its code's traceback
        summary["failure_traceback"] = failure_traceback
    if out is not None:
        summary["rows"] = sink.rows
        is_h5 = str(out).lower().endswith((".h5", ".hdf5"))
        sink.close(dict(attrs or {}, summary=json.dumps(summary)) if is_h5 else None)
        signals = {}
    else:
        signals = sink.signals() if isinstance(sink, _MemoryRows) else {}
        summary["rows"] = sink.n if isinstance(sink, _MemoryRows) else 0
    return Result(signals, sim.pop_events(), summary, model)


def _stop_requested(answer):
    return answer is not None and not answer
