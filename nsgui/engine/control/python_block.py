"""`python` controller blocks: a user's nsgui.Controller subclass, run between kernel calls.

Consent. Loading a scene never runs code; compiling one that references code does, so it needs
consent, held per process in `Consent`: `allow_all` (`nsgui run --allow-code`, or `allow_code()` from
Python) or the (file, sha256) pairs the user agreed to in the window. Without it, compiling raises
CodeRefused, one line naming `controllers[k].module`. The window imports the module in its own
process only to read the class's declarations (parameters and signals name the plots); `sample`
runs in the simulation process, which gets the same consent with the scene (runtime/process.py).

Modules. A file path (relative to the scene file's folder, `Consent.base_dir`) is imported under a
name made of its stem and its hash, so an edited file is a new module; a dotted name is found
without running any package's __init__ (for the hash) and then imported normally.

Running. The kernel skips K_PYTHON blocks but for their delay queue. At a sample time the
simulator (Simulator.run) calls `PythonBlock.sample`, which writes the inputs like the compiled
blocks do: saturated into Data.u (held), or with a delay pushed into the block's queue in Data.ctrl
that the kernel pops when due; the signals go to the block's segment of Data.ctrl, its next sample
time to KC_NEXT. The instance's attributes are its state: pickled into every SimState with the
events it has not seen yet, so a restored run repeats the reference bit for bit.
"""
from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import os
import pickle
import sys
import traceback
from dataclasses import dataclass, field
from importlib.machinery import PathFinder
from pathlib import Path

import numpy as np

from nsgui.scene.controller_types import Signal
from nsgui.scene.validation import Problem, SceneError
from .. import codes
from .kernel import _push, block_segment


# ---------------------------------------------------------------- consent
@dataclass(frozen=True)
class Consent:
    """Which user code may run in this process, and where relative module paths start."""
    base_dir: str | None = None        # folder of the scene file; None: the current folder
    allow_all: bool = False            # --allow-code
    allowed: frozenset = frozenset()   # {(absolute file path, sha256 hex)} agreed to in the window


_consent = Consent()


def set_consent(consent: Consent) -> None:
    global _consent
    _consent = consent


def consent() -> Consent:
    return _consent


def allow_code(base_dir=None) -> None:
    """From Python: let this process run the user controllers of the scenes it compiles (as
    `nsgui run --allow-code`), module paths relative to `base_dir` (default: the current folder)."""
    set_consent(Consent(None if base_dir is None else str(base_dir), True))


class CodeRefused(Exception):
    """A scene's controller is code and there is no consent to run it."""

    def __init__(self, where, module, path, digest):
        super().__init__(f"{where}.module: {module!r} is Python code; it runs only with your consent "
                         "(nsgui run --allow-code, or answer Yes in the window)")
        self.where, self.module, self.path, self.digest = where, module, path, digest


# ---------------------------------------------------------------- finding and importing
def module_file(module: str, base_dir=None):
    """The absolute .py file of `module` (a path, relative to base_dir, or a dotted name), or None.
    Finding a dotted name imports nothing."""
    base = Path(base_dir or os.getcwd())
    if _is_path(module):
        p = Path(module).expanduser()
        p = p if p.is_absolute() else base / p
        return p.resolve() if p.is_file() else None
    parts = module.split(".")
    if not all(x.isidentifier() for x in parts):
        return None
    search = [str(base)] + [x for x in sys.path if x]
    found = None
    for i in range(len(parts)):
        try:
            found = PathFinder.find_spec(".".join(parts[:i + 1]), search)
        except (ImportError, ValueError):
            return None
        if found is None:
            return None
        search = list(found.submodule_search_locations or [])
        if i < len(parts) - 1 and not search:
            return None
    origin = found.origin if found is not None else None
    return Path(origin).resolve() if origin and origin.endswith(".py") and os.path.isfile(origin) else None


def file_digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


_modules: dict = {}  # (path, digest) -> imported module


def _is_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module


def _import(module: str, path: Path, digest: str, base_dir):
    """The module of a checked file: a path under a name of its own, a dotted name as usual (with
    the scene's folder first on sys.path while it loads, as for finding it)."""
    key = (str(path), digest)
    if key in _modules:
        return _modules[key]
    folder = str(path.parent) if _is_path(module) else str(base_dir or os.getcwd())
    sys.path.insert(0, folder)  # its own helper modules, beside it
    try:
        if _is_path(module):
            name = f"_nsgui_user_{path.stem}_{digest[:12]}"
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod  # dataclasses and pickle look classes up there
            try:
                spec.loader.exec_module(mod)
            except BaseException:
                del sys.modules[name]
                raise
        else:
            mod = importlib.import_module(module)
    finally:
        sys.path.remove(folder)
    _modules[key] = mod
    return mod


# ---------------------------------------------------------------- errors in user code
_NSGUI = Path(__file__).resolve().parents[2]


def _is_nsgui_frame(filename):
    p = Path(filename).resolve() if filename and not filename.startswith("<") else None
    return p is not None and p.is_relative_to(_NSGUI) and not p.is_relative_to(_NSGUI / "resources")


def user_traceback(exc) -> str:
    """The traceback of `exc` with nsgui's own frames left out: what the user's code did."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not _is_nsgui_frame(f.filename)])
    return "".join(te.format())


def _where(exc):
    """'file.py:line' of the innermost user frame of exc."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _is_nsgui_frame(f.filename)]
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else "?"


def _call(block_name, what, t, fn, *args):
    """fn(*args); an exception becomes a ControllerError naming the block, the time and the line."""
    from ..simulator import ControllerError
    try:
        return fn(*args)
    except Exception as exc:
        at = "" if t is None else f"t = {t:.6g} s: "
        raise ControllerError(f"{at}controller '{block_name}' ({_where(exc)}) raised in {what}: "
                              f"{type(exc).__name__}: {exc}", t, user_traceback(exc)) from exc


# ---------------------------------------------------------------- compile time
@dataclass
class UserLaw:
    """A `python` block's class, checked against the scene: what the simulator instantiates."""
    cls: type
    params: dict
    signals: tuple
    path: str
    digest: str
    where: str = ""


def _declared_signals(cls, where, problems):
    out, seen = [], set()
    for s in getattr(cls, "signals", ()) or ():
        s = Signal(s) if isinstance(s, str) else s
        if not isinstance(s, Signal) or not s.name or any(ch in s.name for ch in ".[] ") or s.name in seen:
            problems.append(Problem(f"{where}.class_name", f"{cls.__name__}.signals: {s!r} is not a "
                                    "new signal name (a str or nsgui.Signal, without '.', '[', ']' or spaces)"))
            continue
        seen.add(s.name)
        out.append(s)
    return tuple(out)


def _checked_params(cls, given, where, problems):
    from nsgui.scene.validation import _BAD, _Checker
    from nsgui.user_controller import FRAMEWORK_ATTRS, Param
    declared = dict(getattr(cls, "params", {}) or {})
    c = _Checker()
    values = {}
    for name, p in declared.items():
        if not isinstance(p, Param) or not str(name).isidentifier() or name in FRAMEWORK_ATTRS:
            problems.append(Problem(f"{where}.class_name", f"{cls.__name__}.params[{name!r}]: must be an "
                                    f"nsgui.Param under a name that is an identifier, not one of {FRAMEWORK_ATTRS}"))
            continue
        f = p.field(name)
        path = f"{where}.params.{name}"
        if name in given:
            v = c.value(given[name], path, f)
            values[name] = f.fallback() if v is _BAD else v
        elif f.required:
            c.add(path, f"missing: {cls.__name__} needs it" + (f" ({f.help})" if f.help else ""))
        else:
            values[name] = f.fallback()
    for name in given:
        if name not in declared:
            near = difflib.get_close_matches(name, list(declared), n=1, cutoff=0.5)
            c.add(f"{where}.params.{name}", f"{cls.__name__} has no parameter {name!r}"
                  + (f" (did you mean {near[0]!r}?)" if near else f" (it declares: {', '.join(declared) or 'none'})"))
    problems.extend(c.problems)
    return values


def load(block, where, base_dir=None) -> UserLaw:
    """The checked class of scene block `block` (`where` = "controllers[k]"): CodeRefused without
    consent, SceneError for a missing file or class or a bad parameter, ControllerError when
    importing the module raises."""
    from nsgui.user_controller import Controller
    cons = consent()
    base_dir = cons.base_dir if base_dir is None else base_dir
    path = module_file(block.module, base_dir)
    if path is None:
        raise SceneError([Problem(f"{where}.module", f"no Python file or module {block.module!r}"
                                  f" (paths are relative to the scene file's folder)")])
    digest = file_digest(path)
    if not (cons.allow_all or (str(path), digest) in cons.allowed):
        raise CodeRefused(where, block.module, str(path), digest)
    mod = _call(block.name, f"importing {path.name}", None, _import, block.module, path, digest, base_dir)
    cls = getattr(mod, block.class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Controller)):
        classes = [n for n, v in vars(mod).items() if isinstance(v, type) and issubclass(v, Controller)
                   and v is not Controller]
        what = "is not an nsgui.Controller subclass" if cls is not None else "not found"
        raise SceneError([Problem(f"{where}.class_name", f"{block.class_name!r} {what} in {path.name}"
                                  + (f" (it has: {', '.join(classes)})" if classes else ""))])
    problems = []
    signals = _declared_signals(cls, where, problems)
    params = _checked_params(cls, block.params or {}, where, problems)
    if problems:
        raise SceneError(problems)
    return UserLaw(cls, params, signals, str(path), digest, where)


# ---------------------------------------------------------------- run time
@dataclass
class PythonBlock:
    """A running `python` block of a Simulator (info: its engine.control.build.ControllerInfo)."""
    info: object
    model: object
    obj: object = None
    pending: list = field(default_factory=list)  # events since its last sample

    def __post_init__(self):
        m, b = self.model, self.info.index
        ki, kf = m.arrays.ki, m.arrays.kf
        self.name = self.info.name
        self.law = self.info.user
        self.c0, self.na, self.qmax = int(ki[b, codes.KI_C0]), int(ki[b, codes.KI_NACT]), int(ki[b, codes.KI_QMAX])
        self.sig0 = int(block_segment(ki, b)[0])
        self.period = float(kf[b, codes.KF_PERIOD]) or None
        self.delay = float(kf[b, codes.KF_DELAY])
        self.acts = [m.actuator_names.index(a) for a in self.info.actuators]
        self.limits = m.arrays.af[self.acts, codes.AF_LIMIT]
        self.coords = [int(m.arrays.ai[i, codes.AI_COORD]) for i in self.acts]
        # signal -> its slots in the block's signals (one, or one per actuator)
        self.slots, k = {}, 0
        for s in self.law.signals:
            n = self.na if s.per_actuator else 1
            self.slots[s.name] = (k, n)
            k += n

    # -------------------------------------------------------------- the instance and its state
    def _new(self):
        obj = _call(self.name, f"{self.law.cls.__name__}()", None, self.law.cls)
        self._configure(obj)
        return obj

    def _configure(self, obj):
        """The parameters and the framework's attributes (the current scene's, also after a restore)."""
        for k, v in self.law.params.items():
            setattr(obj, k, v)
        obj.name, obj.actuators, obj.coords = self.name, list(self.info.actuators), list(self.coords)
        obj.period, obj.delay, obj.dt = self.period, self.delay, self.model.dt

    def start(self, sim):
        self.obj = self._new()
        self.pending = []
        _call(self.name, "start", sim.t, self.obj.start, self._sample_view(sim))

    def state(self):
        """(pickled attributes, events not seen yet): what a SimState keeps of this block."""
        from nsgui.user_controller import FRAMEWORK_ATTRS
        from ..simulator import ControllerError
        skip = set(FRAMEWORK_ATTRS) | set(self.law.params)
        attrs = {k: v for k, v in vars(self.obj).items() if k not in skip}
        try:
            data = pickle.dumps(attrs, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            raise ControllerError(f"controller '{self.name}': its state cannot be kept in snapshots "
                                  f"({type(exc).__name__}: {exc}); keep picklable values on self", None,
                                  user_traceback(exc)) from exc
        return data, tuple(self.pending)

    def restore(self, sim, kept):
        """Continue from a SimState's (pickled attributes, events); None: start afresh."""
        if kept is None:
            self.start(sim)
            return
        data, events = kept
        obj = self._new()
        vars(obj).update(_call(self.name, "restoring its state", sim.t, pickle.loads, data))
        self._configure(obj)  # a resumed branch's edited parameters win over the kept ones
        self.obj, self.pending = obj, list(events)

    # -------------------------------------------------------------- sampling
    def next_time(self, d):
        """The time of its next sample (None: every step)."""
        return None if self.period is None else float(d.ctrl[self.c0 + codes.KC_NEXT])

    def due(self, t, d):
        return self.period is None or t >= d.ctrl[self.c0 + codes.KC_NEXT] - 1e-9 * self.period

    def _sample_view(self, sim):
        from nsgui.user_controller import Sample
        d, m = sim._data, self.model
        na = len(m.actuator_names)
        return Sample(m, sim.t, d.q.copy(), d.v.copy(), sim._row.copy(), d.ctrl[na:na + m.ncontacts].copy(),
                      list(self.pending))

    def sample(self, sim):
        """Run the law at the simulator's time: inputs to Data.u (or the delay queue), signals and
        the next sample time to Data.ctrl."""
        t, d = sim.t, sim._data
        s = self._sample_view(sim)
        out = _call(self.name, "sample", t, self.obj.sample, s)
        self.pending = []
        u, sig = self._outputs(out, t)
        ctrl = d.ctrl
        if self.qmax > 0:
            _push(ctrl, self.c0, self.qmax, self.na, t + self.delay, u)  # the kernel applies it when due
        else:  # as the kernel's blocks: an actuator Simulator.set_controller drives is left alone
            free = d.external[self.acts] == 0
            d.u[np.asarray(self.acts)[free]] = np.clip(u, -self.limits, self.limits)[free]
        for name, value in sig.items():
            k, n = self.slots[name]
            ctrl[self.sig0 + k:self.sig0 + k + n] = value
        if self.period is not None:
            tol = 1e-9 * self.period
            while ctrl[self.c0 + codes.KC_NEXT] <= t + tol:
                ctrl[self.c0 + codes.KC_NEXT] += self.period

    def _outputs(self, out, t):
        """(inputs (na,), {signal: values}) of what sample returned; SimulationError when wrong."""
        from ..simulator import SimulationError
        def bad(what):
            return SimulationError(f"t = {t:.6g} s: controller '{self.name}' ({self.law.cls.__name__}.sample) "
                                   f"{what}", t)
        sig = {}
        if isinstance(out, tuple) and len(out) == 2 and (out[1] is None or isinstance(out[1], dict)):
            out, sig = out[0], out[1] or {}
        try:
            u = np.array(out, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise bad(f"returned {type(out).__name__}, not a list of {self.na} numbers") from None
        if u.shape != (self.na,):
            raise bad(f"returned {u.size} inputs for its {self.na} actuator(s) {self.info.actuators}")
        for i in np.flatnonzero(~np.isfinite(u)):
            raise bad(f"returned {u[i]} for actuator '{self.info.actuators[i]}'")
        values = {}
        for name, v in sig.items():
            if name not in self.slots:
                raise bad(f"returned signal {name!r}, which it does not declare (signals: "
                          f"{', '.join(self.slots) or 'none'})")
            try:
                x = np.array(v, dtype=float).reshape(-1)
            except (TypeError, ValueError):
                raise bad(f"returned signal {name!r} = {v!r}, not a number") from None
            if x.size != self.slots[name][1]:
                raise bad(f"returned {x.size} values for signal {name!r}, expected {self.slots[name][1]}")
            values[name] = x
        return u, values


__all__ = ["Consent", "CodeRefused", "set_consent", "consent", "allow_code", "module_file", "file_digest",
           "load", "UserLaw", "PythonBlock", "user_traceback"]
