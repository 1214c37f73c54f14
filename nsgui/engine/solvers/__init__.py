"""One-step problem solvers (numba-compiled, called from the stepping loop).

All functions take float64 numpy arrays, never raise, and report failure by status codes:
0 solved, 1 ray termination (Lemke), 2 iteration/pivot cap, 3 singular subproblem (BPP).
"""
from .lemke import lemke
from .pgs import pgs_lcp
from .bpp import bpp_lcp
from .nsgs import nsgs_fc2d
from .lemke_fc2d import lemke_fc2d
from .residuals import lcp_residual, fc2d_residual

__all__ = ["lemke", "pgs_lcp", "bpp_lcp", "nsgs_fc2d", "lemke_fc2d", "lcp_residual", "fc2d_residual"]
