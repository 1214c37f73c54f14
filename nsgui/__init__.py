"""nsgui: planar mechanisms with contacts, impacts and friction."""

from ._lazy import lazy_getattr

__version__ = "0.1.0"

# `from nsgui import Controller, Param` for user controllers: loaded on first use, so that
# `import nsgui` (the command line's start) stays light
_LAZY = {"Controller": "user_controller", "Param": "user_controller", "Sample": "user_controller",
         "Signal": "user_controller"}

__getattr__ = lazy_getattr(__name__, _LAZY)
