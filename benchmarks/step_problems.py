"""Store the step problems of a disk pile (make_heaps.disk_pile(rows, per_row)) where the friction solver
fails, or with --stalled also every 5th step where NSGS alone stalls, as .npz files for solver work and tests:

    .venv/bin/python benchmarks/step_problems.py ROWS PER_ROW STEPS OUT_PREFIX [--stalled]
    .venv/bin/python benchmarks/step_problems.py ROWS 0 STEPS OUT_PREFIX --pyramid --sweeps=K

--pyramid runs make_heaps.box_pyramid(ROWS) instead (PER_ROW unused); --sweeps=K also stores every step whose
solve took more than K sweeps (+ pivots), the landing's slow NSGS problems (benchmarks/landing_sweeps.py).

The steps are the compiled loop's phases called one by one from Python (as step_phases.py). Each file
(OUT_PREFIX_<step>.npz) holds W (indptr, indices, data: compressed rows), q, mu and the warm start r0, as
the stepper hands them to its solver, with the contact rows (rcols, rvals, rnnz), M⁻¹ (mi_ptr, mi_col, mi_val)
and the n coordinates they come from; the lines printed are the steps whose problem took over 50 ms of CPU.
"""
import os
import runpy
import sys
import time

import single_blas  # noqa: F401  (before numpy loads: BLAS on one thread)
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]


def problem(st, m, d, a, nv, nact, fric):
    """The step problem as solve_contact_problem builds it (W by delassus_csr)."""
    from nsgui.engine.contact_rows import delassus_csr
    k = 2 * nact
    maxc = max(a.ccols.shape[1], 1)
    rcols, rvals, rnnz = np.zeros((k, maxc), np.int64), np.zeros((k, maxc)), np.zeros(k, np.int64)
    qd, mu, r0, active0 = np.zeros(k), np.zeros(nact), np.zeros(k), np.zeros(k, np.bool_)
    st._problem_rows(m, d, nact, fric, rcols, rvals, rnnz, qd, mu, r0, active0)
    _, _, _, wptr, wcol, wval = delassus_csr(rcols, rvals, rnnz, a.mi_ptr, a.mi_col, a.mi_val, nv)
    return dict(indptr=wptr, indices=wcol, data=wval, q=qd, mu=mu, r0=r0, rcols=rcols, rvals=rvals, rnnz=rnnz,
                mi_ptr=a.mi_ptr, mi_col=a.mi_col, mi_val=a.mi_val, n=nv)


def main():
    from nsgui.engine import stepper as st
    from nsgui.engine.codes import IS_MAXIT, OK, ST_MAXITER
    from nsgui.engine.compile import compile_scene
    args = [s for s in sys.argv[1:] if not s.startswith("--")]
    rows, per_row, steps, out = int(args[0]), int(args[1]), int(args[2]), args[3]
    stalled = "--stalled" in sys.argv
    sweeps = min([int(s.split("=")[1]) for s in sys.argv if s.startswith("--sweeps=")] or [-1])
    heaps = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_heaps.py"))
    scene = heaps["box_pyramid"](rows) if "--pyramid" in sys.argv else heaps["disk_pile"](rows, per_row)
    model = compile_scene(scene)
    m, d, D, const_M, projection = start_steps(model)
    a = model.arrays
    for step in range(steps):
        t = D.t[0]
        st.free_velocity(m, d)
        nact, fric = st.activate_contacts(m, d)
        D.stats[ST_MAXITER] = 0
        c0 = time.process_time()
        code, cand = st.solve_contact_problem(m, d, nact, fric)
        cpu, it = time.process_time() - c0, D.stats[ST_MAXITER]
        if cpu > 0.05 or code != OK:
            print(f"step {step} t = {t:.4f} s: {nact} contacts, {it:.0f} sweeps + pivots, {cpu:.3f} s CPU, code {code}",
                  flush=True)
        if code != OK or (stalled and it > a.isets[IS_MAXIT] and step % 5 == 0) or 0 <= sweeps < it:
            np.savez(f"{out}_{step}.npz", **problem(st, m, d, a, D.v_new.shape[0], nact, fric))
        if code != OK:
            raise SystemExit(f"the solver failed at step {step} (candidate {cand})")
        end_step(m, d, nact, t + model.dt, const_M, projection)


def start_steps(model):
    """A simulator of the model ready for its phases called one by one, as the compiled loop starts: (its model
    and data records m, d, its Data D, whether M is constant, whether the projection is on)."""
    from nsgui.engine import Simulator
    from nsgui.engine.codes import IS_CONST_M, IS_PROJECTION
    from nsgui.engine.evaluation import evaluate
    sim = Simulator(model)
    m, d = sim._args
    a, D = model.arrays, sim._data
    const_M, projection = a.isets[IS_CONST_M] != 0, a.isets[IS_PROJECTION] != 0
    evaluate(m, d, not const_M)
    if const_M:
        D.M[:, :] = a.M_const
    return m, d, D, const_M, projection


def end_step(m, d, nact, t_next, const_M, projection):
    """The rest of a step after its contact problem, as the compiled loop does it: positions, energy,
    statuses, the state committed, the new evaluation and the position projection when due."""
    from nsgui.engine import stepper as st
    from nsgui.engine.evaluation import evaluate
    from nsgui.engine.projection import projection_due
    st.update_positions(m, d)
    st.book_energy(m, d, nact)
    st.classify_contacts(m, d, nact)
    st.commit_step(d, t_next)
    upot = evaluate(m, d, not const_M)
    if projection and projection_due(m, d):
        st.project_positions(m, d, upot)


if __name__ == "__main__":
    main()
