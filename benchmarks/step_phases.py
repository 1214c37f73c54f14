"""Where a step's time goes: the phases of stepper.run_steps called one by one from Python, timed.

    .venv/bin/python benchmarks/step_phases.py [--sizes 200,500,1000] [--steps 2000] [--start drop|rest]
                                              [--scene FILE] [--bins K]

Runs the bead columns of benchmarks/scaling.py (or a scene file) through the same phases as the
compiled loop, each called from Python (a few µs of call overhead per phase), and prints per phase (process CPU time)
the share of the time, and in how many steps the projection moved q (solved its linear problems). For profiling only: the
steps are the compiled loop's steps (same functions, same order), the sum is not its speed.
--bins K: also the phases per K steps (ms in each bin; a landing's steps against the rest), with the NSGS sweeps
(sum and largest) and the steps in which the projection moved q.
"""
import os

import single_blas  # noqa: F401,E402  (before numpy loads: BLAS on one thread)

import argparse  # noqa: E402
import runpy  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT]


def phases(model, steps, per_step=None):
    from nsgui.engine import stepper as st
    from nsgui.engine.codes import OK, ST_MAXITER
    from nsgui.engine.evaluation import evaluate
    from step_problems import start_steps
    m, d, data, const_M, projection = start_steps(model)
    h = model.arrays.fs[st.FS_H]
    row = np.zeros((1, len(model.signal_names)))
    names = ("free_velocity", "activate_contacts", "solve_contact_problem", "update_positions",
             "book+classify", "evaluate", "project_positions", "record_step")
    acc = dict.fromkeys(names, 0.0)
    nact_total = 0
    moved = 0  # steps in which the projection moved q (its linear problems were solved)
    stats, iters = data.stats, []
    clock = time.process_time  # CPU time: other processes share the cores
    for step in range(steps):
        t = data.t[0]
        t0 = clock()
        st.free_velocity(m, d)
        st.constrain_free_velocity(m, d)
        st.update_switches(m, d)
        t1 = clock()
        nact, fric = st.activate_contacts(m, d)
        nact_total += nact
        t2 = clock()
        stats[ST_MAXITER] = 0
        code, cand = st.solve_contact_problem(m, d, nact, fric)
        iters.append(stats[ST_MAXITER])
        if code != OK:
            raise SystemExit(f"solver failed at t = {t:.4f} (code {code}, candidate {cand})")
        t3 = clock()
        st.update_positions(m, d)
        t4 = clock()
        st.book_energy(m, d, nact)
        st.classify_contacts(m, d, nact)
        st.commit_step(d, t + h)
        t5 = clock()
        upot = evaluate(m, d, not const_M)
        t6 = clock()
        if projection:
            q0 = data.q.copy()
            t6 = clock()  # (the copy in no phase)
            upot = st.project_positions(m, d, upot)
            t7 = clock()
            moved += not np.array_equal(q0, data.q)
        else:
            t7 = clock()
        st.record_step(m, d, row, 0, upot, True)
        t8 = clock()
        for j, (name, a, b) in enumerate(zip(names, (t0, t1, t2, t3, t4, t5, t6, t7), (t1, t2, t3, t4, t5, t6, t7, t8))):
            acc[name] += b - a
            if per_step is not None:
                per_step[step, j] = b - a
        if per_step is not None:
            per_step[step, len(names)] = iters[-1]
            per_step[step, len(names) + 1] = projection and not np.array_equal(q0, data.q)
    return acc, nact_total / steps, np.array(iters), moved


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200,500,1000")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--start", choices=("rest", "drop"), default="drop")
    ap.add_argument("--scene", help="a scene file instead of the columns")
    ap.add_argument("--bins", type=int, default=0, help="also the phases per this many steps")
    args = ap.parse_args(argv)
    from nsgui.engine import compile_scene
    gen = runpy.run_path(os.path.join(ROOT, "resources", "scenes", "make_bead_columns.py"))
    cases = []
    if args.scene:
        from nsgui.scene import load_scene
        cases.append((os.path.basename(args.scene), load_scene(args.scene)))
    else:
        for n in (int(s) for s in args.sizes.split(",")):
            r = gen["RADIUS"]
            scene = gen["bead_column"](n, bottom=r, pitch=2 * r) if args.start == "rest" else gen["bead_column"](n)
            cases.append((f"column {n} ({args.start})", scene))
    print(f"load average: {os.getloadavg()}")
    for label, scene in cases:
        model = compile_scene(scene)
        phases(model, 3)  # kernels loaded
        per_step = np.zeros((args.steps, 10)) if args.bins else None
        acc, nact, iters, moved = phases(model, args.steps, per_step)
        total = sum(acc.values())
        print(f"{label}: {total / args.steps * 1e6:.0f} µs/step, {nact:.1f} active contacts per step, "
              f"solver iterations per step: mean {iters.mean():.1f}, max {iters.max():.0f}; "
              f"the projection moved q in {moved} of {args.steps} steps")
        for name, v in sorted(acc.items(), key=lambda kv: -kv[1]):
            print(f"  {name:24s} {v / args.steps * 1e6:10.1f} µs/step  {100 * v / total:5.1f} %")
        if args.bins:
            print("  steps      all ms  solve_contact_problem  project_positions  other   sweeps (sum / max)  moved")
            for b in range(0, args.steps, args.bins):
                s = per_step[b:b + args.bins]
                t = s[:, :8].sum(0) * 1e3
                print(f"  {b:5d}-{b + len(s) - 1:<5d} {t.sum():7.2f}  {t[2]:21.2f}  {t[6]:17.2f}  "
                      f"{t.sum() - t[2] - t[6]:5.2f}   {s[:, 8].sum():8.0f} / {s[:, 8].max():4.0f}    {s[:, 9].sum():3.0f}")


if __name__ == "__main__":
    main()
