"""activate_contacts' friction flags and anchors, and the step problem's contact laws, against independent
statements: over a pyramid's fall, landing and rest, d.fric is μ > 0 and |H_T|² > 1e-20 (numpy), the anchors are
the contact points in each box's frame (numpy's rotation of the box's angle), their separation and the last
step's load; the problem's normal rows hold H_N v_free + e u_N with e by the restitution rule, warm starts
λ_N, λ_T (at rest, from the last two answers) and μ by contact; and a row of disks hitting the ground at once (a
problem on the rows, one pass) follows the closed form of a sticking friction impact with tangential restitution
e_T (u_T+ = −e_T u_T−).
(rows_into sums the friction test in its own pass; the laws take scalars since session 19.)"""
import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import (AN_LOADED, AN_RA, AN_RB, AN_SEP, BI_COORD, CF_E, CF_MU, CI_ABODY, CI_BBODY,
                                FS_REST_V, FS_TOL, IS_PROJECTION)
from nsgui.engine.tiny_problem import TINY_CONTACTS
from nsgui.scene import SceneBuilder
from tests.engine.rows_problems import rows_problems
from tests.engine.test_heaps import HEAPS


def _frame(q, bi, b, p):
    """Point p in body b's frame, from the body's coordinates (x, y, θ) by numpy's rotation."""
    if b < 0:
        return np.asarray(p, float)
    x, y, th = q[bi[b, BI_COORD]:bi[b, BI_COORD] + 3]
    c, s = np.cos(th), np.sin(th)
    return np.array([[c, s], [-s, c]]) @ (np.asarray(p) - (x, y))


def test_friction_flags_anchors_and_laws_over_a_pyramid():
    model = compile_scene(HEAPS["box_pyramid"](5))
    ma = model.arrays
    cf, ci, bi = ma.cf, ma.ci, ma.bi
    assert ma.isets[IS_PROJECTION] != 0
    rest_v, tol = ma.fs[FS_REST_V], ma.fs[FS_TOL]
    width = max(ma.ccols.shape[1], 1)
    checked = loaded = extrapolated = 0
    nc = ma.ci.shape[0]
    for m, d, dat, nact, fric in rows_problems(model, 360, 6):
        act = dat.act[:nact].copy()
        HT = dat.HT[:nact]
        HN = dat.HN[:nact]
        ccn = ma.ccn[act]
        tt = np.array([np.sum(HT[r, :ccn[r]] ** 2) for r in range(nact)])
        want = (cf[act, CF_MU] > 0.0) & (tt > 1e-20)
        assert np.array_equal(dat.fric[:nact], want) and fric == want.any()
        assert want.sum() == nact                      # every pyramid contact has friction and a tangent
        for r, c in enumerate(act):
            a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
            assert dat.anchor[c, AN_LOADED] == (1.0 if dat.lamN[c] > 0.0 else 0.0)
            np.testing.assert_allclose(dat.anchor[c, AN_RA:AN_RA + 2], _frame(dat.q, bi, a, dat.pa[c]), rtol=0,
                                       atol=1e-12)
            np.testing.assert_allclose(dat.anchor[c, AN_RB:AN_RB + 2], _frame(dat.q, bi, b, dat.pb[c]), rtol=0,
                                       atol=1e-12)
            assert np.array_equal(dat.anchor[c, AN_SEP:AN_SEP + 2], dat.pa[c] - dat.pb[c])
        # the problem's laws (one pass into fresh arrays)
        k = 2 * nact
        rcols, rvals, rnnz = np.zeros((k, width), np.int64), np.zeros((k, width)), np.zeros(k, np.int64)
        qd, mu, r0, act0 = np.zeros(k), np.zeros(nact), np.zeros(k), np.zeros(k, np.bool_)
        cptr, ccol = np.zeros(k + 1, np.int64), np.zeros(k * width, np.int64)
        cval, blk = np.zeros(k * width), np.zeros((nact, 4))
        assert st._problem_rows_columns(m, d, nact, rcols, rvals, rnnz, qd, mu, r0, act0, ma.mi_diag, cptr, ccol,
                                        cval, blk)
        cold = not (dat.lamN[act] > 0.0).any()
        for r, c in enumerate(act):
            cols = ma.ccols[c, :ccn[r]]
            u, lam = dat.un[c], dat.lamN[c]
            # restitution with projection: e below −rest_v, plastic up to the tolerance if loaded, else 1
            e = cf[c, CF_E] if u < -rest_v else (0.0 if u <= (tol if lam > 0.0 else 0.0) else 1.0)
            q = HN[r, :ccn[r]] @ dat.vfree[cols] + e * u
            assert qd[2 * r] == pytest.approx(q, rel=1e-12, abs=1e-15)
            # the warm start: the last percussions, or once the gate is open (a pyramid at rest) and the contact
            # was loaded in both last steps, r_k + β (r_k - r_(k-1)) (stepper._warm_gate, Data.warm's layout)
            wn, wt = lam, dat.lamT[c]
            if dat.warm[2 * nc + 1] == 1.0 and lam > 0.0 and dat.warm[c] > 0.0:
                wn = lam + st.WARM_BETA * (lam - dat.warm[c])
                wt = wt + st.WARM_BETA * (wt - dat.warm[nc + c])
                extrapolated += 1
            assert r0[2 * r] == wn and r0[2 * r + 1] == wt and mu[r] == cf[c, CF_MU]
            assert act0[2 * r] == (lam > 0.0 or qd[2 * r] < -rest_v or (cold and qd[2 * r] <= 0.0))
            assert not act0[2 * r + 1]
            assert qd[2 * r + 1] == pytest.approx(HT[r, :ccn[r]] @ dat.vfree[cols], rel=1e-12, abs=1e-15)
            loaded += lam > 0.0
        checked += 1
    assert checked >= 30 and loaded > 500 and extrapolated > 100, (checked, loaded, extrapolated)


H = 1e-4


def test_a_row_of_disks_hitting_at_once_follows_the_tangential_restitution_law():
    """Four disks (no contact between them) hit the ground in one step: a friction problem of four contacts
    (more than the tiny path takes) on the rows, built by the one pass. Each must follow one disk's closed
    form: P_N = m (1 + e_N) |v_y−|, and with enough friction P_T = −(1 + e_T) u_T− / (1/m + r²/I), so the
    contact point's velocity u_T = v_x + r ω reverses by e_T."""
    m, r, inertia, e_n, e_t = 2.0, 0.1, 0.004, 0.5, 0.6
    starts = [(0.4, -1.0, 3.0), (-0.3, -0.7, 1.0), (0.1, -1.2, -2.0), (0.0, -0.9, 0.5)]
    b = SceneBuilder("disks", gravity=(0.0, 0.0))
    ground = b.ground()
    for i, (vx, vy, w) in enumerate(starts):
        ball = b.body(f"b{i}", mass=m, inertia=inertia)
        disk = ball.disk(r)
        b.free(f"b{i}", child=ball, q0=(0.5 * i, r + 0.25 * H * abs(vy), 0.0), v0=(vx, vy, w))
        b.contact(disk, ground, restitution=e_n, friction=5.0, tangential_restitution=e_t, name=f"hit{i}")
    b.settings(dt=H, duration=1.0, projection=False)
    model = compile_scene(b.build())
    assert model.arrays.mi_diag.shape[0] == model.nq      # the one pass's path (M⁻¹ diagonal)
    sim = Simulator(model)
    m_, d_ = sim._args
    st.free_velocity(m_, d_)
    nact, fric = st.activate_contacts(m_, d_)
    assert nact == len(starts) > TINY_CONTACTS and fric
    rows = sim.run(5)
    names = model.signal_names
    out = dict(zip(names, rows[-1]))
    for i, (vx, vy, w) in enumerate(starts):
        assert (rows[:, names.index(f"contact.hit{i}.status")] == 3).sum() == 1   # one impact step each
        uT = vx + r * w
        PT = -(1 + e_t) * uT / (1 / m + r * r / inertia)
        assert abs(PT) <= 5.0 * m * (1 + e_n) * abs(vy)
        assert out[f"v.b{i}.x"] == pytest.approx(vx + PT / m, rel=1e-9, abs=1e-12)
        assert out[f"v.b{i}.theta"] == pytest.approx(w + r * PT / inertia, rel=1e-9, abs=1e-12)
        assert out[f"v.b{i}.x"] + r * out[f"v.b{i}.theta"] == pytest.approx(-e_t * uT, rel=1e-9, abs=1e-12)
        assert out[f"v.b{i}.y"] == pytest.approx(-e_n * vy, rel=1e-9)
