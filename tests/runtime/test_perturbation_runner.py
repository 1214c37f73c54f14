"""A mouse perturbation sent through the runners (the window's channel): applied between batches,
recorded, and the recorded run replayed by its schedule gives the same rows."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.perturbation import PerturbationSchedule
from nsgui.runtime.process import ProcessRunner
from nsgui.runtime.worker import SimRunner
from nsgui.scene import SceneBuilder

from .test_runner import wait_idle


def pendulum():
    b = SceneBuilder("pendulum")
    bob = b.body("bob", mass=1.0, inertia=0.001, com=(0.0, -1.0))
    bob.disk(0.05, offset=(0.0, -1.0))
    b.revolute("pivot", child=bob, anchor_parent=(0.0, 1.0))
    b.settings(dt=1e-3, duration=5.0)
    return compile_scene(b.build())


def rows_of(drains):
    blocks = [d.rows for d in drains if len(d.rows)]
    return np.concatenate(blocks)


@pytest.mark.parametrize("runner_type", [SimRunner, ProcessRunner])
def test_perturbation_through_the_runner_is_recorded_and_replays(runner_type):
    model = pendulum()
    r = SimRunner(Simulator) if runner_type is SimRunner else ProcessRunner()
    try:
        r.load(model, running=False)
        drains = wait_idle(r)
        r.perturb("bob", (0.0, -1.0), (0.8, 0.0))
        r.step(300)
        drains += wait_idle(r)
        r.release_perturbation()
        r.step(200)
        drains += wait_idle(r)
    finally:
        r.quit()
    rows = rows_of(drains)
    names = next(d.names for d in drains if d.new_run)
    assert len(rows) == 501
    col = dict(zip(names, rows.T))
    held = col["perturb.body"] == 0
    assert held[1:301].all() and not held[301:].any() and not held[0]
    assert np.allclose(col["perturb.target_x"][1:301], 0.8)
    assert np.hypot(col["perturb.fx"], col["perturb.fy"])[1:301].min() > 0
    assert col["q.pivot"][300] > 0.3  # pulled to the right and up
    # the same run, replayed from its recorded signals
    sim = Simulator(model)
    sim.replay_perturbations(PerturbationSchedule.from_signals(col))
    assert np.array_equal(np.vstack([sim.signal_vector()[None], sim.run(500)]), rows)
