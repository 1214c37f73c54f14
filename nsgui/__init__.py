"""nsgui: planar mechanisms with contacts, impacts and friction."""

__version__ = "0.1.0"

# `from nsgui import Controller, Param` for user controllers: loaded on first use, so that
# `import nsgui` (the command line's start) stays light
_LAZY = {"Controller": "user_controller", "Param": "user_controller", "Sample": "user_controller",
         "Signal": "user_controller"}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value
