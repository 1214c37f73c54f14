"""The run history: rows, columns, time lookup, spilling to disk, truncation for a new branch."""

import os

import numpy as np
import pytest

from nsgui.runtime.history import Recorder


def rows(n, t0=0.0, ncols=3):
    t = t0 + 0.001 * np.arange(n)
    return np.column_stack([t] + [np.sin(t * (k + 1)) for k in range(ncols - 1)])


def test_columns_rows_and_time_lookup():
    r = Recorder(["t", "a", "b"], chunk_rows=100)
    data = rows(1234)
    r.append(data[:7])
    r.append(data[7:])
    assert len(r) == 1234
    np.testing.assert_array_equal(r.column("a"), data[:, 1])
    np.testing.assert_array_equal(r.rows(95, 305), data[95:305])
    np.testing.assert_array_equal(r.row(-1), data[-1])
    assert r.row_at_time(0.5) == 500
    assert r.row_at_time(0.5004) == 500
    assert r.row_at_time(-1) == 0 and r.row_at_time(99) == 1233
    with pytest.raises(KeyError, match="no recorded signal named 'zz'"):
        r.column("zz")


def test_memory_cap_spills_to_disk_and_loses_nothing(tmp_path):
    tmp_path = tmp_path / "spill"
    tmp_path.mkdir()
    r = Recorder(["t", "a", "b"], chunk_rows=1000, memory_cap=3 * 1000 * 3 * 8, spill_dir=tmp_path)
    data = rows(20_500)
    for i in range(0, len(data), 777):
        r.append(data[i:i + 777])
    assert r.memory_bytes <= 3 * 1000 * 3 * 8 + 1000 * 3 * 8
    assert r.spilled_rows >= 15_000
    files = [f for d in tmp_path.iterdir() for f in d.iterdir()]
    assert any(f.suffix == ".npy" for f in files)
    np.testing.assert_array_equal(r.rows(), data)
    np.testing.assert_array_equal(r.column("b"), data[:, 2])
    sig = r.signals()
    np.testing.assert_array_equal(sig["t"], data[:, 0])
    r.close()
    assert not any(tmp_path.iterdir())


def test_truncate_after_keeps_prefix_and_allows_new_branch(tmp_path):
    r = Recorder(["t", "a", "b"], chunk_rows=1000, memory_cap=2 * 1000 * 3 * 8, spill_dir=tmp_path)
    data = rows(10_000)
    r.append(data)
    for i in range(0, 10_000, 10):
        r.add_snapshot(data[i, 0], i, ("state", i))
    r.add_events([type("E", (), {"t": 2.0})(), type("E", (), {"t": 8.0})()])
    r.truncate_after(2.5005)  # inside a spilled chunk
    assert len(r) == 2501
    assert r.snapshots[-1].row == 2500
    assert r.snapshot_at_or_before(1.234).row == 1230
    assert [e.t for e in r.events] == [2.0]
    branch = rows(3000, t0=2.501)
    branch[:, 1] = 42.0
    r.append(branch)
    np.testing.assert_array_equal(r.rows(0, 2501), data[:2501])
    np.testing.assert_array_equal(r.rows(2501), branch)
    c = r.copy()
    r.close()
    np.testing.assert_array_equal(c.column("a")[2501:], 42.0)


def test_snapshot_interval():
    r = Recorder(["t", "a"], snapshot_interval=0.01)
    for i in range(100):
        r.add_snapshot(i * 0.001, i, i)
    assert [s.row for s in r.snapshots] == list(range(0, 100, 10))


def _dead_pid():
    """The id of a process that has just exited (and been reaped)."""
    import subprocess
    import sys
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_spill_folder_is_named_with_the_pid_and_removed_on_close(tmp_path):
    tmp_path = tmp_path / "tmp"  # the test's own folder also holds its state folder
    tmp_path.mkdir()
    r = Recorder(["t", "a", "b"], chunk_rows=100, memory_cap=1000, spill_dir=tmp_path)
    r.append(rows(1000))
    (folder,) = os.listdir(tmp_path)
    assert folder.startswith(f"nsgui-history-{os.getpid()}-")
    r.close()
    assert os.listdir(tmp_path) == []


def test_own_spill_folders_are_removed_at_exit(tmp_path):
    tmp_path = tmp_path / "tmp"  # the test's own folder also holds its state folder
    tmp_path.mkdir()
    """remove_own_spill_dirs (what the window calls before os._exit, and atexit otherwise) removes
    the folders of every recorder of this process, live ones too."""
    from nsgui.runtime.history import remove_own_spill_dirs
    kept = []
    for _ in range(2):
        r = Recorder(["t", "a", "b"], chunk_rows=100, memory_cap=1000, spill_dir=tmp_path)
        r.append(rows(500))
        kept.append(r)
    assert len(os.listdir(tmp_path)) == 2
    remove_own_spill_dirs()
    assert os.listdir(tmp_path) == []


def test_start_up_removes_spill_folders_of_dead_processes_only(tmp_path):
    tmp_path = tmp_path / "tmp"  # the test's own folder also holds its state folder
    tmp_path.mkdir()
    from nsgui.runtime.history import remove_stale_spill_dirs
    dead, live = _dead_pid(), os.getppid()
    for name in (f"nsgui-history-{dead}-abc", f"nsgui-history-{live}-def", "nsgui-history-old12345",
                 "unrelated-folder"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "chunk000000.npy").write_bytes(b"x" * 100)
    (tmp_path / f"nsgui-history-{dead}-file").write_text("not a folder")
    removed = remove_stale_spill_dirs(tmp_path)
    assert removed == [str(tmp_path / f"nsgui-history-{dead}-abc")]
    assert sorted(os.listdir(tmp_path)) == sorted([f"nsgui-history-{live}-def", "nsgui-history-old12345",
                                                   "unrelated-folder", f"nsgui-history-{dead}-file"])


def test_chunks_mapped_ahead_hold_the_rows_like_any_other(tmp_path):
    """The next chunk's memory is prepared by a thread while the current one fills (runtime/
    chunk_memory.py): the history reads back every row, spills and truncates as before."""
    import mmap

    from nsgui.runtime import chunk_memory

    def mapped(a):
        while isinstance(a, (np.ndarray, memoryview)):
            a = a.obj if isinstance(a, memoryview) else a.base
        return isinstance(a, mmap.mmap)

    r = Recorder(["t", "a", "b"], chunk_rows=100, memory_cap=3 * 100 * 3 * 8, spill_dir=tmp_path)
    data = rows(1050)
    for i in range(0, 1050, 30):
        r.append(data[i:i + 30])
        r._ahead.ready(timeout=10)  # (let the thread finish: the prepared chunks are used)
    np.testing.assert_array_equal(r.rows(), data)
    np.testing.assert_array_equal(r.column("b"), data[:, 2])
    assert r.spilled_rows > 0
    if chunk_memory._POPULATE is not None:
        assert sum(mapped(c) for c in r._chunks) >= 2  # the in-memory chunks were mapped ahead
    r.truncate_after(0.9005)
    np.testing.assert_array_equal(r.rows(), data[:901])
    r.append(data[901:])
    np.testing.assert_array_equal(r.rows(), data)
    r.close()
