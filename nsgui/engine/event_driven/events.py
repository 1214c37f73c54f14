"""The event-driven loop's log rows as the simulator's Events (plain Python)."""

import math

from .layout import (EV_CONTACT, EV_KIND, EV_LOST, EV_PN, EV_T, EV_TSTAR, EV_UPOST, EV_UPRE, EVENT_KINDS,
                     EV_ACCUMULATION)


def log_events(log, contact_names):
    from ..simulator import Event
    out = []
    for row in log:
        kind = EVENT_KINDS[int(row[EV_KIND])]
        detail = ""
        if int(row[EV_KIND]) == EV_ACCUMULATION:
            detail = f"impacts accumulate at t* = {row[EV_TSTAR]:.12g} s: bridged, then closed"
        out.append(Event(float(row[EV_T]), kind, contact_names[int(row[EV_CONTACT])], detail,
                         float(row[EV_UPRE]), float(row[EV_UPOST]), float(row[EV_PN]), float(row[EV_LOST]),
                         float(row[EV_TSTAR]) if not math.isnan(row[EV_TSTAR]) else math.nan))
    return out
