"""The `auto` solver of the 2-D friction-contact problem: NSGS, and Lemke on the LCP reformulation when
NSGS misses the tolerance.

Why: in a hyperstatic packing (a pile of disks on a hexagonal lattice: more contact rows than the bodies'
coordinates can separate, W singular) the percussions are not unique and W is ill-conditioned on its
range; NSGS then stalls between 1e-8 and 1e-4 (a 200-disk pile: W 332 × 332 of rank 264). A proximal
regularization (W + ρI) or a semismooth Newton step on the Alart–Curnier function did not get there
either (docs/benchmarks.md, issue 13): the statuses of a stalled NSGS iterate are those of no solution,
and the status equations leave the redundant contacts' forces free, so their sign and cone conditions
are not met. Complementary pivoting handles both: Lemke ends on a solution, a vertex of the solution set.

Problems NSGS solves are untouched: the same iterates, the same answer. Lemke's tableau is dense
(O(k²) per pivot), so the fallback is for the steps NSGS cannot do, not for speed. Where Lemke on W stops
on a ray (W singular: a pivot of round-off size made its basis singular), Lemke on W + d I, d a tiny
share of W's diagonal, gives an answer of the unshifted problem to the tolerance (_shifted_lemke).
"""
import numba

from ._linalg import csr_to_dense
from .lemke_fc2d import lemke_fc2d
from .nsgs import fc2d_error_csr, nsgs_fc2d_csr
from ..codes import ITERATION_CAP, SOLVED

_SHIFTS = (1e-11, 1e-10, 1e-9)   # W's diagonal shifts (shares of its largest entry) when Lemke stops on W
# Lemke's pivot cap per contact. On the 45-disk pile's landing Lemke ends in at most 1322 pivots (80 contacts,
# 350 at the median), or else cycles on degenerate vertices until the cap: 7 of its 322 stalled steps, with
# 100 per contact 0.25 s a run and 4.1 of the landing's 9.3 s of CPU. The 200-disk pile's steps took up to
# 5053 pivots at 309 contacts (docs/benchmarks.md, issue 13).
_PIVOTS_PER_CONTACT = 25


@numba.njit(cache=True)
def fc2d_auto_csr(ptr, col, val, tptr, tcol, tval, q, mu, r0, tol, max_iter):
    """nsgs_fc2d_csr (same arguments and returns); when it ends above tol, Lemke on the LCP reformulation,
    whose answer is taken if it meets tol, whatever Lemke's status (SOLVED, iterations = sweeps + pivots).
    Otherwise NSGS
    again from Lemke's point when that is better than NSGS's, and the best answer with its status
    (ITERATION_CAP when none meets tol; NSGS's own status on bad input)."""
    r, st, it, err = nsgs_fc2d_csr(ptr, col, val, tptr, tcol, tval, q, mu, r0, tol, max_iter)
    if st != ITERATION_CAP:
        return r, st, it, err
    nc = q.shape[0] // 2
    W = csr_to_dense(ptr, col, val, q.shape[0])
    rl, stl, piv = lemke_fc2d(W, q, mu, _PIVOTS_PER_CONTACT * nc + 100)
    errl = fc2d_error_csr(ptr, col, val, q, mu, rl)   # inf if Lemke left non-finite numbers
    if errl <= tol:   # (also where Lemke cycled near an answer to its cap: the answer is checked here)
        return rl, SOLVED, it + piv, errl
    rl, errl, piv = _shifted_lemke(W, ptr, col, val, q, mu, tol, rl, errl, piv)
    if errl <= tol:
        return rl, SOLVED, it + piv, errl
    if not errl < err:
        return r, st, it, err
    # Lemke stopped near an answer (a ray or a basis spoilt by round-off on the singular W): NSGS
    # finishes from there, as the `lemke` solver does (stepper._solve)
    r2, st2, it2, err2 = nsgs_fc2d_csr(ptr, col, val, tptr, tcol, tval, q, mu, rl, tol, max_iter)
    if err2 < errl:
        return r2, st2, it + piv + it2, err2
    return rl, ITERATION_CAP, it + piv + it2, errl


@numba.njit(cache=True)
def _shifted_lemke(W, ptr, col, val, q, mu, tol, rbest, ebest, piv):
    """Lemke on W + d I, d a small share of W's largest diagonal entry, when Lemke on W ended on a ray:
    with W singular (a hyperstatic pile: 618 rows of rank 514 on the 200-disk pile's step at
    t = 0.204 s) the tableau takes a pivot of round-off size (1e-12 of its column), its basis turns
    singular and the method stops on a ray; larger pivot tolerances make it cycle. The shift makes
    every basis of normal rows regular; its answer meets u = W r + q up to d r, far below tol for the
    first shares (the error grows as d: 5e-11 at 1e-11, 5e-10 at 1e-10), each tried in turn, the larger
    ones in case a smaller one still stops. Returns the best (r, error on W, pivots so far)."""
    m = q.shape[0]
    nc = m // 2
    dmax = 0.0
    for i in range(m):
        dmax = max(dmax, W[i, i])
    Ws = W.copy()
    for share in _SHIFTS:
        for i in range(m):
            Ws[i, i] = W[i, i] + share * dmax
        rs, sts, p = lemke_fc2d(Ws, q, mu, _PIVOTS_PER_CONTACT * nc + 100)
        piv += p
        errs = fc2d_error_csr(ptr, col, val, q, mu, rs)
        if errs < ebest:
            rbest, ebest = rs, errs
        if ebest <= tol:
            break
    return rbest, ebest, piv
