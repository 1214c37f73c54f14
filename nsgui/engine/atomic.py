"""Atomic file writes: a file is complete or absent (or its old version), never half written."""

import os
import tempfile
from pathlib import Path


def atomic_write(path, write, keep_mode=True):
    """write(tmp) fills a temporary file beside `path`, which is flushed to disk and then replaces
    `path` in one step; on any failure the temporary file is removed and `path` is untouched."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.",
                               suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        mode = path.stat().st_mode & 0o777 if keep_mode and path.exists() else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path, text):
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    atomic_write(path, write)
