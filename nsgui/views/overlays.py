"""What the 3D view draws for the controllers (their types' Overlays, nsgui/scene/controller_types.py),
as world-space polylines: a `trace` is the path of two recorded signals up to the displayed row (e.g.
the end effector's actual and desired paths), a `circle` comes from the controller's parameters.

No Qt and no physics here: the paths are read from the recorded history and the scene's parameters.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from nsgui.scene.controller_types import OVERLAYS

TRACE_POINTS = 4000   # a trace draws at most about this many samples of the history
CIRCLE_POINTS = 128


class OverlayPath(NamedTuple):
    label: str          # "tracking: desired circle"
    color: str          # "#rrggbb"
    path: np.ndarray    # (k, 2) world points
    previous: bool = False  # drawn from the previous branch (after Resume from here)


def _params(scene, name):
    """The object holding a compiled controller's parameters: a block, or an actuator's controller."""
    for b in scene.controllers:
        if b.name == name:
            return b
    for a in scene.actuators:
        if a.name == name:
            return a.controller
    return None


def circle(center, radius, n=CIRCLE_POINTS) -> np.ndarray:
    a = np.linspace(0.0, 2.0 * np.pi, n + 1)
    return np.column_stack([center[0] + radius * np.cos(a), center[1] + radius * np.sin(a)])


def trace(column, x_name, y_name, row, max_points=TRACE_POINTS):
    """The (x, y) samples of rows 0..row (at most about max_points, evenly spaced rows, the row itself
    last), or None. `column(name)` gives a recorded column (None: not recorded)."""
    if row is None or row < 1:
        return None
    xs, ys = column(x_name), column(y_name)
    if xs is None or ys is None or len(xs) < 2:
        return None
    row = min(int(row), len(xs) - 1)
    stride = max(1, -(-(row + 1) // max_points))
    x, y = xs[:row + 1:stride], ys[:row + 1:stride]
    if row % stride:
        x, y = np.append(x, xs[row]), np.append(y, ys[row])
    ok = np.isfinite(x) & np.isfinite(y)
    return np.column_stack([x[ok], y[ok]]) if ok.sum() >= 2 else None


def recorder_columns(recorder):
    """`column(name)` of a recorder (a copy of the column; None when it is not recorded)."""
    if recorder is None:
        return lambda name: None
    return lambda name: recorder.column(name) if name in recorder._index else None


def overlay_paths(model, column, row, previous=None) -> list[OverlayPath]:
    """Every overlay of the model's controllers: circles from the parameters, traces up to `row` of
    the columns `column(name)`; with `previous` (the replaced branch's `column`), its traces whole."""
    out = []
    for block in getattr(model, "controller_blocks", None) or []:
        params = _params(model.scene, block.name)
        for ov in OVERLAYS.get(block.type, ()):
            label = f"{block.name}: {ov.label}"
            if ov.kind == "circle":
                try:
                    c, r = getattr(params, ov.center), float(getattr(params, ov.radius))
                except (AttributeError, TypeError, ValueError):
                    continue
                out.append(OverlayPath(label, ov.color, circle(c, r)))
            elif ov.kind == "trace":
                x, y = f"controller.{block.name}.{ov.x}", f"controller.{block.name}.{ov.y}"
                path = trace(column, x, y, row)
                if path is not None:
                    out.append(OverlayPath(label, ov.color, path))
                if previous is not None:
                    px = previous(x)
                    path = trace(previous, x, y, None if px is None else len(px) - 1)
                    if path is not None:
                        out.append(OverlayPath(label + " (previous run)", ov.color, path, previous=True))
    return out


__all__ = ["OverlayPath", "overlay_paths", "recorder_columns", "circle", "trace", "TRACE_POINTS"]
