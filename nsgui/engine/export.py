"""Writers for recorded signals: CSV and HDF5, atomic (complete or absent, never half written).

The writers take a dict of signals (name -> values) or a `Recorder` (read `chunk_rows` rows at a
time, so a history spilled to disk is never loaded whole). They write in row chunks and, after each
chunk, call `progress(fraction)` if given: the fractions increase and the last is 1.0. A progress
callback that returns False (None means "go on") cancels the export: the writer stops, removes its
temporary file and raises `ExportCancelled`; a file already at the target path is left untouched.
"""

import warnings

import numpy as np

from .atomic import atomic_write

CHUNK_ROWS = 4096  # rows written between two progress calls (a CSV chunk of 50 columns: ~0.1 s)


class ExportCancelled(Exception):
    """An export stopped by its progress callback; no file was written."""

    def __init__(self, path=None):
        super().__init__(f"export to {path} cancelled: no file written" if path else "export cancelled")
        self.path = path


class _Chunks:
    """Rows [a, b) of a dict of signals or of a Recorder, in steps of `chunk_rows`, reporting each
    step to `progress` and raising ExportCancelled when it answers False."""

    def __init__(self, source, progress, chunk_rows, path):
        self.source = source
        self.is_recorder = not isinstance(source, dict) and hasattr(source, "rows")
        if self.is_recorder:
            self.names = list(source.names)
            self.arrays = None
            self.nrows = len(source)
        else:
            self.names = list(source)
            self.arrays = [np.asarray(source[n], float) for n in self.names]
            self.nrows = max((len(a) for a in self.arrays if a.ndim), default=0)
        self.progress = progress
        self.step = max(1, int(chunk_rows or CHUNK_ROWS))
        self.path = path

    def spans(self):
        """(a, b) for each chunk; the progress callback runs after the caller has written it."""
        n = self.nrows
        a = 0
        while True:
            b = min(a + self.step, n)
            yield a, b
            if self.progress is not None:
                answer = self.progress(b / n if n else 1.0)
                if answer is not None and not answer:
                    raise ExportCancelled(self.path)
            if b >= n:
                return
            a = b

    def block(self, a, b):
        """Rows a..b as a 2-D array, one column per signal (as np.column_stack of the signals)."""
        if self.is_recorder:
            return self.source.rows(a, b)
        return np.column_stack([x[a:b] for x in self.arrays]) if self.arrays else np.zeros((0, 0))


def write_csv(path, signals, progress=None, chunk_rows=None):
    """One column per signal, header = signal names (same names as `nsgui run`). `signals` is a
    dict of equal-length columns or a Recorder; `progress(fraction)` returning False cancels."""
    chunks = _Chunks(signals, progress, chunk_rows, path)
    if chunks.arrays is not None and len({len(x) for x in chunks.arrays}) > 1:
        raise ValueError("CSV export: the signals do not all have the same length")

    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(",".join(chunks.names) + "\n")
            for a, b in chunks.spans():
                if b > a:
                    np.savetxt(f, chunks.block(a, b), delimiter=",", fmt="%.17g")
    atomic_write(path, write)


def read_csv(path) -> dict:
    with open(path, encoding="utf-8") as f:
        names = f.readline().strip().split(",")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data": a header only
            data = np.loadtxt(f, delimiter=",", ndmin=2)
    if data.size == 0:
        return {n: np.zeros(0) for n in names}
    return {n: data[:, i] for i, n in enumerate(names)}


def write_hdf5(path, signals, attrs: dict | None = None, progress=None, chunk_rows=None):
    """One dataset per signal at the file's root, named as the signal; attrs go on the root.
    `signals` is a dict or a Recorder; `progress(fraction)` returning False cancels."""
    import h5py
    chunks = _Chunks(signals, progress, chunk_rows, path)

    def write(tmp):
        with h5py.File(tmp, "w") as f:
            if chunks.is_recorder:
                sets = [f.create_dataset(n, shape=(chunks.nrows,), dtype=np.float64) for n in chunks.names]
                for a, b in chunks.spans():
                    if b > a:
                        data = chunks.source.rows(a, b)
                        for j, ds in enumerate(sets):
                            ds[a:b] = data[:, j]
            else:
                sets = []
                for name, x in zip(chunks.names, chunks.arrays):
                    if x.ndim == 0:
                        f.create_dataset(name, data=x)
                    else:
                        sets.append((f.create_dataset(name, shape=x.shape, dtype=np.float64), x))
                for a, b in chunks.spans():
                    for ds, x in sets:
                        if a < len(x):
                            ds[a:min(b, len(x))] = x[a:b]
            for k, v in (attrs or {}).items():
                f.attrs[k] = v
    atomic_write(path, write)


def read_hdf5(path) -> dict:
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out
