"""Whether a process id still names a running process (to tell files of live owners from leftovers)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True if a process with this id exists (or cannot be checked: never remove what might be in
    use). Signal 0 only asks the kernel; on Windows os.kill would terminate, so it is not used."""
    if pid <= 0:
        return False
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's live process
        return True
    return True
