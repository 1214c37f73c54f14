"""Wire the editor into the main window: `attach_editor(window)`.

The window provides `document`, `tabs`, `menus` ("File", "Edit", "View", "Simulation", "Help"),
`is_running()` and `runningChanged(bool)`. This adds the Editor tab, the Edit menu, File ▸ New and
Templates (and Open/Save/Save As when the window has none; Open Recent is the window's), the Problems dock, the modified
marker in the title, the prompt before losing changes, and autosave with crash recovery.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMessageBox

from nsgui.views.autosave import Autosave, find_recoveries, recover_into

from nsgui.scene import edits as ops
from .commands import EditRefused, edit
from .problems_panel import ProblemsPanel
from .template_dialog import TemplateDialog
from nsgui.scene.templates import TEMPLATES, make_template
from .widget import EditorWidget

SCENE_FILTER = "nsgui scenes (*.json);;All files (*)"


def _plain_text(action_text: str) -> str:
    return action_text.replace("&", "").replace("…", "").replace("...", "").strip().lower()


class EditorController(QObject):
    """Everything the editor adds to a window; reachable as `window.editor`.

    The `ask_*` attributes are the questions put to the user; tests replace them."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.document = window.document
        self.widget = EditorWidget(self.document)
        self.canvas = self.widget.canvas
        self.clipboard = None
        self.ask_save_changes = self._ask_save_changes      # () -> "save" | "discard" | "cancel"
        self.ask_confirm = self._ask_confirm                # (title, text) -> bool
        self.ask_open_path = self._ask_open_path            # () -> str | None
        self.ask_save_path = self._ask_save_path            # () -> str | None
        self.show_error = self._show_error                  # (title, text) -> None

        self.tab_index = window.tabs.addTab(self.widget, "Editor")
        self._build_edit_menu()
        self._build_file_menu()
        self._build_problems_dock()
        self._init_title()
        window.installEventFilter(self)
        running = getattr(window, "runningChanged", None)
        if running is not None:
            running.connect(self.set_running)
        if hasattr(window, "is_running"):
            self.set_running(bool(window.is_running()))
        self.document.sceneReplaced.connect(self.canvas.fit_view)
        self.canvas.deleteRequested.connect(self.delete_selection)
        self.autosave = Autosave(self.document, parent=self)
        tree = getattr(window, "scene_tree", None)
        if tree is not None:  # an item clicked in the scene tree is selected for the inspector too
            tree.tree.itemClicked.connect(lambda item, _col: self.select_tree_path(item.data(0, Qt.UserRole)))

    TREE_KINDS = {"bodies": "body", "joints": "joint", "obstacles": "obstacle", "contacts": "contact",
                  "forces": "force", "actuators": "actuator", "controllers": "controller"}

    def select_tree_path(self, path):
        """Select the scene-tree item at `path` (("controllers", 0), ...) in the editor."""
        if not path or len(path) != 2 or path[0] not in self.TREE_KINDS:
            return
        try:
            name = getattr(self.document.scene, path[0])[path[1]].name
        except (IndexError, AttributeError):
            return
        self.canvas.set_selection([(self.TREE_KINDS[path[0]], name)])

    # -- menus -----------------------------------------------------------------------------------
    def _action(self, menu, text, slot, shortcut=None, tip=""):
        a = QAction(text, self.window)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(lambda _=False: slot())
        menu.addAction(a)
        return a

    def _build_edit_menu(self):
        m = self.window.menus["Edit"]
        stack = self.document.undo_stack
        self.undo_action = stack.createUndoAction(self.window, "&Undo")
        self.undo_action.setShortcut(QKeySequence.Undo)
        self.redo_action = stack.createRedoAction(self.window, "&Redo")
        self.redo_action.setShortcut(QKeySequence.Redo)
        m.addAction(self.undo_action)
        m.addAction(self.redo_action)
        m.addSeparator()
        self.cut_action = self._action(m, "Cu&t", self.cut, QKeySequence.Cut)
        self.copy_action = self._action(m, "&Copy", self.copy, QKeySequence.Copy)
        self.paste_action = self._action(m, "&Paste", self.paste, QKeySequence.Paste)
        self.duplicate_action = self._action(m, "D&uplicate", self.duplicate, "Ctrl+D")
        self.delete_action = self._action(m, "&Delete", self.delete_selection, QKeySequence.Delete)
        m.addSeparator()
        self.select_all_action = self._action(m, "Select &All", self.select_all, QKeySequence.SelectAll)
        self.edit_actions = [self.cut_action, self.paste_action, self.duplicate_action, self.delete_action]
        for a in (self.cut_action, self.copy_action, self.paste_action, self.duplicate_action,
                  self.delete_action, self.select_all_action):
            # only while the editor tab is shown, so that keys keep their meaning elsewhere
            a.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.widget.addAction(a)

    def _build_file_menu(self):
        m = self.window.menus["File"]
        existing = {_plain_text(a.text()): a for a in m.actions()}
        first = m.actions()[0] if m.actions() else None
        self.new_action = QAction("&New", self.window)
        self.new_action.setShortcut(QKeySequence.New)
        self.new_action.triggered.connect(lambda _=False: self.new_scene())
        if "new" not in existing:
            m.insertAction(first, self.new_action)
        self.templates_menu = m.addMenu("&Templates") if first is None else None
        if self.templates_menu is None:
            from PySide6.QtWidgets import QMenu
            self.templates_menu = QMenu("&Templates", m)
            m.insertMenu(first, self.templates_menu)
        for name in TEMPLATES:
            a = self.templates_menu.addAction(name + "…")
            a.triggered.connect(lambda _=False, n=name: self.new_from_template(n))
        self.own_file_actions = []
        for key, text, shortcut, slot in (("open", "&Open…", QKeySequence.Open, self.open_file),
                                           ("save", "&Save", QKeySequence.Save, self.save),
                                           ("save as", "Save &As…", QKeySequence.SaveAs, self.save_as)):
            if key not in existing:  # the window's own action is kept
                a = QAction(text, self.window)
                a.setShortcut(shortcut)
                a.triggered.connect(lambda _=False, slot=slot: slot())
                m.insertAction(first, a)
                self.own_file_actions.append(a)
        if first is not None:
            m.insertSeparator(first)

    def _build_problems_dock(self):
        self.problems = ProblemsPanel(self.document)
        self.problems.problemActivated.connect(self._select_problem)
        self.problems_dock = QDockWidget("Problems", self.window)
        self.problems_dock.setObjectName("ProblemsDock")
        self.problems_dock.setWidget(self.problems)
        self.window.addDockWidget(Qt.BottomDockWidgetArea, self.problems_dock)
        view = self.window.menus.get("View")
        if view is not None:
            view.addAction(self.problems_dock.toggleViewAction())

    def _select_problem(self, ref):
        self.window.tabs.setCurrentWidget(self.widget)
        if ref is not None:
            self.canvas.set_selection([ref])

    # -- title marker ----------------------------------------------------------------------------
    def _init_title(self):
        self.window.windowTitleChanged.connect(self._ensure_marker)
        self.document.modifiedChanged.connect(self.window.setWindowModified)
        self._ensure_marker(self.window.windowTitle())
        self.window.setWindowModified(self.document.modified)

    def _ensure_marker(self, title):
        if "[*]" not in title:
            base = title or "nsgui"
            self.window.setWindowTitle(base + "[*]")

    # -- closing and losing changes --------------------------------------------------------------
    def eventFilter(self, obj, ev):  # noqa: N802
        if obj is self.window and ev.type() == QEvent.Close:
            if not self.confirm_discard():
                ev.ignore()
                return True
            # the user has decided: later "unsaved changes?" checks in the window must not ask again
            self.document.undo_stack.setClean()
            self.autosave.stop()
        return False

    def confirm_discard(self) -> bool:
        """Ask before the current scene's unsaved changes are lost; True if it is fine to go on."""
        if not self.document.modified:
            return True
        answer = self.ask_save_changes()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def _ask_save_changes(self):
        if os.environ.get("NSGUI_TEST"):  # no modal questions in automated runs
            return "discard"
        name = os.path.basename(self.document.path) if self.document.path else "the new scene"
        b = QMessageBox.question(self.window, "Unsaved changes", f"Save the changes to {name}?",
                                 QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(b, "cancel")

    def _ask_confirm(self, title, text):
        if os.environ.get("NSGUI_TEST"):
            return True
        return QMessageBox.question(self.window, title, text) == QMessageBox.Yes

    def _ask_open_path(self):
        path, _ = QFileDialog.getOpenFileName(self.window, "Open scene", self._start_dir(), SCENE_FILTER)
        return path or None

    def _ask_save_path(self):
        path, _ = QFileDialog.getSaveFileName(self.window, "Save scene as", self._start_dir(), SCENE_FILTER)
        if path and not os.path.splitext(path)[1]:
            path += ".json"
        return path or None

    def _show_error(self, title, text):
        if os.environ.get("NSGUI_TEST"):
            self.widget.show_hint(f"{title}: {text}")
            return
        QMessageBox.critical(self.window, title, text)

    def _start_dir(self):
        return os.path.dirname(self.document.path) if self.document.path else os.getcwd()

    # -- files -----------------------------------------------------------------------------------
    def new_scene(self):
        if self.confirm_discard():
            self.document.new()

    def new_from_template(self, name, params=None):
        """Start a new scene from a template; `params` skips the dialog (scripts and tests)."""
        if params is None:
            dlg = TemplateDialog(name, self.window)
            if dlg.exec() != TemplateDialog.Accepted:
                return False
            params = dlg.values()
        if not self.confirm_discard():
            return False
        self.document.set_scene(make_template(name, **params), None)
        self.window.tabs.setCurrentWidget(self.widget)
        return True

    def open_file(self, path=None):
        if not self.confirm_discard():
            return False
        path = path or self.ask_open_path()
        if not path:
            return False
        from nsgui.scene import SceneError
        try:
            self.document.load(path)
        except SceneError as e:
            self.show_error("Cannot open the scene", f"{path}:\n" + str(e))
            return False
        return True

    def save(self) -> bool:
        if not self.document.path:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        path = self.ask_save_path()
        return bool(path) and self._save_to(path)

    def _save_to(self, path) -> bool:
        try:
            self.document.save(path)
        except Exception as e:  # disk full, permissions, ...: the old file is intact (atomic write)
            self.show_error("Cannot save the scene", f"{path}:\n{e}")
            return False
        return True

    # -- recovery --------------------------------------------------------------------------------
    def offer_recovery(self) -> bool:
        """If an earlier session crashed with unsaved changes, offer to recover them."""
        recs = find_recoveries(self.autosave.directory)
        if not recs:
            return False
        rec = recs[0]
        if self.ask_confirm("Recover unsaved changes?",
                            f"nsgui did not close properly. Recover {rec.describe()}?"):
            try:
                recover_into(self.document, rec)
            except Exception as e:
                self.show_error("Cannot recover", str(e))
                return False
            for other in recs[1:]:
                other.discard()
            return True
        for r in recs:
            r.discard()
        return False

    # -- running ---------------------------------------------------------------------------------
    def set_running(self, running: bool):
        self.widget.set_read_only(running)
        for a in self.edit_actions + [self.undo_action, self.redo_action]:
            a.setEnabled(not running)
        if not running:  # the undo actions track the stack again
            self.undo_action.setEnabled(self.document.undo_stack.canUndo())
            self.redo_action.setEnabled(self.document.undo_stack.canRedo())

    def check_can_run(self):
        """(ok, message): Play is refused with the reasons while the scene has errors."""
        problems = self.document.problems()
        if not problems:
            return True, ""
        return False, "The scene cannot run:\n" + "\n".join(str(p) for p in problems)

    # -- edit menu -------------------------------------------------------------------------------
    def _editing(self) -> bool:
        running = getattr(self.window, "is_running", None)
        return not (running is not None and running())

    def _show_editor(self):
        """Edit-menu commands act on the editor's selection: show it."""
        self.window.tabs.setCurrentWidget(self.widget)

    def select_all(self):
        self._show_editor()
        self.canvas.select_all()

    def copy(self):
        self._show_editor()
        sel = set(self.canvas.selection)
        if sel:
            self.clipboard = ops.extract(self.document.scene, sel)

    def paste(self):
        if self.clipboard is None or not self._editing():
            return
        frag = self.clipboard
        out = {}

        def run(s):
            out["refs"] = ops.paste(s, frag)
        edit(self.document, "Paste", run)
        self.canvas.set_selection(out["refs"])

    def duplicate(self):
        self.copy()
        self.paste()

    def cut(self):
        self.copy()
        self.delete_selection()

    def delete_selection(self) -> bool:
        refs = [r for r in self.canvas.selection]
        if not refs or not self._editing():
            return False
        self._show_editor()
        deps = ops.dependants(self.document.scene, set(refs))
        listed = [f"{kind}s: {', '.join(names)}" for kind, names in deps.items() if names]
        # a body's own free joint goes silently; anything else is asked about
        free = {j.name for j in self.document.scene.joints if j.type == "free"}
        asked = [x for x in listed if not (x.startswith("joints:") and
                                           set(x[len("joints: "):].split(", ")) <= free)]
        if asked:
            what = ", ".join(n for k, n in refs)
            if not self.ask_confirm("Delete", f"Deleting {what} also removes what depends on it:\n"
                                    + "\n".join(asked) + "\n\nDelete?"):
                return False
        try:
            edit(self.document, "Delete", lambda s: ops.remove_items(s, set(refs)))
        except EditRefused as e:
            self.widget.show_hint(str(e))
            return False
        self.canvas.set_selection([])
        return True


def attach_editor(window) -> EditorController:
    """Called by the main window at the end of its construction."""
    controller = EditorController(window)
    window.editor = controller
    from PySide6.QtCore import QTimer
    QTimer.singleShot(0, controller.offer_recovery)
    return controller
