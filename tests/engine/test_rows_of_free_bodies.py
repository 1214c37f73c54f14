"""The contact rows of free bodies on the world (contact_rows.rows_into): a box-box contact's columns are both
boxes' coordinates, and on the other box's three each box's Jacobian part is an exact +0.0 (its Jacobians are
never written off its path), so rows_into skips it. The rows must stay the full formula's numbers bit for bit
(signs of zeros too) over a pyramid's fall, landing and rest, and be the relative velocity's rows."""
import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import BI_COORD, CI_ABODY, CI_BBODY
from tests.engine.test_heaps import HEAPS


def _full_rows(ma, dat, nact):
    """Every term of every column, both bodies (the formula before the skip), in numpy."""
    kin = dat.kin
    HN = np.zeros((nact, ma.ccols.shape[1]))
    HT = np.zeros_like(HN)
    for r in range(nact):
        c = dat.act[r]
        a, b = ma.ci[c, CI_ABODY], ma.ci[c, CI_BBODY]
        nx, ny = dat.nrm[c]
        rax, ray = dat.pa[c, 0] - kin.pos[a, 0], dat.pa[c, 1] - kin.pos[a, 1]
        if b >= 0:
            rbx, rby = dat.pb[c, 0] - kin.pos[b, 0], dat.pb[c, 1] - kin.pos[b, 1]
        for kk in range(ma.ccn[c]):
            j = ma.ccols[c, kk]
            jx = kin.Jp[a, 0, j] - ray * kin.Ja[a, j]
            jy = kin.Jp[a, 1, j] + rax * kin.Ja[a, j]
            if b >= 0:
                jx -= kin.Jp[b, 0, j] - rby * kin.Ja[b, j]
                jy -= kin.Jp[b, 1, j] + rbx * kin.Ja[b, j]
            HN[r, kk] = nx * jx + ny * jy
            HT[r, kk] = ny * jx - nx * jy
    return HN, HT


def _bits(x):
    return np.ascontiguousarray(x).view(np.int64)


def test_free_body_rows_are_the_full_formulas_bit_for_bit():
    model = compile_scene(HEAPS["box_pyramid"](4))   # 10 boxes, each on a free joint to the world
    ma = model.arrays
    sim = Simulator(model)
    m, d = sim._args
    dat = sim._data
    boxbox = 0
    for step in range(300):   # the fall, the landing (~steps 60-120) and the rest
        sim.run(1, record=False)
        if step % 3:
            continue
        nact, _fric = st.activate_contacts(m, d)
        if nact == 0:
            continue
        want_N, want_T = _full_rows(ma, dat, nact)
        for r in range(nact):
            nn = ma.ccn[dat.act[r]]
            np.testing.assert_array_equal(_bits(dat.HN[r, :nn]), _bits(want_N[r, :nn]))
            np.testing.assert_array_equal(_bits(dat.HT[r, :nn]), _bits(want_T[r, :nn]))
            c = dat.act[r]
            a, b = ma.ci[c, CI_ABODY], ma.ci[c, CI_BBODY]
            if b >= 0:
                boxbox += 1
                # the rows are n·(v_a(p) − v_b(p)) and t·(...): each box's own coordinates carry its part,
                # the x, y columns the normal itself (unit, opposite signs on the two boxes)
                cols = list(ma.ccols[c, :nn])
                ia, ib = cols.index(ma.bi[a, BI_COORD]), cols.index(ma.bi[b, BI_COORD])
                assert abs(dat.HN[r, ia] ** 2 + dat.HN[r, ia + 1] ** 2 - 1.0) < 1e-12
                assert dat.HN[r, ia] == -dat.HN[r, ib] and dat.HN[r, ia + 1] == -dat.HN[r, ib + 1]
    assert boxbox > 100
    assert (dat.lamN > 0.0).sum() >= 20   # at rest, loaded
