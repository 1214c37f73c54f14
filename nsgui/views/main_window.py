"""The main window: 3D view in the central tabs, dockable scene tree / signals / plots / events /
messages panels, the transport bar (play, step, reset, resume, history slider, speed), menus,
status bar, remembered layout and recent files."""

from __future__ import annotations

import gc

import copy
import os
import time

from PySide6.QtCore import QEvent, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QComboBox, QDockWidget, QFileDialog, QLabel, QTabBar,
                               QMainWindow, QMessageBox, QSlider, QTabWidget, QToolBar)

from nsgui import startup
from nsgui.engine import codes
from nsgui.examples import default_scene, example_path, example_names, scenes_dir
from nsgui.views import frame_budget
from nsgui.views.code_consent import CodeConsent
from nsgui.views.document import SceneDocument
from nsgui.views.panels import EventsPanel, MessagesPanel, SignalTree
from nsgui.views import event_loop_gc
from nsgui.views.plots import PlotPanel
from nsgui.views.readouts import ControllerReadouts
from nsgui.views.scene_tree import SceneTree
from nsgui.views.sim_controller import SimulationController
from nsgui.views.view3d import View3D

SCENES_DIR = str(scenes_dir())  # the example scenes, in the checkout or the installed package
DEFAULT_SCENE = str(default_scene())
MAX_RECENT = 10
EVENTS_DOCK_HEIGHT = 180  # px at the default window size: header, five rows, the dock tabs
STATUS_INTERVAL = 0.25  # seconds between status/slider updates while running
SPEEDS = [("×0.01", 0.01), ("×0.1", 0.1), ("×0.25", 0.25), ("×0.5", 0.5), ("×1 real time", 1.0),
          ("×2", 2.0), ("×5", 5.0), ("×10", 10.0), ("×100", 100.0), ("as fast as possible", None)]

SHORTCUTS_HELP = """<table>
<tr><td><b>Space</b></td><td>play / pause</td></tr>
<tr><td><b>→</b></td><td>one step forward (through the history, then simulating)</td></tr>
<tr><td><b>←</b></td><td>one step back through the history</td></tr>
<tr><td><b>Backspace</b></td><td>reset to the initial state (uses the edited scene)</td></tr>
<tr><td><b>Ctrl+R</b></td><td>resume from here (new branch from the displayed time)</td></tr>
<tr><td><b>Ctrl+O / Ctrl+S / Ctrl+Q</b></td><td>open / save / quit</td></tr>
<tr><td><b>Double-click a plot</b></td><td>move the time cursor there</td></tr>
<tr><td><b>Click an event, or ↑ ↓ in the Events list</b></td><td>jump to its time</td></tr>
<tr><td><b>3D view</b></td><td>drag: orbit · shift+drag: pan · wheel: zoom</td></tr>
</table>"""


def freeze_survivors(phase, info):
    """(gc callback) After a full collection, what survived it is moved out of later scans. A run's
    history keeps Python objects (events, resume points: thousands a second flat out) that every
    full collection scanned again: 35-50 ms after 6 s of a fast walker, growing with the run.
    Cyclic garbage made afterwards is still collected; the window unfreezes all when it closes."""
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


class MainWindow(QMainWindow):
    runningChanged = Signal(bool)

    def __init__(self, simulator_factory=None, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("MainWindow")
        event_loop_gc.install(QApplication.instance())  # no collection inside Qt's locked calls
        # (a child timer, not QTimer.singleShot with a bound method: that call keeps the window
        # alive until it fires, and fires on a window already deleted)
        self._tab_bars_timer = QTimer(self, singleShot=True, interval=0)
        self._tab_bars_timer.timeout.connect(self._hide_stale_tab_bars)
        self.settings = settings or QSettings("nsgui", "nsgui")
        self.document = SceneDocument()
        self.controller = SimulationController(simulator_factory, self)
        self.controller.runningChanged.connect(self.runningChanged)
        self.controller.message.connect(self.post)
        self._scene_obj = self.document.scene
        self._model_scene_dict = None  # the scene the running model was compiled from
        self.code_consent = CodeConsent()  # answers to "run this scene's Python code?" (per file + hash)
        self._ask_code = True  # False while opening a scene: the question waits for the first run
        self.code_waiting = None  # the user code of the open scene that waits for a question (CodeRefused)
        self.menus = {}
        self._last_update = {}

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.view3d = View3D(self.controller)
        self.tabs.addTab(self.view3d, "3D view")
        from nsgui.views.gait_panel import GaitPanel
        self.gait_panel = GaitPanel(self._scene_for_analysis)
        self.tabs.addTab(self.gait_panel, "Gait analysis")
        self.setCentralWidget(self.tabs)

        self.messages = MessagesPanel()
        self.plots = PlotPanel(self.controller)
        self.signal_tree = SignalTree(self.controller, self.plots)
        self.events = EventsPanel(self.controller)
        self.readouts = ControllerReadouts(self.controller)
        self.scene_tree = SceneTree(self.document)
        self.scene_tree.message = self.post
        self.docks = {}
        self._add_dock("Scene", self.scene_tree, Qt.LeftDockWidgetArea)
        self._add_dock("Signals", self.signal_tree, Qt.LeftDockWidgetArea)
        self._add_dock("Plots", self.plots, Qt.RightDockWidgetArea)
        self._add_dock("Events", self.events, Qt.BottomDockWidgetArea)
        self._add_dock("Messages", self.messages, Qt.BottomDockWidgetArea)
        self._add_dock("Controllers", self.readouts, Qt.BottomDockWidgetArea)
        self.tabifyDockWidget(self.docks["Scene"], self.docks["Signals"])
        self.docks["Scene"].raise_()
        self.tabifyDockWidget(self.docks["Events"], self.docks["Messages"])
        self.tabifyDockWidget(self.docks["Messages"], self.docks["Controllers"])
        self.docks["Events"].raise_()
        # at the default size the central tabs keep room for the editor's canvas beside its
        # inspector, and the Events list shows several rows
        self.resizeDocks([self.docks["Plots"]], [470], Qt.Horizontal)
        self.resizeDocks([self.docks["Scene"]], [240], Qt.Horizontal)
        self.resizeDocks([self.docks["Events"]], [EVENTS_DOCK_HEIGHT], Qt.Vertical)

        self._make_actions()
        self._make_transport()
        self._make_menus()
        self._make_status()
        self._default_state = self.saveState()

        self.document.changed.connect(self._document_changed)
        self.document.modifiedChanged.connect(self._update_title)
        self.document.pathChanged.connect(self._update_title)
        self.document.fileUsed.connect(self._add_recent)  # opened or saved, by the window or the editor
        self.controller.historyAppended.connect(self._history_grew)
        self.controller.historyReset.connect(self._history_grew)
        self.controller.historyReset.connect(self._show_readouts)
        self._readouts_for = None  # the scene whose controllers' readouts were brought forward
        self.controller.cursorChanged.connect(self._cursor_moved)
        self.controller.statsChanged.connect(self._update_status)
        self.controller.runningChanged.connect(self._running_changed)
        self.controller.branchChanged.connect(self._branch_changed)
        self.resize(1500, 920)
        self._restore_settings()
        self._update_title()
        self._running_changed(False)
        try:
            from nsgui.views.editor.integration import attach_editor
        except ImportError:
            attach_editor = None
        if attach_editor is not None:
            try:
                attach_editor(self)
            except Exception as exc:  # the editor must not keep the window from opening
                self.post("error", f"the scene editor could not be attached: {exc}")
        # Python's full garbage collection scans every tracked object: with Qt, vispy and pyqtgraph
        # loaded that took 30-110 ms, a visible stall whenever it fell during a run. The objects
        # alive now (modules, widgets, shaders) live as long as the window: move them out of the
        # collector's scans (collected first, so no garbage is kept). Run as the program, nsgui
        # starts with the collector paused and freezes them once the scene is open (no full
        # collection before the first paint).
        if not startup.paused():
            gc.collect()
            gc.freeze()
        if freeze_survivors not in gc.callbacks:
            gc.callbacks.append(freeze_survivors)

    # ------------------------------------------------------------------ construction
    def _restore_layout(self, state):
        ok = self.restoreState(state)
        self._tab_bars_timer.start()
        return ok

    def showEvent(self, ev):
        super().showEvent(ev)
        self._tab_bars_timer.start()

    def _hide_stale_tab_bars(self):
        """Qt 6.12 leaves the old tab bar of a tabified dock group visible where the group used to be
        after its layout is rebuilt (restoreState, a dock added beside it, a dock raised): hide tab
        bars that are not next to their docks, and those whose tabs are only part of another bar's
        (the group before a dock joined it)."""
        bars = self.findChildren(QTabBar, options=Qt.FindDirectChildrenOnly)
        titles = {bar: {bar.tabText(i) for i in range(bar.count())} for bar in bars}
        for bar in bars:
            if bar.isVisible() and any(o is not bar and o.isVisible() and titles[bar] < titles[o] for o in bars):
                bar.hide()
                continue
            docks = [self.docks[t] for t in titles[bar] if t in self.docks]
            shown = [d for d in docks if d.isVisible() and not d.visibleRegion().isEmpty()]
            if not shown:
                continue
            g, b = shown[0].geometry(), bar.geometry()
            if abs(b.top() - g.bottom()) > 4 and abs(b.bottom() - g.top()) > 4:
                bar.hide()

    def _add_dock(self, title, widget, area):
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[title] = dock
        return dock

    def _action(self, text, slot, shortcut=None, tip=None, checkable=False):
        a = QAction(text, self)
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.WindowShortcut)
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.setCheckable(checkable)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _make_actions(self):
        A = self._action
        self.act_open = A("&Open…", self.open_dialog, QKeySequence.Open)
        self.act_save = A("&Save", self.save, QKeySequence.Save)
        self.act_save_as = A("Save &As…", self.save_as, QKeySequence.SaveAs)
        self.act_quit = A("&Quit", self.close, QKeySequence.Quit)
        self.act_play = A("Play", self.toggle_play, Qt.Key_Space, "Play / pause (Space)")
        self.act_step = A("Step", self.controller_step, Qt.Key_Right,
                          "One step forward (→): through the history, then simulating")
        self.act_back = A("Step back", self.controller.step_back, Qt.Key_Left,
                          "One step back through the history (←)")
        self.act_reset = A("Reset", self.reset_simulation, Qt.Key_Backspace,
                           "Back to the initial state, with the edited scene (Backspace)")
        self.act_resume = A("Resume from here", self.resume_from_here, "Ctrl+R",
                            "Continue from the displayed time with the edited scene (a new branch)")
        self.act_replay = A("Replay", self.controller.replay, None,
                            "Play the recorded history back at the chosen speed")
        self.act_discard = A("Discard previous branch", self.controller.discard_previous, None,
                             "Forget the run that was replaced by Resume from here")
        self.act_trails = A("Trails", lambda on: self.view3d.set_trails(on), None,
                            "Show the recent paths of the chosen points (View ▸ Trail points…; by default each body’s origin)", checkable=True)

    def _make_transport(self):
        bar = QToolBar("Simulation")
        bar.setObjectName("toolbar_simulation")
        bar.setIconSize(QSize(16, 16))
        bar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        for a in (self.act_play, self.act_back, self.act_step, self.act_reset, self.act_resume,
                  self.act_replay):
            bar.addAction(a)
        bar.addSeparator()
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setToolTip("Scrub through the recorded history")
        self.slider.setMinimumWidth(300)
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self._slider_moved)
        bar.addWidget(self.slider)
        self.time_label = QLabel(" t = 0.000 s ")
        self.time_label.setMinimumWidth(150)
        bar.addWidget(self.time_label)
        bar.addWidget(QLabel(" speed "))
        self.speed_combo = QComboBox()
        self.speed_combo.setToolTip("Real-time factor of the simulation and of the replay")
        for text, _v in SPEEDS:
            self.speed_combo.addItem(text)
        self.speed_combo.setCurrentIndex(4)
        self.speed_combo.currentIndexChanged.connect(lambda i: self.set_speed(SPEEDS[i][1]))
        self.speed_combo.setFocusPolicy(Qt.NoFocus)
        self.slider.setFocusPolicy(Qt.NoFocus)
        bar.addWidget(self.speed_combo)
        self.addToolBar(Qt.TopToolBarArea, bar)
        self.transport = bar

    def _make_menus(self):
        mb = self.menuBar()
        f = self.menus["File"] = mb.addMenu("&File")
        f.addAction(self.act_open)
        self.recent_menu = f.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        ex = f.addMenu("Open E&xample")
        for name in example_names():
            ex.addAction(name.replace("_", " "), lambda p=str(example_path(name)): self.open_scene(p))
        if ex.isEmpty():
            ex.addAction("(no examples found)").setEnabled(False)
        f.addSeparator()
        f.addAction(self.act_save)
        f.addAction(self.act_save_as)
        f.addSeparator()
        exp = f.addMenu("&Export")
        exp.addAction("Data as CSV…", lambda: self.export_data_dialog("csv"))
        exp.addAction("Data as HDF5…", lambda: self.export_data_dialog("hdf5"))
        exp.addSeparator()
        exp.addAction("Plot as PNG…", lambda: self.export_plot_dialog("png"))
        exp.addAction("Plot as SVG…", lambda: self.export_plot_dialog("svg"))
        exp.addSeparator()
        exp.addAction("Video (MP4 or GIF)…", self.export_video_dialog)
        f.addSeparator()
        f.addAction(self.act_quit)
        self.menus["Edit"] = mb.addMenu("&Edit")
        v = self.menus["View"] = mb.addMenu("&View")
        for dock in self.docks.values():
            v.addAction(dock.toggleViewAction())
        v.addAction(self.transport.toggleViewAction())
        v.addSeparator()
        v.addAction("New time plot", lambda: self.plots.add_time_plot("Plot", []))
        v.addAction("New phase portrait", lambda: self.plots.add_phase_plot())
        v.addSeparator()
        v.addAction("Reset camera", self.view3d.reset_camera)
        self.view3d.add_menu_actions(v, self.settings)
        v.addAction(self.act_trails)
        v.addAction("Trail points…", self.choose_trail_points)
        v.addSeparator()
        v.addAction("Gait analysis", lambda: self.tabs.setCurrentWidget(self.gait_panel))
        v.addSeparator()
        v.addAction("Reset layout", lambda: self._restore_layout(self._default_state))
        s = self.menus["Simulation"] = mb.addMenu("&Simulation")
        for a in (self.act_play, self.act_step, self.act_back, self.act_reset, self.act_resume,
                  self.act_replay, self.act_discard):
            s.addAction(a)
        sp = s.addMenu("Speed")
        for i, (text, _v) in enumerate(SPEEDS):
            sp.addAction(text, lambda i=i: self.speed_combo.setCurrentIndex(i))
        h = self.menus["Help"] = mb.addMenu("&Help")
        h.addAction("Keyboard shortcuts", self.show_shortcuts)
        h.addAction("About nsgui", self.show_about)

    def _make_status(self):
        sb = self.statusBar()
        self.status_labels = {}
        for key, width in (("time", 130), ("rtf", 120), ("sps", 130), ("contacts", 130)):
            lab = QLabel()
            lab.setMinimumWidth(width)
            sb.addPermanentWidget(lab)
            self.status_labels[key] = lab
        self._update_status({"sps": 0.0, "rtf": 0.0})

    # ------------------------------------------------------------------ messages
    def post(self, level, text):
        self.messages.post(level, text)
        if level in ("error", "warning"):
            self.statusBar().showMessage(text.splitlines()[0], 8000)
            if level == "error":
                self.docks["Messages"].raise_()

    def _scene_for_analysis(self):
        """The document's scene as a dict for the Gait analysis panel (ValueError naming a problem)."""
        from nsgui.scene import scene_to_dict
        problems = self.document.problems()
        if problems:
            raise ValueError(f"the scene has problems: {problems[0]}")
        return scene_to_dict(self.document.scene)

    def _refuse(self, title, reasons):
        text = f"{title}:\n" + "\n".join(f"• {r}" for r in reasons)
        self.post("error", text)
        box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self)
        box.setModal(False)
        box.show()
        self._last_box = box

    # ------------------------------------------------------------------ files
    def open_dialog(self):
        start = self.settings.value("last_dir", SCENES_DIR)
        path, _ = QFileDialog.getOpenFileName(self, "Open scene", start, "Scenes (*.json);;All files (*)")
        if path:
            self.open_scene(path)

    def open_scene(self, path):
        """Load a scene file and start a fresh (paused) run of it. Returns True on success."""
        if not self._confirm_discard():
            return False
        try:
            self.document.load(path)
        except Exception as exc:  # SceneError lists every problem; OSError names the file
            self._refuse(f"Cannot open {os.path.basename(path)}", str(exc).splitlines() or [repr(exc)])
            return False
        self.settings.setValue("last_dir", os.path.dirname(os.path.abspath(path)))
        self.post("info", f"opened {path}")
        return True

    def _confirm_discard(self):
        """Before the scene is replaced (open, close): Save / Discard / Cancel when it has unsaved
        changes. True when it is fine to go on (saved or discarded)."""
        editor = getattr(self, "editor", None)
        if editor is not None:  # one question for the whole window, asked by the editor
            return editor.confirm_discard()
        if not self.document.modified or os.environ.get("NSGUI_TEST"):
            return True
        ans = QMessageBox.question(self, "Unsaved changes", "The scene has unsaved changes. Save them?",
                                   QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if ans == QMessageBox.Save:
            return self.save()
        return ans == QMessageBox.Discard

    def save(self):
        """Save to the scene's file (asks for one if it has none). True when saved."""
        if not self.document.path:
            return self.save_as()
        return self._save_to(None)

    def save_as(self):
        start = self.document.path or os.path.join(self.settings.value("last_dir", os.getcwd()), "scene.json")
        path, _ = QFileDialog.getSaveFileName(self, "Save scene as", start, "Scenes (*.json)")
        if not path:
            return False
        if not path.endswith(".json"):
            path += ".json"
        return self._save_to(path)

    def _save_to(self, path):
        """Save to `path` (None: the scene's file). True when saved; a failure is reported."""
        try:
            path = self.document.save(path)
            self.post("info", f"saved {path}")
            return True
        except Exception as exc:
            self._refuse("Cannot save", [str(exc)])
            return False

    def _recent(self):
        val = self.settings.value("recent_files", [])
        if isinstance(val, str):
            val = [val]
        return [p for p in (val or []) if p]

    def _add_recent(self, path):
        files = [path] + [p for p in self._recent() if p != path]
        self.settings.setValue("recent_files", files[:MAX_RECENT])

    def _fill_recent(self):
        self.recent_menu.clear()
        for p in self._recent():
            self.recent_menu.addAction(p, lambda p=p: self.open_scene(p))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # ------------------------------------------------------------------ document → simulation
    def _document_changed(self):
        new_document = self.document.scene is not self._scene_obj and self.document.undo_stack.count() == 0
        self._scene_obj = self.document.scene
        if new_document:
            if self.controller.previous is not None:  # even if the new scene cannot run yet
                self.controller.discard_previous()
            self.gait_panel.clear()  # its results were another scene's
            self._ask_code = False  # opening runs no code: Play asks
            try:
                self.reset_simulation()
            finally:
                self._ask_code = True
        self._update_title()
        self._update_edit_hint()

    def _scene_edited_since_compile(self):
        from nsgui.scene import scene_to_dict
        try:
            return scene_to_dict(self.document.scene) != self._model_scene_dict
        except Exception:
            return True

    def _update_edit_hint(self):
        if self.controller.model is not None and self._scene_edited_since_compile():
            self.statusBar().showMessage("Scene edited: Play continues the run with the changes; Reset starts "
                                         "it from t = 0", 10000)

    def _compile(self, action):
        problems = self.document.problems()
        if problems:
            self._refuse(f"Cannot {action}: the scene has problems", [str(p) for p in problems])
            return None
        from nsgui.engine import compile_scene
        from nsgui.engine.control.python_block import CodeRefused
        scene = copy.deepcopy(self.document.scene)
        path = self.document.path
        self.code_consent.prepare(path)
        self.code_waiting = None
        while True:
            try:
                return compile_scene(scene)
            except CodeRefused as exc:  # user code: ask once per file and content
                if self.code_consent.decide(self, exc, path, ask=self._ask_code):
                    continue
                if self._ask_code or (exc.path, exc.digest) in self.code_consent.answers:
                    self._refuse(f"Cannot {action}", [f"{exc.where}: you chose not to run the Python code "
                                                      f"of {exc.path}"])
                else:
                    self.code_waiting = exc
                    self.post("info", f"This scene's controller {exc.where} is Python code ({exc.path}): "
                                      "Play asks before running it.")
                return None
            except Exception as exc:
                lines = str(exc).splitlines() or [repr(exc)]
                tb = getattr(exc, "user_traceback", "")  # importing the user's module raised
                self._refuse(f"Cannot {action}", lines + ([tb.rstrip()] if tb else []))
                return None

    def _adopt(self, model):
        """The run now uses `model`: later edits are compared with its scene."""
        from nsgui.scene import scene_to_dict
        self._model_scene_dict = scene_to_dict(model.scene)
        if self.statusBar().currentMessage().startswith("Scene edited"):
            self.statusBar().clearMessage()  # the edits are in use now

    def reset_simulation(self):
        """Back to t = 0 with the document's current scene (recompiled). Returns True if started."""
        model = self._compile("start the simulation")
        return model is not None and self._start(model)

    def _start(self, model):
        """A fresh run of `model` from t = 0."""
        self.controller.load_model(model, running=False)
        self._adopt(model)
        self.view3d.set_model(model)
        if self.controller.recorder is None:
            self.statusBar().showMessage("Preparing the simulation… (the very first run after "
                                         "installing compiles the engine, up to a minute)", 4000)
        return True

    def resume_from_here(self):
        """Continue from the displayed time with the edited scene: a new branch of the run."""
        if self.controller.model is None:
            return self.reset_simulation()
        model = self._compile("resume")
        if model is None:
            return False
        why = self._continue_with(model)
        if why:  # refused before anything changed
            self._refuse("Cannot resume from here", [why, "Reset starts the edited scene from t = 0"])
            return False
        return True

    def _continue_with(self, model):
        """Continue the run from the displayed time with `model` (a new branch). Returns the reason
        it cannot (nothing has changed then), or None."""
        from nsgui.engine.branching import describe_carry_over
        c = self.controller
        source = c.model
        snap = c.recorder.snapshot_at_or_before(c.cursor_time) if c.recorder is not None else None
        why = c.resume_from(model, c.cursor_time)
        if why:
            return why
        self._adopt(model)  # the 3D view follows when the new branch's first rows arrive
        changes = describe_carry_over(source, model)
        self.post("info", f"resumed from t = {snap.t:.4f} s with the edited scene (new branch; the "
                          "previous run is drawn dashed until discarded)" + (f": {changes}" if changes else ""))
        return None

    def _run_what_is_shown(self, action):
        """Before Play or a simulated Step: the run must be of the scene as the user sees it. An edit
        made before the run has gone anywhere (File ▸ New then the editor; the cursor back at the
        start) starts it afresh; an edit made in the middle of a run continues it from the displayed
        time (as Resume from here), or, when the run cannot go on with it, starts the edited scene
        from t = 0, saying why. Returns False if nothing can run."""
        c = self.controller
        if c.model is not None and not self._scene_edited_since_compile():
            return True
        model = self._compile(action)
        if model is None:
            return False
        rec = c.recorder
        if c.model is None or rec is None or len(rec) <= 1 or c.cursor == 0:
            return self._start(model)
        t = c.cursor_time
        why = self._continue_with(model)
        if why:
            self.post("warning", f"the edited scene cannot continue the run at t = {t:.4f} s ({why}): "
                                 "it starts from t = 0")
            return self._start(model)
        return True

    def is_running(self):
        return self.controller.running

    def toggle_play(self):
        if self.controller.running or self.controller.replaying:
            self.controller.pause()
        else:
            self.play()

    def play(self):
        problems = self.document.problems()
        if problems:
            self._refuse("Cannot play: the scene has problems", [str(p) for p in problems])
            return False
        if not self._run_what_is_shown("play"):
            return False
        self.controller.play()
        return True

    def controller_step(self):
        c = self.controller
        at_newest = c.recorder is None or c.cursor >= len(c.recorder) - 1
        if (c.model is None or (at_newest and not c.running)) and not self._run_what_is_shown("step"):
            return
        c.step_forward()

    def set_speed(self, factor):
        self.controller.set_speed(factor)

    # ------------------------------------------------------------------ view updates
    def event(self, ev):
        """Measure how long a repaint of the window takes and pace the display ticks by it: with an
        OpenGL view inside, each repaint recomposes the whole window (slow with software OpenGL),
        so the ticks leave the event loop idle at least two thirds of the time."""
        if ev.type() != QEvent.UpdateRequest:
            return super().event(ev)
        t0 = time.perf_counter()
        result = super().event(ev)
        cost = time.perf_counter() - t0
        self.repaint_cost = 0.8 * self.repaint_cost + 0.2 * cost
        self.controller.set_display_interval(frame_budget.interval("tick", self.repaint_cost,
                                                                   self.controller.flat_out))
        return result

    repaint_cost = 0.0

    def _throttled(self, key, interval=STATUS_INTERVAL):
        """While running, small widgets (slider, labels) are updated a few times a second only:
        with an OpenGL view in the window, every repaint recomposes the whole window."""
        if not self.controller.running:
            return False
        now = time.perf_counter()
        last = self._last_update.get(key, 0.0)
        if now - last < interval:
            return True
        self._last_update[key] = now
        return False

    def _show_readouts(self):
        """A scene with controller signals brings its readouts forward once (the user may then
        choose another tab)."""
        m = self.controller.model
        key = getattr(getattr(m, "scene", None), "name", None)
        if self.readouts.topLevelItemCount() and key != self._readouts_for:
            self.docks["Controllers"].raise_()
            self._tab_bars_timer.start()  # (raising re-lays the tab group out)
        self._readouts_for = key

    def _history_grew(self):
        if self._throttled("slider"):
            return
        rec = self.controller.recorder
        n = len(rec) if rec is not None else 0
        if n > 1 and self.statusBar().currentMessage().startswith("Preparing the simulation"):
            self.statusBar().clearMessage()  # the engine is ready: the hint is stale
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(n - 1, 0))
        self.slider.setValue(self.controller.cursor)
        self.slider.blockSignals(False)

    def _cursor_moved(self, row):
        if self._throttled("cursor"):
            return
        self.slider.blockSignals(True)
        self.slider.setValue(row)
        self.slider.blockSignals(False)
        self._update_status(self.controller.stats)

    def _slider_moved(self, value):
        self.controller.seek_row(value)

    def _running_changed(self, running):
        if not running:  # show the final state at once
            self._history_grew()
            self._cursor_moved(self.controller.cursor)
        self.act_play.setText("Pause" if running else "Play")
        self.act_resume.setEnabled(not running)

    def _branch_changed(self):
        self.act_discard.setEnabled(self.controller.previous is not None)

    def _update_status(self, stats):
        if self._throttled("status"):
            return
        c = self.controller
        L = self.status_labels
        L["time"].setText(f"t = {c.cursor_time:.4f} s")
        self.time_label.setText(f" t = {c.cursor_time:.3f} s" + ("" if c.following else "  (history)"))
        running = c.running
        L["rtf"].setText(f"real time ×{stats.get('rtf', 0):.2f}" if running else "paused")
        L["sps"].setText(f"{stats.get('sps', 0):,.0f} steps/s" if running else "")
        L["contacts"].setText(f"contacts active: {self._active_contacts()}")

    def _active_contacts(self):
        c = self.controller
        rec = c.recorder
        if rec is None or not len(rec):
            return 0
        cols = getattr(self, "_status_cols", None)
        if cols is None or cols[0] is not rec:
            idx = [i for i, n in enumerate(rec.names) if n.startswith("contact.") and n.endswith(".status")]
            self._status_cols = cols = (rec, idx)
        row = rec.row(c.cursor)
        return int(sum(1 for i in cols[1] if row[i] != codes.OPEN))

    def _update_title(self):
        name = self.document.scene.name or "untitled"
        path = self.document.path
        self.setWindowTitle(f"{name} — {os.path.basename(path) if path else 'unsaved'}[*] — nsgui")
        self.setWindowModified(bool(self.document.modified))

    # ------------------------------------------------------------------ exports
    def export_data_dialog(self, fmt):
        from nsgui.views import exports
        if not self._has_history():
            return
        ext = {"csv": "CSV (*.csv)", "hdf5": "HDF5 (*.h5 *.hdf5)"}[fmt]
        path, _ = QFileDialog.getSaveFileName(self, "Export data", self._export_name(fmt if fmt == "csv" else "h5"), ext)
        if path:
            # The writer thread reads the (paused) history itself in row chunks: no copy of a long
            # history on the GUI thread. A Recorder only ever appends rows, so reading the rows it
            # holds now stays valid even if a run is started while the export goes on.
            signals, attrs = self.controller.recorder, self._export_attrs()
            self.settings.setValue("last_export_dir", os.path.dirname(os.path.abspath(path)))
            exports.run_with_progress(self, "Exporting data", lambda progress: exports.export_data(
                signals, path, fmt, attrs=attrs, progress=progress), threaded=True)

    def export_plot_dialog(self, fmt):
        from nsgui.views import exports
        cards = self.plots.cards
        if not cards:
            self._refuse("Nothing to export", ["there is no plot open"])
            return
        titles = [c.title for c in cards]
        current = cards.index(self.plots.current) if self.plots.current in cards else 0
        dlg = exports.PlotImageDialog(self, self.settings, titles, current)
        if not dlg.exec():
            return
        card, options = cards[dlg.plot.currentIndex()], dlg.options()
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", self._export_name(fmt, card.title),
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            self.settings.setValue("last_export_dir", os.path.dirname(os.path.abspath(path)))
            try:
                exports.export_plot(card, path, options)
                self.post("info", f"wrote {path}")
            except Exception as exc:
                self._refuse("Export failed", [str(exc)])

    def export_video_dialog(self):
        from nsgui.views import exports
        if not self._has_history():
            return
        dlg = exports.VideoOptionsDialog(self, self.controller, self.view3d.view_size())
        if not dlg.exec():
            return
        opts = dlg.options()
        path, _ = QFileDialog.getSaveFileName(self, "Export video", self._export_name(opts["format"]),
                                              "Video (*.mp4 *.gif)")
        if path:
            self.settings.setValue("last_export_dir", os.path.dirname(os.path.abspath(path)))
            exports.run_with_progress(self, "Exporting video", lambda progress: exports.export_video(
                self.view3d, self.controller, path, fps=opts["fps"], speed=opts["speed"],
                t0=opts["t0"], t1=opts["t1"], progress=progress, size=opts["size"]))

    def _has_history(self):
        if self.controller.recorder is None or not len(self.controller.recorder):
            self._refuse("Nothing to export", ["run the simulation first"])
            return False
        self.controller.pause()
        self.controller.flush()
        return True

    def _export_name(self, ext, suffix=""):
        base = os.path.splitext(os.path.basename(self.document.path or "scene.json"))[0]
        if suffix:
            base += "_" + "".join(ch if ch.isalnum() else "_" for ch in suffix.lower())
        return os.path.join(self.settings.value("last_export_dir", os.getcwd()), f"{base}.{ext}")

    def _export_attrs(self):
        from nsgui.scene import dumps_scene
        return {"scene": dumps_scene(self.document.scene), "source": "nsgui"}

    def choose_trail_points(self):
        from nsgui.views.trail_dialog import TrailPointsDialog
        self.trail_dialog = TrailPointsDialog(self.view3d, self.act_trails, self)
        self.trail_dialog.open()

    # ------------------------------------------------------------------ help
    def show_shortcuts(self):
        box = QMessageBox(QMessageBox.Information, "Keyboard shortcuts", SHORTCUTS_HELP, QMessageBox.Ok, self)
        box.setModal(False)
        box.show()
        self._last_box = box

    def show_about(self):
        from nsgui import __version__
        QMessageBox.about(self, "About nsgui",
                          f"<b>nsgui {__version__}</b><p>Planar mechanisms with contacts, impacts and "
                          "Coulomb friction, simulated by Moreau–Jean time stepping, with live plots, "
                          "a 3D view and a scrubbable history.</p>"
                          f"<p>3D view: {self.view3d.renderer()}</p>")

    # ------------------------------------------------------------------ settings, closing
    def _restore_settings(self):
        geo = self.settings.value("geometry")
        state = self.settings.value("window_state")
        if geo is not None:
            self.restoreGeometry(geo)
        if state is not None:
            self._restore_layout(state)

    def save_settings(self):
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("window_state", self.saveState())
        self.settings.sync()

    def closeEvent(self, event):
        if not self._confirm_discard():
            event.ignore()
            return
        self.save_settings()
        self.gait_panel.stop()
        self.controller.shutdown()
        if freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()  # what was frozen with this window can be collected again
        super().closeEvent(event)
