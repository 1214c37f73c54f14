"""Python's cyclic garbage collection on the event loop's own turn.

Left automatic, the collector runs wherever an allocation passes its threshold: also inside a Qt call
that holds a lock and calls back into Python, e.g. QObject::disconnect notifying PySide while a
pyqtgraph item is re-parented. Collecting a QObject there runs its destructor, which waits for the
same lock, and the GUI thread deadlocks (seen in the test suite: a shared window opening example after
example hung in QObject::~QObject under QObject::disconnect, no Python frame to interrupt). So a GUI
process turns the automatic collection off and collects from a timer on the event loop, where Qt holds
no lock, with gc's own thresholds (the usual recipe for Qt with Python)."""

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 250

_collector = None


class EventLoopCollector(QObject):
    """Runs gc's generations from a timer as the automatic collection would from allocations."""

    def __init__(self, parent=None, interval_ms=INTERVAL_MS):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start(interval_ms)

    def collect_due(self):
        """The generations whose counts passed gc's thresholds, collected now; the number freed."""
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = gc.get_threshold()
        if c0 <= t0:
            return 0
        return gc.collect(2 if c2 > t2 else 1 if c1 > t1 else 0)


def install(app):
    """Automatic collection off and the collector on `app`'s event loop (once per process)."""
    global _collector
    if _collector is None:
        _collector = EventLoopCollector(app)
    gc.disable()
    return _collector
