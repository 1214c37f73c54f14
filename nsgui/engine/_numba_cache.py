"""Keep numba's on-disk cache consistent with the engine's sources.

numba checks a cached function against its own file only: after an edit to a solver, the stepping
loop that inlined it would still load the old machine code, and the constants of codes.py are
compiled in as literals. So the cache is dropped whenever a kernel source or codes.py changes (a hash
of them all is kept beside it).

An install whose package folder cannot be written (a system-wide site-packages) caches in the
user's cache folder instead, in a subfolder named by that hash, so that an upgrade never loads the
machine code of older sources (numba's own fallback, ~/.cache/numba, is not keyed by them).
"""

import hashlib
import os
import sys
import tempfile
from pathlib import Path

ENGINE = Path(__file__).resolve().parent


def sources_digest():
    sources = [p for p in sorted(ENGINE.rglob("*.py"))
               if p.name == "codes.py" or "numba" in p.read_text(encoding="utf-8")]
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _writable(folder):
    """Whether numba can cache in `folder` (the test numba itself makes)."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def user_cache_dir(value):
    """The first writable of the user's cache folder and the temporary folder, for this digest."""
    home_cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    user = os.getuid() if hasattr(os, "getuid") else "user"
    for base in (os.path.join(home_cache, "nsgui"), os.path.join(tempfile.gettempdir(), f"nsgui-{user}")):
        folder = os.path.join(base, f"numba-{value[:16]}")
        if _writable(folder):
            return folder
    return None


def ensure_fresh():
    value = sources_digest()
    pycache = ENGINE / "__pycache__"
    if not _writable(pycache):
        folder = None if os.environ.get("NUMBA_CACHE_DIR") else user_cache_dir(value)
        if folder:  # else: the user's own NUMBA_CACHE_DIR (or no writable folder at all)
            os.environ["NUMBA_CACHE_DIR"] = folder  # also for the window's simulation process
            if "numba" in sys.modules:  # read at import: tell an already imported numba too
                sys.modules["numba"].config.CACHE_DIR = folder
        return
    stamp = pycache / "numba-sources.sha256"
    try:
        if stamp.read_text() == value:
            return
    except OSError:
        pass
    try:
        for pattern in ("*.nbi", "*.nbc"):
            for f in ENGINE.rglob(pattern):
                f.unlink(missing_ok=True)
        stamp.write_text(value)
    except OSError:
        pass
