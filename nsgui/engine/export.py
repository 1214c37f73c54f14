"""Writers for recorded signals: CSV and HDF5, atomic (complete or absent, never half written).

`open_writer(path, names)` streams rows to a file as they are made (`append(rows)`, `close(attrs)`):
the rows go to a temporary file beside the target, which replaces it on close(); abort() removes it.
Any failure to write (a full disk, permissions, an HDF5 library error) removes the temporary file and
raises `WriteError` (an OSError) naming the file and the reason. Before each write the writers check
that the disk has room for it, so HDF5 never meets a full disk (its recovery from one is unreliable).

`write_csv` and `write_hdf5` take a dict of signals (name -> values) or a `Recorder` (read
`chunk_rows` rows at a time, so a history spilled to disk is never loaded whole). They write in row
chunks and, after each chunk, call `progress(fraction)` if given: the fractions increase and the last
is 1.0. A progress callback that returns False (None means "go on") cancels the export: the writer
stops, removes its temporary file and raises `ExportCancelled`; a file already at the target path is
left untouched.
"""

import errno as errno_codes
import io
import os
import re
import shutil
import warnings

import numpy as np

from nsgui.atomic import AtomicFile, atomic_write

CHUNK_ROWS = 4096  # rows written between two progress calls (a CSV chunk of 50 columns: ~0.1 s)
HDF5_CHUNK_BYTES = 32 << 20  # rows buffered by the HDF5 writer (one chunk of every dataset)
HDF5_MAX_CHUNK_ROWS = 16384  # 128 kB chunks at most
SPACE_MARGIN = 1 << 20  # room kept free on the disk beyond a write (file metadata, the last flush)
CSV_BYTES_PER_VALUE = 18  # about, with %.17g (for the disk space estimate of a run)


class WriteError(OSError):
    """An output file could not be written; nothing was left behind (an existing file is untouched)."""

    def __init__(self, path, reason, code=None):
        super().__init__(code or 0, reason, str(path))
        self.path = str(path)
        self.reason = reason

    def __str__(self):
        return f"cannot write {self.path}: {self.reason}"


def _write_error(path, exc) -> WriteError:
    """A WriteError with a one-line reason for any exception a writer library raised."""
    if isinstance(exc, WriteError):
        return exc
    code = getattr(exc, "errno", None)
    if not code:  # h5py: "... errno = 28, error message = 'No space left on device' ..."
        m = re.search(r"errno = (\d+)", str(exc))
        code = int(m.group(1)) if m else None
    if code:
        reason = os.strerror(code)
    else:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return WriteError(path, reason, code)


def ensure_space(path, folder, nbytes):
    """Raises WriteError (ENOSPC) for `path` unless `folder`'s disk has room for nbytes and the margin."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if free < nbytes + SPACE_MARGIN:
        raise WriteError(path, os.strerror(errno_codes.ENOSPC), errno_codes.ENOSPC)


def estimated_size(path, rows, ncols) -> int:
    """About how many bytes `rows` rows of `ncols` signals take in the file format of `path`."""
    per_value = 8 if str(path).lower().endswith((".h5", ".hdf5")) else CSV_BYTES_PER_VALUE
    return int(rows) * int(ncols) * per_value


class RowWriter:
    """Rows appended as they are made to a temporary file that becomes `path` on close().

    Used as a context manager, it closes on success and aborts on an exception. `in_write` is True
    while an append is under way: a file interrupted then cannot be closed, only aborted."""

    def __init__(self, path, names, expected_rows=None):
        self.path = str(path)
        self.names = list(names)
        self.rows = 0
        self.in_write = False
        self._closed = False
        try:
            self._target = AtomicFile(path)
        except OSError as e:
            raise _write_error(path, e) from e
        try:
            self._open(expected_rows)
        except BaseException as e:
            self.abort()
            if isinstance(e, Exception):
                raise _write_error(path, e) from e
            raise

    def append(self, rows):
        """Adds rows (a 2-D array, one column per name)."""
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim == 1:
            rows = rows[None, :]
        if not len(rows):
            return
        if rows.shape[1] != len(self.names):
            raise ValueError(f"{self.path}: {rows.shape[1]} columns given for {len(self.names)} signals")
        self.in_write = True
        try:
            self._write(rows)
        except Exception as e:
            self.abort()
            raise _write_error(self.path, e) from e
        self.in_write = False
        self.rows += len(rows)

    def close(self, attrs=None):
        """Completes the file and moves it onto the target path (attrs: HDF5 root attributes)."""
        if self._closed:
            return
        self.in_write = True
        try:
            self._finish(attrs or {})
            self._closed = True
            self._target.commit()
        except Exception as e:
            self.abort()
            raise _write_error(self.path, e) from e
        self.in_write = False

    def abort(self):
        """Drops the file: the temporary file is removed, the target left as it was."""
        if not self._closed:
            self._closed = True
            try:
                self._release()
            except Exception:
                pass
        self._target.discard()

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None:
            self.close()
        else:
            self.abort()

    def _room_for(self, nbytes):
        ensure_space(self.path, self._target.folder, nbytes)


class CsvWriter(RowWriter):
    """One column per signal, header = signal names, values as %.17g (they read back exactly)."""

    def _open(self, expected_rows):
        self._f = open(self._target.tmp, "w", encoding="utf-8", newline="")
        self._f.write(",".join(self.names) + "\n")

    def _write(self, rows):
        text = io.StringIO()
        np.savetxt(text, rows, delimiter=",", fmt="%.17g")
        text = text.getvalue()
        self._room_for(len(text))
        self._f.write(text)

    def _finish(self, attrs):
        self._f.close()

    def _release(self):
        self._f.close()


class Hdf5Writer(RowWriter):
    """One float64 dataset per signal at the file's root, named as the signal; attrs on the root.

    The datasets grow by whole chunks: rows fill a buffer holding one chunk of every dataset, written
    raw (HDF5's direct chunk write: no selection, no cache, ~20x cheaper per dataset than slicing)
    when full; the last, partial chunk on close()."""

    def _open(self, expected_rows):
        import h5py
        ch = max(256, min(HDF5_MAX_CHUNK_ROWS, HDF5_CHUNK_BYTES // (8 * max(1, len(self.names)))))
        ch = 1 << (ch.bit_length() - 1)  # a power of two
        if expected_rows is not None:
            ch = max(1, min(ch, int(expected_rows)))
        self._buf = np.zeros((len(self.names), ch))  # row j: the pending chunk of dataset j
        self._nbuf = self._written = 0
        self._room_for(4096 * (len(self.names) + 1))
        # no chunk cache: chunks are written whole, once (a cache per dataset would hold ~1 MB each)
        self._f = h5py.File(self._target.tmp, "w", rdcc_nbytes=0)
        self._sets = [self._f.create_dataset(n, shape=(0,), maxshape=(None,), chunks=(ch,), dtype=np.float64)
                      for n in self.names]

    def _write(self, rows):
        ch = self._buf.shape[1]
        a = 0
        while a < len(rows):
            k = min(len(rows) - a, ch - self._nbuf)
            self._buf[:, self._nbuf:self._nbuf + k] = rows[a:a + k].T
            self._nbuf += k
            a += k
            if self._nbuf == ch:
                self._flush()

    def _flush(self):
        """Writes the buffered chunk of every dataset at the end of the file's rows."""
        if not self._nbuf:
            return
        self._room_for(self._buf.nbytes + 1024 * len(self._sets))
        n0 = self._written  # a multiple of ch: only the last flush writes a partial chunk
        for ds, chunk in zip(self._sets, self._buf):
            ds.id.set_extent((n0 + self._nbuf,))
            ds.id.write_direct_chunk((n0,), chunk)
        self._written = n0 + self._nbuf
        self._nbuf = 0

    def _finish(self, attrs):
        self._flush()
        for k, v in attrs.items():
            self._f.attrs[k] = v
        self._sets = []
        self._f.close()

    def _release(self):
        self._sets = []
        self._f.close()


def open_writer(path, names, expected_rows=None) -> RowWriter:
    """A CsvWriter for *.csv, an Hdf5Writer for *.h5 / *.hdf5."""
    if str(path).lower().endswith((".h5", ".hdf5")):
        return Hdf5Writer(path, names, expected_rows)
    return CsvWriter(path, names, expected_rows)


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
    _stream(CsvWriter, path, chunks)


def _stream(writer_class, path, chunks, attrs=None):
    with writer_class(path, chunks.names, chunks.nrows) as w:
        for a, b in chunks.spans():
            if b > a:
                w.append(chunks.block(a, b))
        w.close(attrs)


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
    chunks = _Chunks(signals, progress, chunk_rows, path)
    if chunks.is_recorder or (len({x.shape for x in chunks.arrays}) <= 1 and all(x.ndim == 1 for x in chunks.arrays)):
        return _stream(Hdf5Writer, path, chunks, attrs)
    import h5py  # a dict of columns of unequal lengths or scalars: one dataset each

    def write(tmp):
        try:
            with h5py.File(tmp, "w") as f:
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
        except (ExportCancelled, KeyboardInterrupt):
            raise
        except Exception as e:
            raise _write_error(path, e) from e
    atomic_write(path, write)


def read_hdf5(path) -> dict:
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out
