"""X = M⁻¹Hᵀ and W kept from one linear problem to the next (kept_delassus.py): the kept ones are used only
for the same rows bit for bit, and are then the ones delassus_csr builds."""
import dataclasses

import numpy as np
from numba import njit

from nsgui.engine import compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import OK
from nsgui.engine.contact_rows import delassus_csr
from nsgui.engine.evaluation import evaluate
from nsgui.engine.kept_delassus import delassus_kept, nothing_kept
from nsgui.engine.tiny_problem import TINY_ROWS
from tests.helpers import example, phases_at_start


def assert_same_delassus(entry, built):
    """X and W of a kept entry and delassus_csr's six arrays, bit for bit (the entries in use: the
    arrays may be longer)."""
    got = (*entry[3], *entry[4])
    for ptr in (0, 3):
        np.testing.assert_array_equal(got[ptr], built[ptr])
        for i in (ptr + 1, ptr + 2):
            np.testing.assert_array_equal(got[i][:got[ptr][-1]], built[i][:built[ptr][-1]])


@njit
def _step_kept(d):
    """The step problem's kept entry (the kernels' Data: Python's named tuple does not see the field set)."""
    return d.sp_kept


def test_the_kept_entry_serves_the_same_rows_bit_for_bit_only():
    """delassus_kept hands back the kept entry when the rows are the same bit for bit (a zero's sign
    too), else builds X and W as delassus_csr does."""
    model = compile_scene(example("bead_column_10"))
    a = model.arrays
    k, n = a.ccn.shape[0], model.nq
    minv = (a.mi_ptr, a.mi_col, a.mi_val)
    cols, nnz = a.ccols.copy(), a.ccn.copy()
    vals = np.random.default_rng(1).normal(size=cols.shape)
    vals[3, 0] = 0.0
    first, reused = delassus_kept(nothing_kept(n, cols.shape[1]), cols, vals, nnz, *minv, n, True)
    assert not reused
    assert_same_delassus(first, delassus_csr(cols, vals, nnz, *minv, n))
    again, reused = delassus_kept(first, cols.copy(), vals.copy(), nnz.copy(), *minv, n, True)
    assert reused and all(x is y or np.shares_memory(x, y) for x, y in zip((*again[3], *again[4]), (*first[3], *first[4])))
    other = vals.copy()
    other[3, 0] = -0.0  # the same value, another bit pattern: rebuilt
    rebuilt, reused = delassus_kept(first, cols, other, nnz, *minv, n, True)
    assert not reused and not np.shares_memory(rebuilt[4][2], first[4][2])
    assert_same_delassus(rebuilt, delassus_csr(cols, other, nnz, *minv, n))
    fewer, reused = delassus_kept(first, cols[:k - 1], vals[:k - 1], nnz[:k - 1], *minv, n, True)
    assert not reused
    assert_same_delassus(fewer, delassus_csr(cols[:k - 1], vals[:k - 1], nnz[:k - 1], *minv, n))
    assert fewer[5] and rebuilt[5]  # (a column's W is symmetric)


def test_the_step_problem_uses_the_w_of_its_own_rows():
    """Step by step through a frictionless disk pile's landing (the same contacts, rows turning with
    the disks) and a column's drop (the same rows while the active set stays): after every step
    problem, the kept rows are that step's rows and the kept W the one delassus_csr builds from them;
    both kinds of step occur (the pile's W mostly rebuilt, the column's mostly kept). Fails if a kept W outlives its rows."""
    pile = example("disk_pile")
    pile = dataclasses.replace(pile, contacts=[dataclasses.replace(c, friction=0.0) for c in pile.contacts])
    counts = []
    for scene, steps in ((pile, 300), (example("bead_column_50"), 400)):
        model = compile_scene(scene)
        m, d, data = phases_at_start(model)
        a, n = model.arrays, model.nq
        kept = rebuilt = 0
        last = None
        for _ in range(steps):
            st.free_velocity(m, d)
            nact, fric = st.activate_contacts(m, d)
            assert not fric
            if nact > TINY_ROWS:  # (fewer: the tiny path, no W)
                rows = (np.zeros((nact, a.ccols.shape[1]), np.int64), np.zeros((nact, a.ccols.shape[1])),
                        np.zeros(nact, np.int64))
                st._problem_rows(m, d, nact, False, *rows, np.zeros(nact), np.zeros(nact), np.zeros(nact),
                                 np.zeros(nact, np.bool_))
            assert st.solve_contact_problem(m, d, nact, fric)[0] == OK
            if nact > TINY_ROWS:
                entry = _step_kept(d)
                for got, want in zip(entry[:3], rows):
                    np.testing.assert_array_equal(got, want)
                assert_same_delassus(entry, delassus_csr(*rows, a.mi_ptr, a.mi_col, a.mi_val, n))
                same = last is not None and all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(last, rows))
                kept += same
                rebuilt += not same
                last = rows
            st.update_positions(m, d)
            st.classify_contacts(m, d, nact)
            st.commit_step(d, data.t[0] + model.dt)
            st.project_positions(m, d, evaluate(m, d, False))
        counts.append((kept, rebuilt))
    (pile_kept, pile_rebuilt), (column_kept, column_rebuilt) = counts
    assert pile_rebuilt > 100 and column_kept > 100 and pile_kept + column_rebuilt > 0, counts
