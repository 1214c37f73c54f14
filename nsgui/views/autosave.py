"""Autosave to a recovery file every few seconds, and recovery after a crash.

While the document has unsaved changes, the scene is written (atomically, via `save_scene`) to
`<state dir>/recovery/recovery-<pid>.json` with a small `.meta.json` beside it naming the file it
belongs to. A clean exit or a save removes them; files left by a process that is no longer
running are offered for recovery at the next start.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from nsgui.atomic import atomic_write_text
from nsgui.pids import pid_alive

AUTOSAVE_INTERVAL_MS = 5000


def state_dir() -> Path:
    """Where nsgui keeps recovery files ($NSGUI_STATE_DIR overrides)."""
    env = os.environ.get("NSGUI_STATE_DIR")
    if env:
        return Path(env)
    if os.environ.get("NSGUI_TEST"):  # test runs never touch (or find) the user's recovery files
        return Path(tempfile.gettempdir()) / f"nsgui-test-state-{os.getpid()}"
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "nsgui"


def recovery_dir() -> Path:
    return state_dir() / "recovery"


def _remove(*paths: Path) -> None:
    for p in paths:
        try:
            p.unlink()
        except OSError:
            pass


@dataclass
class Recovery:
    scene_path: Path        # the autosaved scene
    meta_path: Path
    original_path: str | None  # the file it was edited from (None: never saved)
    saved_at: float         # time.time() of the autosave
    pid: int

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at))
        return f"{self.original_path or 'an unsaved scene'} (autosaved {when})"

    def discard(self) -> None:
        _remove(self.scene_path, self.meta_path)


def find_recoveries(directory: Path | None = None, include_own: bool = False) -> list[Recovery]:
    """Recovery files left by processes that are gone (newest first)."""
    directory = Path(directory) if directory else recovery_dir()
    out = []
    if not directory.is_dir():
        return out
    for meta in directory.glob("recovery-*.meta.json"):
        try:
            info = json.loads(meta.read_text(encoding="utf-8"))
            pid = int(info.get("pid", -1))
        except (OSError, ValueError, TypeError):
            continue
        scene = meta.with_name(meta.name.replace(".meta.json", ".json"))
        if not scene.exists():
            continue
        if pid == os.getpid() and not include_own:
            continue
        if pid != os.getpid() and pid_alive(pid):
            continue  # another nsgui is running and owns it
        out.append(Recovery(scene, meta, info.get("path"), float(info.get("time", 0.0)), pid))
    out.sort(key=lambda r: -r.saved_at)
    return out


class Autosave(QObject):
    """Writes the document to its recovery file every `interval_ms` while it has unsaved changes."""

    def __init__(self, document, directory: Path | None = None, interval_ms: int = AUTOSAVE_INTERVAL_MS,
                 parent=None):
        super().__init__(parent)
        self.document = document
        self.directory = Path(directory) if directory else recovery_dir()
        self.scene_path = self.directory / f"recovery-{os.getpid()}.json"
        self.meta_path = self.directory / f"recovery-{os.getpid()}.meta.json"
        self._dirty = False
        self.last_error: str | None = None
        document.changed.connect(self._mark)
        document.modifiedChanged.connect(self._modified)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def _mark(self):
        self._dirty = True

    def _modified(self, modified: bool):
        if not modified:
            self.discard()

    def tick(self) -> bool:
        """Write the recovery file now if needed; returns True when a file was written."""
        if not self.document.modified:
            self.discard()
            return False
        if not self._dirty and self.scene_path.exists():
            return False
        from nsgui.scene import save_scene
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            save_scene(self.document.scene, self.scene_path)
            atomic_write_text(self.meta_path, json.dumps({"pid": os.getpid(), "path": self.document.path,
                                                          "time": time.time()}, indent=1))
        except Exception as e:  # autosave must never interrupt editing
            self.last_error = str(e)
            return False
        self._dirty = False
        self.last_error = None
        return True

    def discard(self) -> None:
        """Remove this session's recovery files (after a save or a clean exit)."""
        _remove(self.scene_path, self.meta_path)

    def stop(self) -> None:
        self.timer.stop()
        self.discard()


def recover_into(document, recovery: Recovery) -> None:
    """Open a recovery file in `document` as an unsaved edit of its original file; the recovery
    files are then removed (this session autosaves anew)."""
    from nsgui.scene import load_scene
    scene = load_scene(recovery.scene_path)
    document.set_scene(scene, recovery.original_path)
    document.undo_stack.resetClean()  # it differs from what is on disk: keep it marked modified
    document.modifiedChanged.emit(True)
    recovery.discard()
