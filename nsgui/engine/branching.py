"""Carry a run over to an edited scene (Resume from here): its state, matched by the names of
bodies, coordinates, contacts and actuators (its recorded history is carried by
`nsgui.runtime.branching`, matched by signal names).

- A body of both scenes keeps its motion when it hangs from the same kind of joint on the same
  parent (the joint may be renamed): its coordinates mean the same thing in both. A body held
  differently cannot be carried over.
- A new body starts from the edited scene's initial values of its coordinates (relative to its
  parent, so a body added to a moving mechanism moves with it).
- Contacts are matched by name: a new contact starts open with no percussion (cold start), a removed
  one is dropped. The step problem is solved afresh each step, so no other warm start is needed.
- Actuators are matched by name; a new one is sampled at once. Controller blocks are matched by name
  and type: their internal state (phase, counters, anchors) goes on with the edited parameters.
- The energy balance goes on: the energy an edit adds or removes (a new body, a changed mass) is
  not counted as numerical drift in `energy.residual`.

Anything that cannot be carried over raises StateMapError with a one-line reason, before anything
has changed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import codes
from . import stepper as st
from .arrays import new_data, to_struct
from nsgui.scene import joint_coordinates


class StateMapError(ValueError):
    """The run cannot continue with the edited scene (the message says why)."""


def _holders(model):
    """{body: (joint name, joint type, parent)} of the joint each body hangs from."""
    return {j.child: (j.name, j.type, j.parent) for j in model.scene.joints}


def carried_coordinates(src, dst, strict=True):
    """{coordinate of dst: coordinate of src} for the bodies of both runs (a renamed joint keeps its
    body's motion). Raises StateMapError when the run cannot continue as a run of dst (with
    strict=False, bodies held differently are just left out)."""
    common = set(src.body_names) & set(dst.body_names)
    if not common and strict:
        raise StateMapError("the edited scene has no body of the current run: nothing of the run "
                            "can continue")
    old, new = _holders(src), _holders(dst)
    pairs = {}
    for body in sorted(common, key=dst.body_names.index):
        (oj, ot, op), (nj, nt, npar) = old[body], new[body]
        if (ot, op) == (nt, npar):
            pairs.update(zip(joint_coordinates(nj, nt), joint_coordinates(oj, ot)))
        elif strict:
            raise StateMapError(f"body '{body}' hangs from {ot} joint '{oj}' (on {op}) in the run but from "
                                f"{nt} joint '{nj}' (on {npar}) in the edited scene: its motion cannot be "
                                "carried over")
    return pairs


def _by_name(values, src_names, dst_names, default):
    """values (indexed like src_names) rearranged in dst_names order; `default[i]` where a name is
    missing (or None)."""
    out = np.array(default, dtype=float, copy=True)
    idx = {n: i for i, n in enumerate(src_names)}
    for i, n in enumerate(dst_names):
        k = idx.get(n)
        if k is not None:
            out[i] = values[k]
    return out


def map_controller_state(ctrl, src, dst):
    """Data.ctrl of a run of src for dst: applied inputs by actuator name, impact counts by contact
    name, and each controller block's segment (its state, signals, pending outputs) when dst has a
    block of the same name and type with a segment of the same size (a changed gain keeps the phase,
    counters and anchors); other blocks start from their initial state."""
    out = dst.arrays.ctrl0.copy()
    na_s, na_d = len(src.actuator_names), len(dst.actuator_names)
    out[:na_d] = _by_name(ctrl[:na_s], src.actuator_names, dst.actuator_names, out[:na_d])
    nc_s, nc_d = src.ncontacts, dst.ncontacts
    for k in range(2):  # impact counts, enabled flags
        s0, d0 = na_s + k * nc_s, na_d + k * nc_d
        out[d0:d0 + nc_d] = _by_name(ctrl[s0:s0 + nc_s], src.contact_names, dst.contact_names, out[d0:d0 + nc_d])
    old = {b.name: b for b in src.controller_blocks}
    for b in dst.controller_blocks:
        o = old.get(b.name)
        if o is not None and o.type == b.type and o.segment[1] == b.segment[1]:
            (c0, n), (s0, _n) = b.segment, o.segment
            out[c0:c0 + n] = ctrl[s0:s0 + n]
    return out


def mechanical_energy(model, q, v):
    """K + U of model at (q, v), as the signal row computes it."""
    d = new_data(model.arrays, np.asarray(q, float), np.asarray(v, float))
    return st.state_row(model.struct, to_struct(d), np.zeros(model.layout.width), False)


def map_state(state, src, dst):
    """`state` of a run of model `src` as a state of model `dst` (see the module notes).
    Raises StateMapError when it cannot be done."""
    if src is dst:
        return state.copy()
    # coordinates of bodies of both runs keep their values; those of new bodies their initial ones
    pairs = carried_coordinates(src, dst)
    carried = [pairs.get(c) for c in dst.coord_names]
    q = _by_name(state.q, src.coord_names, carried, dst.q0)
    v = _by_name(state.v, src.coord_names, carried, dst.v0)
    nc = dst.ncontacts
    lamN = _by_name(state.lamN, src.contact_names, dst.contact_names, np.zeros(nc))
    lamT = _by_name(state.lamT, src.contact_names, dst.contact_names, np.zeros(nc))
    status = _by_name(state.status, src.contact_names, dst.contact_names, np.full(nc, float(codes.OPEN)))
    na = len(dst.actuator_names)
    u = _by_name(state.u, src.actuator_names, dst.actuator_names, np.zeros(na))
    ctrl = map_controller_state(state.ctrl, src, dst)
    energy = np.array(state.energy, dtype=float, copy=True)
    # what the edit adds to K + U is the edit's, not drift: the residual goes on from its value
    energy[codes.ACC_E0] += mechanical_energy(dst, q, v) - mechanical_energy(src, state.q, state.v)
    external = {a: t for a, t in state.external_next.items() if a in dst.actuator_names}
    # ed=None: an event-driven integrator starts afresh from (t, q, v) in the edited model; warm=None: the
    # warm start's memory too (plain warm starts until its gate opens again)
    return dataclasses.replace(state, q=q, v=v, energy=energy, lamN=lamN, lamT=lamT, status=status, u=u,
                               ctrl=ctrl, stats=np.array(state.stats, dtype=float, copy=True),
                               row=None, external_next=external, user_state=_user_states(state, src, dst),
                               ed=None, warm=None)


def _user_states(state, src, dst):
    """The kept states of the `python` blocks that dst runs with the same class (edited parameters
    apply on restore); the others start afresh."""
    def classes(m):
        return {b.name: (b.user.cls.__module__, b.user.cls.__qualname__) for b in m.controller_blocks
                if b.user is not None}
    old, new = classes(src), classes(dst)
    return {n: kept for n, kept in state.user_state.items() if n in new and old.get(n) == new[n]}


_ITEMS = (("body", "bodies", lambda m: [b.name for b in m.scene.bodies], "from its initial state"),
          ("contact", "contacts", lambda m: [c.name for c in m.scene.contacts], "starting open"),
          ("actuator", "actuators", lambda m: list(m.actuator_names), "sampled at once"))


def describe_carry_over(src, dst):
    """What an edit adds or removes, in a few words, e.g. "contact 'c' added (starting open)"."""
    parts = []
    for one, many, names, note in _ITEMS:
        old, new = names(src), names(dst)
        for changed, verb, how in (([n for n in new if n not in old], "added", f" ({note})"),
                                   ([n for n in old if n not in new], "removed", "")):
            if changed:
                listed = ", ".join(repr(n) for n in changed)
                parts.append(f"{one if len(changed) == 1 else many} {listed} {verb}{how}")
    return "; ".join(parts)
