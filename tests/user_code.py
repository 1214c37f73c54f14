"""User controllers for the tests of `python` blocks: source files written into a test's folder, and
the two-link arm (impacts at `tip_ground`) driven by a `python` block instead of its PD motors."""

import json
import textwrap

import pytest

from tests.helpers import example_dict

# A PD with an integral term that counts the impacts it was told about: state of several kinds
# (a float integrator, an int counter, a list of event times) for the restore tests.
PID = '''
from nsgui import Controller, Param, Signal

MARK = []  # the module ran


class PID(Controller):
    params = {
        "kp": Param(60.0, ge=0, unit="N·m/rad"),
        "kd": Param(8.0, ge=0),
        "ki": Param(20.0, ge=0),
        "target": Param([0.5, -1.25], kind="numbers"),
        "fail_at": Param(1e9, help="raise from this time on"),
        "nan_at": Param(1e9),
    }
    signals = (Signal("integral", "rad·s", per_actuator=True), "impacts_seen", "samples")

    def start(self, s):
        self.integral = [0.0] * len(self.coords)
        self.impacts_seen = 0
        self.impact_times = []
        self.samples = 0

    def sample(self, s):
        if s.t >= self.fail_at:
            return self.broken(s)
        self.samples += 1
        for e in s.events:
            if e.kind == "impact":
                self.impacts_seen += 1
                self.impact_times.append(e.t)
        h = self.period or self.dt
        u = []
        for i, j in enumerate(self.coords):
            e = self.target[i] - s.q[j]
            self.integral[i] += h * e
            u.append(self.kp * e - self.kd * s.v[j] + self.ki * self.integral[i] - s.gravity[j])
        if s.t >= self.nan_at:
            u[1] = float("nan")
        return u, {"integral": self.integral, "impacts_seen": self.impacts_seen, "samples": self.samples}

    def broken(self, s):
        return 1.0 / 0.0  # the line the traceback must name
'''

# u = the sample's time: what the recorded inputs show is when samples act (delay, hold, saturation)
CLOCK = '''
from nsgui import Controller

class Clock(Controller):
    def sample(self, s):
        return [s.t] * len(self.actuators)
'''


def write(folder, name, source):
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def arm_dict(block):
    """The two-link arm with both motors driven by the block (its other keys: `block`)."""
    d = example_dict("two_link_arm")
    for a in d["actuators"]:
        a["controller"] = {"type": "none"}
    d["controllers"] = [dict({"name": "ctl", "type": "python", "actuators": ["shoulder_motor", "elbow_motor"],
                              "module": "pid.py", "class_name": "PID"}, **block)]
    return d


def write_scene(folder, d, name="scene.json"):
    path = folder / name
    path.write_text(json.dumps(d))
    return path


@pytest.fixture
def consent_reset():
    """Each test starts and ends with no consent to run code (the process-wide default)."""
    from nsgui.engine.control.python_block import Consent, set_consent
    set_consent(Consent())
    yield
    set_consent(Consent())
