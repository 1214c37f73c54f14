"""The snapshots that travel with a run's rows from the worker to the history: for each, the index of
the row recorded in the same state, its time and the state. The engine's states stay packed in one
StateBlock all the way (a SimState is made only for the one a resume asks for); other simulators'
states (test stand-ins) are kept as a list."""

from __future__ import annotations

import numpy as np

from nsgui.engine.state_block import StateBlock


class Snapshots:
    def __init__(self, rows=(), t=(), states=None):
        self.rows = np.asarray(rows, dtype=np.int64)
        self.t = np.asarray(t, dtype=float)
        self.states = [] if states is None else states  # a StateBlock or a list, one per row

    @classmethod
    def one(cls, row, t, state) -> "Snapshots":
        # (not imported at the top: the simulator brings numba, and the window paints before it)
        from nsgui.engine.simulator import SimState
        states = StateBlock.from_states([state]) if isinstance(state, SimState) else [state]
        return cls([row], [t], states)

    @classmethod
    def of_block(cls, rows, block: StateBlock) -> "Snapshots":
        return cls(rows, block.t, block)

    def __len__(self):
        return len(self.rows)

    def state(self, k):
        """The k-th state (a SimState made now when they are packed)."""
        return self.states.state(k) if isinstance(self.states, StateBlock) else self.states[k]

    def __iter__(self):
        """(row index, t, state) of each, the states made one by one (tests, small drains)."""
        for k in range(len(self)):
            yield int(self.rows[k]), float(self.t[k]), self.state(k)

    def shifted(self, offset) -> "Snapshots":
        return Snapshots(self.rows + offset, self.t, self.states)

    def between(self, a, b) -> "Snapshots":
        """Those of rows a .. b - 1, numbered from a."""
        keep = (self.rows >= a) & (self.rows < b)
        states = (self.states.take(keep) if isinstance(self.states, StateBlock)
                  else [s for s, k in zip(self.states, keep) if k])
        return Snapshots(self.rows[keep] - a, self.t[keep], states)

    @classmethod
    def join(cls, parts) -> "Snapshots":
        """The parts, in order (their row indices already in one numbering)."""
        parts = [p for p in parts if len(p)]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return cls()
        rows = np.concatenate([p.rows for p in parts])
        t = np.concatenate([p.t for p in parts])
        if all(isinstance(p.states, StateBlock) for p in parts):
            return cls(rows, t, StateBlock.join([p.states for p in parts]))
        return cls(rows, t, [p.state(k) for p in parts for k in range(len(p))])
