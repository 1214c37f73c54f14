"""The physics engine: compiled model, planar multibody dynamics, contacts, Moreau–Jean time stepping.

It reads scenes from `nsgui.scene` and never imports Qt, views or the runtime. See docs/engine-api.md.
"""

from ._numba_cache import ensure_fresh as _ensure_fresh

_ensure_fresh()

from .simulate import Result, simulate  # noqa: E402

# The compiled parts load numba (about half a second): they are imported on first use, so that the
# light modules (codes, signals, recorder, export) and `simulate` come without it; the window shows
# itself before the engine loads.
_LAZY = {"Model": "compile", "compile_scene": "compile", "Event": "simulator", "SimState": "simulator",
         "SimulationError": "simulator", "Simulator": "simulator"}

from .._lazy import lazy_getattr  # noqa: E402
__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = ["Model", "compile_scene", "Event", "SimState", "SimulationError", "Simulator", "Result", "simulate"]
