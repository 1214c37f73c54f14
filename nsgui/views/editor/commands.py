"""Undoable edits of the scene.

One generic command: it holds the scene object before and the scene object after the edit, so
every edit — a field, an added body with its joint and contacts, a deletion with its dependants,
a template — undoes exactly. Consecutive commands with the same `merge_key` (the moves of one
mouse drag, the arrow clicks on one spin box) merge into one undo step.

An edit costs one deep copy: the live scene becomes the command's `before` and the edited copy
becomes the live scene. Undo/redo swap the objects back without copying. This is exact because
the history is linear and nothing mutates the live scene outside undo commands: any in-place
command pushed later (the scene tree's field edits) is undone before an earlier command is
undone or redone, so the objects held here are always back in the state they were stored in.
"""

from __future__ import annotations

import copy
import itertools

from PySide6.QtGui import QUndoCommand

from nsgui.scene.edits import EditRefused  # noqa: F401  (the editor widgets catch it from here)

_MERGE_ID = 4242
_drag_counter = itertools.count(1)


def new_drag_id() -> int:
    """A fresh id for one mouse drag; moves sharing it merge into one undo step."""
    return next(_drag_counter)


class EditCommand(QUndoCommand):
    def __init__(self, document, text: str, before, after, merge_key=None):
        super().__init__(text)
        self.document = document
        self.before = before
        self.after = after
        self.merge_key = merge_key

    def id(self) -> int:  # noqa: A003 - Qt API
        return _MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other) -> bool:  # noqa: N802 - Qt API
        if not isinstance(other, EditCommand) or other.merge_key != self.merge_key:
            return False
        self.after = other.after
        return True

    def redo(self) -> None:
        # QUndoStack.push runs the first redo before the command is on the stack; `edit` sends
        # `changed` right after the push so that listeners see a stack that already holds it
        first, self._pushing = getattr(self, "_pushing", False), False
        self.document.replace_scene_silently(self.after, notify=not first)

    def undo(self) -> None:
        self.document.replace_scene_silently(self.before)


def edit(document, text: str, fn, merge_key=None) -> None:
    """Apply `fn(scene)` (which mutates a copy of the scene in place) as one undoable command.

    Raises EditRefused (from `fn`) without touching the document."""
    before = document.scene
    after = copy.deepcopy(before)
    fn(after)
    _push(document, EditCommand(document, text, before, after, merge_key))


def _push(document, command) -> None:
    command._pushing = True
    document.push(command)
    document.notify_changed()


def replace_scene(document, text: str, scene) -> None:
    """Replace the whole scene (templates, New from the editor) as one undoable command."""
    _push(document, EditCommand(document, text, document.scene, copy.deepcopy(scene)))


# -- paths: ("bodies", "pendulum", "shapes", "disk0", "radius") ---------------------------------
def resolve(scene, path):
    """Follow a path of attribute names, list indices or item names; returns (owner, last key)."""
    obj = scene
    for key in path[:-1]:
        obj = _step(obj, key)
    return obj, path[-1]


def _step(obj, key):
    if isinstance(obj, list):
        if isinstance(key, int):
            return obj[key]
        for item in obj:
            if getattr(item, "name", None) == key:
                return item
        raise KeyError(key)
    if isinstance(obj, dict):
        return obj[key]
    return getattr(obj, key)


def get_field(scene, path):
    owner, key = resolve(scene, path)
    return _step(owner, key)


def set_field_in(scene, path, value) -> None:
    owner, key = resolve(scene, path)
    if isinstance(owner, dict):
        if value is None:
            owner.pop(key, None)
        else:
            owner[key] = value
    elif isinstance(owner, list):
        owner[key] = value
    else:
        setattr(owner, key, value)


def set_field(document, path, value, text: str | None = None, merge: bool = True) -> None:
    """Set one field (by path) as an undoable edit; repeated edits of one field merge."""
    label = text or f"Set {'.'.join(str(p) for p in path[-2:])}"
    edit(document, label, lambda s: set_field_in(s, path, copy.deepcopy(value)),
         merge_key=("field", tuple(path)) if merge else None)
