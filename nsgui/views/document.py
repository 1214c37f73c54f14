"""The open scene as a Qt document: one Scene, one undo stack, a path and a modified flag.

Every edit is a QUndoCommand pushed on `undo_stack`; commands mutate `document.scene` and call
`document.notify_changed()`, so the 3D view, the editor canvas, the inspector and the problems
panel all redraw from the same Scene that is saved and compiled.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack


def empty_scene():
    """A new, empty, valid scene (default gravity and settings)."""
    from nsgui.scene import scene_from_dict
    return scene_from_dict({"format": "nsgui-scene", "version": 1})


class SceneDocument(QObject):
    """The scene being edited.

    Signals: `changed()` after any edit, undo, redo, load or new scene; `modifiedChanged(bool)`
    when the undo stack leaves or reaches its clean (saved) state; `pathChanged(str)` on load or
    Save As (empty string for an unsaved scene); `fileUsed(str)` with the absolute path after every
    load or save (the window's Open Recent list records it, whoever opened or saved the file).
    """

    changed = Signal()
    modifiedChanged = Signal(bool)
    pathChanged = Signal(str)
    fileUsed = Signal(str)
    sceneReplaced = Signal()  # set_scene/load/new: a different scene, not an edit of this one

    def __init__(self, scene=None, path: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self._scene = scene if scene is not None else empty_scene()
        self._path = path
        self._problems_cache = None

    def _clean_changed(self, clean: bool) -> None:
        self.modifiedChanged.emit(not clean)

    # -- state -------------------------------------------------------------------------------
    @property
    def scene(self):
        """The current Scene. Treat it as read-only outside undo commands."""
        return self._scene

    @property
    def path(self) -> str | None:
        return self._path

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    # -- edits -------------------------------------------------------------------------------
    def push(self, command) -> None:
        """Apply an edit (a QUndoCommand) through the undo stack."""
        self.undo_stack.push(command)

    def notify_changed(self) -> None:
        """Called by commands after they mutate the scene."""
        self._problems_cache = None
        self.changed.emit()

    def replace_scene_silently(self, scene, notify: bool = True) -> None:
        """Used by whole-scene undo commands: swap the scene object without touching the stack.
        `notify=False` defers the `changed` signal to the caller (see commands.edit)."""
        self._scene = scene
        self._problems_cache = None
        if notify:
            self.notify_changed()

    # -- files -------------------------------------------------------------------------------
    def set_scene(self, scene, path: str | None = None) -> None:
        """Start over with `scene` (a fresh document: undo history cleared, not modified)."""
        self._scene = scene
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._set_path(path)
        self.notify_changed()
        self.modifiedChanged.emit(False)
        self.sceneReplaced.emit()

    def new(self) -> None:
        self.set_scene(empty_scene(), None)

    def load(self, path: str) -> None:
        """Open a scene file; raises SceneError (every problem listed) or OSError."""
        from nsgui.scene import load_scene
        scene = load_scene(path)
        self.set_scene(scene, os.path.abspath(path))
        self.fileUsed.emit(self._path)

    def save(self, path: str | None = None) -> str:
        """Write the scene atomically to `path` (or the current path); marks the document clean."""
        from nsgui.scene import save_scene
        target = path or self._path
        if not target:
            raise ValueError("this scene has no file name yet: use Save As")
        target = os.path.abspath(target)
        save_scene(self._scene, target)
        self.undo_stack.setClean()
        self._set_path(target)
        self.fileUsed.emit(target)
        return target

    def _set_path(self, path: str | None) -> None:
        if path != self._path:
            self._path = path
            self.pathChanged.emit(path or "")

    # -- validation --------------------------------------------------------------------------
    def all_problems(self) -> list:
        """Errors and warnings: `validate_scene` plus the editor's geometric checks (bodies
        overlapping at the start, contacts that can never touch). Editor problems carry a
        `severity` ("error" or "warning"); validation problems are all errors."""
        if self._problems_cache is None:
            from nsgui.scene import validate_scene
            problems = list(validate_scene(self._scene))
            if not problems:  # geometric checks assume a structurally valid scene
                try:
                    from nsgui.scene.checks import editor_problems
                    problems.extend(editor_problems(self._scene))
                except Exception as exc:  # a check must never break editing
                    problems.append(_warning("", f"editor checks failed: {exc}"))
            self._problems_cache = problems
        return list(self._problems_cache)

    def problems(self) -> list:
        """What makes the scene unusable for a run (Play is refused while this is not empty)."""
        return [p for p in self.all_problems() if getattr(p, "severity", "error") == "error"]

    def warnings(self) -> list:
        return [p for p in self.all_problems() if getattr(p, "severity", "error") != "error"]

    def is_valid(self) -> bool:
        return not self.problems()


def _warning(path, message):
    from nsgui.scene.checks import EditorProblem
    return EditorProblem(path, message, "warning")
