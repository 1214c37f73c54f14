"""A `python` controller in the window's simulation process: the child gets the window's consent
with the scene, imports the module and samples it there (rows equal the engine's, user state in
the snapshots it sends back); an exception in the user's code reaches Messages with the user's
traceback, the rows before it kept."""

import numpy as np
import pytest

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.control.python_block import Consent, file_digest, set_consent
from nsgui.scene import load_scene

from tests.runtime.test_runner import _drain_run
from tests.user_code import PID, arm_dict, consent_reset, write, write_scene  # noqa: F401

pytestmark = pytest.mark.usefixtures("consent_reset")


def _consented(tmp_path, block):
    """The arm scene with the block, compiled under the window's kind of consent (this file, this hash)."""
    path = write(tmp_path, "pid.py", PID)
    set_consent(Consent(str(tmp_path), allowed=frozenset({(str(path.resolve()), file_digest(path))})))
    return compile_scene(load_scene(write_scene(tmp_path, arm_dict(block))))


def _run_in_process(model, nsteps):
    from nsgui.runtime.process import ProcessRunner
    r = ProcessRunner(snapshot_interval=0.05)
    try:
        r.set_speed(None)
        r.load(model, running=False)
        r.run_until(nsteps * model.dt)
        return _drain_run(r, nsteps + 1, timeout=120)
    finally:
        assert r.quit()


def test_the_simulation_process_runs_the_user_code_with_the_windows_consent(tmp_path):
    model = _consented(tmp_path, {"period": 0.005})
    rows, snaps, _, errors = _run_in_process(model, 600)
    assert not errors
    ref = Simulator(model)
    np.testing.assert_array_equal(rows, np.vstack([ref.signal_vector()[None, :], ref.run(600)]))
    assert snaps[-1][2].user_state["ctl"][0] == ref.get_state().user_state["ctl"][0]
    # a snapshot from the child restores here too (the window's Resume from here)
    i, _t, state = snaps[len(snaps) // 2]
    again = Simulator(model)
    again.set_state(state)
    np.testing.assert_array_equal(again.run(len(rows) - 1 - i), rows[i + 1:])


def test_an_exception_in_user_code_reaches_the_messages_with_its_traceback(tmp_path):
    model = _consented(tmp_path, {"period": 0.01, "params": {"fail_at": 0.25}})
    rows, _, _, errors = _run_in_process(model, 1000)
    assert len(errors) == 1
    msg = errors[0]
    assert msg.startswith("simulation stopped at t = 0.25 s: controller 'ctl' (pid.py:")
    assert "Traceback (most recent call last):" in msg and "in broken" in msg and "nsgui/engine" not in msg
    assert len(rows) == 251 and rows[-1, 0] == pytest.approx(0.25)
