"""Many SimStates of one run as one array: what the window's simulation process takes every 20 ms of
simulated time (several thousand a second flat out). Made from the kernel's snapshot rows in a few
numpy calls, pickled as one array, and a SimState is built only for the state someone asks for
(Resume from here), so a snapshot costs next to nothing on its way to the history."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STATE_ARRAYS = ("q", "v", "energy", "lamN", "lamT", "status", "u", "ctrl", "stats", "warm")


@dataclass
class StateBlock:
    names: tuple            # SimState's array fields, in the order of each row's columns after t
    sizes: tuple            # their lengths
    data: np.ndarray        # one row per state: t, then the arrays
    step_counts: np.ndarray  # int64
    external: list          # each state's external_next (dict)
    user: list              # each state's user_state (dict)

    def __len__(self):
        return len(self.data)

    @property
    def t(self) -> np.ndarray:
        return self.data[:, 0]

    def state(self, k):
        """The k-th state as a SimState (its arrays view a copy of its row)."""
        from .simulator import SimState  # (the simulator makes blocks: imported when one is read)
        b = self.data[k].copy()
        fields, j = {}, 1
        for name, size in zip(self.names, self.sizes):
            fields[name] = b[j:j + size]
            j += size
        return SimState(t=float(b[0]), step_count=int(self.step_counts[k]),
                        external_next=self.external[k], user_state=self.user[k], **fields)

    def states(self) -> list:
        return [self.state(k) for k in range(len(self))]

    def take(self, index) -> "StateBlock":
        """The states at `index` (a slice, or an array of positions or a boolean mask)."""
        if isinstance(index, slice):
            return StateBlock(self.names, self.sizes, self.data[index], self.step_counts[index],
                              self.external[index], self.user[index])
        pos = np.arange(len(self))[index]
        return StateBlock(self.names, self.sizes, self.data[pos], self.step_counts[pos],
                          [self.external[k] for k in pos], [self.user[k] for k in pos])

    @classmethod
    def from_states(cls, states) -> "StateBlock":
        """SimStates of one run (all with a `row`, or none; all with `ed`, or none) as one block."""
        with_row = all(s.row is not None for s in states)
        names = STATE_ARRAYS + ("row",) if with_row else STATE_ARRAYS
        if not all(s.warm is not None for s in states):  # (a state mapped to an edited model: afresh)
            names = tuple(n for n in names if n != "warm")
        if states and all(s.ed is not None for s in states):
            names += ("ed",)
        sizes = tuple(len(getattr(states[0], n)) for n in names) if states else ()
        data = np.empty((len(states), 1 + sum(sizes)))
        for k, s in enumerate(states):
            data[k, 0] = s.t
            np.concatenate([getattr(s, n) for n in names], out=data[k, 1:])
        return cls(names, sizes, data, np.array([s.step_count for s in states], dtype=np.int64),
                   [s.external_next for s in states], [s.user_state for s in states])

    @classmethod
    def join(cls, blocks) -> "StateBlock":
        """The states of `blocks`, in order, as one block (of the first's layout when they all share
        it; otherwise through SimStates, which takes the layout they all have)."""
        blocks = [b for b in blocks if len(b)]
        if len(blocks) == 1:
            return blocks[0]
        if not blocks:
            return cls(STATE_ARRAYS, (), np.empty((0, 1)), np.empty(0, dtype=np.int64), [], [])
        first = blocks[0]
        if any(b.names != first.names or b.sizes != first.sizes for b in blocks):
            return cls.from_states([s for b in blocks for s in b.states()])
        return cls(first.names, first.sizes, np.concatenate([b.data for b in blocks]),
                   np.concatenate([b.step_counts for b in blocks]),
                   [e for b in blocks for e in b.external], [u for b in blocks for u in b.user])
