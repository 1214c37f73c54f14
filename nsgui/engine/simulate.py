"""Headless runs: simulate(scene) -> Result with every signal as an array."""

import copy
import time
from dataclasses import dataclass, field

import numpy as np

from .compile import Model, compile_scene
from .scene import Scene
from .simulator import SimulationError, Simulator


@dataclass
class Result:
    signals: dict
    events: list
    summary: dict
    model: Model = field(repr=False, default=None)

    @property
    def t(self):
        return self.signals["t"]

    def __getitem__(self, name):
        return self.signals[name]


def configured_scene(scene: Scene, dt=None, duration=None, theta=None, projection=None, solver=None) -> Scene:
    """A copy of the scene with the given settings overridden."""
    scene = copy.deepcopy(scene)
    s = scene.settings
    for key, value in (("dt", dt), ("duration", duration), ("theta", theta), ("projection", projection),
                       ("solver", solver)):
        if value is not None:
            setattr(s, key, value)
    return scene


def simulate(scene_or_model, dt=None, duration=None, theta=None, projection=None, solver=None,
             progress=None, chunk=5000) -> Result:
    """Runs from t = 0 to the scene's duration. progress(fraction) is called between chunks.

    A numerical failure ends the run early: the signals up to it are returned and
    summary['failure'] says what failed, when and where.
    """
    if isinstance(scene_or_model, Model):
        model = scene_or_model
        if any(x is not None for x in (dt, theta, projection, solver)):
            model = compile_scene(configured_scene(model.scene, dt, None, theta, projection, solver))
        T = duration if duration is not None else model.scene.settings.duration
    else:
        model = compile_scene(configured_scene(scene_or_model, dt, duration, theta, projection, solver))
        T = model.scene.settings.duration
    sim = Simulator(model)
    sim.run(0)  # loads the compiled kernel (from numba's cache) outside the timed loop
    nsteps = int(round(T / model.dt))
    rows = [sim.signal_vector()[None, :]]
    failure = None
    wall = 0.0
    done = 0
    while done < nsteps:
        k = min(chunk, nsteps - done)
        t0 = time.perf_counter()
        try:
            rows.append(sim.run(k))
        except SimulationError as e:
            wall += time.perf_counter() - t0
            rows.append(e.rows)
            failure = str(e)
            break
        wall += time.perf_counter() - t0
        done += k
        if progress is not None:
            progress(done / nsteps)
    data = np.vstack(rows)
    signals = {name: data[:, i].copy() for i, name in enumerate(model.signal_names)}
    stats = sim.stats
    res = signals["energy.residual"]
    summary = {
        "scene": model.scene.name,
        "steps": sim.step_count,
        "t_end": sim.t,
        "wall_time": wall,
        "steps_per_second": sim.step_count / wall if wall > 0 else float("nan"),
        "impacts": stats["impacts"],
        "max_penetration": stats["max_penetration"],
        "energy_residual": float(np.max(np.abs(res))) if res.size else 0.0,
        "solver_warnings": stats["solver_warnings"],
        "failure": failure,
    }
    return Result(signals, sim.pop_events(), summary, model)
