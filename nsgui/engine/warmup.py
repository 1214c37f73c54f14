"""Compile (or load from numba's on-disk cache) every kernel once: `python -m nsgui.engine.warmup`.

The first compile of the stepping loop takes a minute or two on a fresh machine; `make run` and
`make test` call this after installing so that the app and the tests start with a warm cache.
"""

import sys
import time

from nsgui.examples import example_path

# frictional + frictionless contacts, nonlinear M (revolute joints), actuators, projection on and off
WARMUP_SCENES = (("two_link_arm", True), ("sliding_box", False), ("default", True))


def warm_up(verbose=False):
    from nsgui.scene import load_scene
    from . import Simulator, compile_scene, simulate
    t0 = time.perf_counter()
    for name, projection in WARMUP_SCENES:
        scene = load_scene(example_path(name))  # KeyError: the install lacks its examples
        for solver in ("auto", "lemke", "nsgs"):
            simulate(scene, duration=5 * scene.settings.dt, projection=projection, solver=solver)
        if name == "default":  # the event-driven integrator's kernels too
            simulate(scene.with_values({"settings.integrator": "event_driven"}), duration=5 * scene.settings.dt)
        model = compile_scene(scene)
        Simulator(model).run(5, signals=["t"])  # a recording of some signals (Simulator.run)
        q = model.q0
        model.body_poses(q), model.contact_frames(q), model.contact_jacobians(q), model.potential_energy(q)
    if verbose:
        print(f"numba kernels ready in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    try:
        warm_up(verbose="-q" not in sys.argv)
    except KeyError as missing:
        sys.exit(f"nsgui.engine.warmup: the example scene {missing} is missing from this install")
