"""Contact forces in newtons: `contact.<name>.fn` / `.ft` are the mean forces over the step
(percussion / h), recorded beside the percussions `.pn` / `.pt` (issue 8, item 6). Oracles: a body
resting on the ground carries its weight at any step size; the arm of two_link_arm pressing on the
ground carries the static force that balances its motors' torques through the tip's Jacobian."""

import subprocess
import sys

import numpy as np
import pytest

from tests.helpers import ROOT, Run, example_dict, scene_path
from nsgui.engine import codes
from nsgui.scene import scene_from_dict

G = 9.81


def at_rest(name, dt, duration=0.5, **initial_q):
    d = example_dict(name)
    d["initial"]["v"] = {}
    d["initial"]["q"].update(initial_q)
    d["settings"].update(dt=dt, duration=duration)
    return scene_from_dict(d)


def test_every_contact_records_forces_beside_percussions():
    run = Run(at_rest("sliding_box", 1e-3, 0.05))
    names = run.model.signal_names
    for c in run.names:
        for k in ("gap", "pn", "pt", "fn", "ft", "status"):
            assert f"contact.{c}.{k}" in names
        np.testing.assert_array_equal(run.S[f"contact.{c}.fn"], run.S[f"contact.{c}.pn"] / run.h)
        np.testing.assert_array_equal(run.S[f"contact.{c}.ft"], run.S[f"contact.{c}.pt"] / run.h)


@pytest.mark.parametrize("projection", [False, True])
@pytest.mark.parametrize("dt", [1e-4, 1e-3, 1e-2, 5e-2])
def test_point_block_resting_on_the_ground_carries_its_weight_at_any_step(dt, projection):
    run = Run(at_rest("sliding_block", dt), projection=projection)   # m = 1 kg, one contact point
    fn = run.S["contact.block_ground.fn"]
    np.testing.assert_allclose(fn[1:], 1.0 * G, rtol=1e-9)           # newtons, whatever h is
    np.testing.assert_allclose(run.S["contact.block_ground.pn"][1:], G * dt, rtol=1e-9)
    assert np.all(run.S["contact.block_ground.ft"] == 0.0)


@pytest.mark.parametrize("projection", [False, True])
@pytest.mark.parametrize("dt", [1e-4, 1e-3, 1e-2, 5e-2])
def test_box_resting_on_its_face_carries_its_weight_at_any_step(dt, projection):
    """Two bottom corners touch: their normal forces add up to m g (the split and a pair of opposite
    friction forces are statically indeterminate; their sums are not). Set down with its face at
    round-off from the ground, it settles within a few steps; the second half of 40 steps or more
    is checked."""
    run = Run(at_rest("sliding_box", dt, duration=max(0.5, 40 * dt)), projection=projection)
    settled = slice(len(run.t) // 2, None)
    fn = np.column_stack([run.S[f"contact.{c}.fn"] for c in run.names])[settled]
    ft = np.column_stack([run.S[f"contact.{c}.ft"] for c in run.names])[settled]
    np.testing.assert_allclose(fn.sum(axis=1), 1.0 * G, rtol=1e-7)   # solver tolerance 1e-10
    np.testing.assert_allclose(ft.sum(axis=1), 0.0, atol=1e-6)


def arm_static_contact_force(q1, q2, kp=60.0, targets=(0.5, -1.2469794330622694), link=0.5):
    """Normal force at the tip of the two-link arm at rest with its tip on the ground y = 0.

    The PD motors compensate gravity, so at rest the generalized forces balance as
    kp (q* - q) + J_N(q)^T fn = 0, with J_N the gradient of the tip height
    y_tip = l sin q1 + l sin(q1 + q2). Both rows give fn; they must agree."""
    J = np.array([link * np.cos(q1) + link * np.cos(q1 + q2), link * np.cos(q1 + q2)])
    tau = kp * (np.asarray(targets) - [q1, q2])
    each = -tau / J
    assert each[0] == pytest.approx(each[1], rel=1e-6)                # a consistent static state
    return float(each.mean())


def test_two_link_arm_pressing_on_the_ground_shows_the_static_force():
    run = Run(scene_from_dict(example_dict("two_link_arm")))          # 3 s: hits, bounces, presses
    S = run.S
    q1, q2 = S["q.shoulder"][-1], S["q.elbow"][-1]
    expected = arm_static_contact_force(q1, q2)
    assert 5.0 < expected < 10.0                                      # a few newtons, not ≈ 0
    fn = S["contact.tip_ground.fn"]
    pressed = run.t >= 2.5
    assert np.all(S["contact.tip_ground.status"][pressed] == codes.STICK)
    np.testing.assert_allclose(fn[pressed], expected, rtol=1e-4)
    # the percussion of the same step is h times smaller (what the old card showed: ≈ 0.007)
    np.testing.assert_allclose(S["contact.tip_ground.pn"][-1], expected * run.h, rtol=1e-4)


def test_nsgui_run_exports_the_forces(tmp_path):
    """`nsgui run --out` (CSV and HDF5) carries the fn / ft columns, equal to the percussions / h."""
    from nsgui.engine.export import read_csv, read_hdf5
    for ext, read in (("csv", read_csv), ("h5", read_hdf5)):
        out = tmp_path / f"arm.{ext}"
        subprocess.run([sys.executable, "-m", "nsgui", "run", scene_path("two_link_arm"), "--duration",
                        "0.5", "--out", str(out), "--quiet"], check=True, cwd=ROOT, timeout=600)
        data = read(str(out))
        h = data["t"][1] - data["t"][0]
        np.testing.assert_allclose(data["contact.tip_ground.fn"], data["contact.tip_ground.pn"] / h,
                                   rtol=1e-9)
        assert "contact.tip_ground.ft" in data and data["contact.tip_ground.fn"].max() > 1.0
