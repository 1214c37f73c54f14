"""Replay NSGS on the box pyramids' slow landing problems and try accelerations of it (issue 13, session 15):

    .venv/bin/python benchmarks/step_problems.py 10 0 300 /tmp/p55/s --pyramid --sweeps=20   # store them
    .venv/bin/python benchmarks/landing_sweeps.py /tmp/p55 [/tmp/p15 ...] [--only=V1,V2] [--momentum=X]

Each stored problem (W in compressed rows, q, mu, the warm start r0) is solved from r0 to the stepper's
tolerance 1e-10 (nsgs.fc2d_error_csr, the stepper's acceptance) by
- `engine`: the compiled nsgs_fc2d_csr as the stepper runs it (Aitken every 10 sweeps from sweep 100, each
  try an exact error: 1 pass);
- `rows`: the compiled nsgs_fc2d_rows on the stored contact rows (where stored): this checkout's stepper;
- `plain`: a copy of its sweeps (dense W, u kept incrementally, no extrapolation);
- `sor w`: over-relaxed local solves, r_c <- proj_cone(r_c + w (r_loc - r_c));
- `sub k/n`: every k sweeps, the statuses of the iterate (open r_N = 0, stick |r_T| < mu r_N, slip), n
  conjugate-gradient iterations on W_SS for the sticking contacts' rows (u_S = 0, slipping and open held
  fixed), the step projected back on the cones (halved up to twice when the error does not fall: a projected
  search as Moré & Toraldo's GPCG), kept only where its exact error is below the iterate's;
- `aa m/k`: Anderson acceleration (memory m) of the sweep map, tried every k sweeps, projected, kept only where
  its exact error is below the sweep's (else the history restarts; `aa keep`: kept after a success too);
- `nest`: Nesterov momentum y = x + (t_k - 1)/t_{k+1} (x - x_prev) projected, the sweep from y, restarted
  when the sweep's error grows (`fp`: when the sweep's own step |x_{k+1} - y| grows, the branch's rule;
  `dir`: when the step turns back; `grow g`: only after a g-fold growth); `from K`: plain sweeps before sweep
  K (the branch: `nest fp from 10`); `sym`: forward and backward sweeps; `b`: β capped.
Work is counted in passes over the contact rows: a sweep 1 (its error scan counted with it, as in the
stepper), an exact error 1, a W-product 2; a momentum step 0 (--momentum=X to charge it). Every answer
counted is checked with fc2d_error_csr <= tol (a variant that fails or exceeds CAP passes is charged CAP).
"""
import glob
import os
import sys

import single_blas  # noqa: F401  (before numpy loads: BLAS on one thread)
import numba
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]

from nsgui.engine.solvers._linalg import csr_transpose  # noqa: E402
from nsgui.engine.solvers.nsgs import _local_solve, fc2d_error_csr, nsgs_fc2d_csr, nsgs_fc2d_rows  # noqa: E402
from nsgui.engine.solvers.residuals import fc2d_largest_residual  # noqa: E402

TOL = 1e-10
CAP = 20000   # passes


@numba.njit(cache=True)
def _sweep(W, q, u, r, mu, skip, omega, backward=False):
    nc = q.shape[0] // 2
    for cc in range(nc):
        c = nc - 1 - cc if backward else cc
        if skip[c]:
            continue
        i = 2 * c
        a, b, bp, d = W[i, i], W[i, i + 1], W[i + 1, i], W[i + 1, i + 1]
        rN, rT = r[i], r[i + 1]
        nN, nT = _local_solve(a, b, bp, d, u[i] - a * rN - b * rT, u[i + 1] - bp * rN - d * rT, mu[c], mu[c] <= 0.0)
        if omega != 1.0:
            nN = max(rN + omega * (nN - rN), 0.0)
            lim = max(mu[c], 0.0) * nN
            nT = min(max(rT + omega * (nT - rT), -lim), lim)
        dN, dT = nN - rN, nT - rT
        if dN != 0.0 or dT != 0.0:
            r[i], r[i + 1] = nN, nT
            for j in range(q.shape[0]):
                u[j] += W[j, i] * dN + W[j, i + 1] * dT


@numba.njit(cache=True)
def _project(r, mu):
    for c in range(r.shape[0] // 2):
        rN = max(r[2 * c], 0.0)
        lim = max(mu[c], 0.0) * rN
        r[2 * c] = rN
        r[2 * c + 1] = min(max(r[2 * c + 1], -lim), lim)


class Problem:
    def __init__(self, path):
        z = np.load(path)
        self.name = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)[:-4]
        self.ptr, self.col, self.val = z["indptr"], z["indices"], z["data"]
        self.q, self.mu, self.r0 = z["q"], z["mu"], z["r0"]
        self.rows = {k: z[k] for k in ("rcols", "rvals", "rnnz", "mi_ptr", "mi_col", "mi_val", "n") if k in z.files}
        m = self.q.shape[0]
        self.W = np.zeros((m, m))
        for i in range(m):
            self.W[i, self.col[self.ptr[i]:self.ptr[i + 1]]] = self.val[self.ptr[i]:self.ptr[i + 1]]
        self.norm = max(1.0, np.abs(self.q).max())
        d = np.diag(self.W)
        self.skip = ~(d[0::2] > 1e-14 * d.max())

    def err_of(self, u, r):
        return fc2d_largest_residual(u, r, self.mu, self.q.shape[0] // 2) / self.norm

    def exact(self, r):
        u = self.W @ r + self.q
        return u, self.err_of(u, r)

    def accept(self, r):
        return fc2d_error_csr(self.ptr, self.col, self.val, self.q, self.mu, r) <= TOL

    def start(self):
        r = self.r0.copy()
        r[0::2] = np.maximum(r[0::2], 0.0)
        r[0::2][self.skip] = 0.0
        r[1::2][self.skip] = 0.0
        return r


def engine(p):
    tptr, tcol, tval = csr_transpose(p.ptr, p.col, p.val, p.q.shape[0])
    r, st, it, err = nsgs_fc2d_csr(p.ptr, p.col, p.val, tptr, tcol, tval, p.q, p.mu, p.r0, TOL, CAP)
    tries = (it - 100) // 10 + 1 if it >= 100 else 0   # Aitken's exact errors (sweeps 100, 110, ...)
    return it + tries if p.accept(r) else None


def rows(p):
    """The compiled rows form as the stepper calls it (its momentum from sweep MOMENTUM_FROM on; the momentum
    steps not counted, as no pass over the rows), on the stored contact rows."""
    from nsgui.engine.contact_rows import delassus_columns
    z = p.rows
    if not z:
        return None
    cptr, ccol, cval = delassus_columns(z["rcols"], z["rvals"], z["rnnz"], z["mi_ptr"], z["mi_col"], z["mi_val"],
                                        int(z["n"]))
    r, st, it, err = nsgs_fc2d_rows(z["rcols"], z["rvals"], z["rnnz"], cptr, ccol, cval, int(z["n"]), p.q, p.mu, p.r0,
                                    TOL, CAP, np.empty((0, 4)))
    return it if p.accept(r) else None


def _converged(p, u, r, err):
    """The stepper's test: the incremental error, then the exact one (free: counted with the sweep)."""
    if err > TOL:
        return False, u, err
    u, err = p.exact(r)
    return err <= TOL, u, err


def sor(p, omega=1.0):
    r = p.start()
    u, err = p.exact(r)
    passes = 0
    if err <= TOL:
        return 0
    while passes < CAP:
        _sweep(p.W, p.q, u, r, p.mu, p.skip, omega)
        passes += 1
        ok, u, err = _converged(p, u, r, p.err_of(u, r))
        if ok:
            return passes if p.accept(r) else None
    return None


def sub(p, k=10, ncg=10, omega=1.0):
    r = p.start()
    u, err = p.exact(r)
    passes = it = 0
    if err <= TOL:
        return 0
    while passes < CAP:
        _sweep(p.W, p.q, u, r, p.mu, p.skip, omega)
        passes += 1
        it += 1
        ok, u, err = _converged(p, u, r, p.err_of(u, r))
        if ok:
            return passes if p.accept(r) else None
        if it % k:
            continue
        rN, rT = r[0::2], r[1::2]
        stick = (rN > 0.0) & (np.abs(rT) < p.mu * rN) & ~p.skip
        S = np.repeat(stick, 2)
        if not S.any():
            continue
        WSS = p.W[np.ix_(S, S)]
        x = np.zeros(S.sum())
        res = -u[S]
        pdir = res.copy()
        rr = res @ res
        for _ in range(ncg):
            Wp = WSS @ pdir
            passes += 2
            pw = pdir @ Wp
            if not pw > 0.0:
                break
            alpha = rr / pw
            x += alpha * pdir
            res -= alpha * Wp
            rr1 = res @ res
            pdir = res + (rr1 / rr) * pdir
            rr = rr1
        step = 1.0
        for _ in range(3):
            rc = r.copy()
            rc[S] += step * x
            _project(rc, p.mu)
            uc, errc = p.exact(rc)
            passes += 1
            if errc < err:
                r, u, err = rc, uc, errc
                if err <= TOL:
                    return passes if p.accept(r) else None
                break
            step *= 0.5
    return None


def aa(p, mem=5, every=1, omega=1.0, keep=False):
    x = p.start()
    u, err = p.exact(x)
    passes = 0
    if err <= TOL:
        return 0
    X, G = [], []
    while passes < CAP:
        g = x.copy()
        _sweep(p.W, p.q, u, g, p.mu, p.skip, omega)
        passes += 1
        ok, u, err = _converged(p, u, g, p.err_of(u, g))
        if ok:
            return passes if p.accept(g) else None
        X.append(x)
        G.append(g.copy())
        if len(X) > mem + 1:
            X.pop(0)
            G.pop(0)
        x = g
        if len(X) >= 3 and passes % every == 0:
            F = np.array([gg - xx for gg, xx in zip(G, X)]).T
            dF, dG = np.diff(F, axis=1), np.diff(np.array(G).T, axis=1)
            gam = np.linalg.lstsq(dF, F[:, -1], rcond=1e-12)[0]
            xa = G[-1] - dG @ gam
            _project(xa, p.mu)
            ua, erra = p.exact(xa)
            passes += 1
            if erra <= TOL:
                return passes if p.accept(xa) else None
            if erra < err:
                x, u, err = xa, ua, erra
                if not keep:
                    X, G = [], []
            else:
                X, G = [], []
    return None


MOMENTUM = 0.0    # passes a momentum step costs (--momentum=X): none by the count above, as it reads no row; y and
#                   X y are linear combinations of the last two iterates' (a few flops per contact row and
#                   coordinate, against a sweep's reads of every row and column entry: ~0.1 of a sweep)


def nest(p, omega=1.0, start=0, restart="err", bmax=1.0, sym=False, grow=1.0):
    """Nesterov (FISTA-type) momentum on the sweep map from sweep `start` on (plain sweeps before); restart
    (t = 1) when the sweep's error grows (restart="err") or the step turns back ("dir": (x1 - x)·(x - xp) < 0);
    the momentum factor at most bmax."""
    x = p.start()
    u, err = p.exact(x)
    passes = 0
    if err <= TOL:
        return 0
    xpp, xp, up, t = x.copy(), x.copy(), u.copy(), 1.0
    fp = np.inf
    it = 0
    while passes < CAP:
        it += 1
        if it > start + 1:
            t1 = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            beta = min((t - 1.0) / t1, bmax)
            y = x + beta * (x - xp)
            _project(y, p.mu)
            uy = p.W @ y + p.q   # (linear in y but where the projection moved it)
            passes += MOMENTUM
        else:
            t1 = 1.0
            y, uy = x.copy(), u.copy()
        xpp, xp, up = xp, x, u
        y0 = y.copy()
        _sweep(p.W, p.q, uy, y, p.mu, p.skip, omega)
        passes += 1
        fp1 = np.linalg.norm(y - y0)   # the sweep's own step (free: summed as it goes)
        if sym:
            _sweep(p.W, p.q, uy, y, p.mu, p.skip, omega, True)
            passes += 1
        x, u = y, uy
        e1 = p.err_of(u, x)
        ok, u, e1 = _converged(p, u, x, e1)
        if ok:
            return passes if p.accept(x) else None
        if restart == "err":
            again = e1 > grow * err
        elif restart == "fp":
            again = fp1 > grow * fp
        else:
            again = np.dot(x - xp, xp - xpp) < 0.0 or e1 > 10.0 * err
        t = 1.0 if again else t1   # restart
        err, fp = e1, fp1
    return None


VARIANTS = {
    "engine": engine,
    "rows": rows,
    "plain": sor,
    **{f"sor {w}": (lambda p, w=w: sor(p, w)) for w in (1.1, 1.2, 1.3, 1.4, 1.5, 1.7)},
    **{f"sub {k}/{n}": (lambda p, k=k, n=n: sub(p, k, n)) for k, n in ((5, 5), (10, 10), (10, 20), (20, 20), (10, 40))},
    "sub 10/20 sor 1.3": lambda p: sub(p, 10, 20, 1.3),
    **{f"aa {m}/{e}": (lambda p, m=m, e=e: aa(p, m, e)) for m, e in ((3, 1), (5, 1), (5, 5), (10, 10))},
    "aa 5/5 sor 1.3": lambda p: aa(p, 5, 5, 1.3),
    "nest": nest,
    **{f"nest from {k}": (lambda p, k=k: nest(p, 1.0, k)) for k in (10, 20, 50)},
    "nest from 20 sor 1.3": lambda p: nest(p, 1.3, 20),
    "nest dir": lambda p: nest(p, 1.0, 0, "dir"),
    "nest fp": lambda p: nest(p, 1.0, 0, "fp"),
    "nest fp from 10": lambda p: nest(p, 1.0, 10, "fp"),
    "nest fp from 20": lambda p: nest(p, 1.0, 20, "fp"),
    "nest grow 1.5": lambda p: nest(p, 1.0, 0, "err", 1.0, False, 1.5),
    "nest grow 3": lambda p: nest(p, 1.0, 0, "err", 1.0, False, 3.0),
    "nest sor 1.2": lambda p: nest(p, 1.2),
    "nest sor .9": lambda p: nest(p, 0.9),
    "nest sym": lambda p: nest(p, 1.0, 0, "err", 1.0, True),
    "nest sym sor 1.2": lambda p: nest(p, 1.2, 0, "err", 1.0, True),
    "nest from 10 dir": lambda p: nest(p, 1.0, 10, "dir"),
    "nest b.9": lambda p: nest(p, 1.0, 0, "err", 0.9),
    "nest b.95": lambda p: nest(p, 1.0, 0, "err", 0.95),
    **{f"aa keep {m}/{e}": (lambda p, m=m, e=e: aa(p, m, e, 1.0, True))
       for m, e in ((5, 1), (5, 2), (10, 5), (10, 10))},
}


def main():
    dirs = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")]
    global MOMENTUM
    MOMENTUM = float(([a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--momentum=")] or [MOMENTUM])[0])
    names = [v for v in VARIANTS if not only or v in only[0].split(",")]
    for d in dirs:
        files = sorted(glob.glob(os.path.join(d, "*.npz")), key=lambda f: int(f.rsplit("_", 1)[1][:-4]))
        probs = [Problem(f) for f in files]
        base = [sor(p) for p in probs]
        print(f"{d}: {len(probs)} problems, {2 * max(p.q.shape[0] for p in probs) // 4} contacts at most", flush=True)
        print(f"{'variant':>20} {'passes':>8} {'/ plain':>8} {'failed':>6} {'median ratio':>12} {'worst ratio':>12}")
        for v in names:
            got = [VARIANTS[v](p) for p in probs]
            ok = [(g, b) for g, b in zip(got, base) if g is not None and b is not None]
            fail = sum(g is None for g in got)
            tot = sum(g if g is not None else CAP for g in got)
            ratios = [g / b for g, b in ok if b > 0]
            print(f"{v:>20} {tot:>8} {tot / sum(b or CAP for b in base):>8.2f} {fail:>6} "
                  f"{np.median(ratios):>12.2f} {max(ratios):>12.2f}", flush=True)


if __name__ == "__main__":
    main()
