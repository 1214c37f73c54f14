"""History of a run: every recorded signal row plus periodic state snapshots (pure numpy, no Qt).

Rows are float64 vectors in the order of `Simulator.signal_names` (column 0 is `t`). They are stored
in fixed-size chunks; when the chunks held in memory exceed `memory_cap` bytes, the oldest full
chunks are written to temporary .npy files and read back through memory maps, so nothing is ever
dropped. Snapshots (`Simulator.get_state()`) taken every `snapshot_interval` seconds of simulated
time let a run be resumed from a past moment (a new branch: `truncate_after`).

Spill folders are named `nsgui-history-<pid>-<random>` in the temp dir. They are removed when their
recorder is closed or collected, and all of this process's at exit (`remove_own_spill_dirs`: the
window calls it before leaving through os._exit, atexit otherwise). Folders of processes that no
longer exist (killed) are removed at the next start by `remove_stale_spill_dirs`.
"""

from __future__ import annotations

import atexit
import bisect
import os
import shutil
import tempfile
from typing import Any

import numpy as np

from nsgui.pids import pid_alive
from nsgui.runtime.chunk_memory import ChunkAhead

from nsgui.engine.signals import T_COLUMN

DEFAULT_MEMORY_CAP = 512 * 1024 * 1024
DEFAULT_CHUNK_ROWS = 16384
SPILL_PREFIX = "nsgui-history-"
_own_spill_dirs: set[str] = set()


def _new_spill_dir(parent=None) -> str:
    path = tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-", dir=parent)
    _own_spill_dirs.add(path)
    return path


def _remove_spill_dir(path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    _own_spill_dirs.discard(path)


def remove_own_spill_dirs() -> None:
    """Remove every spill folder this process made (its histories become unreadable)."""
    for path in list(_own_spill_dirs):
        _remove_spill_dir(path)


def remove_stale_spill_dirs(parent=None) -> list[str]:
    """Remove the spill folders in `parent` (default: the temp dir) whose process no longer exists;
    returns their paths. Folders without a pid in their name (older versions) are left alone."""
    parent = parent or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        pid, sep, _ = name[len(SPILL_PREFIX):].partition("-")
        if not (name.startswith(SPILL_PREFIX) and sep and pid.isdigit()) or pid_alive(int(pid)):
            continue
        path = os.path.join(parent, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


atexit.register(remove_own_spill_dirs)


class Snapshot:
    """A resume point: the state the run was in when it recorded history row `row`. A state that
    came packed with others (Snapshots) is made when first read: only resumes read one."""
    __slots__ = ("t", "row", "_state", "_packed")

    def __init__(self, t: float, row: int, state: Any = None, packed=None):
        self.t = float(t)
        self.row = int(row)  # index of the history row recorded in the same state
        self._state = state
        self._packed = packed  # (Snapshots, position) until the state is read

    @property
    def state(self):
        if self._packed is not None:
            snaps, k = self._packed
            self._state, self._packed = snaps.state(k), None
        return self._state

    def __repr__(self):
        return f"Snapshot(t={self.t!r}, row={self.row!r})"


class Recorder:
    def __init__(self, names, memory_cap=None, chunk_rows=None, snapshot_interval=0.01, spill_dir=None):
        """`memory_cap`: bytes of rows kept in memory before spilling, `chunk_rows`: rows per chunk
        (None: the module's DEFAULT_MEMORY_CAP and DEFAULT_CHUNK_ROWS, read at each call)."""
        self.names = list(names)
        if not self.names or self.names[T_COLUMN] != "t":
            raise ValueError("the first signal must be 't'")
        self._index = {n: i for i, n in enumerate(self.names)}
        self.ncols = len(self.names)
        self.chunk_rows = int(DEFAULT_CHUNK_ROWS if chunk_rows is None else chunk_rows)
        self.memory_cap = int(DEFAULT_MEMORY_CAP if memory_cap is None else memory_cap)
        self.snapshot_interval = float(snapshot_interval)
        self._spill_parent = spill_dir
        self._spill_dir = None
        self._chunks: list[np.ndarray] = []  # full chunks: ndarray in memory or read-only memmap
        self._ahead = ChunkAhead((self.chunk_rows, self.ncols))  # the next chunk's memory, mapped early
        self._spilled: list[str | None] = []  # file of each chunk, None while in memory
        self._n = 0
        self._t = np.empty(1024)  # time column kept in memory for fast searches
        self.snapshots: list[Snapshot] = []
        self._snap_times: list[float] = []
        self.events: list = []

    # ------------------------------------------------------------------ sizes
    def __len__(self):
        return self._n

    @property
    def spilled_rows(self) -> int:
        return sum(self.chunk_rows for f in self._spilled if f is not None)

    @property
    def memory_bytes(self) -> int:
        return sum(c.nbytes for c, f in zip(self._chunks, self._spilled) if f is None)

    def index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no recorded signal named {name!r}") from None

    @property
    def t_end(self) -> float:
        return float(self._t[self._n - 1]) if self._n else 0.0

    @property
    def t_start(self) -> float:
        return float(self._t[0]) if self._n else 0.0

    # ------------------------------------------------------------------ writing
    def append(self, rows) -> None:
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim == 1:
            rows = rows[None, :]
        if rows.shape[1] != self.ncols:
            raise ValueError(f"row has {rows.shape[1]} values, expected {self.ncols}")
        n = len(rows)
        if n == 0:
            return
        if self._n + n > len(self._t):
            grown = np.empty(max(2 * len(self._t), self._n + n))
            grown[: self._n] = self._t[: self._n]
            self._t = grown
        self._t[self._n: self._n + n] = rows[:, T_COLUMN]
        done = 0
        while done < n:
            k, off = divmod(self._n, self.chunk_rows)
            if k == len(self._chunks):
                self._chunks.append(self._ahead.take())
                self._spilled.append(None)
            take = min(n - done, self.chunk_rows - off)
            if off + take > self.chunk_rows // 2:  # half full: the next chunk's memory is mapped now
                self._ahead.prepare()
            self._chunks[k][off: off + take] = rows[done: done + take]
            self._n += take
            done += take
        self._spill_if_needed()

    def add_snapshot(self, t: float, row: int, state) -> None:
        """Keep `state` if it is at least `snapshot_interval` after the previous snapshot."""
        self._add_snapshot(Snapshot(t, row, state))

    def force_snapshot(self, t: float, row: int, state) -> None:
        """Keep `state` (in place of the previous snapshot if that one is of the same row)."""
        self._force_snapshot(Snapshot(t, row, state))

    def add_snapshots(self, snaps, start: int, force_last=False) -> None:
        """Keep a run's Snapshots (row indices counted from history row `start`) as add_snapshot
        would, the last one as force_snapshot when `force_last`; packed states stay packed."""
        n = len(snaps)
        for k, (row, t) in enumerate(zip(snaps.rows.tolist(), snaps.t.tolist())):
            snap = Snapshot(t, start + row, packed=(snaps, k))
            if force_last and k == n - 1:
                self._force_snapshot(snap)
            else:
                self._add_snapshot(snap)

    def _add_snapshot(self, snap) -> None:
        if self.snapshots and snap.t < self.snapshots[-1].t + self.snapshot_interval - 1e-12:
            return
        self.snapshots.append(snap)
        self._snap_times.append(snap.t)

    def _force_snapshot(self, snap) -> None:
        if self.snapshots and self.snapshots[-1].row == snap.row:
            self.snapshots[-1] = snap
            self._snap_times[-1] = snap.t
            return
        self.snapshots.append(snap)
        self._snap_times.append(snap.t)

    def add_events(self, events) -> None:
        self.events.extend(events)

    def _spill_if_needed(self):
        full = self._n // self.chunk_rows  # chunks that will never be written again
        for k in range(full):
            if self.memory_bytes <= self.memory_cap:
                break
            if self._spilled[k] is not None:
                continue
            if self._spill_dir is None:
                self._spill_dir = _new_spill_dir(self._spill_parent)
            path = os.path.join(self._spill_dir, f"chunk{k:06d}.npy")
            # a private scratch file, read back at once and removed with its folder: no atomic rename
            np.save(path, self._chunks[k])
            self._chunks[k] = np.load(path, mmap_mode="r")
            self._spilled[k] = path

    # ------------------------------------------------------------------ reading
    @property
    def time(self) -> np.ndarray:
        return self._t[: self._n]

    def rows(self, start=0, stop=None) -> np.ndarray:
        stop = self._n if stop is None else max(0, min(stop, self._n))
        start = max(0, min(start, stop))
        out = np.empty((stop - start, self.ncols))
        self._gather(start, stop, out, slice(None))
        return out

    def row(self, i: int) -> np.ndarray:
        if not -self._n <= i < self._n:
            raise IndexError(f"row {i} out of range (history has {self._n} rows)")
        i %= self._n
        k, off = divmod(i, self.chunk_rows)
        return np.array(self._chunks[k][off])

    def column(self, name: str, start=0, stop=None) -> np.ndarray:
        j = self.index(name)
        stop = self._n if stop is None else max(0, min(stop, self._n))
        start = max(0, min(start, stop))
        if j == T_COLUMN:
            return self._t[start:stop].copy()
        out = np.empty(stop - start)
        self._gather(start, stop, out, j)
        return out

    def _gather(self, start, stop, out, cols):
        i = start
        while i < stop:
            k, off = divmod(i, self.chunk_rows)
            take = min(stop - i, self.chunk_rows - off)
            out[i - start: i - start + take] = self._chunks[k][off: off + take, cols]
            i += take

    def value(self, name: str, i: int) -> float:
        return float(self.row(i)[self.index(name)])

    def row_at_time(self, t: float) -> int:
        """Index of the last row with time <= t (0 if t is before the first row)."""
        if self._n == 0:
            raise IndexError("the history is empty")
        i = int(np.searchsorted(self._t[: self._n], t + 1e-12, side="right")) - 1
        return max(0, min(i, self._n - 1))

    def snapshot_at_or_before(self, t: float) -> Snapshot | None:
        k = bisect.bisect_right(self._snap_times, t + 1e-12) - 1
        return self.snapshots[k] if k >= 0 else None

    def signals(self) -> dict[str, np.ndarray]:
        """Every column as a 1-D array (name -> values), for export."""
        data = self.rows()
        return {n: data[:, j].copy() for j, n in enumerate(self.names)}

    # ------------------------------------------------------------------ branches
    def truncate_after(self, t: float) -> None:
        """Drop every row, snapshot and event later than t (a new branch starts at t)."""
        keep = self.row_at_time(t) + 1 if self._n and t >= self._t[0] else 0
        nchunks = (keep + self.chunk_rows - 1) // self.chunk_rows
        for f in self._spilled[nchunks:]:
            if f is not None:
                _remove(f)
        del self._chunks[nchunks:]
        del self._spilled[nchunks:]
        if nchunks and keep % self.chunk_rows and self._spilled[-1] is not None:
            # the last kept chunk will be written again: bring it back into memory
            f = self._spilled[-1]
            self._chunks[-1] = np.array(self._chunks[-1])
            self._spilled[-1] = None
            _remove(f)
        self._n = keep
        k = bisect.bisect_right(self._snap_times, t + 1e-12)
        del self.snapshots[k:]
        del self._snap_times[k:]
        self.events = [e for e in self.events if e.t <= t + 1e-12]
        self._spill_if_needed()

    def copy(self) -> "Recorder":
        """An independent copy (spilled chunks are copied to the new recorder's own files)."""
        new = Recorder(self.names, self.memory_cap, self.chunk_rows, self.snapshot_interval,
                       self._spill_parent)
        step = self.chunk_rows
        for i in range(0, self._n, step):
            new.append(self.rows(i, i + step))
        new.snapshots = list(self.snapshots)
        new._snap_times = list(self._snap_times)
        new.events = list(self.events)
        return new

    def close(self) -> None:
        """Release the spill files (the history becomes empty)."""
        self._chunks.clear()
        self._ahead.drop()
        self._spilled.clear()
        self._n = 0
        if self._spill_dir:
            _remove_spill_dir(self._spill_dir)
            self._spill_dir = None

    def __del__(self):
        try:
            if self._spill_dir:
                _remove_spill_dir(self._spill_dir)
        except Exception:
            pass


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass
