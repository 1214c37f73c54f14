"""How close a small scene's step gets to the per-step floor, and where the rest goes (issue 13).

    .venv/bin/python benchmarks/step_floor.py [--scenes bouncing_ball,sliding_box,double_pendulum_wall,bead_column_10]

Prints, per CPU second (time.process_time, best of several runs; others may share the machine):
- the floor: the bouncing ball as one coordinate (height and vertical velocity), the same Moreau-Jean
  θ-step, Newton restitution and step as the scene, in a tight compiled loop that records the height:
  what a step costs without generality (about 50 flops);
- nsgui's Simulator.run on the scene as benchmarks/peers.py times it (two pieces, into a buffer
  allocated first) recording every signal, t and q only, and no rows;
- each phase of stepper.run_steps called alone in a loop at the scene's state after a few steps
  (the column's: once it has landed, every bead resting; the contact problem with every candidate
  active): what a step is made of.
The phases' harness is compiled here without numba's cache (a cached caller keeps stale copies of
the kernels it calls), so the first figures come after about half a minute of compiling.
"""
import argparse
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import Simulator, compile_scene  # noqa: E402
from nsgui.engine import stepper as st  # noqa: E402
from nsgui.engine.evaluation import evaluate, kinetic_energy  # noqa: E402
from nsgui.engine.projection import project_positions  # noqa: E402
from nsgui.scene import load_scene  # noqa: E402

SCENES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "resources", "scenes")
STEPS = {"bouncing_ball": 2000, "sliding_box": 1500, "double_pendulum_wall": 10000,   # peers.py's runs
         "bead_column_10": 2000}
SETTLE = {"bead_column_10": 1500}   # steps before the phases are timed (else 3)


@njit
def floor_ball(y, v, h, theta, e, g, r, nsteps, out):
    """The ball as one coordinate: free velocity, activation y + h/2 v <= 0, the 1x1 LCP of Newton's
    law v+ + e v- >= 0 solved in closed form, the θ position update; out[k] = the height."""
    for k in range(nsteps):
        vfree = v - h * g
        gap = y - r
        vn = vfree
        if gap + 0.5 * h * min(v, 0.0) <= 0.0:
            q = vfree + e * v
            if q < 0.0:
                vn = -e * v
        y += h * (theta * vn + (1.0 - theta) * v)
        v = vn
        out[k] = y
    return y


@njit
def phase_loop(which, n, m, d, rows, scratch, cols, nact, fric):
    s = 0.0
    for _ in range(n):
        if which == 0:
            st.free_velocity(m, d)
        elif which == 1:
            a, _f = st.activate_contacts(m, d)
            s += a
        elif which == 2:
            st.solve_contact_problem(m, d, nact, fric)
        elif which == 3:
            st.update_positions(m, d)
        elif which == 4:
            st.book_energy(m, d, nact)
            st.classify_contacts(m, d, nact)
        elif which == 5:
            st.commit_step(d, d.t[0])
        elif which == 6:
            s += evaluate(m, d, False)
        elif which == 7:
            s += project_positions(m, d, 0.0)
        elif which == 8:
            s += kinetic_energy(m, d, d.v)
        elif which == 9:
            st.write_row(m, d, rows[0], 0.0, 0.0)
        elif which == 10:  # (_steps's recording of a selection: the row's first groups, then the columns)
            st.write_row_parts(m, d, scratch, 0.0, 0.0, 0)
            for i in range(cols.shape[0]):
                rows[0, i] = scratch[cols[i]]
    return s


PHASES = ("free velocity", "activate contacts", "contact problem", "update positions",
          "book energy, classify", "commit", "evaluate the model", "projection", "kinetic energy",
          "write a full row", "write t and q")


def cpu_best(f, reps):
    best = np.inf
    for _ in range(reps):
        c0 = time.process_time()
        f()
        best = min(best, time.process_time() - c0)
    return best


def floor_figure(model, n):
    s = model.scene.settings
    y0, r = float(model.q0[1]), 0.1
    out = np.empty(n)
    args = (y0, 0.0, s.dt, s.theta, model.scene.contacts[0].restitution, -model.scene.gravity[1], r, n, out)
    floor_ball(*args)
    return cpu_best(lambda: floor_ball(*args), 50) / n


def simulator_figures(model, n):
    q_names = ["t"] + [x for x in model.signal_names if x.startswith("q.")]
    out = {}
    for label, signals, record in (("every signal", None, True), ("t and q", q_names, True), ("no rows", None, False)):
        buf = np.zeros((n, len(signals or model.signal_names)))

        def run():
            sim = Simulator(model)
            n1 = n * 3 // 4
            c0 = time.process_time()
            sim.run(n1, record, buf if record else None, signals)
            sim.run(n - n1, record, buf[n1:] if record else None, signals)
            return time.process_time() - c0
        run()
        out[label] = min(run() for _ in range(7)) / n
    return out


def phase_figures(model, settle):
    sim = Simulator(model)
    sim.run(settle)
    m, d = sim._args
    nact, fric = st.activate_contacts(m, d)
    rows = np.empty((1, len(sim.signal_names)))
    scratch = np.empty(len(sim.signal_names))
    cols = np.arange(1 + model.nq, dtype=np.int64)
    n = 20000
    out = {}
    for w, name in enumerate(PHASES):
        phase_loop(w, 10, m, d, rows, scratch, cols, nact, fric)
        out[name] = cpu_best(lambda: phase_loop(w, n, m, d, rows, scratch, cols, nact, fric), 5) / n
    return out, nact


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", default=",".join(STEPS))
    args = ap.parse_args(argv)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in args.scenes.split(","):
        model = compile_scene(load_scene(os.path.join(SCENES, f"{name}.json")))
        n = STEPS.get(name, 2000)
        print(f"\n{name}: {n} steps, {model.nq} coordinates, {model.ncontacts} contact candidates (µs per step, CPU)")
        if name == "bouncing_ball":
            print(f"  floor (1 coordinate, closed-form 1x1 LCP, height recorded): {floor_figure(model, n) * 1e6:.3f}")
        for label, sec in simulator_figures(model, n).items():
            print(f"  Simulator.run, {label:13s}: {sec * 1e6:.3f}")
        phases, nact = phase_figures(model, SETTLE.get(name, 3))
        print(f"  phases alone ({nact} contact(s) active in the problem):")
        for label, sec in phases.items():
            print(f"    {label:22s} {sec * 1e6:.3f}")
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
