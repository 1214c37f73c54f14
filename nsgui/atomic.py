"""Atomic file writes: a file is complete or absent (or its old version), never half written.

The data go to a hidden temporary file beside the target, `.NAME.<pid>.<random>.tmp` (plus a
`suffix` for writers that choose the format by the file name, e.g. `.png`), which replaces the
target in one rename once flushed to disk; the folder is then synced so that the rename survives a
crash. A process killed before the rename leaves its temporary file behind: the next write of the
same target removes those whose process is gone. A new file gets the mode of any file the process
creates (0o666 minus the umask); a replaced file keeps its mode.
"""

import os
import re
import tempfile
import threading
from pathlib import Path

_umask_lock = threading.Lock()


def current_umask() -> int:
    """The process umask, read without changing it when the system shows it (Linux ≥ 4.7)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The permission bits open() gives a new file: 0o666 minus the umask."""
    return 0o666 & ~current_umask()


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temporaries(path) -> list:
    """Removes the temporary files of earlier writes of `path` whose process no longer exists;
    returns their paths."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    pattern = re.compile(re.escape(f".{path.name}.") + r"(\d+)\.[^.]+\.tmp(\.[^.]+)?")
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        m = pattern.fullmatch(name)
        if m and int(m.group(1)) != os.getpid() and not _process_alive(int(m.group(1))):
            try:
                os.unlink(folder / name)
                removed.append(str(folder / name))
            except OSError:
                pass
    return removed


def _fsync_directory(folder):
    """Makes a rename in `folder` durable (where the system allows opening a directory)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class AtomicFile:
    """A temporary file beside `path` (its name in `.tmp`, or `.tmp<suffix>`), filled by the caller,
    that replaces `path` on commit() or disappears on discard()."""

    def __init__(self, path, keep_mode=True, suffix=""):
        self.path = Path(path)
        self.keep_mode = keep_mode
        self.folder = self.path.parent if str(self.path.parent) else Path(".")
        remove_stale_temporaries(self.path)
        fd, self.tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{self.path.name}.{os.getpid()}.",
                                        suffix=".tmp" + suffix)
        os.close(fd)

    def commit(self):
        """Flushes the temporary file to disk and moves it onto `path` (then syncs the folder)."""
        try:
            with open(self.tmp, "rb+") as f:
                os.fsync(f.fileno())
            keep = self.keep_mode and self.path.exists()
            os.chmod(self.tmp, self.path.stat().st_mode & 0o777 if keep else new_file_mode())
            os.replace(self.tmp, self.path)
        except BaseException:
            self.discard()
            raise
        _fsync_directory(self.folder)

    def discard(self):
        try:
            os.unlink(self.tmp)
        except OSError:
            pass


def atomic_write(path, write, keep_mode=True, suffix=""):
    """write(tmp) fills a temporary file beside `path` (its name ending in `suffix`), which is
    flushed to disk and then replaces `path` in one step; on any failure the temporary file is
    removed and `path` is untouched."""
    target = AtomicFile(path, keep_mode, suffix)
    try:
        write(target.tmp)
    except BaseException:
        target.discard()
        raise
    target.commit()


def atomic_write_text(path, text):
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    atomic_write(path, write)
