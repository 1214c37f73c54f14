"""classify_contacts and book_energy read each active contact's rows against a velocity (the tangent row against
v_new for the status, both rows against v_θ for the percussions' work). Checked here with numpy over a 10-box
pyramid's fall, landing and rest: the impact and friction work −Σ λ_N H_N v_θ, −Σ λ_T H_T v_θ of the step's
percussions, and the statuses by their rule (IMPACT, SLIP, STICK, OPEN) from |H_T v_new| and the stick threshold,
with v_new set to random velocities of the threshold's size (both sides of it)."""
import numpy as np

from nsgui.engine import compile_scene
from nsgui.engine import stepper as st
from nsgui.engine.codes import ACC_FRICTION, ACC_IMPACT, FS_IMPACT, FS_STICK, IMPACT, OK, OPEN, SLIP, STICK
from tests.engine.rows_problems import rows_problems
from tests.engine.test_heaps import HEAPS


def test_statuses_and_contact_work_by_their_rules():
    model = compile_scene(HEAPS["box_pyramid"](4))
    ma = model.arrays
    impact, stick = ma.fs[FS_IMPACT], ma.fs[FS_STICK]
    seen = {IMPACT: 0, SLIP: 0, STICK: 0, OPEN: 0}
    rng = np.random.default_rng(7)
    problems = worked = 0
    for m, d, dat, nact, fric in rows_problems(model, 240, 3):
        assert st.solve_contact_problem(m, d, nact, fric)[0] == OK
        assert st.update_positions(m, d)[0] == OK
        act = dat.act[:nact].copy()
        HN = np.zeros((nact, model.nq))
        HT = np.zeros((nact, model.nq))
        for r, c in enumerate(act):
            nn = ma.ccn[c]
            HN[r, ma.ccols[c, :nn]] = dat.HN[r, :nn]
            HT[r, ma.ccols[c, :nn]] = dat.HT[r, :nn]
        lamN, lamT = dat.lamN_new[act], dat.lamT_new[act]
        e0 = dat.energy.copy()
        dat.energy[ACC_IMPACT] = dat.energy[ACC_FRICTION] = 0.0   # (the step's terms alone, no accumulated sum)
        st.book_energy(m, d, nact)
        got_imp, got_fric = dat.energy[ACC_IMPACT], dat.energy[ACC_FRICTION]
        dat.energy[:] = e0
        want_imp = -(lamN * (HN @ dat.vth)).sum()
        want_fric = -(lamT * (HT @ dat.vth)).sum()
        scale = 1e-12 * max(1e-300, (np.abs(lamN) + np.abs(lamT)).max() * np.abs(dat.vth).max() * nact)
        assert abs(got_imp - want_imp) <= scale
        assert abs(got_fric - want_fric) <= scale
        worked += abs(want_imp) + abs(want_fric) > 0.0
        before = dat.lamN.copy()
        # v_new replaced by random velocities of the stick threshold's size: sliding speeds on both sides of it
        # (at rest every contact sticks far below it; run(1) recomputes the step from the state anyway)
        dat.v_new[:] = rng.standard_normal(model.nq) * stick
        st.classify_contacts(m, d, nact)
        ut = HT @ dat.v_new
        for r, c in enumerate(act):
            if lamN[r] <= 0.0:
                want = OPEN
            elif dat.un[c] < -impact and before[c] == 0.0:
                want = IMPACT
            elif abs(abs(ut[r]) - stick) <= 1e-12 * max(stick, abs(ut[r])):
                continue   # (at the threshold: the engine's sum's round-off decides)
            else:
                want = SLIP if abs(ut[r]) > stick else STICK
            assert dat.status[c] == want, (c, dat.status[c], want, ut[r])
            seen[want] += 1
        problems += 1
    assert problems >= 30 and worked >= 10
    assert seen[STICK] >= 200 and seen[SLIP] >= 200 and seen[IMPACT] >= 1
