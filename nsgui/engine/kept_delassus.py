"""X = M⁻¹Hᵀ and W = H X kept from one linear problem to the next when its rows repeat bit for bit.

With a constant M⁻¹, X and W depend on the rows alone: a resting column's step problem and the
projection of its landing's drift have the same 1000 rows step after step, and building W
(contact_rows.delassus_csr) cost more than solving with it. A kept entry is the tuple
(cols, vals, nnz, (xptr, xcol, xval), (wptr, wcol, wval), sym) of the last problem of one slot
(Data.sp_kept: the step problem; Data.pj_kept: the projection), sym: whether W is symmetric
(csr_symmetric, when asked for; else True), fac: block pivoting's kept factor of W (solvers/bpp.py,
new_factor).
"""

import numpy as np
from numba import njit

from .contact_rows import delassus_csr
from .solvers._linalg import csr_symmetric
from .solvers.bpp import new_factor


def nothing_kept(n, width):
    """The kept entry of a slot before its first problem (no rows: never the same as a problem's)."""
    z = np.zeros
    return (z((0, width), np.int64), z((0, width)), z(0, np.int64), (z(n + 1, np.int64), z(0, np.int64), z(0)),
            (z(1, np.int64), z(0, np.int64), z(0)), True,
            (z(0), z(0, np.int64), z(0, np.bool_), z((0, 2)), z(0, np.bool_), z(1, np.int64)))  # (new_factor(0))


@njit(cache=True)
def delassus_kept(kept, cols, vals, nnz, mptr, mcol, mval, n, want_sym):
    """The kept entry if its rows are cols, vals, nnz bit for bit, else a new one built by
    delassus_csr (with csr_symmetric of its W if want_sym). M⁻¹ (mptr, mcol, mval) must be the
    constant one the kept entry was built with. Returns (entry, whether it is the kept one)."""
    if same_rows(kept[0], kept[1], kept[2], cols, vals, nnz):
        return kept, True
    xptr, xcol, xval, wptr, wcol, wval = delassus_csr(cols, vals, nnz, mptr, mcol, mval, n)
    sym = csr_symmetric(wptr, wcol, wval) if want_sym else True
    return (cols, vals, nnz, (xptr, xcol, xval), (wptr, wcol, wval), sym, new_factor(nnz.shape[0])), False


@njit(cache=True)
def same_rows(cols0, vals0, nnz0, cols, vals, nnz):
    """Whether two sets of sparse rows are the same, bit for bit (a zero's sign too); never for none."""
    k = nnz.shape[0]
    if k == 0 or nnz0.shape[0] != k:
        return False
    for r in range(k):
        if nnz0[r] != nnz[r]:
            return False
        for kk in range(nnz[r]):
            a, b = vals0[r, kk], vals[r, kk]
            if cols0[r, kk] != cols[r, kk] or a != b or (a == 0.0 and np.signbit(a) != np.signbit(b)):
                return False
    return True
