"""Qt views over the engine: they observe, they compute no physics."""

import sys as _sys

if _sys.version_info < (3, 12):
    # PySide6 6.12 on Python 3.11 drops references to True/False/None (values crossing signals); when a
    # count reaches zero the interpreter aborts ("bool_dealloc"), at random moments or at exit.
    # From Python 3.12 on both are immortal; emulate that by raising their reference counts far
    # out of reach (ob_refcnt is the first field of every object, at its id() address).
    import ctypes as _ctypes

    for _b in (True, False, None):
        _ctypes.c_ssize_t.from_address(id(_b)).value += 1 << 40
