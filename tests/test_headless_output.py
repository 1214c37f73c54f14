"""Headless output (issue 8 §3): rows streamed to CSV/HDF5 as they are made equal the in-memory run,
--every N keeps rows 0, N, 2N…, a run that cannot fit is refused up front, any write failure leaves no
file and says so on one line, stale temporary files are removed and new files respect the umask."""

import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from nsgui.engine import simulate
from nsgui.engine import export
from nsgui.atomic import remove_stale_temporaries
from nsgui.engine.export import WriteError, read_csv, read_hdf5
from nsgui.engine.simulate import RunTooLarge

from tests.helpers import PYTHON, ROOT, example, scene_path
from tests.test_cli import nsgui_run

BALL = scene_path("bouncing_ball")
OPTS = dict(dt=0.002, duration=4.0, projection=False, solver="lemke")  # 2000 steps, several bounces
CLI_OPTS = ["--dt", "0.002", "--duration", "4", "--no-projection", "--solver", "lemke", "--quiet"]


@pytest.fixture
def folder(tmp_path):
    """An empty folder for the outputs (tmp_path also holds the test session's state)."""
    d = tmp_path / "out"
    d.mkdir()
    return d


@pytest.fixture(scope="module")
def full():
    return simulate(example("bouncing_ball"), **OPTS)


def read(path):
    return read_csv(path) if str(path).endswith(".csv") else read_hdf5(path)


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_streamed_file_equals_the_in_memory_run(fmt, full, folder, monkeypatch):
    # small kernel calls and small HDF5 chunks: the file is made of many appends and many chunks
    monkeypatch.setattr(export, "HDF5_MAX_CHUNK_ROWS", 300)  # 256-row chunks
    path = folder / f"ball.{fmt}"
    res = simulate(example("bouncing_ball"), **OPTS, out=str(path), chunk=97)
    assert res.signals == {}
    assert res.summary["rows"] == len(full.t) == 2001
    data = read(path)
    assert sorted(data) == sorted(full.signals)
    for name, values in full.signals.items():
        np.testing.assert_array_equal(data[name], values, err_msg=name)
    assert os.listdir(folder) == [path.name]
    same = ("impacts", "max_penetration", "energy_residual", "steps", "failure")
    assert [res.summary[k] for k in same] == [full.summary[k] for k in same]


@pytest.mark.parametrize("every", [1, 7, 500, 2000, 5000])
def test_every_n_keeps_rows_0_n_2n_and_a_summary_of_every_step(every, full, tmp_path):
    res = simulate(example("bouncing_ball"), **OPTS, every=every)
    kept = np.arange(0, len(full.t), every)
    assert len(res.t) == len(kept) == 2000 // every + 1
    for name, values in full.signals.items():
        np.testing.assert_array_equal(res[name], values[kept], err_msg=name)
    for key in ("impacts", "max_penetration", "energy_residual", "steps"):
        assert res.summary[key] == full.summary[key], key
    assert full.summary["impacts"] >= 3


def test_cli_every_and_hdf5_summary(full, folder):
    out = folder / "ball.h5"
    p = nsgui_run(BALL, *CLI_OPTS, "--every", "7", "--out", str(out))
    assert p.returncode == 0, p.stderr
    data = read_hdf5(out)
    for name, values in full.signals.items():
        np.testing.assert_array_equal(data[name], values[::7], err_msg=name)
    import h5py
    with h5py.File(out, "r") as f:
        summary = json.loads(f.attrs["summary"])
    assert summary["every"] == 7 and summary["rows"] == len(data["t"]) == 286
    assert summary["impacts"] == full.summary["impacts"]
    p = nsgui_run(BALL, *CLI_OPTS, "--every", "0", "--out", str(folder / "x.csv"))
    assert p.returncode == 2 and "--every 0" in p.stderr and not (folder / "x.csv").exists()


def test_a_run_too_large_for_memory_is_refused_with_the_figure_and_the_way_out():
    # 1e11 steps of ~30 signals: tens of terabytes, more than any machine's memory
    with pytest.raises(RunTooLarge) as err:
        simulate(example("bouncing_ball"), dt=1e-6, duration=1e5)
    e = err.value
    assert e.rows == 10**11 + 1 and e.nbytes == 8 * e.rows * e.signals > e.available
    text = str(e)
    assert "TB in memory" in text and "out='run.h5'" in text and "every=N" in text
    # streaming or keeping one row in N makes the same run acceptable (not run here)


def test_cli_refuses_a_run_too_large_for_the_disk(folder):
    out = folder / "huge.h5"
    p = nsgui_run(BALL, "--quiet", "--dt", "1e-6", "--duration", "1e5", "--out", str(out))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "TB" in lines[0] and "--every N" in lines[0] and "free there" in lines[0], p.stderr
    assert os.listdir(folder) == []


FAILURES = [OSError(28, "No space left on device"),
            RuntimeError("Can't write data (file write failed: errno = 28, error message = 'No space left')"),
            ValueError("some library error")]


@pytest.mark.parametrize("fmt", ["csv", "h5"])
@pytest.mark.parametrize("failure", FAILURES, ids=["oserror", "h5py", "valueerror"])
def test_any_write_failure_leaves_no_file_and_keeps_an_existing_one(fmt, failure, folder, monkeypatch):
    cls = export.CsvWriter if fmt == "csv" else export.Hdf5Writer
    calls = []

    def failing(self, rows):
        calls.append(len(rows))
        if len(calls) == 3:
            raise failure
    monkeypatch.setattr(cls, "_write", failing)
    target = folder / f"ball.{fmt}"
    target.write_text("previous run")
    with pytest.raises(WriteError) as err:
        simulate(example("bouncing_ball"), **OPTS, out=str(target), chunk=50)
    assert str(target) in str(err.value) and "\n" not in str(err.value)
    if "28" in str(failure) or getattr(failure, "errno", None) == 28:
        assert str(err.value).endswith("No space left on device")
    assert os.listdir(folder) == [target.name] and target.read_text() == "previous run"


def _tmpfs(path):
    """A 64 kB tmpfs at `path` (root only), or skip."""
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)], capture_output=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {p.stderr.decode().strip()}")
    return path


@pytest.fixture
def full_disk(tmp_path):
    disk = _tmpfs(tmp_path / "disk")
    yield disk
    subprocess.run(["umount", str(disk)], check=False)


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_cli_on_a_full_disk_says_so_on_one_line_and_leaves_nothing(fmt, full_disk):
    out = full_disk / f"ball.{fmt}"
    p = nsgui_run(BALL, "--quiet", "--duration", "0.1", "--out", str(out))  # small enough to be tried
    assert p.returncode == 1 and "Traceback" not in p.stderr + p.stdout, p.stderr
    assert p.stderr.strip() == f"nsgui run: cannot write {out}: No space left on device; nothing written"
    assert os.listdir(full_disk) == []


@pytest.mark.parametrize("fmt", ["csv", "h5"])
def test_writers_meeting_a_real_full_disk_fail_cleanly(fmt, full_disk):
    """Without the free-space check the libraries themselves meet ENOSPC (h5py used to print ~160
    lines of tracebacks and segfault): still one WriteError, no file, a clean exit."""
    code = f"""
import numpy as np
import nsgui.engine.export as ex
ex.ensure_space = lambda path, folder, nbytes: None
names = [f"s{{i}}" for i in range(30)]
try:
    with ex.open_writer({str(full_disk / ('x.' + fmt))!r}, names, expected_rows=10000) as w:
        for k in range(20):
            w.append(np.random.default_rng(k).random((500, 30)))
except ex.WriteError as e:
    print(e)
"""
    p = subprocess.run([PYTHON if os.path.exists(PYTHON) else sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"cannot write {full_disk / ('x.' + fmt)}: No space left on device"
    assert p.stderr == ""
    assert os.listdir(full_disk) == []


def test_stale_temporary_files_of_dead_processes_are_removed(folder):
    target = folder / "run.h5"
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        stale = folder / f".run.h5.{dead.pid}.k3j2x9q1.tmp"
        live = folder / f".run.h5.{alive.pid}.a8b7c6d5.tmp"
        other = folder / f".other.h5.{dead.pid}.k3j2x9q1.tmp"
        for f in (stale, live, other):
            f.write_bytes(b"partial")
        simulate(example("bouncing_ball"), dt=0.01, duration=0.1, out=str(target))
        assert sorted(os.listdir(folder)) == sorted([target.name, live.name, other.name])
        assert remove_stale_temporaries(folder / "other.h5") == [str(other)]
    finally:
        alive.kill()
        alive.wait()


@pytest.mark.parametrize("umask,mode", [(0o027, 0o640), (0o002, 0o664)])
def test_new_files_respect_the_umask(umask, mode, folder):
    csv, h5, js = folder / "ball.csv", folder / "ball.h5", folder / "summary.json"
    for extra in (["--out", str(csv), "--summary-json", str(js)], ["--out", str(h5)]):
        p = subprocess.run([PYTHON if os.path.exists(PYTHON) else sys.executable, "-m", "nsgui", "run", BALL,
                            "--quiet", "--duration", "0.1", *extra],
                           capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT),
                           preexec_fn=lambda: os.umask(umask))
        assert p.returncode == 0, p.stderr
    for f in (csv, h5, js):
        assert stat.S_IMODE(os.stat(f).st_mode) == mode, f
