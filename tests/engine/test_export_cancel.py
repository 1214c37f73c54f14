"""Data exports (CSV, HDF5) are written in row chunks with a progress callback that can cancel them:
a cancelled export stops at the next chunk and leaves no file (and no temporary file), a file
already at the target path stays as it was, and a complete export reads back equal to the history."""

import math
import os

import numpy as np
import pytest

from nsgui.engine.export import (CHUNK_ROWS, ExportCancelled, read_csv, read_hdf5, write_csv,
                                 write_hdf5)
from nsgui.runtime.history import Recorder

WRITERS = {"csv": write_csv, "h5": write_hdf5}


def make_recorder(nrows, ncols, memory_cap=None, chunk_rows=None, spill_dir=None):
    names = ["t"] + [f"sig{j}.x" for j in range(ncols - 1)]
    kw = {}
    if memory_cap is not None:
        kw["memory_cap"] = memory_cap
    if chunk_rows is not None:
        kw["chunk_rows"] = chunk_rows
    rec = Recorder(names, spill_dir=spill_dir, **kw)
    rng = np.random.default_rng(7)
    step = 50_000
    for a in range(0, nrows, step):
        b = min(a + step, nrows)
        block = rng.standard_normal((b - a, ncols)) * 10.0 ** rng.integers(-8, 8, (b - a, ncols))
        block[:, 0] = np.arange(a, b) * 1e-4
        rec.append(block)
    return rec


@pytest.fixture(scope="module")
def big():
    """200 000 rows x 50 columns (80 MB), much more than one chunk."""
    rec = make_recorder(200_000, 50)
    yield rec
    rec.close()


@pytest.fixture
def small(tmp_path):
    """20 000 rows x 50 columns, partly spilled to disk (read back through memory maps)."""
    rec = make_recorder(20_000, 50, memory_cap=2_000_000, chunk_rows=1000, spill_dir=str(tmp_path))
    assert rec.spilled_rows > 0
    yield rec
    rec.close()


def write(fmt, path, source, **kw):
    if fmt == "h5":
        return write_hdf5(path, source, {"scene": "x"}, **kw)
    return write_csv(path, source, **kw)


@pytest.fixture
def out(tmp_path):
    """An empty folder for the exports (tmp_path also holds the test's state and spill folders)."""
    folder = tmp_path / "exports"
    folder.mkdir()
    return folder


def leftovers(folder):
    return sorted(os.listdir(folder))


class CountingRows:
    """Counts how many row blocks the writer reads from the recorder."""

    def __init__(self, rec, monkeypatch):
        self.calls = 0
        orig = rec.rows

        def rows(start=0, stop=None):
            self.calls += 1
            return orig(start, stop)
        monkeypatch.setattr(rec, "rows", rows)


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_cancel_after_first_chunk_stops_and_leaves_no_file(fmt, big, out, monkeypatch):
    target = out / f"run.{fmt}"
    total = math.ceil(len(big) / CHUNK_ROWS)
    assert total >= 40
    reads = CountingRows(big, monkeypatch)
    calls = []

    def progress(fraction):
        calls.append(fraction)
        return False  # Cancel pressed during the first chunk

    with pytest.raises(ExportCancelled):
        write(fmt, str(target), big, progress=progress)
    assert calls == [CHUNK_ROWS / len(big)]  # asked once, after the first chunk: stopped there
    assert reads.calls <= 1 < total
    assert leftovers(out) == []  # neither the target nor a temporary file


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_cancel_keeps_an_existing_file_untouched(fmt, big, out):
    target = out / f"run.{fmt}"
    target.write_bytes(b"previous export\n")
    os.chmod(target, 0o640)
    before = os.stat(target)
    calls = []

    def progress(fraction):
        calls.append(fraction)
        return len(calls) < 3  # cancel at the third chunk

    with pytest.raises(ExportCancelled) as info:
        write(fmt, str(target), big, progress=progress)
    assert len(calls) == 3 < math.ceil(len(big) / CHUNK_ROWS)
    assert "cancelled" in str(info.value) and str(target) in str(info.value)
    assert target.read_bytes() == b"previous export\n"
    after = os.stat(target)
    same = ("st_ino", "st_mtime_ns", "st_mode", "st_size")
    assert [getattr(after, k) for k in same] == [getattr(before, k) for k in same]
    assert leftovers(out) == [target.name]


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_cancel_at_the_very_end_still_writes_nothing(fmt, small, out):
    target = out / f"run.{fmt}"
    with pytest.raises(ExportCancelled):
        write(fmt, str(target), small, progress=lambda f: f < 1.0)
    assert leftovers(out) == []


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_failing_progress_callback_leaves_no_file(fmt, small, out):
    def progress(fraction):
        raise KeyboardInterrupt  # e.g. Ctrl-C in `nsgui run` while the file is written

    with pytest.raises(KeyboardInterrupt):
        write(fmt, str(out / f"run.{fmt}"), small, progress=progress)
    assert leftovers(out) == []


def test_csv_reads_back_equal_to_the_history(small, out):
    path = out / "run.csv"
    calls = []
    write_csv(str(path), small, progress=lambda f: calls.append(f) or True, chunk_rows=3000)
    assert calls == sorted(set(calls)) and calls[-1] == 1.0  # strictly increasing, ends at 1.0
    assert len(calls) == math.ceil(len(small) / 3000)
    with open(path, encoding="utf-8") as f:
        assert f.readline().rstrip("\n").split(",") == small.names
        data = np.loadtxt(f, delimiter=",", ndmin=2)
    np.testing.assert_array_equal(data, small.rows())
    got = read_csv(str(path))
    assert list(got) == small.names
    assert leftovers(out) == ["run.csv"]


def test_hdf5_reads_back_equal_to_the_history(small, out):
    import h5py
    path = out / "run.h5"
    calls = []
    write_hdf5(str(path), small, {"scene": "{}", "source": "test"}, progress=calls.append)
    assert calls == sorted(set(calls)) and calls[-1] == 1.0
    assert len(calls) == math.ceil(len(small) / CHUNK_ROWS)
    rows = small.rows()
    with h5py.File(path, "r") as f:
        assert sorted(f) == sorted(small.names)
        assert f.attrs["scene"] == "{}" and f.attrs["source"] == "test"
        for j, name in enumerate(small.names):
            assert f[name].dtype == np.float64 and f[name].shape == (len(small),)
            np.testing.assert_array_equal(f[name][()], rows[:, j])
    assert leftovers(out) == ["run.h5"]


def test_chunked_output_is_the_same_whatever_the_source_and_chunk_size(small, out):
    """A Recorder and the dict of its signals, in chunks of any size, give the same bytes (CSV) and
    values (HDF5), equal to one unchunked write."""
    sig = small.signals()
    write_csv(str(out / "whole.csv"), sig, chunk_rows=10**9)
    write_csv(str(out / "dict.csv"), sig, chunk_rows=777)
    write_csv(str(out / "rec.csv"), small, chunk_rows=7)
    whole = (out / "whole.csv").read_bytes()
    assert (out / "dict.csv").read_bytes() == whole == (out / "rec.csv").read_bytes()
    write_hdf5(str(out / "dict.h5"), sig, chunk_rows=777)
    write_hdf5(str(out / "rec.h5"), small, chunk_rows=5000)
    for got in (read_hdf5(str(out / "dict.h5")), read_hdf5(str(out / "rec.h5"))):
        assert sorted(got) == sorted(sig)
        for name in sig:
            np.testing.assert_array_equal(got[name], sig[name])


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_empty_history_and_progress_that_answers_none(fmt, out):
    rec = Recorder(["t", "a", "b"])
    calls = []
    path = out / f"empty.{fmt}"
    write(fmt, str(path), rec, progress=lambda f: calls.append(f))  # None: go on (the CLI's bar)
    assert calls == [1.0]
    got = read_csv(str(path)) if fmt == "csv" else read_hdf5(str(path))
    assert sorted(got) == ["a", "b", "t"] and all(len(v) == 0 for v in got.values())


def test_dict_of_unequal_columns_is_refused_for_csv_and_written_for_hdf5(out):
    sig = {"t": np.arange(10.0), "short": np.arange(4.0), "scalar": 2.5}
    with pytest.raises(ValueError):
        write_csv(str(out / "x.csv"), {"t": np.arange(10.0), "short": np.arange(4.0)})
    assert leftovers(out) == []
    write_hdf5(str(out / "x.h5"), sig, chunk_rows=3)
    got = read_hdf5(str(out / "x.h5"))
    np.testing.assert_array_equal(got["t"], sig["t"])
    np.testing.assert_array_equal(got["short"], sig["short"])
    assert got["scalar"] == 2.5
