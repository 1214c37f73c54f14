"""Prototype (numpy, not compiled; session 14, docs/benchmarks.md): the 2-D friction-contact step problem
u = W r + q as a fixed point of convex QPs (Acary, Cadoux, Lemaréchal, Malick 2011; De Saxcé's modified
velocity), replayed on stored step problems (tests/engine/data/*.npz, benchmarks/step_problems.py):

    .venv/bin/python benchmarks/qp_fixed_point.py FILE.npz [...] [--lemke] [--auto] [--outer=MODE]
        [--start-r0] [--depth=5] [--omega=1] [--nu=1e-8] [--lm-below=1e-4] [--max-outer=50] [--trace]
    .venv/bin/python benchmarks/qp_fixed_point.py FILE.npz --probe=ANSWER.npy   (see probe())

For s >= 0 (one per contact) the QP  min ½ r'Wr + (q + s e_N)'r  over the cones |r_T| <= mu r_N has the
KKT system r in K, û = W r + q + s e_N in K*, r ⟂ û, and a Coulomb-Signorini answer is a fixed point
s = mu |u_T|. With r_N = l1 + l2, r_T = mu (l1 - l2) (one variable r_N where mu = 0) the QP is
min ½ l'Ml + c'l, l >= 0, M = B'WB PSD (singular where W is): solved by a primal active-set method
(subspace minimiser on the free set F with M_FF kept regular; an index whose column depends on F's
enters by a ratio test along M's null direction, as a simplex pivot), warm-started from the last QP's F.
Every answer is judged by the compiled fc2d_error_csr against 1e-10, as the auto solver judges Lemke's.

Outer modes (G(s) = mu |u_T(s)| - s): picard (relaxed by omega), newton (Newton's step with u_T's Jacobian
on the QP's free set, least squares), newton-ls (with a backtracking search on |G|), status (the status
equations from the QP's answer), anderson (Anderson mixing of Picard steps), anderson-newton (the default:
Anderson, and a Newton step kept if it lowers |G| once |G| < 1e-6 or a QP left F unchanged),
lm / anderson-lm (Levenberg-Marquardt on G). Printed per file: NSGS's error after 1000 sweeps from r0; the
outer iterations, Newton steps, active-set changes, dependent entries ("rays"), subspace solves, the
error, CPU (numpy, fresh solves: not comparable with compiled code) and the multiply-adds a compiled
version with an updated Cholesky factor of M_FF would need; with --lemke lemke_fc2d (pivots, error, CPU,
pivots × m(m + 2) multiply-adds of the compact tableau, m = 4 nc); with --auto fc2d_auto_csr(…, max_iter 0)
from NSGS's iterate, as the stepper calls it.

Outcome (session 14): the 21 stored stalled steps of the 45- and 200-disk piles up to t = 0.17 s are
solved (to 1e-15 … 3e-11) with 1-213 active-set changes, ~8x fewer multiply-adds than Lemke in all; the two
hard steps (pile200_ray_step, the 200-disk pile's step 183) are not: the answer is a repelling fixed point
of s -> mu |u_T(s)| there, and Newton's basin is ~1e-4 of s wide.
"""
import os
import sys
import time

import single_blas  # noqa: F401  (before numpy loads: BLAS on one thread)
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT]


def load(path):
    with np.load(path) as f:
        ptr, col, val = f["indptr"].astype(np.int64), f["indices"].astype(np.int64), f["data"].astype(float)
        q, mu, r0 = f["q"].astype(float), f["mu"].astype(float), f["r0"].astype(float)
    m = len(ptr) - 1
    W = np.zeros((m, m))
    for i in range(m):
        W[i, col[ptr[i]:ptr[i + 1]]] = val[ptr[i]:ptr[i + 1]]
    return ptr, col, val, W, q, mu, r0


def generators(mu):
    """B (2nc × nl): r = B l; the contact of each variable."""
    nc = len(mu)
    cols, owner = [], []
    for c in range(nc):
        if mu[c] > 0:
            cols += [(c, 1.0, mu[c]), (c, 1.0, -mu[c])]
            owner += [c, c]
        else:
            cols += [(c, 1.0, 0.0)]
            owner += [c]
    B = np.zeros((2 * nc, len(cols)))
    for j, (c, a, b) in enumerate(cols):
        B[2 * c, j], B[2 * c + 1, j] = a, b
    return B, np.array(owner)


def to_lambda(B, owner, mu, r):
    """A l >= 0 with B l = proj_K(r) (r_N = l1 + l2, r_T = mu (l1 - l2))."""
    nl = B.shape[1]
    lam = np.zeros(nl)
    j = 0
    for c in range(len(mu)):
        rN = max(r[2 * c], 0.0)
        if mu[c] > 0:
            rT = min(max(r[2 * c + 1], -mu[c] * rN), mu[c] * rN)
            lam[j] = 0.5 * (rN + rT / mu[c])
            lam[j + 1] = 0.5 * (rN - rT / mu[c])
            j += 2
        else:
            lam[j] = rN
            j += 1
    return np.maximum(lam, 0.0)


class Stats:
    def __init__(self):
        self.changes = 0      # active-set changes (adds + drops)
        self.solves = 0       # subspace solves (a factorisation each here)
        self.rays = 0         # dependent entries (null-direction steps)
        self.madds = 0        # multiply-adds of a compiled version with an updated Cholesky factor of M_FF
        self.newton = 0       # status-equation (Newton) steps on the outer fixed point


def active_set_qp(M, c, lam0, stats, tol=1e-14, dep=1e-10, max_changes=None, F0=None):
    """Primal active-set method for min ½ l'Ml + c'l, l >= 0, M symmetric PSD, from the feasible lam0.

    F: the free set, kept with M_FF regular (a pivoted Cholesky picks an independent part of lam0's support;
    the rest of the support stays at its value, as fixed, until the first subspace step moves it to 0 or F).
    Returns (l, ok)."""
    n = len(c)
    lam = lam0.copy()
    scale = max(1.0, np.abs(c).max())
    if max_changes is None:
        max_changes = 20 * n + 100
    # independent part of the warm start's support (greedy, by size)
    F = [] if F0 is None else [j for j in F0 if lam[j] > 0]
    for j in np.argsort(-lam):
        if j in F:
            continue
        if lam[j] <= 0:
            break
        stats.madds += len(F) ** 2 // 2
        if _independent(M, F, j, dep):
            F.append(j)
    # the support outside F: moved onto F (its columns depend on F's): l_F += (M_FF^-1 M_F,j) l_j keeps M l
    # only approximately; simply zero it and let the method re-add what it needs
    out = [j for j in range(n) if lam[j] > 0 and j not in F]
    lam[out] = 0.0
    changes0 = stats.changes
    while stats.changes - changes0 < max_changes:
        # subspace minimiser on F, stepping towards it until feasible
        while True:
            if F:
                Fa = np.array(F)
                stats.solves += 1
                stats.madds += len(F) ** 2
                x = np.linalg.solve(M[np.ix_(Fa, Fa)], -c[Fa])
                if np.all(x >= 0):
                    lam[:] = 0.0
                    lam[Fa] = x
                    break
                d = x - lam[Fa]
                neg = d < 0
                t = np.min(lam[Fa][neg] / -d[neg])
                k = np.argmin(np.where(neg, lam[Fa] / np.where(neg, -d, 1.0), np.inf))
                lam[Fa] = lam[Fa] + t * d
                lam[Fa[k]] = 0.0
                F.remove(Fa[k])
                stats.changes += 1
                stats.madds += len(F) ** 2
                lam[lam < 0] = 0.0
            else:
                lam[:] = 0.0
                break
        w = M @ lam + c
        stats.madds += n * len(F)
        cand = [j for j in range(n) if j not in F]
        if not cand:
            active_set_qp.F = F
            return lam, True
        j = min(cand, key=lambda i: w[i])
        if w[j] >= -tol * scale:
            active_set_qp.F = F
            return lam, True
        stats.changes += 1
        stats.madds += len(F) ** 2 // 2
        if _independent(M, F, j, dep):
            F.append(j)
            continue
        # dependent column: M d = 0 for d = (-M_FF^-1 M_Fj on F, 1 at j); the objective falls as w_j t
        stats.rays += 1
        Fa = np.array(F)
        stats.solves += 1
        stats.madds += 2 * len(F) ** 2
        dF = -np.linalg.solve(M[np.ix_(Fa, Fa)], M[Fa, j])
        neg = dF < 0
        if not neg.any():
            return lam, False   # unbounded: no solution
        ratios = np.where(neg, lam[Fa] / np.where(neg, -dF, 1.0), np.inf)
        k = int(np.argmin(ratios))
        t = ratios[k]
        lam[Fa] += t * dF
        lam[j] = t
        lam[Fa[k]] = 0.0
        F.remove(Fa[k])
        F.append(j)
        lam[lam < 0] = 0.0
    return lam, False


def _independent(M, F, j, dep):
    if not F:
        return M[j, j] > dep * max(1.0, M[j, j])
    Fa = np.array(F)
    y = np.linalg.solve(M[np.ix_(Fa, Fa)], M[Fa, j])
    return M[j, j] - M[j, Fa] @ y > dep * M[j, j]


def status_step(W, q, mu, B, owner, lam, u):
    """Newton's step on s = mu |u_T| with the QP answer's free set: the rows w_F = 0 with s replaced by
    mu |u_T| (a slipping variable's row e_N + mu e_T becomes e_N: u_N = 0; a sticking contact keeps u_N = 0
    = u_T), the variables outside F at 0; least squares where the system is singular."""
    F = np.flatnonzero(lam > 0)
    if len(F) == 0:
        return None
    rows = B[:, F].copy()
    for a, j in enumerate(F):
        c = owner[j]
        if mu[c] > 0 and np.count_nonzero(lam[owner == c] > 0) == 1:
            rows[:, a] = 0.0
            rows[2 * c, a] = 1.0
    A = rows.T @ W @ B[:, F]
    b = -(rows.T @ q)
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    out = np.zeros(B.shape[1])
    out[F] = x
    return B @ np.maximum(out, 0.0)


def newton_direction(W, M, B, E, mu, lam, u, G, stats, nu=None):
    """Newton's step d on G(s) = mu |u_T(s)| - s, with u_T's Jacobian on the QP answer's free set F
    (dl_F/ds = -M_FF^-1 B_F' E, u_T affine in s while F stays optimal); least squares where it is singular."""
    nc = len(mu)
    F = np.flatnonzero(lam > 0)
    dl = -np.linalg.solve(M[np.ix_(F, F)], B[:, F].T @ E)
    J = (W @ B[:, F] @ dl)[1::2]
    Gp = (mu * np.sign(u[1::2]))[:, None] * J - np.eye(nc)
    stats.solves += 1
    stats.newton += 1
    stats.madds += len(F) ** 2 * nc + nc ** 3 // 3
    if nu is not None:   # Levenberg-Marquardt: (G'ᵀG' + nu |G'|² I) d = -G'ᵀ G
        return np.linalg.solve(Gp.T @ Gp + nu * np.linalg.norm(Gp, 2) ** 2 * np.eye(nc), -Gp.T @ G)
    return np.linalg.lstsq(Gp, -G, rcond=None)[0]


def qp_fixed_point(W, q, mu, r0, err_fn, tol=1e-10, max_outer=50, start="zero", outer="anderson-newton", ls_steps=4,
                   keepF=True, trace=False, depth=5, newton_below=1e-6, omega=1.0, nu0=1e-8, lm_below=1e-4):
    """The fixed point s = mu |u_T| of the QPs, each warm-started from the last QP's l.

    start "zero": s = 0 (every contact as if sticking), "r0": s = mu |u_T| of the warm start r0.
    outer "picard": s <- mu |u_T(s)|; "newton": Newton's step on G(s) = mu |u_T(s)| - s with u_T's Jacobian
    on the last QP's free set F (dl_F/ds = -M_FF^-1 B_F' E), least squares where it is singular, s clipped
    at 0; a Picard step instead when the last Newton step did not lower |G|; "status": Picard plus the
    status equations' answer tried after each QP. Returns r, error, outer iterations, stats."""
    B, owner = generators(mu)
    M = B.T @ W @ B
    nc = len(mu)
    E = np.zeros((2 * nc, nc))
    E[0::2, :] = np.eye(nc)
    stats = Stats()
    u0 = W @ r0 + q
    s = mu * np.abs(u0[1::2]) if start == "r0" else np.zeros(nc)
    lam = to_lambda(B, owner, mu, r0)
    active_set_qp.F = None
    best = (np.inf, None)
    last_g = np.inf

    def evaluate(s, lam):
        qs = q.copy()
        qs[0::2] += s
        stats.madds += 2 * W.size
        c0 = stats.changes
        lam, ok = active_set_qp(M, B.T @ qs, lam, stats, F0=getattr(active_set_qp, "F", None) if keepF else None)
        evaluate.changes = stats.changes - c0
        r = B @ lam
        u = W @ r + q
        G = mu * np.abs(u[1::2]) - s
        if trace:
            print(f"   QP changes {stats.changes - c0}, |G| {np.abs(G).max():.1e}")
        return lam, r, u, G

    lam, r, u, G = evaluate(s, lam)
    hist = []
    last_newton_g = np.inf
    nu = nu0
    for k in range(1, max_outer + 1):
        e = err_fn(r)
        if e < best[0]:
            best = (e, r)
        if e <= tol:
            return r, e, k, stats
        g = np.linalg.norm(G)
        if outer == "status":
            rn = status_step(W, q, mu, B, owner, lam, u)
            if rn is not None:
                en = err_fn(rn)
                stats.newton += 1
                if en < best[0]:
                    best = (en, rn)
                if en <= tol:
                    return rn, en, k, stats
        if outer in ("newton", "newton-ls") and (outer == "newton-ls" or g < last_g):
            d = newton_direction(W, M, B, E, mu, lam, u, G, stats)
            if outer == "newton":
                s = np.maximum(s + d, 0.0)
                last_g = g
                lam, r, u, G = evaluate(s, lam)
                continue
            t = 1.0
            for _ in range(ls_steps):
                s1 = np.maximum(s + t * d, 0.0)
                lam1, r1, u1, G1 = evaluate(s1, lam)
                if np.linalg.norm(G1) < (1 - 1e-4 * t) * g:
                    break
                t *= 0.5
            else:
                s1 = mu * np.abs(u[1::2])   # no decrease along Newton's direction: a Picard step
                lam1, r1, u1, G1 = evaluate(s1, lam)
            s, lam, r, u, G = s1, lam1, r1, u1, G1
        elif outer == "lm" or (outer == "anderson-lm" and np.abs(G).max() < lm_below):
            # Levenberg-Marquardt on G, nu adapted: /10 after a step that lowers |G|, x100 (and the step
            # tried again) when it does not
            for _ in range(ls_steps):
                d = newton_direction(W, M, B, E, mu, lam, u, G, stats, nu)
                s1 = np.maximum(s + d, 0.0)
                lam1, r1, u1, G1 = evaluate(s1, lam)
                if np.linalg.norm(G1) < g:
                    nu = max(nu / 10, 1e-12)
                    break
                nu *= 100
            else:
                s1 = mu * np.abs(u[1::2])
                lam1, r1, u1, G1 = evaluate(s1, lam)
            s, lam, r, u, G = s1, lam1, r1, u1, G1
        elif outer == "anderson-newton" and (np.abs(G).max() < newton_below or evaluate.changes == 0) \
                and g < last_newton_g:
            # near the fixed point: Newton's step on the last QP's free set, kept if it lowers |G|
            s1 = np.maximum(s + newton_direction(W, M, B, E, mu, lam, u, G, stats), 0.0)
            lam1, r1, u1, G1 = evaluate(s1, lam)
            last_newton_g = g
            if np.linalg.norm(G1) < g:
                hist.clear()
                s, lam, r, u, G = s1, lam1, r1, u1, G1
            else:
                s = mu * np.abs(u[1::2])
                lam, r, u, G = evaluate(s, lam)
        elif outer in ("anderson", "anderson-newton", "anderson-lm"):
            # Anderson mixing of the last few Picard steps (s clipped at 0)
            hist.append((s.copy(), G.copy()))
            del hist[:-depth - 1]
            if len(hist) > 1:
                dG = np.array([hist[i + 1][1] - hist[i][1] for i in range(len(hist) - 1)]).T
                dS = np.array([hist[i + 1][0] - hist[i][0] for i in range(len(hist) - 1)]).T
                gam = np.linalg.lstsq(dG, G, rcond=None)[0]
                s = np.maximum(s + G - (dS + dG) @ gam, 0.0)
            else:
                s = mu * np.abs(u[1::2])
            lam, r, u, G = evaluate(s, lam)
        else:   # Picard, relaxed by omega
            s = (1.0 - omega) * s + omega * mu * np.abs(u[1::2])
            lam, r, u, G = evaluate(s, lam)
        last_g = g
    return best[1], best[0], max_outer, stats


def probe(W, q, mu, r_answer, r0, steps=15):
    """From s* = mu |u_T| of an answer (e.g. the shifted Lemke's), perturbed by a relative eps, the |G| of
    Picard's and of Levenberg-Marquardt's (nu = 1e-8) iterates: is the answer an attracting fixed point?"""
    nc = len(mu)
    sstar = mu * np.abs((W @ r_answer + q)[1::2])
    B, owner = generators(mu)
    M = B.T @ W @ B
    E = np.zeros((2 * nc, nc))
    E[0::2, :] = np.eye(nc)
    rng = np.random.default_rng(0)
    for method in ("picard", "lm"):
        for eps in (0.0, 1e-8, 1e-6, 1e-4):
            s = sstar * (1.0 + eps * rng.standard_normal(nc))
            lam, out, stats = to_lambda(B, owner, mu, r0), [], Stats()
            active_set_qp.F = None
            for _ in range(steps if method == "picard" else steps // 2):
                qs = q.copy()
                qs[0::2] += s
                lam, ok = active_set_qp(M, B.T @ qs, lam, stats, F0=active_set_qp.F)
                u = W @ (B @ lam) + q
                G = mu * np.abs(u[1::2]) - s
                out.append(f"{np.abs(G).max():.0e}")
                if method == "picard":
                    s = mu * np.abs(u[1::2])
                else:
                    s = np.maximum(s + newton_direction(W, M, B, E, mu, lam, u, G, stats, 1e-8), 0.0)
            print(f"  {method} from s* (1 + {eps:.0e} noise): |G| {' '.join(out)}", flush=True)


def main():
    from nsgui.engine.solvers._linalg import csr_transpose
    from nsgui.engine.solvers.fc2d_auto import fc2d_auto_csr
    from nsgui.engine.solvers.lemke_fc2d import lemke_fc2d
    from nsgui.engine.solvers.nsgs import fc2d_error_csr, nsgs_fc2d_csr
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    lemke = "--lemke" in sys.argv
    auto = "--auto" in sys.argv
    opt = {a[2:].split("=")[0]: a.split("=")[1] for a in sys.argv if a.startswith("--") and "=" in a}
    depth, omega, max_outer = int(opt.get("depth", 5)), float(opt.get("omega", 1.0)), int(opt.get("max-outer", 50))
    start = "r0" if "--start-r0" in sys.argv else "zero"
    outer_mode = next((a[8:] for a in sys.argv if a.startswith("--outer=")), "anderson-newton")
    print("file | contacts | rank W | NSGS err (1000) | QP: outer, newton, changes, rays, solves, err, CPU s, madds"
          + (" | Lemke pivots, err, CPU s, madds" if lemke else ""))
    for f in files:
        ptr, col, val, W, q, mu, r0 = load(f)
        if "probe" in opt:   # --probe=ANSWER.npy: r of an answer (np.save), see probe()
            probe(W, q, mu, np.load(opt["probe"]), r0)
            continue
        tp = csr_transpose(ptr, col, val, len(q))
        err_fn = lambda r: fc2d_error_csr(ptr, col, val, q, mu, r)
        rn, stn, itn, errn = nsgs_fc2d_csr(ptr, col, val, *tp, q, mu, r0, 1e-10, 1000)
        c0 = time.process_time()
        r, e, outer, st = qp_fixed_point(W, q, mu, rn, err_fn, start=start, outer=outer_mode, depth=depth, nu0=float(opt.get("nu", 1e-8)),
                                         lm_below=float(opt.get("lm-below", 1e-4)), omega=omega, max_outer=max_outer,
                                         keepF="--greedy" not in sys.argv, trace="--trace" in sys.argv)
        cpu = time.process_time() - c0
        line = (f"{os.path.basename(f)} | {len(mu)} | {np.linalg.matrix_rank(W)} | {errn:.1e} | {outer}, "
                f"{st.newton}, {st.changes}, {st.rays}, {st.solves}, {e:.1e}, {cpu:.3f}, {st.madds:.1e}")
        if lemke:
            lemke_fc2d(W[:2, :2].copy(), q[:2].copy(), mu[:1].copy(), 10)
            c0 = time.process_time()
            rl, sl, piv = lemke_fc2d(W, q, mu, 25 * len(mu) + 100)
            cl = time.process_time() - c0
            line += f" | {piv}, {err_fn(rl):.1e}, {cl:.3f}, {piv * 4 * len(mu) * (4 * len(mu) + 2):.1e}"
        if auto:
            c0 = time.process_time()
            ra, sa, ita, ea = fc2d_auto_csr(ptr, col, val, *tp, q, mu, rn, 1e-10, 0)
            line += f" | {ita}, {ea:.1e}, {time.process_time() - c0:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
