"""One-step problem solvers (numba-compiled, called from the stepping loop).

All functions take float64 numpy arrays, never raise, and report failure by status codes
(nsgui.engine.codes): SOLVED, RAY_TERMINATION (Lemke), ITERATION_CAP (iteration/pivot cap),
SINGULAR_SUBPROBLEM (BPP), BAD_INPUT (wrong shapes or non-finite data: numba does not bounds-check,
so this is checked). STATUS_TEXT maps codes to messages for reports.
"""
from ..codes import BAD_INPUT, ITERATION_CAP, RAY_TERMINATION, SINGULAR_SUBPROBLEM, SOLVED
from .lemke import lemke
from .pgs import pgs_lcp
from .bpp import bpp_lcp
from .nsgs import nsgs_fc2d
from .lemke_fc2d import lemke_fc2d
from .residuals import lcp_residual, fc2d_residual

STATUS_TEXT = {
    SOLVED: "solved",
    RAY_TERMINATION: "no solution (Lemke ray termination)",
    ITERATION_CAP: "iteration cap reached without convergence",
    SINGULAR_SUBPROBLEM: "singular principal subproblem (fall back to Lemke)",
    BAD_INPUT: "bad input: wrong array shapes or non-finite values",
}

__all__ = ["STATUS_TEXT", "lemke", "pgs_lcp", "bpp_lcp", "nsgs_fc2d", "lemke_fc2d", "lcp_residual", "fc2d_residual"]
