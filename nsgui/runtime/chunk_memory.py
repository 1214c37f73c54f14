"""Memory for the history's row chunks, mapped in a background thread before it is needed (no Qt).

Why: the first write to a page of memory the process has never used costs a page fault, and in a
virtual machine whose host backs guest memory lazily (as here: ~13-24 µs per 4 KB page, against
~0.5 µs to write a page already backed) that made storing a fast run's rows the largest cost of
the window's GUI thread: 50-160 ms slices on the 50-bead column (80 MB of rows a second). A chunk
mapped with MAP_POPULATE is backed by the kernel in one call (~1 µs a page) that runs without the
GIL, so a thread prepares the next chunk while the current one fills and the GUI thread only
copies rows. Where MAP_POPULATE does not exist the chunks are plain `np.empty` arrays.
"""

from __future__ import annotations

import mmap
import queue
import threading

import numpy as np

_POPULATE = getattr(mmap, "MAP_POPULATE", None)


def backed_array(shape) -> np.ndarray:
    """An uninitialised float64 array of `shape` whose pages are already backed (when possible)."""
    nbytes = int(np.prod(shape)) * 8
    if _POPULATE is None or nbytes == 0:
        return np.empty(shape)
    try:
        m = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _POPULATE)
    except (OSError, ValueError):
        return np.empty(shape)
    return np.frombuffer(m, dtype=np.float64).reshape(shape)  # (the array keeps the map alive)


class ChunkAhead:
    """The next chunk of a history, prepared by a thread: `prepare()` when the current chunk is
    filling, `take()` when a new one is needed (the prepared one if it is ready, else a plain
    array at once: the GUI thread never waits for the thread)."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self._done = threading.Event()
        self._asked = False
        self._chunk = None

    def prepare(self):
        if not self._asked:
            self._asked = True
            _worker().put(self)

    def _make(self):
        try:
            self._chunk = backed_array(self.shape)
        except MemoryError:  # take() makes its own array (and says so if memory is really short)
            self._chunk = None
        finally:
            self._done.set()

    def ready(self, timeout=None) -> bool:
        """Whether a prepared chunk is waiting (after waiting up to `timeout` s for the thread)."""
        return self._asked and self._done.wait(timeout)

    def take(self) -> np.ndarray:
        if self.ready(0):
            chunk, self._chunk, self._asked = self._chunk, None, False
            self._done.clear()
            if chunk is not None:
                return chunk
        return np.empty(self.shape)

    def drop(self):
        """Forget the prepared chunk (one being prepared is dropped with this object)."""
        if self.ready(0):
            self._chunk, self._asked = None, False
            self._done.clear()


_queue = None
_lock = threading.Lock()


def _worker() -> queue.SimpleQueue:
    """The queue of the one thread that maps chunks for every history of the process (started on
    first use: starting a thread waits for it to run, a few ms on a busy machine)."""
    global _queue
    with _lock:
        if _queue is None:
            _queue = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(_queue,), name="nsgui-history-memory", daemon=True).start()
    return _queue


def _serve(q):
    while True:
        q.get()._make()
