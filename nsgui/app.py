"""`nsgui [SCENE] [--run-for T] [--screenshot FILE.png]`: the desktop app."""

from __future__ import annotations

import argparse
import os
import sys
import time

NO_DISPLAY = """nsgui: no display found (DISPLAY / WAYLAND_DISPLAY are not set), so the window cannot open.
  - Run a scene without a window:      nsgui run SCENE.json --duration 5 --out run.csv
  - Or open the window in a virtual display:
        xvfb-run -a -s "-screen 0 1600x1000x24" nsgui SCENE.json
"""


def parse_args(argv):
    p = argparse.ArgumentParser(prog="nsgui", description="Planar mechanisms with contacts, impacts and "
                                "friction: live simulation, plots, 3D view and history. "
                                "Headless runs: `nsgui run SCENE ...`.")
    p.add_argument("scene", nargs="?", help="scene file (default: resources/scenes/default.json)")
    p.add_argument("--run-for", type=float, metavar="T", help="run T seconds of simulated time on start")
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="after --run-for (or right after loading), save a screenshot of the window and exit")
    p.add_argument("--speed", type=float, default=None,
                   help="real-time factor for --run-for (default: as fast as possible)")
    return p.parse_args(argv)


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


def gui_main(argv=None):
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    if not display_available():
        sys.stderr.write(NO_DISPLAY)
        return 2
    scene_path = args.scene
    from nsgui.views.main_window import DEFAULT_SCENE
    if scene_path is None:
        scene_path = DEFAULT_SCENE
    if not os.path.exists(scene_path):
        sys.stderr.write(f"nsgui: no such scene file: {scene_path}\n")
        return 2

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("nsgui")
    app.setOrganizationName("nsgui")
    from nsgui.views.main_window import MainWindow
    window = MainWindow()
    window.show()
    loaded = window.open_scene(scene_path)
    exit_code = {"code": 0}

    if args.run_for is not None or args.screenshot:
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
    code = exit_code["code"] or code
    # Leave without Python's finalizer: tearing down Qt, OpenGL and numba objects in arbitrary
    # order at interpreter exit can abort ("bool_dealloc") after everything was saved.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
