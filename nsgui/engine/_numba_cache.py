"""Keep numba's on-disk cache consistent with the engine's sources.

numba checks a cached function against its own file only: after an edit to a solver, the stepping
loop that inlined it would still load the old machine code. So the cache is dropped whenever any
engine source changes (a hash of them all is kept beside it).
"""

import hashlib
from pathlib import Path

ENGINE = Path(__file__).resolve().parent


def ensure_fresh():
    sources = [p for p in sorted(ENGINE.rglob("*.py")) if "numba" in p.read_text(encoding="utf-8")]
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    stamp = ENGINE / "__pycache__" / "numba-sources.sha256"
    value = digest.hexdigest()
    try:
        if stamp.read_text() == value:
            return
    except OSError:
        pass
    try:
        for pattern in ("*.nbi", "*.nbc"):
            for f in ENGINE.rglob(pattern):
                f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(value)
    except OSError:
        pass  # read-only install: numba then compiles in memory
