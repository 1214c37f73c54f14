"""Walker metrics (nsgui/engine/walker.py): steps, distance, mean speed and fall, on made-up signals
with known answers, and `nsgui run --summary-json` reporting them for a scene with a walker."""

import json
import math

import numpy as np
import pytest

from nsgui.cli import run_main
from nsgui.engine.simulate import simulate
from nsgui.engine.walker import walker_metrics
from nsgui.examples import resolve_scene
from nsgui.scene import load_scene


def _flags(t, intervals):
    """Loaded where t is in one of the [a, b) intervals."""
    return np.any([(t >= a) & (t < b) for a, b in intervals], axis=0) if intervals else np.zeros(len(t), bool)


def test_a_step_is_a_landing_after_a_lift_off_of_fifty_milliseconds():
    t = np.arange(0.0, 3.0, 1e-3)
    left = _flags(t, [(0.0, 0.4), (0.7, 1.2), (1.21, 1.5), (2.0, 3.0)])   # 2 steps; the 10 ms gap is no step
    right = _flags(t, [(0.3, 0.9), (1.4, 2.1)])                           # in the air while left stands: 2 steps
    xy = np.column_stack([0.5 * t, np.full_like(t, 0.9)])
    m = walker_metrics(t, xy, np.column_stack([left, right]))
    assert m["steps"] == 4
    dropped = _flags(t, [(0.2, 0.4), (0.7, 1.2)])                         # wholly in the air at first
    assert walker_metrics(t, xy, np.column_stack([dropped, right]))["steps"] == 1 + 1
    assert m["distance"] == pytest.approx(0.5 * t[-1]) and m["mean_speed"] == pytest.approx(0.5)
    assert m["fallen"] is False


def test_distance_along_a_slope_and_a_fall_measured_from_the_ground_line():
    slope = math.radians(2.0)
    normal = (-math.sin(slope), math.cos(slope))
    t = np.linspace(0.0, 4.0, 401)
    s = 0.6 * t                                               # travel along the slope
    xy = np.column_stack([s * math.cos(slope), s * math.sin(slope)]) + 0.9 * np.array(normal)
    m = walker_metrics(t, xy, np.ones((len(t), 2), bool), (0.0, 0.0), normal, 0.5)
    assert m["distance"] == pytest.approx(0.6 * 4.0, rel=1e-12) and not m["fallen"]
    xy[-10:] -= 0.45 * np.array(normal)                     # the torso 0.45 m above the ground: fallen
    assert walker_metrics(t, xy, np.ones((len(t), 2), bool), (0.0, 0.0), normal, 0.5)["fallen"]
    xy[-10:] += 0.45 * np.array(normal)                     # high again, but the torso touched something
    assert not walker_metrics(t, xy, np.ones((len(t), 2), bool), (0.0, 0.0), normal, 0.5)["fallen"]
    assert walker_metrics(t, xy, np.ones((len(t), 2), bool), (0.0, 0.0), normal, 0.5,
                          torso_touches=[False, True])["fallen"]


def test_run_summary_reports_the_walker(tmp_path):
    out = tmp_path / "s.json"
    assert run_main(["biped", "--duration", "3", "--summary-json", str(out), "--quiet"]) == 0
    w = json.loads(out.read_text())["walker"]
    assert set(w) == {"steps", "distance", "mean_speed", "fallen"}
    # the same numbers from the recorded rows: feet loaded when a heel or toe carries a force, the
    # torso's frame at the free joint's coordinates
    r = simulate(load_scene(resolve_scene("biped")), duration=3.0)
    sig = r.signals
    loaded = np.column_stack([(sig[f"contact.heel_{s}.fn"] + sig[f"contact.toe_{s}.fn"]) > 0 for s in "lr"])
    ref = walker_metrics(sig["t"], np.column_stack([sig["q.base.x"], sig["q.base.y"]]), loaded)
    assert w["steps"] == ref["steps"] >= 5
    assert w["distance"] == pytest.approx(ref["distance"], abs=1e-9) and not w["fallen"]
    assert w["mean_speed"] == pytest.approx(ref["mean_speed"], abs=1e-9)


def test_a_torso_that_touches_the_ground_has_fallen():
    """The walker without its controller collapses; with the fall height set below anything it can
    reach, only the torso's own contact with the ground tells the fall."""
    from nsgui.scene import scene_from_dict, scene_to_dict
    from nsgui.scene.planar_biped import walking_biped
    d = scene_to_dict(walking_biped(push=(0.0, 0.0), duration=3.0))
    d["controllers"] = []
    d["walker"]["fallen_height"] = 1e-3
    d["contacts"].append({"name": "torso_ground", "a": {"body": "torso", "shape": "body"},
                          "b": {"obstacle": "ground"}, "friction": 0.8})
    r = simulate(scene_from_dict(d))
    assert r.summary["walker"]["fallen"]
    assert max(v.max() for k, v in r.signals.items() if k.startswith("contact.torso_ground") and k.endswith(".fn")) > 0
    assert r.signals["q.base.y"].min() > 1e-3     # the torso's frame never came that low
