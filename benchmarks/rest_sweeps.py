"""Sweeps a resting pyramid's steps take, and whether solving a step further helps its successors.

    .venv/bin/python benchmarks/rest_sweeps.py ROWS STEPS KAPPA

Runs make_heaps.box_pyramid(ROWS) for STEPS steps, the compiled loop's phases called one by one from Python
(as step_problems.py). Every step is solved at the scene's tolerance; with KAPPA < 1 a step that took a sweep
is solved again from the same warm start to KAPPA x tolerance (the answer kept). Prints, per tenth of the
run, how many steps took a sweep at the scene's tolerance, their sweeps, and the extra sweeps of the second
solves: were the warm start's error left by a step's stop at the tolerance, a tighter answer would leave
its successors solved at the warm start.
"""
import os
import runpy
import sys

import single_blas  # noqa: F401  (before numpy loads: BLAS on one thread)
import numpy as np

from step_problems import end_step, start_steps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]


def main():
    from nsgui.engine import stepper as st
    from nsgui.engine.codes import FS_TOL, OK, ST_MAXITER
    from nsgui.engine.compile import compile_scene
    rows, steps, kappa = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    heaps = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_heaps.py"))
    model = compile_scene(heaps["box_pyramid"](rows))
    m, d, D, const_M, projection = start_steps(model)
    a = model.arrays
    tol = a.fs[FS_TOL]
    first, extra = np.zeros(steps), np.zeros(steps)
    for step in range(steps):
        t = D.t[0]
        st.free_velocity(m, d)
        nact, fric = st.activate_contacts(m, d)
        D.stats[ST_MAXITER] = 0
        code, cand = st.solve_contact_problem(m, d, nact, fric)
        first[step] = D.stats[ST_MAXITER]
        if code == OK and kappa < 1.0 and first[step] > 0:
            # the same problem from the same warm start (d.lamN, d.lamT are the last step's until commit_step)
            a.fs[FS_TOL] = tol * kappa
            D.stats[ST_MAXITER] = 0
            code, cand = st.solve_contact_problem(m, d, nact, fric)
            extra[step] = D.stats[ST_MAXITER]
            a.fs[FS_TOL] = tol
        if code != OK:
            raise SystemExit(f"the solver failed at step {step} (candidate {cand}, code {code})")
        end_step(m, d, nact, t + model.dt, const_M, projection)
    part = max(steps // 10, 1)
    for lo in range(0, steps, part):
        f, s = first[lo:lo + part], extra[lo:lo + part]
        print(f"steps {lo:6d}-{min(lo + part, steps):6d}: {np.count_nonzero(f):5d} took a sweep, "
              f"{f.sum():7.0f} sweeps, {s.sum():8.0f} more to {kappa:g} x tolerance")


if __name__ == "__main__":
    main()
