"""The projection without the bodies its equalities hold (projection._pinned_rows): a body whose in-tolerance
equality rows against the ground or held bodies have rank its coordinates keeps Δq = 0, and the rest is solved
alone. On a pyramid's landing that is the landing row's few unilateral rows instead of the whole pyramid's
equalities; the displacement is the whole problem's to the drift tolerance, and the projected state meets the
projection's tolerances."""
import numpy as np
import pytest

from nsgui.engine import compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import FS_PROJ_TOL, OK
from nsgui.engine.contact_rows import active_contact_rows
from nsgui.engine.evaluation import evaluate
from nsgui.engine.projection import (DRIFT_TOL, _move, _penetrating, _persistent, _pinned_rows, _tangential_drift,
                                     projection_due)
from tests.helpers import example, phases_at_start

TOL = 1e-6  # a unilateral row's depth left as met (the scenes' projection tolerance)


def _free_bodies_minv(masses, inertias):
    """M⁻¹ of free planar bodies (x, y, θ each) in compressed rows with the engine's pattern (compile._tree_csr:
    each coordinate with every one of its tree, here its body: the zeros off the diagonal stored)."""
    n = 3 * len(masses)
    ptr = np.arange(0, 3 * n + 1, 3, dtype=np.int64)
    col = np.array([3 * (i // 3) + j for i in range(n) for j in range(3)], np.int64)
    diag = [v for m, i in zip(masses, inertias) for v in (1 / m, 1 / m, 1 / i)]
    val = np.array([diag[i] if 3 * (i // 3) + j == i else 0.0 for i in range(n) for j in range(3)])
    return ptr, col, val, n


def _rows(rows, width=6):
    """Sparse rows from [({col: value}, rhs, equality)]."""
    k = len(rows)
    cols, vals, nnz = np.zeros((k, width), np.int64), np.zeros((k, width)), np.zeros(k, np.int64)
    q, eq = np.zeros(k), np.zeros(k, np.bool_)
    for r, (entries, rhs, e) in enumerate(rows):
        for t, (c, v) in enumerate(sorted(entries.items())):
            cols[r, t], vals[r, t] = c, v
        nnz[r], q[r], eq[r] = len(entries), rhs, e
    return cols, vals, nnz, q, eq


def _box_on_ground(b, tangents=True, drift=1e-13):
    """The equality rows of box b (coordinates 3b..3b+2, half width 0.1) resting on the ground on its two lower
    corners: normals (y and the corner's lever on θ) and, if sticking, tangents (x and the lever 0.05)."""
    x, y, t = 3 * b, 3 * b + 1, 3 * b + 2
    rows = [({y: 1.0, t: -0.1}, drift, True), ({y: 1.0, t: 0.1}, -drift, True)]
    if tangents:
        rows += [({x: 1.0, t: 0.05}, drift, True), ({x: 1.0, t: 0.05}, 0.0, True)]
    return rows


def _box_on_box(top, below, depth):
    """Unilateral rows of box `top` landing on box `below` on two corners, `depth` deep."""
    rows = []
    for lever in (-0.1, 0.1):
        entries = {3 * below + 1: -1.0, 3 * below + 2: -lever / 2, 3 * top + 1: 1.0, 3 * top + 2: lever}
        rows.append((entries, -depth, False))
    return rows


MINV2 = _free_bodies_minv([2.0, 1.5], [0.01, 0.008])


def test_a_box_on_its_sticking_corners_is_held_and_leaves_the_problem():
    """Box 0 rests on the ground on two sticking corners (four equality rows of rank 3, drift 1e-13), box 1 lands
    on it 1e-4 deep: the reduced problem is box 1's two rows alone, box 0's columns gone."""
    cols, vals, nnz, q, eq = _rows(_box_on_ground(0) + _box_on_box(1, 0, 1e-4))
    found, rc, rv, rn, rq, req = _pinned_rows(cols, vals, nnz, q, eq, *MINV2, TOL)
    assert found and rq.shape[0] == 2 and not req.any()
    np.testing.assert_array_equal(rq, [-1e-4, -1e-4])
    assert set(rc[0, :rn[0]]) == set(rc[1, :rn[1]]) == {4, 5}   # box 1's y and θ only
    np.testing.assert_array_equal(rv[:, :2], [[1.0, -0.1], [1.0, 0.1]])


@pytest.mark.parametrize("why", ["frictionless", "drifted", "one corner"])
def test_a_box_not_fixed_by_its_equalities_stays_in_the_problem(why):
    """Normals alone leave x free (rank 2); a drift above DRIFT_TOL must be put back; one sticking corner leaves
    the turn about it free: the box is not held and the problem is left whole (no block held)."""
    ground = _box_on_ground(0, tangents=why != "frictionless", drift=2 * DRIFT_TOL if why == "drifted" else 1e-13)
    if why == "one corner":
        ground = [ground[0], ground[2]]
    cols, vals, nnz, q, eq = _rows(ground + _box_on_box(1, 0, 1e-4))
    found, rc, rv, rn, rq, req = _pinned_rows(cols, vals, nnz, q, eq, *MINV2, TOL)
    assert not found and rq.shape[0] == 0


def test_a_penetration_between_held_bodies_refuses_the_reduction():
    """Two boxes each held on the ground, and a unilateral row between them deeper than the tolerance: no Δq of
    the reduced problem could meet it, so the reduction is refused (the whole problem is solved)."""
    rows = _box_on_ground(0) + _box_on_ground(1)
    rows.append(({1: -1.0, 4: 1.0}, -2 * TOL, False))
    found = _pinned_rows(*_rows(rows), *MINV2, TOL)[0]
    assert not found
    rows[-1] = ({1: -1.0, 4: 1.0}, -0.5 * TOL, False)   # within the tolerance: met as it stands, dropped
    found, rc, rv, rn, rq, req = _pinned_rows(*_rows(rows), *MINV2, TOL)
    assert not found and rq.shape[0] == 0   # (nothing left to solve: the caller solves the whole problem)


@pytest.mark.parametrize("order", ["ground up", "top down"])
def test_a_column_of_beads_is_held_bead_by_bead_from_the_ground(order):
    """A column of 60 beads (one coordinate each, M⁻¹ diagonal) resting on persistent contacts within DRIFT_TOL
    (the ground under bead 0, bead i on bead i - 1) and a 61st landing on top 1e-4 deep: each bead is held
    through the one below it, whatever the rows' order, so the reduced problem is the landing row alone, on the
    top bead's coordinate. With the bottom contact drifted above DRIFT_TOL, no bead is held (bad blocks do not
    hold the ones above them)."""
    nb = 61
    masses = 1.0 + 0.01 * np.arange(nb)
    ptr, col, val = np.arange(nb + 1, dtype=np.int64), np.arange(nb, dtype=np.int64), 1.0 / masses
    rows = [({0: 1.0}, 3e-14, True)] + [({i - 1: -1.0, i: 1.0}, (-1) ** i * 1e-13, True) for i in range(1, nb - 1)]
    rows.append(({nb - 2: -1.0, nb - 1: 1.0}, -1e-4, False))
    if order == "top down":
        rows = rows[::-1]
    found, rc, rv, rn, rq, req = _pinned_rows(*_rows(rows, 2), ptr, col, val, nb, TOL)
    assert found and rq.shape[0] == 1 and not req[0] and rq[0] == -1e-4
    assert rn[0] == 1 and rc[0, 0] == nb - 1 and rv[0, 0] == 1.0
    drifted = [r if r[0] != {0: 1.0} else ({0: 1.0}, 2 * DRIFT_TOL, True) for r in rows]
    assert not _pinned_rows(*_rows(drifted, 2), ptr, col, val, nb, TOL)[0]


def _projection_rows(model, m, d, data):
    """The rows of project_positions' first linearized problem at the current state (its loop's body)."""
    a = model.arrays
    nc = data.gap.shape[0]
    enabled = data.ctrl[a.ai.shape[0] + nc:]
    kind = _persistent(m, d, enabled)
    gap = data.gap
    free = [gap[c] for c in range(nc) if enabled[c] != 0.0 and kind[c] == 0]
    gmin = min([0.0] + free)
    deep = gmin < -a.fs[FS_PROJ_TOL]
    sel = [c for c in range(nc) if kind[c] + _penetrating(kind[c], deep, enabled[c], gap[c], gmin) > 0]
    ns, width = len(sel), a.ccols.shape[1]
    selv = np.array(sel + [0] * (nc - ns), np.int64)
    RN, RT = np.empty((ns, width)), np.empty((ns, width))
    active_contact_rows(m, data.kin, selv, ns, data.nrm, data.pa, data.pb, RN, RT)
    rows = []
    for s, c in enumerate(sel):
        nn = a.ccn[c]
        for t in range(max(kind[c], 1)):
            R = RN if t == 0 else RT
            rhs = gap[c] if t == 0 else _tangential_drift(m, d, c)
            rows.append((a.ccols[c, :nn].copy(), R[s, :nn].copy(), rhs, kind[c] > 0))
    k = len(rows)
    cols, vals, nnz = np.zeros((k, width), np.int64), np.zeros((k, width)), np.zeros(k, np.int64)
    q, eq = np.zeros(k), np.zeros(k, np.bool_)
    for r, (cc, vv, rhs, e) in enumerate(rows):
        nnz[r] = cc.shape[0]
        cols[r, :nnz[r]], vals[r, :nnz[r]], q[r], eq[r] = cc, vv, rhs, e
    return cols, vals, nnz, q, eq, deep


def test_the_landing_pyramid_projects_its_landing_rows_alone_with_the_whole_problems_answer():
    """The example pyramid's landing (15 boxes, steps 0-200 called phase by phase): on each step whose
    projection has a penetration and held boxes, the reduced problem's Δq equals the whole problem's to
    DRIFT_TOL (the held boxes' own drift, ~1e-13, is what the whole problem also moves), meets every
    linearized row (penetrations closed, equalities within DRIFT_TOL), and after project_positions nothing is
    left to project (projection_due: no gap below -tolerance, no drift above DRIFT_TOL)."""
    model = compile_scene(example("box_pyramid"))
    m, d, data = phases_at_start(model)
    a, n = model.arrays, model.nq
    reduced = whole = 0
    for _ in range(200):
        st.free_velocity(m, d)
        nact, fric = st.activate_contacts(m, d)
        assert st.solve_contact_problem(m, d, nact, fric)[0] == OK
        st.update_positions(m, d)
        st.classify_contacts(m, d, nact)
        st.commit_step(d, data.t[0] + model.dt)
        upot = evaluate(m, d, False)
        if not projection_due(m, d):
            continue
        cols, vals, nnz, q, eq, deep = _projection_rows(model, m, d, data)
        found, rc, rv, rn, rq, req = _pinned_rows(cols, vals, nnz, q, eq, a.mi_ptr, a.mi_col, a.mi_val, n,
                                                  a.fs[FS_PROJ_TOL])
        if deep and found and eq.any():
            dq_whole, ok_whole = _move(m, d, cols, vals, nnz, q, eq, True, False)
            dq, ok = _move(m, d, rc, rv, rn, rq, req, True, True)
            if ok:
                assert ok_whole and rq.shape[0] < q.shape[0] / 2
                assert np.abs(dq - dq_whole).max() <= DRIFT_TOL
                H = np.zeros((q.shape[0], n))
                for r in range(q.shape[0]):
                    H[r, cols[r, :nnz[r]]] += vals[r, :nnz[r]]
                w = H @ dq + q
                assert w[~eq].min() >= -1e-9 * np.abs(q).max()   # (block pivoting's test, mixed_schur._checked)
                assert np.abs(w[eq]).max() <= DRIFT_TOL
                reduced += 1
        whole += 1
        st.project_positions(m, d, upot)
        assert not projection_due(m, d)
    assert reduced >= 3 and whole > reduced, (reduced, whole)
