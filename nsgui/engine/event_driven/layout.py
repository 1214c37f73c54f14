"""Layout of the event-driven integrator's own state (one float array per simulator, `ed`) and of
its event log rows; plain ints, read by the kernels as constants and by the simulator.

The `ed` array holds everything the next call depends on beyond Data: the integrator's current
step (its start, length and dense output, the state after it, the proposed next length), the
closed contacts, each contact's recent impact times (accumulation detection) and what a contact
received since the last row. A snapshot copies it, so a run restored from a snapshot continues
exactly, and a run in chunks gives the same numbers as one call.
"""

# head of ed: the current step's start and end times, the next step's proposed length, ...
H_T0, H_TEND, H_HNEXT, H_INIT, H_PENDING, H_PCONT, H_SAME_T, H_NSAME, H_PSIGN, H_HDENSE = range(10)
HEAD = 10
# (H_PSIGN: the sliding direction a pending slip starts with; H_HDENSE: the length of the step the dense
# output interpolates, from H_T0 — a step cut at an event ends before it, at H_TEND)
# per contact, CSTRIDE floats from HEAD: closed (in the active set), last impact time, last interval
# between impacts, last ratio of intervals, how many consecutive ratios agreed, normal percussion since
# the last row, an impact since the last row, how a closed frictional contact moves (0 sticking, ±1
# sliding direction), tangential percussion since the last row
K_ACTIVE, K_TLAST, K_DLAST, K_RLAST, K_STREAK, K_PN, K_IMPACT, K_MODE, K_PT = range(9)
CSTRIDE = 10
# pending work at the start of the next step (H_PENDING): none, a gap root, a take-off root, a check
# of every contact (first call, restored state), a slip or stick root (a closed contact starting to
# slip, a sliding one whose tangential velocity reaches zero), a switch condition ("ahead") turning a
# contact on or off
P_NONE, P_GAP, P_TAKEOFF, P_CHECK, P_SLIP, P_STICK, P_SWITCH_ON, P_SWITCH_OFF = range(8)

# an event log row: time, kind, contact, normal velocity before and after, normal percussion,
# energy lost, estimated accumulation time (accumulations only)
EV_T, EV_KIND, EV_CONTACT, EV_UPRE, EV_UPOST, EV_PN, EV_LOST, EV_TSTAR = range(8)
EV_WIDTH = 8
# kinds: an impact, a contact closing (sticking or sliding), a take-off, an accumulation bridged, a
# switched contact turned on or off by its condition
EV_IMPACT, EV_STICK, EV_SLIP, EV_OPEN, EV_ACCUMULATION, EV_ENABLED, EV_DISABLED = range(7)
EVENT_KINDS = {EV_IMPACT: "impact", EV_STICK: "stick", EV_SLIP: "slip", EV_OPEN: "open",
               EV_ACCUMULATION: "accumulation", EV_ENABLED: "enabled", EV_DISABLED: "disabled"}

# kernel return codes beyond codes.OK...: the step size underflowed (events crowd: a contact
# chattering the integrator cannot resolve), the event buffer is full (the simulator empties it
# and calls again)
STALLED, EVENTS_FULL = 100, 101


def state_width(nq):
    """Length of the integrator's state vector: q, v, damping loss, actuator work, friction loss."""
    return 2 * nq + 3


def size(nq, nc):
    return HEAD + CSTRIDE * nc + 6 * state_width(nq)


def x_offset(nc):
    """Offset in ed of the state after the current step (then its 5 x N dense output)."""
    return HEAD + CSTRIDE * nc
