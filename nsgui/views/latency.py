"""Measures how long the Qt event loop takes to answer: a timer that should fire every `interval`
ms records the time between its firings (a gap much longer than the interval is a stall)."""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, QTimer


class EventLoopProbe(QObject):
    def __init__(self, interval_ms=5, parent=None):
        super().__init__(parent)
        self.gaps: list[int] = []
        self._clock = QElapsedTimer()
        self._last = None
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self):
        self.gaps, self._last = [], None
        self._clock.start()
        self._timer.start()

    def stop(self):
        self._timer.stop()
        return self.gaps

    def _tick(self):
        now = self._clock.elapsed()
        if self._last is not None:
            self.gaps.append(now - self._last)
        self._last = now
