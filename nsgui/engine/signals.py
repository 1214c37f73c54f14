"""Where each signal sits in a recorded row, computed once per model.

A row is [t, q (nq), v (nq), energies (N_ENERGY), per contact (gap, pn, pt, status, fn, ft), u (one
per actuator), the controllers' signals, the enabled flags of switched contacts, per loop joint (fx, fy,
torque, error), the mouse perturbation (perturb.*)]. The stepper writes rows with these offsets (the layout travels inside ModelArrays as
a tuple of ints), the simulator reads gap and status columns with them, and every name-based reader
(recorder, views, exports) gets the same order from `names`.
"""

from typing import NamedTuple

import numpy as np

from .codes import (CONTACT_SIGNALS, ENERGY_SIGNALS, LOOP_SIGNALS, N_CONTACT_SIGNALS, N_ENERGY, N_LOOP_SIGNALS,
                    N_PERTURB_SIGNALS, PERTURB_SIGNALS)

T_COLUMN = 0  # every row starts with the time
# groups of a row beyond t, q and v (bits): what a recording of some signals needs computed
ROW_ENERGY, ROW_CONTACTS, ROW_OTHERS = 1, 2, 4
ROW_ALL = ROW_ENERGY | ROW_CONTACTS | ROW_OTHERS


class SignalLayout(NamedTuple):
    """Column offsets of one model's signal rows (a plain tuple of ints, so numba kernels take it)."""
    nq: int
    ncontacts: int
    nactuators: int
    q: int          # first column of q
    v: int          # first column of v
    energy: int     # first energy column (ENERGY_SIGNALS order)
    contacts: int   # first contact column; contact c's signals start at contacts + N_CONTACT_SIGNALS c
    actuators: int  # first actuator input column
    controllers: int  # first controller signal column
    switches: int   # first column of the enabled flags of switched contacts
    loops: int      # first loop-joint column; loop l's signals start at loops + N_LOOP_SIGNALS l
    nloops: int
    perturb: int    # first column of the mouse perturbation's signals (PERTURB_SIGNALS order)
    width: int      # number of signals

    @classmethod
    def of(cls, nq, ncontacts, nactuators, ncontroller_signals=0, nswitches=0, nloops=0):
        q = T_COLUMN + 1
        v = q + nq
        energy = v + nq
        contacts = energy + N_ENERGY
        actuators = contacts + N_CONTACT_SIGNALS * ncontacts
        controllers = actuators + nactuators
        switches = controllers + ncontroller_signals
        loops = switches + nswitches
        perturb = loops + N_LOOP_SIGNALS * nloops
        return cls(nq, ncontacts, nactuators, q, v, energy, contacts, actuators, controllers, switches,
                   loops, nloops, perturb, perturb + N_PERTURB_SIGNALS)

    @staticmethod
    def names(coords, contacts, actuators, controller_signals=(), switched=(), loops=()):
        """Signal names in row order: t, q.<coord>, v.<coord>, energy.<e>, contact.<c>.<s>, u.<actuator>,
        controller.<block>.<signal>, contact.<c>.enabled (switched contacts), loop.<joint>.<s>,
        perturb.<s>."""
        return (["t"] + [f"q.{c}" for c in coords] + [f"v.{c}" for c in coords]
                + [f"energy.{e}" for e in ENERGY_SIGNALS]
                + [f"contact.{c}.{k}" for c in contacts for k in CONTACT_SIGNALS]
                + [f"u.{a}" for a in actuators] + list(controller_signals)
                + [f"contact.{c}.enabled" for c in switched]
                + [f"loop.{j}.{k}" for j in loops for k in LOOP_SIGNALS]
                + [f"perturb.{k}" for k in PERTURB_SIGNALS])

    def parts_of(self, columns):
        """The ROW_* groups that the given columns need computed (t, q and v always are)."""
        parts = 0
        for c in columns:
            if self.energy <= c < self.contacts:
                parts |= ROW_ENERGY
            elif self.contacts <= c < self.actuators:
                parts |= ROW_CONTACTS
            elif c >= self.actuators:
                parts |= ROW_OTHERS
        return parts

    def contact_column(self, c, signal):
        """Column of contact c's signal ("gap", "pn", "pt", "status", "fn" or "ft")."""
        return self.contacts + N_CONTACT_SIGNALS * c + CONTACT_SIGNALS.index(signal)

    def contact_columns(self, signal):
        """Columns of one signal of every contact, in contact order."""
        return (self.contacts + CONTACT_SIGNALS.index(signal)
                + N_CONTACT_SIGNALS * np.arange(self.ncontacts, dtype=np.intp))

    def energy_column(self, name):
        return self.energy + ENERGY_SIGNALS.index(name)

    def is_coordinate(self, column):
        """True for the q and v columns."""
        return self.q <= column < self.energy

    def coordinate_of(self, column):
        """Index of the coordinate of a q or v column."""
        return (column - self.q) % self.nq
