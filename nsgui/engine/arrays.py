"""What the numba kernels run on: the compiled model's constant arrays (ModelArrays, MuJoCo's mjModel)
and one run's state and scratch (Data, mjData).

Every kernel takes (m, d, ...) instead of dozens of positional arrays. The column layout of each
array is named in codes.py (BI_*, CF_*, AF_*...). A Data belongs to one simulator: the kernels update
its state in place and use the rest as scratch, so a step allocates only its contact problem.

Python sees named tuples of numpy arrays; the kernels take the same arrays (shared, not copied) as
numba structrefs, made by `to_struct`. A structref travels as one pointer: a named tuple of 70 arrays
is passed member by member at every call between kernels (and reference-counted member by member),
which made each step ten times slower and doubled the compile time.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.experimental import structref

from .codes import LOOP_ROWS, N_ACC, N_AN, N_STATS, ST_MINGAP
from .contact_geometry import N_EDGE
from .kept_delassus import nothing_kept
from .signals import SignalLayout
from .tiny_problem import TINY_ROWS, nothing_kept_tiny


class Kinematics(NamedTuple):
    """Body frames at one (q, v): poses, velocities, bias accelerations (q̈ = 0) and Jacobians."""
    pos: np.ndarray   # (nb, 2) frame origin
    ang: np.ndarray   # (nb,) frame angle
    vel: np.ndarray   # (nb, 2) origin velocity
    omg: np.ndarray   # (nb,) angular velocity
    acc: np.ndarray   # (nb, 2) origin bias acceleration
    Jp: np.ndarray    # (nb, 2, nq) origin Jacobian (only the columns on the body's path are written)
    Ja: np.ndarray    # (nb, nq) angular Jacobian
    cs: np.ndarray    # (nb, 2) cos and sin of ang (each computed once per evaluation)
    jconst: np.ndarray  # (1,) 1 once the constant Jacobians (bodies on a free or prismatic joint to the
                        # world) are written: body_kinematics writes them once

    @classmethod
    def zeros(cls, nb, n):
        Jp, Ja = jacobian_arrays(nb, n)
        return cls(np.zeros((nb, 2)), np.zeros(nb), np.zeros((nb, 2)), np.zeros(nb), np.zeros((nb, 2)),
                   Jp, Ja, np.zeros((nb, 2)), np.zeros(1))


def jacobian_arrays(nb, n):
    """Kinematics' Jp (nb, 2, nq) and Ja (nb, nq), zero, as strided views of one buffer laid out along
    the bodies' own coordinates: entry (b, j) is the triple (Jp[b, 0, j], Jp[b, 1, j], Ja[b, j]) at index
    t = b + (j - c b) nb of the buffer, c = max(1, nq // nb) the coordinates per body (1 for a column or
    a chain, 3 for free bodies). t is one-to-one (t mod nb = b), so the arrays hold the dense ones'
    entries, each in its own place; but a body's entries on its own coordinates, the only ones most
    bodies have, lie next to the next body's. In the dense layout each body's were three cache lines
    (and pages) of their own, apart from every other body's: a pass over 1000 beads (M's terms, the
    contact rows) waited on three memory loads per bead. The buffer spans about (nq + c nb) nb triples
    of virtual memory, zero pages of which only those written are ever mapped."""
    if nb == 0 or n == 0:
        return np.zeros((nb, 2, n)), np.zeros((nb, n))
    c = max(1, n // nb)
    t_min = (nb - 1) * (1 - c * nb)   # b = nb - 1, j = 0
    t_max = (n - 1) * nb              # b = 0, j = n - 1
    buf = np.zeros(3 * (t_max - t_min + 1))
    at = buf[3 * -t_min:]             # the triple t = 0: (b, j) = (0, 0)
    sb, sj, s = 3 * (1 - c * nb) * at.itemsize, 3 * nb * at.itemsize, at.itemsize
    Jp = np.lib.stride_tricks.as_strided(at, (nb, 2, n), (sb, s, sj))
    Ja = np.lib.stride_tricks.as_strided(at[2:], (nb, n), (sb, sj))
    return Jp, Ja


class ModelArrays(NamedTuple):
    """The compiled model: constant during a run, shared by every simulator of the model."""
    # bodies: BI_* and BF_* columns, parents before children, the coordinates on each body's path
    bi: np.ndarray
    bf: np.ndarray
    order: np.ndarray
    path: np.ndarray
    plen: np.ndarray
    # contact candidates: CI_* and CF_* columns, polygon vertices, the coordinates each one's rows touch,
    # their switches (SWI_*, SWF_*) and the candidates that have one (in signal order)
    ci: np.ndarray
    cf: np.ndarray
    swi: np.ndarray
    swf: np.ndarray
    switched: np.ndarray
    verts: np.ndarray
    ccols: np.ndarray
    ccn: np.ndarray
    # loop-closing joints: LI_* and LF_* columns, the coordinates each one's rows touch (nsgui.engine.loops)
    li: np.ndarray
    lf: np.ndarray
    lcols: np.ndarray
    lcn: np.ndarray
    # force elements: springs (bodies; SF_*), joint springs (coordinate; JF_*), constant forces (body; FF_*)
    si: np.ndarray
    sf: np.ndarray
    ji: np.ndarray
    jf: np.ndarray
    fi: np.ndarray
    ff: np.ndarray
    # actuators: AI_* and AF_* columns
    ai: np.ndarray
    af: np.ndarray
    # controller blocks (nsgui.engine.control): KI_* and KF_* columns, the actuators of each block in
    # order (and their coordinates), the laws' packed parameters, the initial controller state
    ki: np.ndarray
    kf: np.ndarray
    kacts: np.ndarray
    kcoords: np.ndarray
    kpar: np.ndarray
    ctrl0: np.ndarray
    # settings: FS_* and IS_*
    fs: np.ndarray
    isets: np.ndarray
    # M and its inverse when M(q) is constant (IS_CONST_M), else zeros; and both in compressed sparse
    # rows (the same pattern: each coordinate's kinematic tree), else empty (solvers/_linalg.py)
    M_const: np.ndarray
    Minv_const: np.ndarray
    mi_ptr: np.ndarray
    mi_col: np.ndarray
    mi_val: np.ndarray
    m_val: np.ndarray
    # where each coordinate's diagonal entry of M⁻¹ is in mi_val when M⁻¹ is diagonal (its other stored
    # entries exact zeros: free bodies at their centres of mass, beads), else empty: contact_rows._minv_diagonal
    # of the constant M⁻¹, kept here instead of recomputed (and allocated) at every step problem on the rows
    mi_diag: np.ndarray
    layout: SignalLayout


class Data(NamedTuple):
    """One run: the state the next step depends on, the evaluation at it, and the step's scratch."""
    # ---- state (what a snapshot copies)
    t: np.ndarray            # (1,)
    q: np.ndarray
    v: np.ndarray
    energy: np.ndarray       # ACC_* accumulated energies
    lamN: np.ndarray         # percussions of the last step, per candidate (warm start)
    lamT: np.ndarray
    status: np.ndarray       # OPEN, STICK, SLIP, IMPACT of the last step
    u: np.ndarray            # actuator inputs, held between samples: the control seam
    ctrl: np.ndarray         # applied inputs, impact steps and enabled flag per contact, each controller's segment
    stats: np.ndarray        # ST_*
    external: np.ndarray     # 1 for an actuator driven by a Python law (Simulator.set_controller)
    # ---- evaluation at (q, v): kept from the end of a step to the start of the next (and kin below)
    M: np.ndarray
    bias: np.ndarray
    grav: np.ndarray
    F: np.ndarray            # gravity - bias + force elements (actuators apart)
    gap: np.ndarray          # per candidate: gap, normal (b to a), points on a and b, normal velocity
    nrm: np.ndarray
    pa: np.ndarray
    pb: np.ndarray
    un: np.ndarray
    # ---- scratch of one step
    Qact: np.ndarray         # generalized actuator forces of u
    K: np.ndarray            # dF/dq
    C: np.ndarray            # dF/dv
    What: np.ndarray         # LU factors of the iteration matrix M - hθC - h²θ²K
    piv: np.ndarray
    vfree: np.ndarray
    v_new: np.ndarray
    q_new: np.ndarray
    vth: np.ndarray          # θ v_new + (1-θ) v
    lamN_new: np.ndarray
    lamT_new: np.ndarray
    act: np.ndarray          # candidates in the step problem (or the projection), in row order
    fric: np.ndarray         # ... whether each has friction
    HN: np.ndarray           # (nc, width of ccols): sparse normal rows of the active candidates
    HT: np.ndarray           # ... tangent rows
    anchor: np.ndarray       # (nc, N_AN) material contact points at the start of the step (projection.py)
    sp_kept: tuple           # the rows, X = M⁻¹Hᵀ and W of the last step problem (constant M⁻¹) and of the
    pj_kept: tuple           # projection's last linear problem, kept for the next with the same rows (kept_delassus.py)
    row_n: np.ndarray        # (nq,) a generalized-force row
    edges: np.ndarray        # (nverts, N_EDGE) the polygons' world edges of one evaluation (evaluation.py) ...
    edge_done: np.ndarray    # ... and whether each polygon's are computed (kept here: no allocation per step)
    dudq: np.ndarray         # (na, nq) Jacobians of the inputs of implicit blocks (zero rows otherwise)
    dudv: np.ndarray
    kbuf_u: np.ndarray       # a block's outputs and Jacobians while its law runs
    kbuf_dq: np.ndarray
    kbuf_dv: np.ndarray
    lamB: np.ndarray         # the loops' percussions of the last step (LOOP_ROWS per loop)
    lerr: np.ndarray         # ... their rows' residuals g(q)
    lrows_c: np.ndarray      # ... their sparse Jacobian rows H_b (columns, values, counts)
    lrows_v: np.ndarray
    lrows_n: np.ndarray
    lX: np.ndarray           # (nq, rows) Ŵ⁻¹H_bᵀ of the step
    lWinv: np.ndarray        # (rows, rows) (H_b Ŵ⁻¹H_bᵀ)⁻¹ of the step
    # ---- scratch of the tiny step problems (tiny_problem.py: up to TINY_ROWS rows)
    tp_cols: np.ndarray      # (TINY_ROWS, width) their sparse rows (columns, values, counts)
    tp_vals: np.ndarray
    tp_nnz: np.ndarray
    tp_idx: np.ndarray       # (TINY_ROWS,) the LCP's free indices
    tp_flags: np.ndarray     # (4, TINY_ROWS) bool: first active set, active set, dropped rows, kept factor's set
    tp_vec: np.ndarray       # (5, TINY_ROWS) rows q, r0, r, u, a right-hand side
    tp_mu: np.ndarray        # (TINY_ROWS,)
    tp_W: np.ndarray         # (TINY_ROWS, TINY_ROWS) dense Delassus matrix
    tp_L: np.ndarray         # ... a principal submatrix's factors (the LCP)
    tp_X: np.ndarray         # (nq, TINY_ROWS) M⁻¹Hᵀ
    tp_kcols: np.ndarray     # the rows X and W were built from (columns, values, counts) ...
    tp_kvals: np.ndarray
    tp_knnz: np.ndarray
    tp_kept: np.ndarray      # ... and what is kept of them (tiny_problem.KEPT_*)
    # ---- scratch of the general step problem's rows when NSGS solves it on the rows (stepper._solve_general:
    # a resting pyramid's every step; up to 2 rows per candidate)
    gp_cols: np.ndarray      # (2 nc, width) its sparse rows (columns, values, counts)
    gp_vals: np.ndarray
    gp_nnz: np.ndarray
    gp_vec: np.ndarray       # (2, 2 nc) right-hand side, warm start
    gp_mu: np.ndarray        # (nc,) friction coefficients
    gp_act0: np.ndarray      # (2 nc,) bool: first active set
    gp_cptr: np.ndarray      # (2 nc + 1,) X = M⁻¹Hᵀ by columns (pointers, coordinates, values) and the contacts'
    gp_ccol: np.ndarray      # (2 nc width,) 2 x 2 blocks of W (nc, 4), written with the rows when M⁻¹ is
    gp_cval: np.ndarray      # diagonal (stepper._problem_rows_columns)
    gp_blk: np.ndarray
    # ---- scratch of the finite-difference force Jacobians (and fd_kin below)
    fd_bias: np.ndarray
    fd_grav: np.ndarray
    fd_Fp: np.ndarray
    fd_Fm: np.ndarray
    fd_q: np.ndarray
    fd_v: np.ndarray
    # ---- kinematics at (q, v) and of the finite differences
    kin: Kinematics
    fd_kin: Kinematics
    # ---- state: the warm start's memory (stepper._warm_gate; a snapshot copies it). (2 nc + 3,): the
    # percussions of the step before last (N of each candidate, then T), the steps in a row NSGS solved on
    # the rows within WARM_QUIET sweeps, whether the warm start from the last two answers is on, and the
    # step's sweeps on the rows (-1: not solved there; scratch of one step)
    warm: np.ndarray


def new_data(m: ModelArrays, q0, v0) -> Data:
    """A Data at (q0, v0), t = 0, nothing accumulated, the controllers in their initial state."""
    n, nb, nc, na = q0.shape[0], m.bf.shape[0], m.ci.shape[0], m.ai.shape[0]
    width = max(m.ccols.shape[1], 1)
    nb_rows, lwidth = LOOP_ROWS * m.li.shape[0], max(m.lcols.shape[1], 1)
    stats = np.zeros(N_STATS)
    stats[ST_MINGAP] = np.inf
    z = np.zeros
    return Data(
        t=z(1), q=np.array(q0, float), v=np.array(v0, float), energy=z(N_ACC), lamN=z(nc), lamT=z(nc),
        status=z(nc), u=z(na), ctrl=m.ctrl0.copy(), stats=stats, external=z(na, np.int64),
        kin=Kinematics.zeros(nb, n), M=z((n, n)), bias=z(n), grav=z(n), F=z(n),
        gap=z(nc), nrm=z((nc, 2)), pa=z((nc, 2)), pb=z((nc, 2)), un=z(nc),
        Qact=z(n), K=z((n, n)), C=z((n, n)), What=z((n, n)), piv=z(n, np.int64), vfree=z(n), v_new=z(n),
        q_new=z(n), vth=z(n), lamN_new=z(nc), lamT_new=z(nc), act=z(nc, np.int64), fric=z(nc, np.bool_),
        HN=z((nc, width)), HT=z((nc, width)), anchor=z((nc, N_AN)), row_n=z(n),
        edges=z((m.verts.shape[0], N_EDGE)), edge_done=z(m.verts.shape[0], np.bool_),
        sp_kept=nothing_kept(n, width), pj_kept=nothing_kept(n, width), dudq=z((na, n)), dudv=z((na, n)),
        lamB=z(nb_rows), lerr=z(nb_rows), lrows_c=z((nb_rows, lwidth), np.int64), lrows_v=z((nb_rows, lwidth)),
        lrows_n=z(nb_rows, np.int64), lX=z((n, nb_rows)), lWinv=z((nb_rows, nb_rows)),
        tp_cols=z((TINY_ROWS, width), np.int64), tp_vals=z((TINY_ROWS, width)), tp_nnz=z(TINY_ROWS, np.int64),
        tp_idx=z(TINY_ROWS, np.int64), tp_flags=z((4, TINY_ROWS), np.bool_), tp_vec=z((5, TINY_ROWS)),
        tp_mu=z(TINY_ROWS), tp_W=z((TINY_ROWS, TINY_ROWS)), tp_L=z((TINY_ROWS, TINY_ROWS)), tp_X=z((n, TINY_ROWS)),
        tp_kcols=z((TINY_ROWS, width), np.int64), tp_kvals=z((TINY_ROWS, width)), tp_knnz=z(TINY_ROWS, np.int64),
        tp_kept=nothing_kept_tiny(),
        gp_cols=z((2 * nc, width), np.int64), gp_vals=z((2 * nc, width)), gp_nnz=z(2 * nc, np.int64),
        gp_vec=z((2, 2 * nc)), gp_mu=z(nc), gp_act0=z(2 * nc, np.bool_), gp_cptr=z(2 * nc + 1, np.int64),
        gp_ccol=z(2 * nc * width, np.int64), gp_cval=z(2 * nc * width), gp_blk=z((nc, 4)),
        kbuf_u=z(na), kbuf_dq=z((na, n)), kbuf_dv=z((na, n)),
        fd_kin=Kinematics.zeros(nb, n), fd_bias=z(n), fd_grav=z(n), fd_Fp=z(n), fd_Fm=z(n), fd_q=z(n),
        fd_v=z(n), warm=z(2 * nc + 3))


# ------------------------------------------------------------------ the kernels' view: structrefs
class _StructType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


@structref.register
class KinematicsType(_StructType):
    pass


@structref.register
class ModelType(_StructType):
    pass


@structref.register
class DataType(_StructType):
    pass


class KinematicsStruct(structref.StructRefProxy):
    pass


class ModelStruct(structref.StructRefProxy):
    pass


class DataStruct(structref.StructRefProxy):
    pass


structref.define_proxy(KinematicsStruct, KinematicsType, Kinematics._fields)
structref.define_proxy(ModelStruct, ModelType, ModelArrays._fields)
structref.define_proxy(DataStruct, DataType, Data._fields)


# built by cached kernels: StructRefProxy's own constructor compiles anew in every process.
# The Kinematics' field types are fixed: Jp and Ja in any layout ('A'). The laid-out ones are strided
# (jacobian_arrays), but those of one body on one coordinate are contiguous ('C'): without the fixed
# type such a model compiled every kernel a second time.
_F1, _F2 = types.Array(types.float64, 1, "C"), types.Array(types.float64, 2, "C")
_KIN_FIELDS = (_F2, _F1, _F2, _F1, _F2, types.Array(types.float64, 3, "A"), types.Array(types.float64, 2, "A"),
               _F2, _F1)  # Kinematics' fields in order
_KIN_TYPE = KinematicsType(list(zip(Kinematics._fields, _KIN_FIELDS)))


@njit(_KIN_TYPE(*_KIN_FIELDS), cache=True)
def _kinematics_struct(pos, ang, vel, omg, acc, Jp, Ja, cs, jconst):
    return KinematicsStruct(pos, ang, vel, omg, acc, Jp, Ja, cs, jconst)


@njit(cache=True)
def _model_struct(*fields):
    return ModelStruct(*fields)


@njit(cache=True)
def _data_struct(*fields):
    return DataStruct(*fields)


def to_struct(x):
    """The structref of a Kinematics, ModelArrays or Data, over the same numpy arrays. Python reads
    the named tuple; the proxy's own attributes would compile a getter each on first use."""
    if isinstance(x, Kinematics):
        return _kinematics_struct(*x)
    if isinstance(x, ModelArrays):
        return _model_struct(*x)
    if isinstance(x, Data):
        return _data_struct(*(to_struct(f) if isinstance(f, Kinematics) else f for f in x))
    raise TypeError(f"no structref for {type(x).__name__}")
