"""nsgui/atomic.py with a suffix: writers that choose the format by the file name (QImage.save,
np.save) see the target's extension on the temporary file; the target is whole or absent, and
temporaries of dead processes, suffix or not, are removed by the next write."""

import os
import subprocess

import numpy as np
import pytest

from nsgui.atomic import atomic_write


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    return d


def test_the_temporary_file_ends_with_the_suffix_and_replaces_the_target(folder):
    target = folder / "chunk.npy"
    seen = []

    def write(tmp):
        seen.append(tmp)
        np.save(tmp, np.arange(5.0))  # np.save appends .npy to any other name

    atomic_write(target, write, suffix=".npy")
    assert seen[0].endswith(".tmp.npy") and os.path.dirname(seen[0]) == str(folder)
    assert os.listdir(folder) == ["chunk.npy"]
    assert np.array_equal(np.load(target), np.arange(5.0))


def test_a_failed_write_with_a_suffix_leaves_the_old_file_and_no_temporary(folder):
    target = folder / "shot.png"
    target.write_bytes(b"old")

    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(b"half")
        raise OSError("cannot write the screenshot")

    with pytest.raises(OSError):
        atomic_write(target, write, suffix=".png")
    assert os.listdir(folder) == ["shot.png"] and target.read_bytes() == b"old"


def test_stale_temporaries_with_a_suffix_are_removed_by_the_next_write(folder):
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = folder / f".shot.png.{dead.pid}.k3j2x9q1.tmp.png"
    plain = folder / f".shot.png.{dead.pid}.a8b7c6d5.tmp"
    other = folder / f".other.png.{dead.pid}.k3j2x9q1.tmp.png"
    for f in (stale, plain, other):
        f.write_bytes(b"partial")
    atomic_write(folder / "shot.png", lambda tmp: open(tmp, "wb").close(), suffix=".png")
    assert sorted(os.listdir(folder)) == sorted(["shot.png", other.name])
