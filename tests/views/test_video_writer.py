"""nsgui.views.video.write_video: every frame kept at one size (identical GIF frames too), a frame
of another size or a cancel leaves no file, and the file's mode follows the umask."""

import os

import numpy as np
import pytest

from nsgui.engine.export import ExportCancelled
from nsgui.views.video import FrameSizeError, write_video


def frames(n, size=(64, 48), still=False):
    w, h = size
    for k in range(n):
        f = np.full((h, w, 3), 30, np.uint8)
        x = 0 if still else 4 * k
        f[10:20, x:x + 8] = (220, 80, 60)
        yield f


def read(path):
    if path.endswith(".gif"):
        from PIL import Image
        with Image.open(path) as im:
            out = []
            for k in range(im.n_frames):
                im.seek(k)
                out.append(np.asarray(im.convert("RGB")))
            return out
    import imageio_ffmpeg
    reader = imageio_ffmpeg.read_frames(path)
    w, h = next(reader)["size"]
    return [np.frombuffer(b, np.uint8).reshape(h, w, 3) for b in reader]


@pytest.mark.parametrize("ext", ["mp4", "gif"])
def test_every_frame_is_kept_at_its_size(tmp_path, ext):
    path = str(tmp_path / f"v.{ext}")
    assert write_video(path, frames(7, still=True), fps=10) == 7
    got = read(path)
    assert len(got) == 7 and {g.shape for g in got} == {(48, 64, 3)}
    assert np.abs(got[3].astype(int) - next(frames(1, still=True)).astype(int)).max() < 40


@pytest.mark.parametrize("ext", ["mp4", "gif"])
def test_a_frame_of_another_size_or_a_cancel_leaves_no_file(tmp_path, ext):
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    path = tmp_path / f"v.{ext}"
    mixed = list(frames(3)) + list(frames(2, size=(32, 24)))
    with pytest.raises(FrameSizeError, match="frame 3 is 32x24, the video is 64x48"):
        write_video(str(path), mixed, fps=10)
    with pytest.raises(ExportCancelled):
        write_video(str(path), frames(5), fps=10, progress=lambda f: f < 0.5, total=5)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_video_files_follow_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        for ext in ("mp4", "gif"):
            path = tmp_path / f"v.{ext}"
            write_video(str(path), frames(3), fps=10)
            assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    finally:
        os.umask(old)
