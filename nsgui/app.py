"""`nsgui [SCENE] [--run-for T] [--screenshot FILE.png]`: the desktop app (options parsed in __main__.py)."""

from __future__ import annotations

import os
import sys
import time

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
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    base, ext = os.path.splitext(os.path.basename(path))
    tmp = os.path.join(folder, f".{base}.tmp{ext or '.png'}")
    if not image.save(tmp):
        raise OSError(f"cannot write the screenshot {path}")
    os.replace(tmp, path)


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
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("nsgui")
    app.setOrganizationName("nsgui")
    from nsgui.views.main_window import MainWindow
    window = MainWindow()
    signal_timer = _leave_on_signals(app, window)  # noqa: F841 (kept alive until exit)
    if unattended:  # the window may never be looked at: errors (a scene that cannot be opened) go to stderr too
        window.messages.posted.connect(_echo_error)
    window.show()
    loaded = window.open_scene(scene_path)
    exit_code = {"code": 0}

    if unattended:
        if not loaded:
            return 1
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

        timer = QTimer()
        timer.timeout.connect(poll)
        timer.start(50)
    code = app.exec()
    window.controller.shutdown()
    remove_own_spill_dirs()  # os._exit below skips atexit handlers
    code = exit_code["code"] or code
    # Leave without Python's finalizer: tearing down Qt, OpenGL and numba objects in arbitrary
    # order at interpreter exit can abort ("bool_dealloc") after everything was saved.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
