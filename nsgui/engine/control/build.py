"""Scene controllers -> the arrays of the compiled model (ModelArrays.ai, af, ki, kf, kacts, kcoords,
kpar, ctrl0) and the names and units of the controller signals.

Every controller is a block: a scene `actuators[i].controller` other than `none` is a block of one
actuator named after it; `controllers[k]` blocks follow in file order. LAWS maps each declared type
to its compiled law's code and its `pack(controller, model, coords) -> (P, initial state, initial
signals)`.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from nsgui.scene.controller_types import signals_of
from .. import codes
from . import bno, computed_torque, constant, manipulator, pd, python_block, simbicon, slotine_li, standing


@dataclass(frozen=True)
class Law:
    kind: int
    pack: object
    implicit: object = None   # controller -> whether its Jacobians may enter the iteration matrix
    load: object = None       # user code: (controller, "controllers[k]") -> python_block.UserLaw


LAWS = {
    "constant": Law(codes.K_CONSTANT, constant.pack),
    "pd": Law(codes.K_PD, pd.pack, pd.implicit),
    "computed_torque": Law(codes.K_COMPUTED_TORQUE, computed_torque.pack),
    "slotine_li": Law(codes.K_SLOTINE_LI, slotine_li.pack),
    "slotine_li_task": Law(codes.K_SLOTINE_LI, slotine_li.pack_task),
    "bno": Law(codes.K_BNO, bno.pack),
    "manipulator": Law(codes.K_MANIPULATOR, manipulator.pack, manipulator.implicit),
    "standing": Law(codes.K_STANDING, standing.pack, standing.implicit),
    "simbicon": Law(codes.K_SIMBICON, simbicon.pack, simbicon.implicit),
    # run between kernel calls (Simulator.run); its signals are its class's
    "python": Law(codes.K_PYTHON, None, load=python_block.load),
}


@dataclass
class ControllerInfo:
    """A compiled block, for the simulator and the views."""
    name: str
    type: str
    actuators: list
    signals: list = field(default_factory=list)         # its signal names, in row order
    labels: dict = field(default_factory=dict)          # signal name -> labels of its integer values
    segment: tuple = (0, 0)                              # (offset, size) in Data.ctrl
    index: int = 0
    user: object = None                                  # a `python` block's UserLaw


def _blocks(scene):
    """(name, type, actuator names, period, delay, controller object, is a block) of every controller."""
    out = []
    for a in scene.actuators:
        c = a.controller
        if c is not None and c.type != "none":
            out.append((a.name, c.type, [a.name], getattr(c, "period", None), 0.0, c, False))
    for b in scene.controllers:
        out.append((b.name, b.type, list(b.actuators), b.period, b.delay or 0.0, b, True))
    return out


def build_controllers(scene, model, coord_of_actuator, coord_units):
    """The arrays and signal metadata of the scene's controllers (model: q0, dt, actuator names)."""
    names = list(model.actuator_names)
    na, nc, nq = len(names), model.ncontacts, model.nq
    dt = float(scene.settings.dt)
    ai = np.zeros((na, codes.N_AI), np.int64)
    af = np.zeros((na, codes.N_AF))
    for i, a in enumerate(scene.actuators):
        ai[i, codes.AI_COORD] = coord_of_actuator[i]
        ai[i, codes.AI_BLOCK] = -1
        af[i, codes.AF_LIMIT] = np.inf if a.limit is None else a.limit
    ki, kf, kacts, kpar = [], [], [], []
    ctrl = [0.0] * (na + nc) + [1.0] * nc  # applied inputs, impact steps and enabled flag per contact
    infos, sig_names, sig_units = [], [], []
    implicit_any = False
    blocks = _blocks(scene)
    first_block = len(blocks) - len(scene.controllers)
    for bi, (name, type_, acts, period, delay, c, is_block) in enumerate(blocks):
        law = LAWS[type_]
        idx = [names.index(a) for a in acts]
        coords = [int(ai[i, codes.AI_COORD]) for i in idx]
        user = law.load(c, f"controllers[{bi - first_block}]") if law.load else None
        decl = user.signals if user else signals_of(type_, is_block)
        info = ControllerInfo(name, type_, list(acts), index=bi, user=user)
        for s in decl:
            for k, a in (enumerate(acts) if s.per_actuator else [(0, None)]):
                n = f"controller.{name}.{s.name}" + (f".{a}" if a else "")
                info.signals.append(n)
                unit = s.unit
                if unit in ("coord", "input"):
                    cu = coord_units[coords[k]]
                    unit = cu if unit == "coord" else ("N·m" if cu == "rad" else "N")
                sig_units.append(unit)
                if s.labels:
                    info.labels[n] = s.labels
        P, S, sig0 = ([], [], [0.0] * len(info.signals)) if user else law.pack(c, model, coords)
        if len(sig0) != len(info.signals):
            raise AssertionError(f"controller type {type_!r}: {len(sig0)} initial signals for "
                                 f"{len(info.signals)} declared")
        qmax = 0 if delay <= 0.0 else int(math.ceil(delay / (period or dt) - 1e-9)) + 2
        implicit = bool(law.implicit and law.implicit(c)) and not period and qmax == 0
        implicit_any |= implicit
        c0 = len(ctrl)
        ctrl += [0.0, 0.0] + [0.0] * (qmax * (1 + len(acts))) + list(sig0) + list(S)
        info.segment = (c0, len(ctrl) - c0)
        ki.append([law.kind, len(kacts), len(acts), len(kpar), len(P), c0, qmax, len(sig0), len(S),
                   0, int(implicit)])
        kf.append([period or 0.0, delay])
        for i in idx:
            ai[i, codes.AI_BLOCK] = bi
        kacts += idx
        kpar += [float(x) for x in P]
        infos.append(info)
        sig_names += info.signals
    pert = [0.0] * codes.N_PT  # last: the mouse perturbation's segment (engine/perturbation.py), none held
    pert[codes.PT_BODY] = -1.0
    ctrl += pert
    ki = np.array(ki, np.int64).reshape(len(ki), codes.N_KI)
    arrays = dict(ai=ai, af=af, ki=ki, kf=np.array(kf, float).reshape(len(kf), codes.N_KF),
                  kacts=np.array(kacts, np.int64), kcoords=ai[np.array(kacts, np.int64), codes.AI_COORD].copy()
                  if kacts else np.zeros(0, np.int64), kpar=np.array(kpar, float), ctrl0=np.array(ctrl, float))
    return arrays, infos, sig_names, sig_units, implicit_any


def set_signal_columns(ki, infos, first_column):
    """KI_SIGCOL of every block, its signals placed from `first_column` on in block order."""
    col = first_column
    for b, info in enumerate(infos):
        ki[b, codes.KI_SIGCOL] = col
        col += len(info.signals)
