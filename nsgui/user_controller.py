"""Controllers written in Python by the user (docs/controllers.md, "Writing a controller in Python").

A user controller is a subclass of `Controller` in the user's own .py file, referenced by a scene
block `{"type": "python", "module": "my_law.py", "class_name": "MyLaw", "params": {...}}`. It has the
interface of the built-in laws: declared parameters (`Param`) and signals (`Signal`), internal state
(its instance attributes, kept by snapshots, scrubbing and branches), the block's sampling period,
delay and saturation, and a `sample(s)` that returns one input per actuator of its block.

    from nsgui import Controller, Param

    class Damper(Controller):
        params = {"c": Param(1.0, ge=0, unit="N·m·s/rad", help="damping")}
        signals = ("power",)

        def sample(self, s):
            w = s.v[self.coords[0]]
            return [-self.c * w], {"power": -self.c * w * w}

This module is light (no numba): the engine's side is nsgui/engine/control/python_block.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from nsgui.scene.controller_types import Signal
from nsgui.scene.schema import Field


@dataclass(frozen=True)
class Param:
    """A declared parameter of a user controller: the scene's `params.<name>` is checked against it
    (kind, range) and its value becomes the attribute `self.<name>`. `default=None` with
    `required=True`: the scene must give it. Kinds: number, integer, boolean, string, vec2, numbers."""
    default: object = 0.0
    kind: str = "number"
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    unit: str = ""
    help: str = ""
    required: bool = False
    choices: tuple = ()

    def field(self, name: str) -> Field:
        """The scene schema's Field of this parameter (its checks are the scene format's)."""
        kind = "enum" if self.choices else self.kind
        default = list(self.default) if isinstance(self.default, (list, tuple)) else self.default
        return Field(name, kind, default=default, required=self.required, gt=self.gt, ge=self.ge,
                     le=self.le, choices=tuple(self.choices), unit=self.unit, help=self.help)


# attributes the framework sets on every instance (not state: a resumed run gets the new scene's)
FRAMEWORK_ATTRS = ("name", "actuators", "coords", "period", "dt", "delay")


class Controller:
    """Base class of a user controller.

    Class attributes: `params` {name: Param}, `signals` (names or `Signal`s, recorded as
    `controller.<block>.<signal>`), optional `help`.

    The framework sets, before `start` and after every restore: the parameters as attributes, and
    `name` (the block's), `actuators` (names, in output order), `coords` (index in q and v of each
    actuator's coordinate), `period` (s, None: every step), `delay` (s) and `dt` (the time step).

    Everything else you put on `self` is the controller's state: it is copied (pickled) into every
    snapshot, so scrubbing, Resume from here and branches restore it exactly. Keep it picklable
    (numbers, lists, dicts, numpy arrays, your own plain classes).
    """
    params: dict = {}
    signals: tuple = ()
    help: str = ""

    def start(self, s):
        """Called once at the start of a fresh run (not after a restore), with the first Sample:
        set the initial state here."""

    def sample(self, s):
        """The law, called at every sample time with a `Sample` (t, q, v, contacts, events, model).
        Returns the inputs (one per actuator of the block, in its order; saturated to the
        actuators' limits), or (inputs, {signal: value}); a per-actuator signal takes a list.
        Signals not given keep their last value."""
        raise NotImplementedError(f"{type(self).__name__}.sample")


class Sample:
    """What a controller sees at a sample time: the state after the last step.

    t, q, v, dt; per contact (in model.contact_names order) gap, pn, pt (the last step's
    percussions, N·s), fn, ft (forces = percussion / h), status (codes: 0 open, 1 stick, 2 slip,
    3 impact: nsgui.engine.codes), impacts (impact steps counted per contact since t = 0);
    events (Event(t, kind, name, detail) since this controller's previous sample); model (the
    compiled Model: mass_matrix(q), bias(q, v), gravity_force(q), contact_jacobians(q),
    contact_frames(q), potential_energy(q), body_poses(q)...). `s["q.joint"]` reads any signal of
    the current row by name (`model.signal_names`). M, bias, gravity and jacobians are the model's
    at (q, v), computed on first use.
    """

    def __init__(self, model, t, q, v, row, impacts, events):
        self.model = model
        self.t, self.q, self.v, self.dt = t, q, v, model.dt
        self._row = row
        lay = model.layout
        self.gap, self.pn, self.pt = (row[lay.contact_columns(k)] for k in ("gap", "pn", "pt"))
        self.fn, self.ft, self.status = (row[lay.contact_columns(k)] for k in ("fn", "ft", "status"))
        self.impacts = impacts
        self.events = events
        self._cache = {}

    def __getitem__(self, name):
        return float(self._row[self.model.signal_names.index(name)])

    def _memo(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def M(self):
        return self._memo("M", lambda: self.model.mass_matrix(self.q))

    @property
    def bias(self):
        return self._memo("bias", lambda: self.model.bias(self.q, self.v))

    @property
    def gravity(self):
        return self._memo("gravity", lambda: self.model.gravity_force(self.q))

    @property
    def jacobians(self):
        """(HN, HT): the contacts' normal and tangential rows, (ncontacts, nq) each."""
        return self._memo("jacobians", lambda: self.model.contact_jacobians(self.q))


__all__ = ["Controller", "Param", "Sample", "Signal", "FRAMEWORK_ATTRS"]
