"""Video files (MP4, GIF) from a stream of RGB frames, written atomically.

Both formats go through ffmpeg (the imageio-ffmpeg wheel): frames are streamed to the encoder one
at a time, so memory does not grow with the length of the video. GIF frames get a palette of their
own (the 3D view's flat colours fit in 256 without dithering)."""

from __future__ import annotations

import os

import numpy as np

from nsgui.atomic import atomic_write

FORMATS = (".mp4", ".gif")
GIF_FILTER = ("split[a][b];[a]palettegen=stats_mode=single:reserve_transparent=0[p];"
              "[b][p]paletteuse=new=1:dither=none")


class FrameSizeError(ValueError):
    pass


def video_format(path) -> str:
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise ValueError(f"{path}: the file name must end in .mp4 or .gif")
    return ext


def video_frame_times(t_start, t_end, fps, speed=1.0):
    """Simulated times of the frames: `speed` simulated seconds per second of video."""
    step = speed / fps
    n = int(np.floor((t_end - t_start) / step + 1e-9)) + 1
    return t_start + step * np.arange(max(n, 1))


def even_size(size):
    """(w, h) rounded down to even numbers (H.264 in yuv420p needs them), at least 2x2."""
    return tuple(max(2, int(v) // 2 * 2) for v in size)


def write_video(path, frames, fps, progress=None, total=None):
    """Encode `frames` (an iterable of (h, w, 3) uint8 arrays, all of one size) into `path`
    (.mp4 or .gif); returns the number of frames. `progress(fraction) -> bool` is asked after each
    frame when `total` is known: False cancels (raising `cancelled`)."""
    import imageio_ffmpeg
    from nsgui.engine.export import ExportCancelled
    ext = video_format(path)
    count = [0]

    def write(tmp):
        it = iter(frames)
        first = next(it, None)
        if first is None:
            raise ValueError("no frame to write")
        h, w = first.shape[:2]
        if ext == ".gif":
            opts = dict(codec="gif", pix_fmt_out="pal8",
                        output_params=["-f", "gif", "-vf", GIF_FILTER, "-loop", "0"])
        else:
            if w % 2 or h % 2:
                raise FrameSizeError(f"MP4 frames need an even width and height, not {w}x{h}")
            opts = dict(codec="libx264", quality=7, output_params=["-f", "mp4"])
        encoder = imageio_ffmpeg.write_frames(tmp, (w, h), fps=fps, macro_block_size=1,
                                              ffmpeg_log_level="error", **opts)
        encoder.send(None)
        try:
            frame = first
            while frame is not None:
                if frame.shape[:2] != (h, w):
                    raise FrameSizeError(f"frame {count[0]} is {frame.shape[1]}x{frame.shape[0]}, "
                                         f"the video is {w}x{h}")
                encoder.send(np.ascontiguousarray(frame[:, :, :3], dtype=np.uint8))
                count[0] += 1
                if progress is not None and total and not progress(count[0] / total):
                    raise ExportCancelled()
                frame = next(it, None)
        finally:
            encoder.close()

    atomic_write(path, write)
    return count[0]
