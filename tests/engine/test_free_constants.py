"""A pile of free bodies' constants written in (session 21), against the general code's numbers and the definitions:
a free body on the world has the Jacobians [[1, +0, +0], [+0, 1, +0]] and [+0, +0, 1] on its own coordinates; the
contact rows of such bodies (rows_into's pair path) equal the general loop over Jp and Ja bit for bit and are the
contact's relative normal and tangential velocity; com_terms' bias and gravity equal its loop's bit for bit; v_free
with a diagonal M⁻¹ equals the sparse sum bit for bit (also where a force is not finite); a body's cos and sin of
an angle below 2^-27 are libm's (numpy's) bit for bit."""
import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import (BF_COMX, BF_COMY, BF_MASS, BI_COORD, BI_JTYPE, BI_PARENT, CF_MU, CI_ABODY, CI_BBODY,
                                FREE, FS_GX, FS_GY, FS_H)
from nsgui.engine.evaluation import evaluate
from tests.engine.rows_problems import rows_problems
from tests.engine.test_heaps import HEAPS


def _bits(x):
    return np.asarray(x, np.float64).view(np.int64)


def _free_coord(bi, b):
    return bi[b, BI_COORD] if b >= 0 and bi[b, BI_PARENT] < 0 and bi[b, BI_JTYPE] == FREE else -1


def _loop_rows(ma, kin, c, nrm, pa, pb):
    """rows_into's general loop for candidate c, in Python floats (the same operations in the same order)."""
    ci, ccols, ccn, bi = ma.ci, ma.ccols, ma.ccn, ma.bi
    Jp, Ja, pos = kin.Jp, kin.Ja, kin.pos
    nx, ny = float(nrm[c, 0]), float(nrm[c, 1])
    a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
    rax, ray = float(pa[c, 0] - pos[a, 0]), float(pa[c, 1] - pos[a, 1])
    rbx = rby = 0.0
    if b >= 0:
        rbx, rby = float(pb[c, 0] - pos[b, 0]), float(pb[c, 1] - pos[b, 1])
    qa, qb = _free_coord(bi, a), _free_coord(bi, b)
    hn, ht, tt = [], [], 0.0
    for kk in range(ccn[c]):
        j = ccols[c, kk]
        if qa >= 0 and (j < qa or j > qa + 2):
            jx = jy = 0.0
        else:
            jx = float(Jp[a, 0, j]) - ray * float(Ja[a, j])
            jy = float(Jp[a, 1, j]) + rax * float(Ja[a, j])
        if b >= 0 and not (qb >= 0 and (j < qb or j > qb + 2)):
            jx -= float(Jp[b, 0, j]) - rby * float(Ja[b, j])
            jy -= float(Jp[b, 1, j]) + rbx * float(Ja[b, j])
        hn.append(nx * jx + ny * jy)
        ht.append(ny * jx - nx * jy)
        tt += ht[-1] * ht[-1]
    return np.array(hn), np.array(ht), tt


def _sparse_free_velocity(ma, dat, h):
    """v + M⁻¹ h (F + Qact) by M⁻¹'s stored rows (the zeros of a free body's block included), in Python floats."""
    want = np.empty_like(dat.vfree)
    for i in range(want.shape[0]):
        acc = 0.0
        for p in range(ma.mi_ptr[i], ma.mi_ptr[i + 1]):
            j = ma.mi_col[p]
            acc += float(ma.mi_val[p]) * (h * (float(dat.F[j]) + float(dat.Qact[j])))
        want[i] = float(dat.v[i]) + acc
    return want


def test_free_bodies_have_the_constant_jacobians():
    model = compile_scene(HEAPS["box_pyramid"](4))
    sim = Simulator(model)
    sim.run(50, record=False)
    kin, bi = sim._data.kin, model.arrays.bi
    free = [b for b in range(bi.shape[0]) if _free_coord(bi, b) >= 0]
    assert len(free) == 10
    for b in free:
        qi = bi[b, BI_COORD]
        assert np.array_equal(_bits(kin.Jp[b, :, qi:qi + 3]), _bits([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
        assert np.array_equal(_bits(kin.Ja[b, qi:qi + 3]), _bits([0.0, 0.0, 1.0]))


def test_free_pairs_rows_equal_the_loop_and_the_relative_velocity():
    """Over a pyramid's fall, landing and rest: every active row (box on ground, box on box) bit for bit the
    general loop's, its friction flag by that loop's squared norm, and H_N v, H_T v the relative velocity of the
    contact points along the normal and the tangent (t = (n_y, -n_x)) from the bodies' velocities."""
    model = compile_scene(HEAPS["box_pyramid"](5))
    ma = model.arrays
    ci, bi, ccols, ccn, cf = ma.ci, ma.bi, ma.ccols, ma.ccn, ma.cf
    rng = np.random.default_rng(21)
    checked = pairs = grounds = 0
    for m, d, dat, nact, fric in rows_problems(model, 300, 5):
        kin = dat.kin
        v = rng.normal(size=dat.v.shape[0])
        for r in range(nact):
            c = dat.act[r]
            nn = ccn[c]
            hn, ht, tt = _loop_rows(ma, kin, c, dat.nrm, dat.pa, dat.pb)
            assert np.array_equal(_bits(dat.HN[r, :nn]), _bits(hn)) and np.array_equal(_bits(dat.HT[r, :nn]), _bits(ht))
            assert dat.fric[r] == (cf[c, CF_MU] > 0.0 and tt > 1e-20)
            # the definition: u = (v_a + ω_a × r_a - v_b - ω_b × r_b) · n, t
            a, b = ci[c, CI_ABODY], ci[c, CI_BBODY]
            rel = np.zeros(2)
            for body, p, sign in ((a, dat.pa[c], 1.0), (b, dat.pb[c], -1.0)):
                if body < 0:
                    continue
                qi = bi[body, BI_COORD]
                arm = p - kin.pos[body]
                rel += sign * (v[qi:qi + 2] + v[qi + 2] * np.array([-arm[1], arm[0]]))
            n = dat.nrm[c]
            cols = ccols[c, :nn]
            assert abs(dat.HN[r, :nn] @ v[cols] - rel @ n) <= 1e-12 * (1.0 + np.abs(rel).sum())
            assert abs(dat.HT[r, :nn] @ v[cols] - (n[1] * rel[0] - n[0] * rel[1])) <= 1e-12 * (1.0 + np.abs(rel).sum())
            pairs += b >= 0
            grounds += b < 0
        checked += 1
    assert checked >= 40 and pairs > 500 and grounds > 200


def test_com_terms_and_free_velocity_equal_the_sums():
    """At states of a pyramid's fall and rest with random velocities: bias and gravity bit for bit com_terms' loop
    over Jp and Ja (gravity m g on the translations, 0 on the turn), v_free bit for bit v + the sparse M⁻¹ row sums of
    h (F + Qact); with a force made infinite the sparse sums' numbers (non-finite entries in the same places)."""
    model = compile_scene(HEAPS["box_pyramid"](4))
    ma = model.arrays
    assert ma.mi_diag.shape[0] == ma.mi_ptr.shape[0] - 1   # the diagonal path
    bf, bi, path, plen = ma.bf, ma.bi, ma.path, ma.plen
    gx, gy, h = ma.fs[FS_GX], ma.fs[FS_GY], ma.fs[FS_H]
    sim = Simulator(model)
    m, d = sim._args
    dat = sim._data
    rng = np.random.default_rng(5)
    for step in range(12):
        sim.run(40, record=False)
        dat.v[:] = rng.normal(size=dat.v.shape[0]) * (1.0 if step % 2 else 1e-9)
        evaluate(m, d, False)
        kin = dat.kin
        bias, grav = np.zeros(dat.v.shape[0]), np.zeros(dat.v.shape[0])
        for b in range(bi.shape[0]):
            c, s = float(kin.cs[b, 0]), float(kin.cs[b, 1])
            rx = c * float(bf[b, BF_COMX]) - s * float(bf[b, BF_COMY])
            ry = s * float(bf[b, BF_COMX]) + c * float(bf[b, BF_COMY])
            w = float(kin.omg[b])
            ax, ay = float(kin.acc[b, 0]) - w * w * rx, float(kin.acc[b, 1]) - w * w * ry
            mass = float(bf[b, BF_MASS])
            for k1 in range(plen[b]):
                j1 = path[b, k1]
                cx1 = float(kin.Jp[b, 0, j1]) - ry * float(kin.Ja[b, j1])
                cy1 = float(kin.Jp[b, 1, j1]) + rx * float(kin.Ja[b, j1])
                bias[j1] += mass * (cx1 * ax + cy1 * ay)
                grav[j1] += mass * (cx1 * gx + cy1 * gy)
            qi = bi[b, BI_COORD]
            assert np.allclose(grav[qi:qi + 3], [mass * gx, mass * gy, 0.0], rtol=1e-15, atol=0)
        assert np.array_equal(_bits(dat.bias), _bits(bias)) and np.array_equal(_bits(dat.grav), _bits(grav))
        for blow in (False, True):
            if blow:
                dat.F[3 * (step % 4) + step % 3] = np.inf
            st.free_velocity(m, d)
            with np.errstate(invalid="ignore"):   # (0 · inf)
                want = _sparse_free_velocity(ma, dat, h)
            if blow:
                assert not np.isfinite(want).all()
                assert np.array_equal(np.isfinite(dat.vfree), np.isfinite(want))
                ok = np.isfinite(want)
                assert np.array_equal(_bits(dat.vfree[ok]), _bits(want[ok]))
            else:
                assert np.array_equal(_bits(dat.vfree), _bits(want))


def test_tiny_angles_cos_and_sin_are_libm_s():
    """body_kinematics skips the calls below |θ| = 2^-27: the same numbers as numpy's cos and sin, at the bound,
    both sides of it, ±0 and the resting angles' sizes."""
    model = compile_scene(HEAPS["box_pyramid"](4))
    sim = Simulator(model)
    m, d = sim._args
    dat, bi = sim._data, model.arrays.bi
    bound = 2.0 ** -27
    angles = np.array([0.0, -0.0, 5e-324, -1e-300, 1e-12, -3.1e-11, 4e-9, np.nextafter(bound, 0.0), -np.nextafter(bound, 0.0),
                       bound, -bound, 2.0 ** -26, 1e-3, -0.7])
    rng = np.random.default_rng(3)
    angles = np.concatenate([angles, rng.uniform(-bound, bound, 26), rng.uniform(-1e-6, 1e-6, 10)])
    coords = bi[:, BI_COORD] + 2
    for start in range(0, angles.shape[0], coords.shape[0]):
        th = angles[start:start + coords.shape[0]]
        dat.q[coords[:th.shape[0]]] = th
        evaluate(m, d, False)
        cs, th = dat.kin.cs[:th.shape[0]], 0.0 + th   # (the body's angle: its parent's, 0, plus q)
        assert np.array_equal(_bits(dat.kin.ang[:th.shape[0]]), _bits(th))
        assert np.array_equal(_bits(cs[:, 0]), _bits(np.cos(th))) and np.array_equal(_bits(cs[:, 1]), _bits(np.sin(th)))
