"""A history continued by an edited scene (Resume from here): the rows, snapshots and events of a run
of one model read as a run of another, column by column (the state itself is mapped by
`nsgui.engine.branching.map_state`)."""

from __future__ import annotations

import numpy as np

from nsgui.engine.branching import carried_coordinates

from .history import Recorder


def column_sources(src, dst):
    """How a history of model `src` reads as one of model `dst`: for each signal of dst, the column
    of src it continues ("q.<c>" of a renamed joint included), or None with the value it had before
    it existed: a body added later stood still at its initial place, a contact added later was open
    with no percussion, an actuator gave nothing; a gap is unknown (NaN)."""
    pairs = carried_coordinates(src, dst, strict=False)
    have = set(src.signal_names)
    q0 = dict(zip(dst.coord_names, dst.q0))
    out = []
    for name in dst.signal_names:
        kind, _, rest = name.partition(".")
        if kind in ("q", "v"):
            old = f"{kind}.{pairs[rest]}" if rest in pairs else None
            out.append((old, q0[rest] if kind == "q" else 0.0))
        elif name in have:
            out.append((name, np.nan))
        elif kind == "contact" and name.rsplit(".", 1)[-1] == "gap":
            out.append((None, np.nan))
        else:
            out.append((None, 0.0))
    return out


def branch_history(recorder, t, src, dst):
    """A new history for a run of model `dst` holding `recorder`'s rows (a run of `src`), snapshots
    and events up to time t, its columns read as `column_sources` says."""
    if list(dst.signal_names) == list(recorder.names):
        branch = recorder.copy()
        branch.truncate_after(t)
        return branch
    branch = Recorder(dst.signal_names, memory_cap=recorder.memory_cap, chunk_rows=recorder.chunk_rows,
                      snapshot_interval=recorder.snapshot_interval)
    keep = recorder.row_at_time(t) + 1 if len(recorder) and t >= recorder.t_start else 0
    index = {n: k for k, n in enumerate(recorder.names)}
    sources = column_sources(src, dst)
    take = np.array([index.get(old, -1) if old else -1 for old, _ in sources])
    have = take >= 0
    fill = np.array([value for _, value in sources])
    for a in range(0, keep, recorder.chunk_rows):
        rows = recorder.rows(a, min(a + recorder.chunk_rows, keep))
        out = np.empty((len(rows), len(fill)))
        out[:] = fill
        out[:, have] = rows[:, take[have]]
        branch.append(out)
    for s in recorder.snapshots:
        if s.t <= t + 1e-12:
            branch.force_snapshot(s.t, s.row, s.state)
    branch.add_events([e for e in recorder.events if e.t <= t + 1e-12])
    return branch
