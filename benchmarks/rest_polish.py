"""A resting heap's solves polished below the tolerance: what it does to the sweeps and the rest (issue 13,
session 22; tried, not built into the engine: docs/benchmarks.md).

    .venv/bin/python benchmarks/rest_polish.py box_pyramid_55 [--polish 1e-5] [--cap 200] [--near 3]
                                               [--after 30] [--backoff 500]
                                               [--settle 1000] [--steps 1000] [--show 40]

Runs a peers.py case step by step with the compiled loop's phases called from Python (step_problems.start_steps;
the same functions in the same order, without the lazy near list: the same numbers at rest). With --polish P,
a step whose NSGS answer took 1 to NEAR sweeps from its warm start, and the step after it, are solved on from
the answer (nsgs_fc2d_rows_into on the problem left in Data's scratch) to P x tol, at most CAP sweeps; the
answer is kept only if its error is within tol. --after K: only once K steps in a row were solved within NEAR
sweeps; --backoff B: no polish for B steps after one that did not reach P x tol. Prints, over the steps after SETTLE: the steps that took a
sweep, the sweeps (the solve's + the polish's), the largest |v| and the creep (largest |q - q_start|).
"""
import argparse
import os
import sys

import single_blas  # noqa: F401  (before numpy loads: BLAS on one thread)
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]


def run(case, polish, cap, near, settle, steps, after=0, backoff=0):
    import peers
    from step_problems import end_step, start_steps
    from nsgui.engine import compile_scene, stepper as st
    from nsgui.engine.codes import FS_H, FS_TOL, OK, ST_LASTERR, ST_MAXITER
    from nsgui.engine.solvers.nsgs import nsgs_fc2d_rows_into
    model = compile_scene(peers.scene_of(case))
    m, d, D, const_M, projection = start_steps(model)
    tol, h = model.arrays.fs[FS_TOL], model.arrays.fs[FS_H]
    stats, follow, log, q0, quiet, resume = D.stats, False, [], None, 0, 0
    for step in range(settle + steps):
        t = D.t[0]
        st.free_velocity(m, d)
        nact, fric = st.activate_contacts(m, d)
        stats[ST_MAXITER] = 0
        code, _ = st.solve_contact_problem(m, d, nact, fric)
        if code != OK:
            raise SystemExit(f"{case}: the solver failed at t = {t:.4f}")
        it, more, err = int(stats[ST_MAXITER]), 0, stats[ST_LASTERR]
        quiet = quiet + 1 if it <= near else 0   # steps in a row solved within NEAR sweeps
        quasi_static = 0 < it <= near and quiet > after and step >= resume
        ok = False
        if polish > 0 and fric and (quasi_static or (it == 0 and follow)):
            k = 2 * nact   # the rows path's problem in Data's scratch (stepper._solve_general)
            cptr = D.gp_cptr[:k + 1]
            r = D.gp_vec[1, :k].copy()
            dv = D.v_new - D.vfree
            _, more, err2 = nsgs_fc2d_rows_into(D.gp_cols[:k], D.gp_vals[:k], D.gp_nnz[:k], cptr,
                                                D.gp_ccol[:cptr[k]], D.gp_cval[:cptr[k]], D.gp_vec[0, :k],
                                                D.gp_mu[:nact], r, polish * tol, cap, D.gp_blk[:nact], dv)
            ok = err2 <= polish * tol
            if not ok:   # a polish that did not finish: none for BACKOFF steps
                resume = step + 1 + backoff
            if err2 <= tol:
                D.v_new[:] = D.vfree + dv
                st._keep_percussions(D.act, nact, True, r, D.lamN_new, D.lamT_new)
                err = err2
        follow = quasi_static and ok
        end_step(m, d, nact, t + h, const_M, projection)
        if step == settle:
            q0 = D.q.copy()
        if step >= settle:
            log.append((it, more, err, np.abs(D.v).max(), np.abs(D.q - q0).max()))
    return np.array(log)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case")
    ap.add_argument("--polish", type=float, default=0.0, help="polish to this fraction of tol (0: none, main's solve)")
    ap.add_argument("--cap", type=int, default=200)
    ap.add_argument("--near", type=int, default=3)
    ap.add_argument("--after", type=int, default=0,
                    help="polish only after this many steps in a row solved within NEAR sweeps")
    ap.add_argument("--backoff", type=int, default=0, help="no polish for this many steps after one that failed")
    ap.add_argument("--settle", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--show", type=int, default=0, help="print the first steps: sweeps+polish sweeps/error")
    a = ap.parse_args(argv)
    L = run(a.case, a.polish, a.cap, a.near, a.settle, a.steps, a.after, a.backoff)
    swept = (L[:, 0] + L[:, 1]) > 0
    print(f"{a.case} polish={a.polish:g} cap={a.cap} near={a.near}: {swept.sum()} of {a.steps} steps swept, "
          f"sweeps {int(L[:, 0].sum())} + {int(L[:, 1].sum())}, |v| largest {L[:, 3].max():.2e}, "
          f"creep {L[-1, 4]:.2e} m")
    print("  |v| every 50 steps:", " ".join(f"{x:.0e}" for x in L[::50, 3]))
    if a.show:
        print("  ", " ".join(f"{int(x[0])}+{int(x[1])}/{x[2]:.0e}" for x in L[:a.show]))


if __name__ == "__main__":
    main()
