"""The physics engine: compiled model, planar multibody dynamics, contacts, Moreau–Jean time stepping.

It reads scenes from `nsgui.scene` and never imports Qt, views or the runtime. See docs/engine-api.md.
"""

from ._numba_cache import ensure_fresh as _ensure_fresh

_ensure_fresh()

from .compile import Model, compile_scene  # noqa: E402
from .simulator import Event, SimState, SimulationError, Simulator  # noqa: E402
from .simulate import Result, simulate  # noqa: E402

__all__ = ["Model", "compile_scene", "Event", "SimState", "SimulationError", "Simulator", "Result", "simulate"]
