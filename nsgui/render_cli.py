"""`nsgui render SCENE --out run.mp4|run.gif [--duration T] [--fps F] [--size WxH]`: a video of the
3D view without a window, e.g. on a server.

The scene is simulated frame by frame (only the rows at the frames' times are kept, so memory does
not grow with the number of steps) and each frame is rendered offscreen (EGL, as for --screenshot)
at the one requested size and streamed to the encoder."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys

from nsgui import startup

PROG = "nsgui render"
MAX_SIDE = 7680
MAX_FPS = 240

EPILOG = """examples:
  nsgui render default --out default.mp4
  nsgui render bouncing_ball --out ball.gif --duration 2 --fps 20 --size 480x360
"""


class ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise ArgumentError(message)


def _parser():
    p = _Parser(prog=PROG, description="Render a video of the 3D view without a window "
                "(offscreen, as --screenshot).", epilog=EPILOG,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene", help="scene file (.json) or the name of an example")
    p.add_argument("--out", required=True, metavar="FILE", help="the video: FILE.mp4 or FILE.gif")
    p.add_argument("--duration", type=float, metavar="T",
                   help="simulated seconds to film, from t = 0 (default: the scene's duration)")
    p.add_argument("--fps", type=float, default=30.0, metavar="F", help="frames per second (default 30)")
    p.add_argument("--size", default="1280x720", metavar="WxH", help="frame size in pixels (default 1280x720)")
    p.add_argument("--orbit", action="store_true",
                   help="the orbit view (perspective, from the side) instead of the front view")
    p.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="overrides",
                   help="set one value of the scene, as for nsgui run (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def parse_size(text):
    """'1280x720' -> (1280, 720); ValueError with the reason otherwise."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text or "")
    if not m:
        raise ValueError(f"--size {text}: expected WIDTHxHEIGHT in pixels, e.g. 1280x720")
    w, h = int(m.group(1)), int(m.group(2))
    if not (16 <= w <= MAX_SIDE and 16 <= h <= MAX_SIDE):
        raise ValueError(f"--size {text}: width and height must be between 16 and {MAX_SIDE} pixels")
    return w, h


def _check(args):
    """The options' problems as a one-line message (None when all is well)."""
    from nsgui.views.video import video_format
    try:
        ext = video_format(args.out)
        size = parse_size(args.size)
    except ValueError as exc:
        return str(exc) if str(exc).startswith("--") else f"--out {exc}"
    if ext == ".mp4" and (size[0] % 2 or size[1] % 2):
        return f"--size {args.size}: an MP4 needs an even width and height"
    if args.duration is not None and not (math.isfinite(args.duration) and args.duration > 0):
        return f"--duration {args.duration:g}: must be a number of seconds > 0"
    if not (math.isfinite(args.fps) and 1 <= args.fps <= MAX_FPS):
        return f"--fps {args.fps:g}: must be between 1 and {MAX_FPS}"
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        return f"--out {args.out}: no such folder {folder}"
    return None


def _fail(msg, code=2):
    sys.stderr.write(f"{PROG}: {msg}\n")
    return code


def _load_model(path, duration, overrides=None):
    """The compiled scene with the --set values, or a SceneError listing its problems."""
    from nsgui.scene import SceneError, load_scene
    from nsgui.engine import compile_scene
    from nsgui.scene import validate_scene
    from nsgui.engine.simulate import configured_scene
    scene = load_scene(path)
    if overrides:
        scene = scene.with_values(overrides)
    scene = configured_scene(scene, duration=duration)
    problems = validate_scene(scene)
    if problems:
        raise SceneError(problems)
    return compile_scene(scene)


def _playback(model):
    """The little the 3D view needs from the window's controller: the recorded rows and a cursor."""
    from PySide6.QtCore import QObject, Signal

    from nsgui.runtime.history import Recorder

    class Playback(QObject):
        cursorChanged = Signal(int)
        historyReset = Signal()
        running = False

        def __init__(self):
            super().__init__()
            self.model = model
            self.recorder = Recorder(model.signal_names)
            self.cursor = 0

    return Playback()


def _frames(view, playback, times, size, failure):
    """Simulate to each frame's time, keep that row and render it. A numerical failure ends the
    frames (the ones before it are kept) and is put in `failure`."""
    from nsgui.engine.simulator import SimulationError, Simulator
    model, rec = playback.model, playback.recorder
    sim = Simulator(model)
    startup.done()
    for t in times:
        target = int(round(t / model.dt))
        try:
            if target - sim.step_count > 1:
                sim.run(target - sim.step_count - 1, record=False)
            row = sim.run(1)[-1] if target > sim.step_count else sim.signal_vector()
        except SimulationError as exc:
            failure.append(str(exc))
            return
        rec.append(row)
        playback.cursor = len(rec) - 1
        view.show_row(playback.cursor)
        yield view.render_image(size)


def render_main(argv):
    try:
        args = _parser().parse_args(list(argv))
    except ArgumentError as exc:
        return _fail(f"{exc} (see nsgui render --help)")
    problem = _check(args)
    if problem:
        return _fail(problem)
    from nsgui.cli import parse_overrides
    try:
        overrides = parse_overrides(args.overrides)
    except ValueError as exc:
        return _fail(str(exc))
    from nsgui.scene import SceneError
    from nsgui.examples import resolve_scene
    try:
        args.scene = resolve_scene(args.scene)  # a file, or an example's name
    except SceneError:
        return _fail(f"no such scene file: {args.scene}, nor an example of that name (see nsgui examples)")
    try:
        model = _load_model(args.scene, args.duration, overrides)
    except SceneError as exc:
        from nsgui.cli import invalid_scene
        return _fail(invalid_scene(args.scene, exc.problems, args.overrides))

    from nsgui.app import display_available
    if not display_available():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # the frames are drawn by EGL, not by a window
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([sys.argv[0]])  # noqa: F841 (widgets need it)
    from nsgui.cli import _Progress
    from nsgui.engine.export import ExportCancelled
    from nsgui.views.video import video_frame_times, write_video
    from nsgui.views.view3d import View3D
    playback = _playback(model)
    view = View3D(playback)
    if view.canvas is None:
        return _fail(f"cannot draw offscreen: {view.error}", 1)
    view.set_model(model)
    view.set_orbit(args.orbit)
    size = parse_size(args.size)
    duration = model.scene.settings.duration
    times = video_frame_times(0.0, duration, args.fps)
    failure = []
    progress = _Progress(not args.quiet)
    try:
        n = write_video(args.out, _frames(view, playback, times, size, failure), args.fps,
                        progress=lambda f: progress(f) or True, total=len(times))
    except (KeyboardInterrupt, ExportCancelled):
        progress.close()
        return _fail("interrupted: no video written", 130)
    except OSError as exc:
        progress.close()
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}", 1)
    except ValueError as exc:
        progress.close()
        return _fail(str(exc), 1)
    progress.close()
    print(f"wrote {args.out}: {n} frames of {size[0]}x{size[1]} at {args.fps:g} fps, t = 0 to "
          f"{playback.recorder.t_end:.6g} s")
    if failure:
        return _fail(f"the run stopped early: {failure[0]}; the {n} frames before it were kept", 1)
    return 0
