"""One-step problem solvers (numba-compiled, called from the stepping loop).

All functions take float64 numpy arrays, never raise, and report failure by status codes:
0 solved, 1 ray termination (Lemke), 2 iteration/pivot cap, 3 singular subproblem (BPP),
4 bad input (wrong shapes or non-finite data: numba does not bounds-check, so this is checked).
STATUS_TEXT maps codes to messages for reports.
"""
from .lemke import lemke
from .pgs import pgs_lcp
from .bpp import bpp_lcp
from .nsgs import nsgs_fc2d
from .lemke_fc2d import lemke_fc2d
from .residuals import lcp_residual, fc2d_residual

STATUS_TEXT = {
    0: "solved",
    1: "no solution (Lemke ray termination)",
    2: "iteration cap reached without convergence",
    3: "singular principal subproblem (fall back to Lemke)",
    4: "bad input: wrong array shapes or non-finite values",
}

__all__ = ["STATUS_TEXT", "lemke", "pgs_lcp", "bpp_lcp", "nsgs_fc2d", "lemke_fc2d", "lcp_residual", "fc2d_residual"]
