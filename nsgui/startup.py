"""The program's start-up, without the cyclic garbage collector.

Starting imports numpy, numba (its typing tables), scipy, Qt and builds the window: some 10^5 objects
that live until exit. Each full collection during start-up scanned them all again (0.1-0.3 s in all
before a short `nsgui run`). `nsgui.__main__` pauses the collector when nsgui runs as the program;
`done()`, called where the work starts (the first step of a run, the scene shown in the window),
moves what is alive then out of the collector's scans and resumes it.
"""

import gc

_paused = False


def pause():
    global _paused
    _paused = True
    gc.disable()


def paused():
    return _paused


def done():
    """Start-up is over: resume the collector (nothing to do when it was not paused)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
