"""The contact events of time stepping, found inside the compiled loop (stepper._step_loop).

After each step of a run that records rows, every contact whose status changed, or that had an impact,
gets a row of the event log (codes.EL_*): the step's end time, the contact, its new and old status; an
impact's row also holds its normal velocity before and after the step, H v⁻ and H v⁺ with H the
contact's normal row at the start of the step (the row of the step problem, d.HN), its normal percussion
P and the kinetic energy that percussion took, −P (H v⁺ + H v⁻)/2 (the step's bookkeeping at θ = ½).
The simulator turns the rows into Events after the call (Simulator._time_steps); a call stops after
a step that leaves the log without room for another step's events (codes.EVENTS_FULL).

H v is summed over the dense row in numpy's order (dense_sum): these are the numbers the simulator
computed in numpy from the recorded rows before the events moved here (`(H * v).sum(axis=1)`), bit
for bit.
"""

import numpy as np
from numba import njit

from .codes import EL_CONTACT, EL_LOST, EL_OLD, EL_PERCUSSION, EL_STATUS, EL_T, EL_UN_POST, EL_UN_PRE, IMPACT

PW_BLOCK = 128  # numpy's PW_BLOCKSIZE: longer sums are split in halves


@njit(cache=True)
def dense_sum(x, n):
    """x[0] + ... + x[n-1] summed as np.add.reduce sums a contiguous float64 array: from 0.0, with
    numpy's pairwise summation (a plain loop under 8 terms; 8 accumulators up to 128; longer, the two
    halves, the first a multiple of 8 long, each summed so), so the result is numpy's bit for bit."""
    return 0.0 + _pairwise(x, 0, n)


@njit(cache=True)
def _pairwise(x, lo, n):
    if n <= PW_BLOCK:
        return _block(x, lo, n)
    # numpy's recursion, written with a stack (a recursive function loaded from numba's cache crashes):
    # a frame per half still to sum, with its left half's sum once known
    los, ns, lefts = np.empty(64, np.int64), np.empty(64, np.int64), np.empty(64)
    right = np.zeros(64, np.bool_)  # whether the frame is summing its right half
    top = 0
    los[0], ns[0] = lo, n
    while True:
        while ns[top] > PW_BLOCK:  # down the left halves
            n2 = ns[top] // 2
            n2 -= n2 % 8
            los[top + 1], ns[top + 1], right[top + 1] = los[top], n2, False
            top += 1
        val = _block(x, los[top], ns[top])
        top -= 1
        while top >= 0 and right[top]:  # up past the frames whose two halves are summed
            val = lefts[top] + val
            top -= 1
        if top < 0:
            return val
        lefts[top], right[top] = val, True  # then the right half of the frame on top
        n2 = ns[top] // 2
        n2 -= n2 % 8
        los[top + 1], ns[top + 1], right[top + 1] = los[top] + n2, ns[top] - n2, False
        top += 1


@njit(cache=True)
def _block(x, lo, n):
    """numpy's pairwise_sum of x[lo:lo + n] for n <= 128."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += x[i]
        return res
    r0, r1, r2, r3 = x[lo], x[lo + 1], x[lo + 2], x[lo + 3]
    r4, r5, r6, r7 = x[lo + 4], x[lo + 5], x[lo + 6], x[lo + 7]
    i = lo + 8
    end = lo + n - n % 8
    while i < end:
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < lo + n:
        res += x[i]
        i += 1
    return res


@njit(cache=True)
def dense_dot(h, v, prod):
    """(h * v).sum() as numpy computes it (prod: scratch of v's length)."""
    for j in range(v.shape[0]):
        prod[j] = h[j] * v[j]
    return dense_sum(prod, v.shape[0])


@njit(cache=True)
def events_due(d, old):
    """Whether log_step_events has a row to write: a contact whose status is not old's, or that had an
    impact. (A function that calls nothing: the stepping loop calls log_step_events only then.)"""
    status = d.status
    due = False
    for c in range(status.shape[0]):
        due = due or _has_event(status[c], old[c])
    return due


@njit(cache=True, inline="always")
def _has_event(s, o):
    """Whether a contact of status s, o before the step, has an event row (scalars: compiled in, no
    reference counts)."""
    return s != o or s == IMPACT


@njit(cache=True)
def log_step_events(m, d, nact, old, scratch, elog, n):
    """The event rows of the step just taken into elog[n + 1], elog[n + 2]... (row 0 counts them:
    elog[0, EL_T] = the new n, returned), in contact order; old: each contact's status before the step,
    brought up to date. scratch: (3, nq), the velocities before the step in row 0 (written by the loop
    before commit_step when the step has an impact), rows 1 and 2 zero and scratch."""
    status, act, lamN, v, HN, ccols, ccn = d.status, d.act, d.lamN, d.v, d.HN, m.ccols, m.ccn
    vpre, hrow, prod = scratch[0], scratch[1], scratch[2]
    t = d.t[0]
    r = 0  # the impact's row of the step problem (d.act is in contact order)
    for c in range(status.shape[0]):
        s, o = status[c], old[c]
        if not _has_event(s, o):
            continue
        n += 1
        row = elog[n]
        row[EL_T], row[EL_CONTACT], row[EL_STATUS], row[EL_OLD] = t, c, s, o
        old[c] = s
        if s != IMPACT:
            row[EL_UN_PRE] = row[EL_UN_POST] = row[EL_PERCUSSION] = row[EL_LOST] = np.nan
            continue
        while r < nact and act[r] != c:
            r += 1
        if r == nact:  # (not in order after all: from the start)
            r = 0
            while act[r] != c:
                r += 1
        for k in range(ccn[c]):  # the dense row, as Model.contact_jacobians writes it
            hrow[ccols[c, k]] = HN[r, k]
        pre = dense_dot(hrow, vpre, prod)
        post = dense_dot(hrow, v, prod)
        for k in range(ccn[c]):
            hrow[ccols[c, k]] = 0.0
        p = lamN[c]
        row[EL_UN_PRE], row[EL_UN_POST], row[EL_PERCUSSION] = pre, post, p
        row[EL_LOST] = -p * (post + pre) / 2
    elog[0, EL_T] = n
    return n
