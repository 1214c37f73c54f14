"""`python` controller blocks (issue 10, item 6): user classes with the built-in laws' interface.

Consent before any code runs, parameter checks against the class, the framework's sampling, delay
and saturation, state restored bit for bit by snapshots and set_state, exceptions that keep the rows
and name the user's line, and the shipped example's physics (energy pumped up to the target)."""

import math
import os
import sys

import numpy as np
import pytest

from nsgui.engine import SimulationError, Simulator, compile_scene, simulate
from nsgui.engine.control.python_block import CodeRefused, Consent, allow_code, set_consent
from nsgui.scene import SceneError, load_scene, scene_from_dict

from tests.helpers import ROOT
from tests.user_code import CLOCK, PID, arm_dict, consent_reset, write, write_scene  # noqa: F401

pytestmark = pytest.mark.usefixtures("consent_reset")

EXAMPLE = os.path.join(ROOT, "resources", "examples", "controllers", "pendulum_swing_up.json")


def arm(tmp_path, source=PID, **block):
    write(tmp_path, "pid.py", source)
    return load_scene(write_scene(tmp_path, arm_dict(block)))


def marker_modules():
    return [m for m in sys.modules if m.startswith("_nsgui_user_pid")]


# ---------------------------------------------------------------- consent
def test_loading_runs_no_code_and_compiling_needs_consent(tmp_path):
    write(tmp_path, "pid.py", PID + "\nopen(__file__ + '.ran', 'w').close()\n")
    scene = load_scene(write_scene(tmp_path, arm_dict({})))
    assert not (tmp_path / "pid.py.ran").exists()
    set_consent(Consent(str(tmp_path)))  # the folder, no consent
    with pytest.raises(CodeRefused) as err:
        compile_scene(scene)
    assert str(err.value).startswith("controllers[0].module: 'pid.py' is Python code")
    assert not (tmp_path / "pid.py.ran").exists()
    # consent to the file as it is (the window's answer) lets it run; an edited file is asked again
    from nsgui.engine.control.python_block import file_digest
    path = str((tmp_path / "pid.py").resolve())
    set_consent(Consent(str(tmp_path), allowed=frozenset({(path, file_digest(path))})))
    compile_scene(scene)
    assert (tmp_path / "pid.py.ran").exists()
    with open(path, "a") as f:
        f.write("# edited\n")
    with pytest.raises(CodeRefused):
        compile_scene(scene)


# ---------------------------------------------------------------- parameters and declarations
def test_parameters_are_checked_against_the_class(tmp_path):
    allow_code(tmp_path)
    scene = arm(tmp_path, params={"kq": 1.0, "kd": -2.0, "ki": "fast", "target": [0.1, "x"]})
    with pytest.raises(SceneError) as err:
        compile_scene(scene)
    msgs = [str(p) for p in err.value.problems]
    assert "controllers[0].params.kd: must be >= 0, not -2" in msgs
    assert "controllers[0].params.ki: must be a number, not a string" in msgs
    assert "controllers[0].params.target[1]: must be a number, not a string" in msgs
    assert "controllers[0].params.kq: PID has no parameter 'kq' (did you mean 'kp'?)" in msgs
    with pytest.raises(SceneError) as err:
        compile_scene(arm(tmp_path, class_name="PDI"))
    assert [str(p) for p in err.value.problems] == ["controllers[0].class_name: 'PDI' not found in pid.py (it has: PID)"]
    with pytest.raises(SceneError) as err:
        compile_scene(arm(tmp_path, module="nowhere.py"))
    assert str(err.value.problems[0]).startswith("controllers[0].module: no Python file or module 'nowhere.py'")


def test_params_must_be_an_object_of_plain_values_when_loading():
    d = arm_dict({"params": {"kp": {"a": 1}}})
    with pytest.raises(SceneError) as err:
        scene_from_dict(d)
    assert [str(p) for p in err.value.problems] == [
        "controllers[0].params.kp: must be a number, boolean, string or list, not an object"]


def test_signals_come_from_the_class_with_units(tmp_path):
    allow_code(tmp_path)
    m = compile_scene(arm(tmp_path, params={"ki": 0.0}))
    names = [n for n in m.signal_names if n.startswith("controller.")]
    assert names == ["controller.ctl.integral.shoulder_motor", "controller.ctl.integral.elbow_motor",
                     "controller.ctl.impacts_seen", "controller.ctl.samples"]
    assert m.signal_units["controller.ctl.integral.elbow_motor"] == "rad·s"


# ---------------------------------------------------------------- the framework's semantics
def _held(t_steps, samples, delay, limit):
    """The input applied during the step starting at each time: the latest sample's u = t_sample
    whose output has arrived (t_sample + delay ≤ t), 0 before, clipped to ±limit."""
    out = np.zeros(len(t_steps))
    for k, t in enumerate(t_steps):
        arrived = [s for s in samples if s + delay <= t + 1e-9]
        out[k] = min(arrived[-1], limit) if arrived else 0.0
    return out


@pytest.mark.parametrize("period, delay", [(0.01, 0.0), (0.01, 0.025), (None, 0.003)])
def test_sampling_hold_delay_and_saturation(tmp_path, period, delay):
    allow_code(tmp_path)
    write(tmp_path, "pid.py", CLOCK)
    d = arm_dict({"class_name": "Clock", "period": period, "delay": delay})
    d["actuators"][1]["limit"] = 0.2
    d["settings"]["duration"] = 0.3
    r = simulate(load_scene(write_scene(tmp_path, d)))
    h = r.model.dt
    t = r["t"]
    starts = t[:-1]  # row k + 1 records the input of the step that started at t[k]
    samples = list(starts) if period is None else [k * period for k in range(int(0.3 / period) + 1)]
    np.testing.assert_allclose(r["u.shoulder_motor"][1:], _held(starts, samples, delay, np.inf), atol=1e-12)
    np.testing.assert_allclose(r["u.elbow_motor"][1:], _held(starts, samples, delay, 0.2), atol=1e-12)
    assert r["u.elbow_motor"].max() == 0.2 and h == 0.001


# ---------------------------------------------------------------- state
def _reference(scene, T):
    sim = Simulator(compile_scene(scene))
    sim.snapshot_every(0.05)
    rows = sim.run(int(round(T / sim.model.dt)))
    return sim, rows, sim.pop_snapshots()


@pytest.mark.parametrize("period", [0.006, 0.1])
def test_resumed_runs_repeat_the_reference_bit_for_bit(tmp_path, period):
    allow_code(tmp_path)
    scene = arm(tmp_path, period=period, delay=0.01)
    T = 1.5
    sim, ref, snaps = _reference(scene, T)
    cols = sim.signal_names
    assert ref[-1, cols.index("controller.ctl.impacts_seen")] >= 2  # the arm hits the ground: events seen
    # a snapshot the kernel took between two samples (with events the law has not seen yet, when
    # samples are far apart), and a state taken between calls
    mid = [s for s in snaps if abs(s.t / period - round(s.t / period)) > 0.1]
    if period == 0.1:
        mid = [s for s in mid if s.user_state["ctl"][1]]
    other = Simulator(compile_scene(scene))
    other.run(737)
    for state in (mid[0], other.get_state()):
        fresh = Simulator(compile_scene(scene))
        fresh.run(100)  # its own state goes away
        fresh.set_state(state)
        k = state.step_count
        rows = fresh.run(len(ref) - k)
        assert np.array_equal(rows, ref[k:]), f"restored at t = {state.t}: differs"
        assert fresh.get_state().user_state["ctl"][0] == sim.get_state().user_state["ctl"][0]


def test_snapshots_cross_processes_as_plain_data(tmp_path):
    """The window's simulation process sends states as pack_states: user state included."""
    from nsgui.engine.simulator import pack_states, unpack_states
    allow_code(tmp_path)
    scene = arm(tmp_path, period=0.005)
    sim, ref, snaps = _reference(scene, 0.6)
    back = unpack_states(pack_states(snaps))
    assert [s.user_state for s in back] == [s.user_state for s in snaps]
    fresh = Simulator(compile_scene(scene))
    fresh.set_state(back[1])
    assert np.array_equal(fresh.run(len(ref) - back[1].step_count), ref[back[1].step_count:])


def test_resume_with_edited_parameters_keeps_the_state(tmp_path):
    """A branch with a changed gain: the integral goes on from its value, the new gain applies."""
    from nsgui.engine.branching import map_state
    allow_code(tmp_path)
    a = compile_scene(arm(tmp_path, period=0.005))
    sim = Simulator(a)
    sim.run(400)
    state = sim.get_state()
    b = compile_scene(arm(tmp_path, period=0.005, params={"kp": 10.0}))
    branch = Simulator(b)
    branch.set_state(map_state(state, a, b))
    n = sim.signal_names.index("controller.ctl.samples")
    assert branch.signal_vector()[n] == sim.signal_vector()[n] == 80
    assert branch._python[0].obj.kp == 10.0 and branch._python[0].obj.samples == 80


# ---------------------------------------------------------------- failures
def test_an_exception_in_user_code_keeps_the_rows_and_names_the_line(tmp_path):
    allow_code(tmp_path)
    r = simulate(arm(tmp_path, period=0.01, params={"fail_at": 0.5}))
    s = r.summary
    assert s["failure"].startswith("t = 0.5 s: controller 'ctl' (pid.py:")
    assert "ZeroDivisionError: float division by zero" in s["failure"]
    assert len(r["t"]) == 501 and r["t"][-1] == pytest.approx(0.5)  # every row before it is kept
    tb = s["failure_traceback"]
    line = PID.splitlines().index("        return 1.0 / 0.0  # the line the traceback must name")
    assert f'pid.py", line {line + 1}, in broken' in tb and "in sample" in tb
    assert "nsgui/engine" not in tb and tb.startswith("Traceback")


def test_a_non_finite_input_is_reported_with_controller_and_time(tmp_path):
    allow_code(tmp_path)
    r = simulate(arm(tmp_path, period=0.01, params={"nan_at": 0.2}))
    assert r.summary["failure"] == ("t = 0.2 s: controller 'ctl' (PID.sample) returned nan for actuator "
                                    "'elbow_motor'")
    assert r["t"][-1] == pytest.approx(0.2)


def test_a_wrong_number_of_inputs_is_reported(tmp_path):
    allow_code(tmp_path)
    src = CLOCK.replace("[s.t] * len(self.actuators)", "[s.t]")
    write(tmp_path, "pid.py", src)
    sim = Simulator(compile_scene(load_scene(write_scene(tmp_path, arm_dict({"class_name": "Clock"})))))
    with pytest.raises(SimulationError, match=r"returned 1 inputs for its 2 actuator\(s\)"):
        sim.run(5)


# ---------------------------------------------------------------- the shipped example
def test_example_energy_pump_swings_the_pendulum_up():
    """u = k (E* − E) θ̇ with |u| ≤ 2 N·m: the energy rises to E* = m g L (upright, from hanging)
    and stays; the pendulum ends near the top. E is checked against the closed form
    ½ I_pivot θ̇² + m g (L/2)(1 − cos θ), independent of the controller's own computation."""
    allow_code(os.path.dirname(EXAMPLE))
    r = simulate(load_scene(EXAMPLE), duration=8.0)
    assert r.summary["failure"] is None
    m, L, g = 1.0, 0.8, 9.81
    I_pivot = 0.05333333333333334 + m * (L / 2) ** 2
    th, w = r["q.pivot"], r["v.pivot"]
    E = 0.5 * I_pivot * w ** 2 + m * g * (L / 2) * (1 - np.cos(th))
    recorded = r["controller.pump.energy"]
    samples = np.flatnonzero(np.abs(np.diff(recorded)) > 0) + 1  # rows where a sample wrote it
    np.testing.assert_allclose(recorded[samples], E[samples - 1], rtol=1e-9, atol=1e-9)
    target = m * g * L
    assert r["controller.pump.target"][-1] == pytest.approx(target)
    assert np.all(np.abs(r["u.motor"]) <= 2.0 + 1e-12)
    assert abs(E[-1] - target) < 0.01 * target
    assert math.cos(th[-1]) < -0.99  # upright
    assert r["controller.pump.swings"][-1] >= 1  # it had to swing: the motor cannot lift it directly


PROBE = '''
from nsgui import Controller

class Probe(Controller):
    signals = ("gap", "fn", "status", "M01", "HN1", "shoulder", "impacts")

    def sample(self, s):
        return [0.0, 0.0], {"gap": s.gap[0], "fn": s.fn[0], "status": s.status[0], "M01": s.M[0, 1],
                            "HN1": s.jacobians[0][0, 1], "shoulder": s["q.shoulder"], "impacts": s.impacts[0]}
'''


def test_a_sample_sees_the_state_contacts_and_model_of_its_time(tmp_path):
    """What sample(s) read equals the row recorded at the sample's time and the model's queries."""
    allow_code(tmp_path)
    write(tmp_path, "pid.py", PROBE)
    d = arm_dict({"class_name": "Probe"})
    d["settings"]["duration"] = 1.0
    r = simulate(load_scene(write_scene(tmp_path, d)))
    m = r.model
    c = "contact.tip_ground"
    k = np.arange(len(r["t"]) - 1)  # the sample at t[k] is recorded in row k + 1
    for mine, theirs in (("gap", f"{c}.gap"), ("fn", f"{c}.fn"), ("status", f"{c}.status"), ("shoulder", "q.shoulder")):
        np.testing.assert_array_equal(r[f"controller.ctl.{mine}"][k + 1], r[theirs][k])
    # the limp arm falls onto the ground and rests there: impact and contact force were seen
    assert (r[f"{c}.status"] == 3).sum() >= 1 and r["controller.ctl.fn"].max() > 1.0
    assert r["controller.ctl.impacts"][-1] == (r[f"{c}.status"][:-1] == 3).sum()
    for i in (200, 700):
        q = np.array([r[f"q.{n}"][i] for n in m.coord_names])
        assert r["controller.ctl.M01"][i + 1] == pytest.approx(m.mass_matrix(q)[0, 1], rel=1e-12)
        assert r["controller.ctl.HN1"][i + 1] == pytest.approx(m.contact_jacobians(q)[0][0, 1], rel=1e-12)


def test_a_state_that_cannot_be_kept_is_named(tmp_path):
    from nsgui.engine.simulator import ControllerError
    allow_code(tmp_path)
    write(tmp_path, "pid.py", CLOCK.replace("    def sample", "    def start(self, s):\n        self.f = lambda: 0\n\n    def sample"))
    sim = Simulator(compile_scene(load_scene(write_scene(tmp_path, arm_dict({"class_name": "Clock"})))))
    with pytest.raises(ControllerError, match=r"controller 'ctl': its state cannot be kept in snapshots \(.*lambda"):
        sim.get_state()


def test_a_dotted_module_is_found_without_running_its_package(tmp_path):
    """`module: "laws.pid"`: found beside the scene with nothing imported before consent."""
    (tmp_path / "laws").mkdir()
    write(tmp_path / "laws", "__init__.py", "open(__file__ + '.ran', 'w').close()\n")
    write(tmp_path / "laws", "pid.py", PID)
    scene = load_scene(write_scene(tmp_path, arm_dict({"module": "laws.pid"})))
    set_consent(Consent(str(tmp_path)))
    with pytest.raises(CodeRefused) as err:
        compile_scene(scene)
    assert err.value.path == str((tmp_path / "laws" / "pid.py").resolve())
    assert not (tmp_path / "laws" / "__init__.py.ran").exists()
    allow_code(tmp_path)
    m = compile_scene(scene)
    assert "controller.ctl.samples" in m.signal_names and (tmp_path / "laws" / "__init__.py.ran").exists()
    assert Simulator(m).run(3).shape[0] == 3


@pytest.mark.parametrize("where, source", [
    ("importing pid.py", PID + "\nraise RuntimeError('broken module')\n"),
    ("start", PID.replace("        self.integral = [0.0] * len(self.coords)",
                          "        self.integral = [0.0] * len(self.coordinates)")),
])
def test_errors_while_importing_or_starting_name_the_users_line(tmp_path, where, source):
    from nsgui.engine.simulator import ControllerError
    allow_code(tmp_path)
    with pytest.raises(ControllerError) as err:
        Simulator(compile_scene(arm(tmp_path, source)))
    assert f"controller 'ctl' (pid.py:" in str(err.value) and f"raised in {where}:" in str(err.value)
    tb = err.value.user_traceback
    assert tb.startswith("Traceback") and 'pid.py", line' in tb and "nsgui/engine" not in tb
