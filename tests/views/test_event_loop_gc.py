"""The GUI's garbage collection runs on the event loop (views/event_loop_gc.py), not on allocations."""

import gc
import weakref

from PySide6.QtCore import QObject


class _Cycle:
    """A reference cycle holding a QObject: only the cyclic collector frees it."""

    def __init__(self):
        self.me = self
        self.obj = QObject()


def test_a_window_turns_automatic_collection_off_and_the_event_loop_collects(window, qtbot):
    assert not gc.isenabled()
    gc.collect()
    cycles = [_Cycle() for _ in range(10)]
    dead = [weakref.ref(c) for c in cycles]
    del cycles
    # past gc's first threshold by allocations alone (kept: gc counts allocations less deallocations):
    # automatic collection would have freed the cycles here
    junk = [[] for _ in range(3 * gc.get_threshold()[0])]
    assert all(ref() is not None for ref in dead)
    qtbot.waitUntil(lambda: all(ref() is None for ref in dead), timeout=10000)
    assert len(junk) == 3 * gc.get_threshold()[0]
