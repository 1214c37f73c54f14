"""The return map of a walker: one step from a section state to the next heel strike.

The step is run by the event-driven integrator (walking.md §7.3: time stepping's O(h) event times
would pollute the map and its derivative), which locates every impact to 1e-14 s. The state right
after the strike is read as a row EPSILON after the impact: the run is taken back to the row before
the impact and its row length set to end there (the integrator's steps do not depend on where rows
fall, so the impact is the same one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import codes
from ..compile import compile_scene
from ..simulator import SimulationError, Simulator
from .section import GaitError, Section

EPSILON = 1e-12   # s: the post-strike state is read this long after the impact
CHUNK = 25        # rows run at once while no strike has happened


@dataclass
class SectionEvent:
    """Which events end a step: impacts of the listed contacts (None: any foot other than the
    stance foot), i.e. `--section impact` or `--section impact:foot_a,foot_b` (a list with the stance
    foot makes the map a stride: to that foot's next strike)."""
    contacts: tuple | None = None

    @classmethod
    def parse(cls, text):
        text = (text or "impact").strip()
        kind, _, names = text.partition(":")
        if kind.strip() != "impact":
            raise GaitError(f"--section {text!r}: the section event must be 'impact' or "
                            "'impact:CONTACT[,CONTACT...]' (a heel strike)")
        names = tuple(n.strip() for n in names.split(",") if n.strip())
        return cls(names or None)

    def text(self):
        return "impact" + (":" + ",".join(self.contacts) if self.contacts else "")


@dataclass
class Step:
    """One step of the return map from section coordinates x."""
    x: np.ndarray                # section coordinates after the step (renamed: same feet roles)
    period: float                # s: time from strike to strike
    step_length: float           # m: distance between the two stance feet, along the ground
    impact_loss: float           # J: kinetic energy the step's impacts took (the events' energy_lost)
    potential_drop: float        # J: potential energy lost over the step
    energy_change: float         # J: total mechanical energy after - before (= -impact_loss ideally)
    struck: str                  # the contact that struck
    # the signal rows of the step, if asked: on the grid of dt from the section, then the rows just
    # before the strike (at its time) and just after it (EPSILON later)
    rows: np.ndarray = field(default=None, repr=False)


def walker_scene(scene):
    """The scene run with the event-driven integrator (the analysis' own copy)."""
    if scene.settings.integrator != "event_driven":
        scene = scene.with_values({"settings.integrator": "event_driven"})
    return scene


class ReturnMap:
    """P: section coordinates -> section coordinates, for one scene. Built from the scene's initial
    state: it runs to the first heel strike, whose post-strike state fixes the section (stance foot,
    trailing foot) and is the first guess of the fixed point (`x0`)."""

    def __init__(self, scene, section_event=None, max_step_time=None, reference=None):
        self.scene = walker_scene(scene)
        self.event = section_event or SectionEvent()
        self.model = compile_scene(self.scene)
        self.sim = Simulator(self.model)
        m = self.model
        if self.event.contacts:
            unknown = [n for n in self.event.contacts if n not in m.contact_names]
            if unknown:
                raise GaitError(f"--section: no contact named {unknown[0]!r} (contacts: "
                                f"{', '.join(m.contact_names)})")
        self.max_step_time = max_step_time or max(5.0, float(self.scene.settings.duration))
        self._layout = m.layout
        if reference is None:
            reference = self._first_strike()
        self.template, stance, trailing = reference
        self.section = Section(m, self.template.q, stance, trailing)
        self.names = self.section.names
        self.x0 = self.section.coordinates(self.template.q, self.template.v)
        _gap, pa, _n = m.contact_frames(self.template.q)
        tangent = self.section._tangent
        self._forward = np.sign((pa[stance] - pa[trailing]) @ tangent) or 1.0

    # ---------------------------------------------------------------- the section's origin
    def _on_section(self):
        """(stance, trailing) if the scene starts just after a strike (one foot touching with zero
        velocity, another touching and leaving), else None."""
        m, q, v = self.model, self.sim.q, self.sim.v
        gap, _pa, _n = m.contact_frames(q)
        HN, HT = m.contact_jacobians(q)
        speed = max(1.0, float(np.abs(v).max()))
        touching = [c for c in range(m.ncontacts) if abs(gap[c]) <= 1e-9]
        stance = [c for c in touching if abs(HN[c] @ v) <= 1e-9 * speed and abs(HT[c] @ v) <= 1e-9 * speed
                  and (self.event.contacts is None or m.contact_names[c] in self.event.contacts)]
        trailing = [c for c in touching if c not in stance and HN[c] @ v >= 0.0]
        if len(stance) == 1 and len(trailing) == 1:
            return stance[0], trailing[0]
        return None

    def _first_strike(self):
        """The section's origin: the scene's initial state if it starts just after a strike, else the
        state just after its first heel strike: (state, stance, trailing)."""
        m = self.model
        self.sim.reset()
        roles = self._on_section()
        if roles is not None:
            return self.sim.get_state(), roles[0], roles[1]
        gap0, _pa, _n = m.contact_frames(self.sim.q)
        # the stance foot at the start: the closest to the ground
        start_stance = int(np.argmin(gap0))
        state, struck, _t, _rows, _lost = self._run_to_strike(start_stance, record=False)
        if state is None:
            raise GaitError(f"no heel strike within {self.max_step_time:g} s of the scene's initial state "
                            f"(section '{self.event.text()}')")
        gap, _pa, _n = m.contact_frames(state.q)
        others = [c for c in range(m.ncontacts) if c != struck]
        trailing = min(others, key=lambda c: gap[c])
        state.t = 0.0
        return state, struck, trailing

    def _candidates(self, stance):
        """The contacts whose impact ends a step: any foot but the stance foot by default; the listed
        ones if the section names them (the stance foot among them: a stride, two steps, from one
        strike of that foot to its next)."""
        names = self.model.contact_names
        if self.event.contacts is None:
            return {c for c in range(len(names)) if c != stance}
        return {c for c in range(len(names)) if names[c] in self.event.contacts}

    def _run_to_strike(self, stance, record):
        """Run until an impact of a candidate contact: (post-strike SimState at its time + EPSILON,
        struck contact, impact time, rows or None, kinetic energy the impacts took); (None, ...)
        when none comes in time."""
        sim, m = self.sim, self.model
        cands = self._candidates(stance)
        names = m.contact_names
        kept, lost = [], 0.0   # lost: kinetic energy the impacts of the step took (J)
        t_end = sim.t + self.max_step_time
        while sim.t < t_end:
            before = sim.get_state()
            rows = sim.run(CHUNK, record=record)
            events = sim.pop_events()
            if not self._strikes(events, cands):
                lost += self._lost(events)
                if record:
                    kept.append(rows)
                continue
            sim.set_state(before)  # again, row by row, to stop on the row before the strike
            while True:
                before = sim.get_state()
                row = sim.run(1, record=record)
                events = sim.pop_events()
                hit = self._strikes(events, cands)
                if hit:
                    break
                lost += self._lost(events)
                if record:
                    kept.append(row)
            t_hit, struck = hit[0].t, names.index(hit[0].name)
            sim.set_state(before)
            fs = m.arrays.fs
            h = fs[codes.FS_H]
            try:
                if record:  # the row right before the strike (at its time: the impact waits for the next step)
                    fs[codes.FS_H] = t_hit - before.t
                    kept.append(sim.run(1, record=True))
                    fs[codes.FS_H] = EPSILON
                else:
                    fs[codes.FS_H] = t_hit + EPSILON - before.t
                row = sim.run(1, record=True)
            finally:
                fs[codes.FS_H] = h
            lost += self._lost(sim.pop_events())
            if record:
                kept.append(row)
            return sim.get_state(), struck, t_hit, (np.vstack(kept) if record else None), lost
        return None, None, None, None, lost

    def _strikes(self, events, cands):
        names = self.model.contact_names
        return [e for e in events if e.kind == "impact" and names.index(e.name) in cands]

    @staticmethod
    def _lost(events):
        return sum(e.energy_lost for e in events if e.kind == "impact" and np.isfinite(e.energy_lost))

    # ---------------------------------------------------------------- the map
    def step(self, x, record=False):
        """One step from section coordinates x (GaitError when no strike comes, the walker falls
        back or the integrator fails)."""
        sec, m, sim = self.section, self.model, self.sim
        q, v = sec.state(x)
        state = self.template.copy()
        # ed, warm = None: the integrator and the warm start's memory start afresh from (q, v)
        state.t, state.q, state.v, state.ed, state.row, state.warm = 0.0, q, v, None, None, None
        state.energy = np.zeros_like(state.energy)
        state.step_count = 0
        sim.set_state(state)
        sim.pop_events()
        e0 = sim.signals()
        try:
            end, struck, t_hit, rows, lost = self._run_to_strike(sec.stance, record)
        except SimulationError as err:
            raise GaitError(f"step from {sec.describe(x)}: {err}") from None
        if end is None:
            raise GaitError(f"no heel strike within {self.max_step_time:g} s of section state {sec.describe(x)}")
        _gap, pa0, _n = m.contact_frames(q)
        _gap, pa1, _n = m.contact_frames(end.q)
        advance = (pa1[struck] - pa0[sec.stance]) @ sec._tangent * self._forward
        if advance <= 0.0:
            raise GaitError(f"step from {sec.describe(x)}: the walker fell back "
                            f"('{m.contact_names[struck]}' struck behind the stance foot at t = {t_hit:.6g} s)")
        e1 = sim.signals()
        # the struck foot takes the stance foot's part (a stride ends on the stance foot itself: nothing to rename)
        q1, v1 = (end.q, end.v) if struck == sec.stance else sec.relabel(end.q, end.v, struck)
        return Step(x=sec.coordinates(q1, v1), period=t_hit, step_length=float(np.hypot(*(pa1[struck] - pa0[sec.stance]))),
                    impact_loss=lost,
                    potential_drop=e0["energy.potential"] - e1["energy.potential"],
                    energy_change=e1["energy.total"] - e0["energy.total"],
                    struck=m.contact_names[struck], rows=rows)

    def __call__(self, x):
        return self.step(x).x
