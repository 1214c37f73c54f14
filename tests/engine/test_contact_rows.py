"""The columns X = M⁻¹Hᵀ of the step problem (contact_rows.delassus_columns): the diagonal shortcut
(column r = row r scaled) is taken when M⁻¹ is diagonal even if its CSR stores a body's whole 3 × 3 block
with exact zeros (free bodies at their centre of mass, as ModelArrays keeps them), and gives the dense
product's numbers; a true block keeps the scatter. delassus_columns_blocks gives the same columns and,
from the same pass, NSGS's 2 × 2 blocks of W bit for bit (nsgs._row_blocks), or none where it cannot."""
import numpy as np
import pytest

from nsgui.engine.contact_rows import delassus_columns, delassus_columns_blocks
from nsgui.engine.solvers._linalg import csr_from_dense
from nsgui.engine.solvers.nsgs import _row_blocks


def _rows(rng, bodies, k, width=6):
    """k rows on two bodies' coordinates each (width 6: all three of each; 4: two of each, ascending)."""
    rcols = np.zeros((k, width), np.int64)
    rvals = np.zeros((k, width))
    rnnz = np.full(k, width, np.int64)
    for r in range(k):
        a, b = sorted(rng.choice(bodies, 2, replace=False))
        rcols[r] = np.r_[3 * a:3 * a + 3, 3 * b:3 * b + 3] if width == 6 else [3 * a, 3 * a + 2, 3 * b + 1, 3 * b + 2]
        rvals[r] = rng.standard_normal(width)
    return rcols, rvals, rnnz


def _csr_keeping_blocks(Minv, bodies):
    """M⁻¹ in CSR with every entry of each 3 × 3 block stored, zeros too."""
    ptr, col, val = [0], [], []
    for i in range(3 * bodies):
        b = i // 3
        for j in range(3 * b, 3 * b + 3):
            col.append(j)
            val.append(Minv[i, j])
        ptr.append(len(col))
    return np.array(ptr, np.int64), np.array(col, np.int64), np.array(val)


def _dense_columns(cptr, ccol, cval, n, k):
    X = np.zeros((n, k))
    for r in range(k):
        X[ccol[cptr[r]:cptr[r + 1]], r] = cval[cptr[r]:cptr[r + 1]]
    return X


def test_diagonal_inverse_mass_stored_with_zero_blocks_takes_the_shortcut():
    rng = np.random.default_rng(3)
    bodies, k = 6, 10
    Minv = np.diag(rng.uniform(0.5, 3.0, 3 * bodies))
    rcols, rvals, rnnz = _rows(rng, bodies, k, width=4)        # (rows on part of a block)
    cptr, ccol, cval = delassus_columns(rcols, rvals, rnnz, *_csr_keeping_blocks(Minv, bodies), 3 * bodies)
    assert np.array_equal(np.diff(cptr), rnnz)                  # row r's pattern: no stored zero scattered
    assert np.array_equal(ccol[:cptr[k]], rcols.ravel())       # (the arrays may be longer than used)
    H = np.zeros((k, 3 * bodies))
    for r in range(k):
        H[r, rcols[r]] = rvals[r]
    assert np.array_equal(_dense_columns(cptr, ccol, cval, 3 * bodies, k), Minv @ H.T)
    # the same numbers as with only the diagonal stored
    dptr, dcol, dval = delassus_columns(rcols, rvals, rnnz, *csr_from_dense(Minv), 3 * bodies)
    assert np.array_equal(dptr, cptr)
    assert np.array_equal(dcol[:k * 4], ccol[:k * 4]) and np.array_equal(dval[:k * 4], cval[:k * 4])


def test_a_full_mass_block_keeps_the_scatter():
    rng = np.random.default_rng(4)
    bodies, k = 5, 8
    Minv = np.zeros((3 * bodies, 3 * bodies))
    for b in range(bodies):
        B = rng.standard_normal((3, 3))
        Minv[3 * b:3 * b + 3, 3 * b:3 * b + 3] = np.linalg.inv(B @ B.T + 3 * np.eye(3))
    rcols, rvals, rnnz = _rows(rng, bodies, k)
    cptr, ccol, cval = delassus_columns(rcols, rvals, rnnz, *_csr_keeping_blocks(Minv, bodies), 3 * bodies)
    H = np.zeros((k, 3 * bodies))
    for r in range(k):
        H[r, rcols[r]] = rvals[r]
    np.testing.assert_allclose(_dense_columns(cptr, ccol, cval, 3 * bodies, k), Minv @ H.T, rtol=1e-13, atol=1e-14)


def _friction_rows(rng, bodies, nc, empty_tangents=()):
    """A friction problem's rows as the stepper stores them: [N, T] per contact on the same ascending
    columns of two bodies, a frictionless contact's tangent row empty."""
    rcols, rvals, rnnz = _rows(rng, bodies, 2 * nc)
    for c in range(nc):
        rcols[2 * c + 1] = rcols[2 * c]
        if c in empty_tangents:
            rvals[2 * c + 1] = 0.0
            rnnz[2 * c + 1] = 0
    return rcols, rvals, rnnz


def _same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


@pytest.mark.parametrize("seed", range(4))
def test_columns_and_blocks_in_one_pass_are_the_two_passes_numbers(seed):
    rng = np.random.default_rng(seed)
    bodies, nc = 7, 12
    Minv = np.diag(rng.uniform(0.5, 3.0, 3 * bodies))
    rcols, rvals, rnnz = _friction_rows(rng, bodies, nc, empty_tangents=(2, 7) if seed % 2 else ())
    mi, n = _csr_keeping_blocks(Minv, bodies), 3 * bodies
    cptr, ccol, cval, blk = delassus_columns_blocks(rcols, rvals, rnnz, *mi, n)
    dptr, dcol, dval = delassus_columns(rcols, rvals, rnnz, *mi, n)
    used = dptr[-1]
    assert np.array_equal(cptr, dptr) and np.array_equal(ccol[:used], dcol[:used])
    assert _same_bits(cval[:used], dval[:used])
    assert _same_bits(blk, _row_blocks(rcols, rvals, rnnz, dptr, dcol, dval, n, nc))
    H = np.zeros((2 * nc, n))
    for r in range(2 * nc):
        H[r, rcols[r, :rnnz[r]]] = rvals[r, :rnnz[r]]
    W = H @ Minv @ H.T
    for c in range(nc):   # the blocks are W's (to round-off: the dense product sums in another order)
        np.testing.assert_allclose(blk[c], W[2 * c:2 * c + 2, 2 * c:2 * c + 2].ravel(), rtol=1e-13, atol=1e-14)


def test_no_blocks_where_the_one_pass_does_not_apply():
    rng = np.random.default_rng(5)
    bodies, nc = 6, 8
    Minv = np.diag(rng.uniform(0.5, 3.0, 3 * bodies))
    mi, n = _csr_keeping_blocks(Minv, bodies), 3 * bodies
    rcols, rvals, rnnz = _friction_rows(rng, bodies, nc)
    other = rcols.copy()
    other[5] = other[5][::-1].copy()                                              # a tangent row in another order
    full = Minv.copy()
    full[0, 1] = full[1, 0] = 0.1                                                  # a true mass block
    for cols, mass in ((other, mi), (rcols, _csr_keeping_blocks(full, bodies))):
        cptr, ccol, cval, blk = delassus_columns_blocks(cols, rvals, rnnz, *mass, n)
        dptr, dcol, dval = delassus_columns(cols, rvals, rnnz, *mass, n)
        assert blk.shape == (0, 4)
        assert np.array_equal(cptr, dptr) and _same_bits(cval[:dptr[-1]], dval[:dptr[-1]])
