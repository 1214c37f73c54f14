"""The event log of a run as a CSV file (`nsgui run SCENE --events events.csv`), for either integrator:
one line per event with its time, kind, contact, the normal velocities before and after, the normal
percussion, the kinetic energy lost, (accumulations of the event-driven integrator) t* and the event's
text (a solver warning's: how many step problems stopped at the iteration cap, and the error)."""

import csv
import io
import math

from nsgui.atomic import atomic_write_text

COLUMNS = ("time", "kind", "contact", "un_pre", "un_post", "percussion", "energy_lost", "t_star", "detail")


def _number(x):
    return "" if x is None or math.isnan(x) else repr(float(x))


def events_csv_text(events):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for e in events:
        w.writerow([repr(float(e.t)), e.kind, e.name, _number(e.un_pre), _number(e.un_post),
                    _number(e.percussion), _number(e.energy_lost), _number(e.t_star), e.detail or ""])
    return out.getvalue()


def write_events_csv(path, events):
    """Written atomically: the file is complete or absent."""
    atomic_write_text(path, events_csv_text(events))


def read_events_csv(path):
    """The rows of an events file as dicts (numbers as floats, blanks as NaN)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in COLUMNS:
            if k not in ("kind", "contact", "detail"):
                r[k] = float(r[k]) if r[k] else math.nan
    return rows
