"""What the plots know about a signal besides its values: its unit, and the contact it belongs to.

A contact of several points (one per box corner, say) records `contact.<name>[k].<kind>`; the plots
also show the contact as a whole under `contact.<name>.<kind>`: the sum of its points' forces (or
percussions), the smallest of their gaps. These contact totals are read from the recorded columns
(`contact_total`); they are not recorded themselves."""

from __future__ import annotations

import numpy as np

TOTALS = {"fn": np.add, "ft": np.add, "pn": np.add, "pt": np.add, "gap": np.minimum}


def split_contact(name):
    """'contact.box_ground[2].fn' -> ('box_ground', 'fn'); None for a signal of no contact."""
    if not name.startswith("contact."):
        return None
    point, _, kind = name[len("contact."):].rpartition(".")
    return point.split("[", 1)[0], kind


def contact_points(names, contact, kind):
    """The recorded `kind` signals of every point of `contact` (one name for a one-point contact)."""
    whole = f"contact.{contact}.{kind}"
    if whole in names:
        return [whole]
    prefix, suffix = f"contact.{contact}[", f"].{kind}"
    return [n for n in names if n.startswith(prefix) and n.endswith(suffix)]


def contact_members(names, name):
    """The recorded signals a contact total `contact.<name>.<kind>` adds up ([] if `name` is none)."""
    parts = split_contact(name)
    if parts is None or parts[1] not in TOTALS or "[" in name:
        return []
    return contact_points(names, *parts)


def contact_total(name, columns):
    """The total of `columns` (the points' values, rows a..b each) for the contact total `name`."""
    reduce = TOTALS[split_contact(name)[1]]
    out = np.array(columns[0], float)
    for col in columns[1:]:
        reduce(out, col, out=out)
    return out


def contacts(names):
    """Scene contact names in recording order (a multi-point contact once)."""
    seen = {}
    for n in names:
        parts = split_contact(n)
        if parts is not None:
            seen.setdefault(parts[0], None)
    return list(seen)


def per_contact(names, kind):
    """One signal per contact for `kind`: the recorded one, or the contact's total."""
    return [f"contact.{c}.{kind}" for c in contacts(names) if contact_points(names, c, kind)]


def points_label(names, name):
    """' (Σ 4 points)' for a contact total, '' otherwise: said in legends."""
    members = contact_members(names, name)
    if len(members) > 1 or (members and members[0] != name):
        how = "min" if split_contact(name)[1] == "gap" else "Σ"
        return f" ({how} {len(members)} points)"
    return ""


def unit_of(units, names, name):
    """SI unit of a signal from the model's `signal_units` (a contact total has its points' unit)."""
    if name in units:
        return units[name]
    if name.startswith("foot.") and name.rsplit(".", 1)[-1] in ("fn", "ft"):  # a walker's foot (feet.py)
        return "N"
    members = contact_members(names, name)
    return units.get(members[0], "") if members else ""


def units_text(unit_list):
    """'m, rad': the distinct units of what an axis shows, in order."""
    return ", ".join(u for u in dict.fromkeys(unit_list) if u)


def axis_label(quantity, unit_list):
    """'Contact forces (N)', 'Coordinates (m, rad)': a quantity and the units of what is drawn."""
    units = units_text(unit_list)
    return f"{quantity} ({units})" if units else quantity
