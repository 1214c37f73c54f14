"""`nsgui [SCENE] [--run-for T] [--screenshot FILE.png]`: the desktop app (options parsed in __main__.py)."""

from __future__ import annotations

import os
import sys
import time

from nsgui import startup

NO_DISPLAY = """nsgui: no display found (DISPLAY / WAYLAND_DISPLAY are not set), so the window cannot open.
  - Run a scene without a window:      nsgui run SCENE.json --duration 5 --out run.csv
  - Or open the window in a virtual display:
        xvfb-run -a -s "-screen 0 1600x1000x24" nsgui SCENE.json
"""


def display_available():
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal", "vnc", "eglfs"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _save_screenshot(window, path):
    from PySide6.QtWidgets import QApplication
    QApplication.processEvents()
    display = getattr(window.view3d, "display", None)
    if display is not None and hasattr(display, "render_now") and display.isVisible():
        display.render_now()  # the last state at full resolution (live frames may be reduced)
    QApplication.processEvents()
    image = window.grab().toImage()
    from nsgui.atomic import atomic_write
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)

    def write(tmp):
        if not image.save(tmp):  # the format follows the name: the temporary keeps the extension
            raise OSError(f"cannot write the screenshot {path}")
    atomic_write(path, write, suffix=os.path.splitext(path)[1] or ".png")


def _echo_error(level, text):
    if level == "error":
        sys.stderr.write(f"nsgui: {text}\n")


def _leave_on_signals(app, window):
    """SIGTERM, SIGHUP and Ctrl-C end the event loop (no save question: unsaved edits stay in the
    recovery file, written now) so that gui_main's exit path runs: the simulation process is told
    to quit and the history's spill folder is removed. Exit status 128 + the signal's number.
    Python runs a signal handler only between bytecodes: a timer lets it in while Qt waits."""
    import signal

    from PySide6.QtCore import QTimer

    from nsgui.views.autosave import Autosave

    def leave(signum, frame):
        for autosave in window.findChildren(Autosave):
            autosave.tick()
        app.exit(128 + signum)

    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), leave)
    timer = QTimer()
    timer.timeout.connect(lambda: None)
    timer.start(200)
    return timer


FIRST_PAINT_WAIT_MS = 1000  # a window that is never exposed (another desktop) opens its scene anyway


def _after_paint(window, callback, wait_ms=None):
    """Call `callback` once, after the window's next paint is on the screen (or after `wait_ms`)."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    def fire():
        if watcher.pending:
            watcher.pending = False
            window.removeEventFilter(watcher)
            callback()

    class PaintWatcher(QObject):
        pending = True

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Paint:
                QTimer.singleShot(0, fire)  # once this paint and its children's are flushed
            return False

    watcher = PaintWatcher(window)
    window.installEventFilter(watcher)
    if wait_ms is not None:
        QTimer.singleShot(wait_ms, fire)


class _StartupProbe:
    """For benchmarks/startup.py (NSGUI_STARTUP_PROBE set): prints "nsgui: first paint" once the
    window's first paint is on the screen, "nsgui: scene shown" once a paint shows the opened scene
    (each with the CPU time of the process so far), then leaves."""

    def __init__(self, window):
        self.window = window
        self.painted = False
        _after_paint(window, self._first_paint)

    def _first_paint(self):
        if not self.painted:
            self.painted = True
            self._say("nsgui: first paint")

    def opened(self):
        def shown():
            self._first_paint()  # the paint that shows the scene may be the first one
            self._say("nsgui: scene shown", leave=True)
        _after_paint(self.window, shown)
        self.window.update()

    def _say(self, text, leave=False):
        sys.stdout.write(f"{text} (cpu {time.process_time():.3f} s)\n")
        sys.stdout.flush()
        if leave:
            self.window.controller.shutdown()
            os._exit(0)


def _run_unattended(app, window, args, exit_code):
    """--run-for T: run T s of simulated time; --screenshot FILE: then save the window and quit."""
    from PySide6.QtCore import QTimer
    ctrl = window.controller
    ctrl.set_speed(args.speed)
    if args.run_for:
        ctrl.run_until(args.run_for)
    started = time.perf_counter()

    def poll():
        finished = not ctrl.runner.busy
        if not finished and time.perf_counter() - started < 900:
            return
        timer.stop()
        ctrl.flush()
        if not finished:
            window.post("error", "--run-for: gave up waiting after 900 s")
            exit_code["code"] = 1
        window.plots.refresh_all()
        QTimer.singleShot(400, finish)

    def finish():
        window.view3d.show_row()
        if args.screenshot:
            try:
                _save_screenshot(window, args.screenshot)
                print(f"screenshot written to {args.screenshot} (t = {ctrl.cursor_time:.3f} s)")
            except OSError as exc:
                sys.stderr.write(f"nsgui: {exc}\n")
                exit_code["code"] = 1
            window.close()
            app.quit()

    timer = QTimer(window)
    timer.timeout.connect(poll)
    timer.start(50)


def _import_before_qt():
    """Import the 3D view's Qt-free library before PySide6: once loaded, PySide6 reads the source of
    every module imported after it (its __feature__ import hook), which made vispy's import slower."""
    try:
        import vispy.scene  # noqa: F401
    except Exception:  # the 3D view says what is wrong
        pass


def gui_main(args=None):
    """Open the window; `args` as parsed by nsgui.__main__ (or an argument list)."""
    if args is None or isinstance(args, (list, tuple)):
        from nsgui.__main__ import build_parser
        args = build_parser(with_commands=False).parse_args(list(sys.argv[1:] if args is None else args))
    if not display_available():
        sys.stderr.write(NO_DISPLAY)
        return 2
    from nsgui.scene import SceneError
    from nsgui.examples import default_scene, resolve_scene
    try:
        scene_path = str(default_scene()) if args.scene is None else resolve_scene(args.scene)
    except SceneError as exc:
        sys.stderr.write(f"nsgui: {exc}\n")
        return 2
    unattended = args.run_for is not None or args.screenshot

    from nsgui.runtime.history import remove_own_spill_dirs, remove_stale_spill_dirs
    remove_stale_spill_dirs()  # history folders of windows that were killed
    _import_before_qt()
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("nsgui")
    app.setOrganizationName("nsgui")
    from nsgui.views.main_window import MainWindow
    window = MainWindow()
    window.code_consent.allow_all = bool(getattr(args, "allow_code", False))
    signal_timer = _leave_on_signals(app, window)  # noqa: F841 (kept alive until exit)
    if unattended:  # the window may never be looked at: errors (a scene that cannot be opened) go to stderr too
        window.messages.posted.connect(_echo_error)
    window.show()
    exit_code = {"code": 0}

    def open_scene():
        loaded = window.open_scene(scene_path)
        startup.done()
        if probe is not None:
            probe.opened()
        if unattended:
            refused = window.code_waiting
            if loaded and window.controller.model is None and refused is not None:
                sys.stderr.write(f"nsgui: {refused.where}.module {refused.module!r} is Python code: pass "
                                 "--allow-code to run it (only for scenes you trust)\n")
                exit_code["code"] = 2
                app.exit(2)
            elif loaded:
                _run_unattended(app, window, args, exit_code)
            else:
                exit_code["code"] = 1
                app.exit(1)

    # the scene (and with it the engine, about a second) loads once the window is on the screen
    window.statusBar().showMessage(f"Opening {os.path.basename(scene_path)}…")
    _after_paint(window, open_scene, FIRST_PAINT_WAIT_MS)
    # installed last, so its watcher sees the first paint first (before the scene starts loading)
    probe = _StartupProbe(window) if os.environ.get("NSGUI_STARTUP_PROBE") else None
    code = app.exec()
    window.controller.shutdown()
    remove_own_spill_dirs()  # os._exit below skips atexit handlers
    code = exit_code["code"] or code
    # Leave without Python's finalizer: tearing down Qt, OpenGL and numba objects in arbitrary
    # order at interpreter exit can abort ("bool_dealloc") after everything was saved.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
