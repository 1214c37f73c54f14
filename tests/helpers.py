"""Shared helpers for the physics tests: example scenes, edited copies, signal matrices.

Every oracle lives in the tests themselves (closed forms of the time-stepping digest §8 and of the
dynamics digest); these helpers only load scenes and reshape the recorded signals.
"""

import os

import numpy as np

from nsgui.scene import load_scene, scene_from_dict, scene_to_dict
from nsgui.engine import codes, simulate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = os.path.join(ROOT, "resources", "scenes")
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")


def phases_at_start(model):
    """(m, d, data) of a new Simulator of model, ready to be stepped phase by phase from a test (stepper's
    free_velocity, activate_contacts, solve_contact_problem, ...): the model evaluated at q0, M set to the
    constant M (what the compiled loop's start does for a constant-mass model)."""
    from nsgui.engine import Simulator
    from nsgui.engine.evaluation import evaluate
    sim = Simulator(model)
    m, d = sim._args
    evaluate(m, d, False)
    sim._data.M[:, :] = model.arrays.M_const
    return m, d, sim._data


def scene_path(name):
    return os.path.join(SCENES, f"{name}.json")


def example(name):
    return load_scene(scene_path(name))


def example_dict(name):
    return scene_to_dict(example(name))


def edited(name, **changes):
    """The example with top-level keys replaced, e.g. edited("bouncing_ball", contacts=[...])."""
    d = example_dict(name)
    d.update(changes)
    return scene_from_dict(d)


def with_restitution(name, e, contacts=None):
    """The example with the restitution of the named contacts (all when None) set to e."""
    d = example_dict(name)
    for c in d["contacts"]:
        if contacts is None or c["name"] in contacts:
            c["restitution"] = float(e)
    return scene_from_dict(d)


class Run:
    """A simulate() result with the signals reshaped per step: Q, V (steps+1, nq), contact arrays (steps+1, nc)."""

    def __init__(self, scene, **kw):
        self.result = simulate(scene, **kw)
        self.S = S = self.result.signals
        self.model = m = self.result.model
        self.h = m.dt
        self.t = S["t"]
        self.Q = np.column_stack([S[f"q.{c}"] for c in m.coord_names])
        self.V = np.column_stack([S[f"v.{c}"] for c in m.coord_names])
        names = m.contact_names
        self.names = names
        stack = (lambda k: np.column_stack([S[f"contact.{n}.{k}"] for n in names])) if names else \
            (lambda k: np.zeros((len(self.t), 0)))
        self.gap, self.pn, self.pt, self.status = (stack(k) for k in ("gap", "pn", "pt", "status"))
        self.E = S["energy.total"]
        assert self.result.summary["failure"] is None, self.result.summary["failure"]

    def col(self, contact):
        return self.names.index(contact)

    def normal_velocity(self, k, at=None):
        """U = H(q_at) v_k for every contact (H taken at row `at`, default k)."""
        HN, _ = self.model.contact_jacobians(self.Q[k if at is None else at])
        return HN @ self.V[k]

    def impact_rows(self, contact=None):
        st = self.status if contact is None else self.status[:, [self.col(contact)]]
        return np.nonzero((st == codes.IMPACT).any(axis=1))[0]


def rest_time(t, pn):
    """Start of the final persistent contact: the first row from which pn > 0 on every later row."""
    pos = pn > 0
    assert pos[-1], "not at rest at the end of the run"
    k = len(pos) - 1
    while k > 0 and pos[k - 1]:
        k -= 1
    return t[k]


def assert_drawn_from(x, y, t, col):
    """(x, y) as handed to a plot curve shows the signal `col` sampled at times `t`: each x is a
    sample time; a single point is that sample; a pair of points is a bucket of the samples from the
    first point's time to the second's, inclusive (peak decimation): its minimum and maximum, the
    minimum first when the bucket's last sample is not below its first. The points cover every
    sample from the first drawn time to the last, each once, in order."""
    x, y, t, col = (np.asarray(a, float) for a in (x, y, t, col))
    assert len(x) == len(y) and len(x) > 0
    starts = np.searchsorted(t, x)
    assert np.all(starts < len(t)) and np.array_equal(t[starts], x), "points at non-sample times"
    k, n, row = 0, len(x), starts[0]
    while k < n:
        s = starts[k]
        assert s == row, f"samples skipped or drawn twice before point {k} (row {s}, expected {row})"
        if k + 1 < n and starts[k + 1] >= s:
            e = starts[k + 1]
            seg = col[s:e + 1]
            with np.errstate(invalid="ignore"):
                lo, hi = np.fmin.reduce(seg), np.fmax.reduce(seg)
                expected = [lo, hi] if col[s] <= col[e] else [hi, lo]
            if np.array_equal(y[k:k + 2], expected, equal_nan=True):
                k, row = k + 2, e + 1
                continue
        assert np.array_equal(y[k], col[s], equal_nan=True), f"sample at t={x[k]}"
        k, row = k + 1, s + 1
    assert row == len(t), f"the drawn points end at row {row} of {len(t)}"
