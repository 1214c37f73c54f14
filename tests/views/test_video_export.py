"""Video exports of the 3D view (File ▸ Export ▸ Video) and `nsgui render`: every frame has one size
and shows the view at its time, whatever resolution the live display happens to draw at."""

import os
import subprocess
import sys

import numpy as np
import pytest

from .test_window import DEFAULT, ROOT, run_to

pytestmark = pytest.mark.gui

BALL = os.path.join(ROOT, "resources", "scenes", "bouncing_ball.json")
SAME = 2e-4  # at most this fraction of a decoded frame's pixels may differ from its reference


def read_frames(path):
    """Every frame of a video as (h, w, 3) arrays; GIF frames composited as a viewer shows them,
    with the time each is shown (ms)."""
    if path.endswith(".gif"):
        from PIL import Image
        frames, durations = [], []
        with Image.open(path) as im:
            for k in range(im.n_frames):
                im.seek(k)
                frames.append(np.asarray(im.convert("RGB")))
                durations.append(im.info.get("duration", 0))
        return frames, durations
    import imageio_ffmpeg
    reader = imageio_ffmpeg.read_frames(path)
    meta = next(reader)
    w, h = meta["size"]
    frames = [np.frombuffer(b, np.uint8).reshape(h, w, 3) for b in reader]
    return frames, [1000.0 / meta["fps"]] * len(frames)


def mismatch(a, b):
    """The fraction of pixels whose brightness differs clearly (more than encoding noise) between
    two images. (Brightness: H.264 keeps it at full resolution but colour at half, which blurs the
    colour of thin arrows.)"""
    luma = np.array([0.299, 0.587, 0.114])
    return float((np.abs((a[:, :, :3] - b[:, :, :3].astype(float)) @ luma) > 40).mean())


class TestOneWindow:
    """Both formats on one window (`class_window`; a window of its own costs a set-up and a spawned
    simulation process that loads the kernels again): each opens the default scene and runs it first,
    and puts the live display back at full size at its end (asserted)."""

    @pytest.fixture
    def window(self, class_window):
        return class_window

    @pytest.mark.parametrize("ext", ["mp4", "gif"])
    def test_video_frames_have_one_size_and_show_the_view_at_their_time(self, window, tmp_path, ext):
        """Default scene, 0-3 s, while the live display draws reduced frames of changing sizes (as it
        does when rendering is slow and the progress dialog lets its timer fire): before the fix the
        MP4 failed ("All images in a movie should have same size") and the GIF pasted small frames
        over stale full-size ones."""
        from nsgui.views import exports
        assert window.open_scene(DEFAULT)
        run_to(window, 3.0)
        view, ctrl = window.view3d, window.controller
        display = view.display
        display.render_now(0.5)
        scales = iter([0.75, 0.5, 1.0] * 100)

        def progress(_fraction):
            display.render_now(next(scales))  # the live display's own frames in between
            return True

        size = (480, 360)
        path = str(tmp_path / f"run.{ext}")
        n = exports.export_video(view, ctrl, path, fps=5, t0=0.0, t1=3.0, progress=progress, size=size)
        times = exports.video_frame_times(0.0, 3.0, 5, 1.0)
        assert n == len(times) == 16
        frames, shown = read_frames(path)
        assert len(frames) == n and sum(shown) == pytest.approx(1000 * n / 5, abs=10 * n)
        assert {f.shape for f in frames} == {(size[1], size[0], 3)}
        rec = ctrl.recorder
        refs = []
        for t in times:
            view.show_row(rec.row_at_time(t))
            refs.append(view.render_image(size)[:, :, :3])
        errors = [mismatch(f, r) for f, r in zip(frames, refs)]
        assert max(errors) < SAME, errors
        # the view moves from each frame to the next, far more than a frame differs from its reference
        steps = [mismatch(a, b) for a, b in zip(refs, refs[1:])]
        assert min(steps) > max(10 * max(errors), SAME), (steps, errors)
        # the live display is back at the widget's size
        display.render_now(1.0)
        assert tuple(view.canvas.size) == view.view_size()


def run_render(args, tmp_path):
    """`nsgui render ...` in a child process: without any display (QT_QPA_PLATFORM=offscreen, EGL)
    when EGL works there, else in the test's Xvfb display."""
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    base["PYTHONPATH"] = ROOT
    cmd = [sys.executable, "-m", "nsgui", "render"] + args
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=280, cwd=str(tmp_path), env=base)
    if proc.returncode == 1 and "cannot draw offscreen" in proc.stderr:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=280, cwd=str(tmp_path),
                              env=dict(os.environ, PYTHONPATH=ROOT))
    return proc


@pytest.mark.parametrize("ext", ["mp4", "gif"])
def test_render_command_writes_a_video_of_the_requested_length_and_size(tmp_path, ext):
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    out = tmp_path / f"ball.{ext}"
    scene = BALL if ext == "mp4" else "bouncing_ball"  # a file, or an example's name
    proc = run_render([scene, "--out", str(out), "--duration", "1.5", "--fps", "12", "--size", "320x240"],
                      tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    frames, shown = read_frames(str(out))
    expected = 1 + 1.5 * 12
    assert len(frames) == expected
    assert sum(shown) == pytest.approx(1000 * 1.5 + 1000 / 12, abs=10 * expected)
    assert {f.shape for f in frames} == {(240, 320, 3)}
    # the ball's top edge on screen follows q.ball.y of an independent run at the frames' times
    # (the step nearest each time): one scale, upward, within a pixel (front orthographic view)
    from nsgui.scene import load_scene
    from nsgui.engine import simulate
    run = simulate(load_scene(BALL), duration=1.5)
    steps = np.rint(np.arange(len(frames)) / 12 / 0.005).astype(int)
    top_q = run["q.ball.y"][steps] + 0.1
    colour = frames[0][int(np.argmax((frames[0][:, :, 0] > 150).any(axis=1))) + 3, 160]
    top_px = []
    for f in frames:
        rows = np.nonzero((np.abs(f.astype(int) - colour).max(axis=2) < 24).any(axis=1))[0]
        top_px.append(rows.min())
    slope, offset = np.polyfit(top_q, top_px, 1)
    assert slope < -100  # pixels per metre, y up
    assert np.abs(np.polyval([slope, offset], top_q) - top_px).max() < 1.5
    assert np.ptp(top_px) > 50  # it moved
    assert sorted(os.listdir(tmp_path)) == [out.name]  # no temporary file left
