"""A lead for the box pyramids' landing (issue 13, session 21): a few NSGS sweeps, then a status solve.

    .venv/bin/python benchmarks/step_problems.py 10 0 300 /tmp/p55/s --pyramid --sweeps=30   # store them
    .venv/bin/python benchmarks/landing_status_solve.py /tmp/p55 [--sweeps 10,20,30] [--rounds 20]

Each stored problem (the rows, M⁻¹, q, mu and the warm start r0 as the stepper builds them) is solved by the
engine's NSGS on the rows (nsgs_fc2d_rows: its sweeps to the tolerance 1e-10 are the reference count) and by
NSGS capped at K sweeps followed by rounds of a status solve (a prototype in numpy on the stored W = H M⁻¹ Hᵀ, dense):
each round takes the statuses of the iterate (open: r_N <= 1e-12 of the largest; stick: |r_T| < mu r_N; else
slip by the sign of r_T), finds the least change of r meeting their equations (open r = 0; closed u_N = 0;
stick u_T = 0; slip r_T = ±mu r_N; the system is rank-deficient on a hyperstatic heap: lstsq's least norm)
and stops when the answer's error (fc2d_error_csr: the stepper's acceptance) meets the tolerance; otherwise the statuses are updated from
the answer (an open contact with u_N < -tol closes, a closed one with r_N < 0 opens, a stick outside its cone
slips, a slip whose u_T points against its sign sticks) for the next round. It prints, per K, the problems
solved, the rounds each took and the sweeps saved. A round would cost the engine a factorization (~0.3 ms on
the 55 boxes); docs/benchmarks.md, session 21.
"""
import argparse
import glob
import os
import sys

import single_blas  # noqa: F401  (before numpy loads: BLAS on one thread)
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]

from nsgui.engine.contact_rows import delassus_columns  # noqa: E402
from nsgui.engine.solvers.nsgs import fc2d_error_csr, nsgs_fc2d_rows  # noqa: E402

TOL = 1e-10
OPEN, STICK, SLIP_UP, SLIP_DOWN = 0, 1, 2, 3


def statuses_of(r, mu):
    top = max(r[0::2].max(), 1e-300)
    st = np.full(mu.shape[0], OPEN)
    for c in range(mu.shape[0]):
        rN, rT = r[2 * c], r[2 * c + 1]
        if rN > 1e-12 * top:
            st[c] = STICK if abs(rT) < mu[c] * rN * (1.0 - 1e-9) else (SLIP_UP if rT > 0.0 else SLIP_DOWN)
    return st


def status_equations(W, q, mu, st):
    m = q.shape[0]
    A, b = [], []
    for c, s in enumerate(st):
        iN, iT = 2 * c, 2 * c + 1
        if s == OPEN:
            for i in (iN, iT):
                e = np.zeros(m)
                e[i] = 1.0
                A.append(e)
                b.append(0.0)
            continue
        A.append(W[iN])
        b.append(-q[iN])
        if s == STICK and mu[c] > 0.0:
            A.append(W[iT])
            b.append(-q[iT])
        else:   # a slip, or a frictionless contact (r_T = 0)
            e = np.zeros(m)
            e[iT] = 1.0
            if mu[c] > 0.0:
                e[iN] = -mu[c] if s == SLIP_UP else mu[c]
            A.append(e)
            b.append(0.0)
    return np.array(A), np.array(b)


def status_solve(Wc, W, q, mu, r, rounds):
    """(r, rounds taken, exact error): rounds > 0 solved, < 0 not within that many. Wc: W in compressed rows
    (the stepper's acceptance, fc2d_error_csr), W dense."""
    st = statuses_of(r, mu)
    err = np.inf
    for k in range(1, rounds + 1):
        A, b = status_equations(W, q, mu, st)
        r = r + np.linalg.lstsq(A, b - A @ r, rcond=1e-13)[0]
        err = fc2d_error_csr(*Wc, q, mu, r)
        if err <= TOL:
            return r, k, err
        u = W @ r + q
        changed = False
        for c in range(mu.shape[0]):
            rN, rT, uN, uT = r[2 * c], r[2 * c + 1], u[2 * c], u[2 * c + 1]
            s = st[c]
            if s == OPEN:
                s = STICK if uN < -TOL else OPEN
            elif rN < 0.0:
                s = OPEN
            elif s == STICK and abs(rT) > mu[c] * rN:
                s = SLIP_UP if rT > 0.0 else SLIP_DOWN
            elif s in (SLIP_UP, SLIP_DOWN) and uT * (1.0 if s == SLIP_UP else -1.0) > TOL:
                s = STICK
            changed = changed or s != st[c]
            st[c] = s
        if not changed:
            break
    return r, -k, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--sweeps", default="10,20,30")
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    problems = []
    for d in args.dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.npz")), key=lambda s: int(s.rsplit("_", 1)[1][:-4])):
            z = np.load(f)
            n = int(z["n"])
            rows = (z["rcols"], z["rvals"], z["rnnz"])
            cols = delassus_columns(*rows, z["mi_ptr"], z["mi_col"], z["mi_val"], n)
            Wc = (z["indptr"], z["indices"], z["data"])   # W as the stepper's solver got it (delassus_csr)
            W = np.zeros((z["q"].shape[0],) * 2)
            for i in range(W.shape[0]):
                W[i, Wc[1][Wc[0][i]:Wc[0][i + 1]]] = Wc[2][Wc[0][i]:Wc[0][i + 1]]
            args_rows = (*rows, *cols, n, z["q"], z["mu"])
            _, _, it0, _ = nsgs_fc2d_rows(*args_rows, z["r0"], TOL, 5000, np.empty((0, 4)))
            problems.append((os.path.basename(f), args_rows, Wc, W, z["q"], z["mu"], z["r0"], it0))
    print(f"{len(problems)} problems, {sum(p[-1] for p in problems)} NSGS sweeps to the tolerance in all")
    for K in map(int, args.sweeps.split(",")):
        solved, saved, cells = 0, 0, []
        for name, args_rows, Wc, W, q, mu, r0, it0 in problems:
            r, _, it, err = nsgs_fc2d_rows(*args_rows, r0, TOL, K, np.empty((0, 4)))
            if err <= TOL:
                solved += 1
                cells.append(f"{name}: {it0} -> {it} sweeps")
                continue
            r, k, err = status_solve(Wc, W, q, mu, r, args.rounds)
            solved += k > 0
            saved += it0 - K if k > 0 else 0
            cells.append(f"{name}: {it0} -> {K} + {k} rounds" if k > 0 else f"{name}: {it0}, unsolved ({err / TOL:.0e} tol)")
        print(f"K = {K}: {solved} of {len(problems)} solved, {saved} sweeps fewer")
        for c in cells:
            print("   ", c)


if __name__ == "__main__":
    main()
