"""The Moreau–Jean θ time-stepping loop, compiled with numba: one step as a sequence of named phases.

One step (q_k, v_k) -> (q_k+1, v_k+1) is exactly the scheme of docs/numerics.md when projection is off:
  control          the controller blocks due write the actuator inputs d.u (control/kernel.py)
  free_velocity    forces and iteration matrix Ŵ = M - hθ ∂F/∂v - h²θ² ∂F/∂q at the start of the step
                   (one Newton iteration) and the free velocity
  constrain_free_velocity  loop-closing joints: v_free made to satisfy H_b v = 0 (a Schur complement
                   that the contact problem keeps: loops.py)
  update_switches  contacts switched during a run: which may close in this step
  activate_contacts  activation y + γ h y' <= 0 at the start of the step, and the active contact rows
  solve_contact_problem  the one-step LCP (or 2-D friction-contact problem) in the percussions over
                   the step, Newton's law in its right-hand side: v_k+1 and the percussions
  update_positions q_k+1 = q_k + h(θ v_k+1 + (1-θ) v_k)
  book_energy, classify_contacts  energy bookkeeping and the contact status of the step
  project_positions  optional (projection.py): moves q along M⁻¹Hᵀ to remove penetration and the
                   drift of persistent contacts, takes the potential energy it adds from the motion
                   along that direction, and books what it changes
  project_loops    q back onto the loop joints' constraints g(q) = 0 (loops.py), booked the same way
  record_step      the signal row (signals.SignalLayout)
  log_step_events  a recording run's contact events: status changes, impacts (impact_events.py)
  keep_snapshot    at the requested interval, the whole state in a row of a snapshot buffer (resume
                   points without leaving the loop)
Each phase reads and writes the run's Data d (arrays.py) with the constant ModelArrays m; only the
contact problem's arrays are allocated per step. The phases bind the structref fields they use to
locals first: every access to a field costs a reference count, too much inside a loop.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .codes import (ACC_ACTUATORS, ACC_DAMPING, ACC_E0, ACC_FRICTION, ACC_IMPACT, ACC_PROJECTION, AI_COORD,
                    C_FN, C_FT, C_GAP, C_PN, C_PT, C_STATUS, CF_E, CF_ET, CF_MU, CI_BBODY, CI_BTYPE, E_ACTUATORS,
                    E_DAMPING, E_DISSIPATED, E_FRICTION, E_IMPACT, E_KINETIC, E_POTENTIAL, E_PROJECTION, E_RESIDUAL,
                    E_TOTAL,
                    FS_ACTIVATION, FS_GAMMA, FS_H, FS_IMPACT, FS_PROJ_TOL, FS_REST_V, FS_STICK, FS_THETA, FS_TOL,
                    IMPACT, IS_CONST_F, IS_CONST_M, IS_IMPLICIT, IS_MAXIT, IS_PROJECTION, IS_SOLVER, N_CONTACT_SIGNALS,
                    NOT_FINITE, OK, OPEN, POLYGON, RUNAWAY, RUNAWAY_BOUND, SINGULAR, SLIP, SOLVED, SOLVER_AUTO,
                    SOLVER_FAILED, SOLVER_LEMKE, SOLVER_NSGS, SW_AHEAD, SWF_AX, SWF_AY, SWF_PX, SWF_PY, SWI_APPROACH, SWI_BODY,
                    SWI_KIND, ST_BADVALUE, LI_TYPE, LOOP_ROWS, N_LOOP_SIGNALS, PRISMATIC, ST_IMPACTS, ST_LASTERR, ST_MAXITER,
                    ST_MINGAP, ST_STEPS, ST_WARNINGS, STICK, KI_NSIG, KI_SIGCOL, N_PT, PT_BODY, WARNINGS_FULL,
                    WL_COUNT, WL_ERR, WL_T, EL_T, EVENTS_FULL)
from .contact_rows import (delassus_columns_blocks, delassus_lu, delassus_sparse, rows_into, sparse_rows_times,
                           sparse_rows_times_into)
from .control.kernel import (actuator_forces, add_actuator_jacobians, applied_inputs, apply_controllers,
                             block_segment)
from .dynamics import damper_power, point_world
from .loops import (condense_contacts, constrain_free_velocity, keep_loop_velocities, loop_normal, loop_residuals,
                    project_loops)
from .evaluation import complete_geometry, evaluate, force_jacobians, kinetic_energy, live_candidate, live_count
from .kept_delassus import delassus_kept
from .force_jacobians import analytic_jacobians_apply, revolute_force_jacobians
from .impact_events import events_due, log_step_events
from .perturbation import perturbation_power, write_perturbation
from .near_candidates import evaluate_near, new_near
from .projection import anchor_into, project_positions, projection_due
from .solvers import lemke, lemke_fc2d
from .solvers.bpp import bpp_lcp_csr_kept, new_factor
from .solvers.fc2d_auto import fc2d_auto_csr
from .solvers.nsgs import fc2d_error_csr, nsgs_fc2d_csr, nsgs_fc2d_rows_into
from .solvers.pgs import pgs_lcp_csr
from .tiny_problem import (KEPT_FACTOR, KEPT_ROWS, KEPT_SYM, SWEEPS, TINY_CONTACTS, TINY_ROWS, delassus_x,
                           delassus_x_diagonal, keep_tiny_rows, lcp_dense, nsgs_dense, nsgs_dense_start,
                           same_tiny_rows)
from .signals import ROW_ALL, ROW_CONTACTS, ROW_ENERGY, ROW_OTHERS, T_COLUMN
from .solvers._linalg import (_touch, csr_from_dense, csr_matvec_plus, csr_symmetric, csr_to_dense, csr_transpose,
                              lu_factor_inplace, lu_solve_factored)

__all__ = ["run_steps", "run_steps_selected", "state_row", "RUNAWAY_BOUND"]


# ------------------------------------------------------------------ entries (called from Python)
# nogil: the window's simulation process sends the rows of one batch while the next is stepped
# (holding the GIL, a batch made the sending thread wait for it at every pipe write)
@njit(cache=True, nogil=True)
def run_steps(nsteps, rows, m, d, snaps, snap_clock, wlog, elog):
    """Advances up to nsteps steps, writing one signal row per step into rows (if rows has them).

    m, d: the structrefs of ModelArrays and Data (arrays.to_struct). snaps, snap_clock: see
    keep_snapshot (a 0-row buffer and a zero interval take none). wlog: the solver-warning log, a row
    (WL_* columns: the step's end time, its warnings, the last error) per step whose problem stopped
    at the iteration cap; the call stops after the step that fills it (code WARNINGS_FULL). elog: the
    contact events' log (impact_events.py: N_EL columns; with one row, none are logged, else at
    least ncontacts + 2 rows), its rows written counted in elog[0, EL_T]; the call stops after a step
    that leaves it without room for another step's events (code EVENTS_FULL). Returns (code,
    steps_done, failing candidate or -1; for NOT_FINITE and RUNAWAY the signal column at fault). The
    state in d is updated in place; on failure it holds the last good state (but for a non-finite
    energy or gap, found once the step is taken: that step's row is not written).
    """
    none = np.empty(0, np.int64)
    parts = none.shape[0] + ROW_ALL  # an int64, not a literal: one compiled _advance for both entries
    return _advance(nsteps, rows, none, parts, m, d, snaps, snap_clock, wlog, elog)


@njit(cache=True, nogil=True)
def run_steps_selected(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog):
    """run_steps recording only some signals: rows[k, i] = signal cols[i] of step k's row (cols not
    empty). parts (ROW_* bits): the groups of the row these columns need; the others are not
    computed (no kinetic energy without ROW_ENERGY). The recorded values are those of the full row,
    bit for bit, and the events those of run_steps. A non-finite value in a recorded column stops the
    run as in run_steps; the energies and the potential energy are checked as in a run without rows."""
    return _advance(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog)


@njit(cache=True, nogil=True)
def _advance(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog):
    """The loop of run_steps and run_steps_selected (cols empty: full rows).

    A selection without an energy signal that takes no snapshot skips the energy bookkeeping of its
    steps (the work of the contacts, actuators and dampers: nothing in the call reads it); the
    balance's origin then moves by what the skipped terms would have changed, so the energy residual
    after the call is the one before it, and the dissipated and actuator energies leave the call's
    work out."""
    if cols.shape[0] == 0 or parts & ROW_ENERGY or snap_clock[1] > 0.0:
        return _steps(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog, True)
    before = _balance(m, d)
    out = _steps(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog, False)
    moved = _balance(m, d) - before
    if np.isfinite(moved):  # (a state gone non-finite: the origin is left as it was)
        d.energy[ACC_E0] += moved
    return out


@njit(cache=True)
def _balance(m, d):
    """The energy residual but for the origin's term: K + U + dissipated - actuators - projection."""
    upot = evaluate(m, d, m.isets[IS_CONST_M] == 0)
    e = d.energy
    diss = e[ACC_IMPACT] + e[ACC_FRICTION] + e[ACC_DAMPING]
    return kinetic_energy(m, d, d.v) + upot + diss - e[ACC_ACTUATORS] - e[ACC_PROJECTION]


@njit(cache=True)
def _steps(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog, book):
    """_advance's steps; book: whether the energy bookkeeping is done.

    When nothing reads the candidates' gaps between two steps' evaluations (no recorded contact
    signal, no controller, switch or loop joint) the end-of-step geometry skips the candidates out of
    reach (evaluation.evaluate_skipping: provably inactive in the next step, never the smallest gap,
    never in the projection), and the candidates that stay out of reach while the bodies move less than a
    skin are left out of the step's loops (near_candidates.py: the same steps); d then gets every
    candidate's exact geometry before the call returns."""
    record = rows.shape[0] >= nsteps and rows.shape[0] > 0
    lazy = (m.ki.shape[0] + m.switched.shape[0] + m.li.shape[0] == 0 and d.stats[ST_MINGAP] <= 0.0
            and not (record and (cols.shape[0] == 0 or parts & ROW_CONTACTS)) and _has_skippable(m))
    out = _step_loop(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog, book, lazy)
    if lazy:
        complete_geometry(m, d)
    return out


@njit(cache=True)
def _has_skippable(m):
    """Whether a candidate can be skipped by evaluate_skipping: a point against a polygon on a body."""
    ci = m.ci
    for c in range(ci.shape[0]):
        if ci[c, CI_BTYPE] == POLYGON and ci[c, CI_BBODY] >= 0:
            return True
    return False


@njit(cache=True)
def _step_loop(nsteps, rows, cols, parts, m, d, snaps, snap_clock, wlog, elog, book, lazy):
    """_steps' loop; lazy: the end-of-step geometry skips the candidates out of reach."""
    const_M = m.isets[IS_CONST_M] != 0
    actuated = m.ai.shape[0] > 0
    record = rows.shape[0] >= nsteps and rows.shape[0] > 0
    # what the scene has: the phases of what it has not are not called (each call of a phase costs
    # the reference counts of the fields it binds, as much as a small phase's work)
    loops, blocks, switched = m.li.shape[0] > 0, m.ki.shape[0] > 0, m.switched.shape[0] > 0
    projection = m.isets[IS_PROJECTION] != 0
    scratch = np.empty(m.layout.width if cols.shape[0] > 0 else 0)  # the selected recording's full row
    stats = d.stats
    logged = 0  # rows of wlog written
    # the contact events (impact_events.py): each contact's status before the step, the velocities
    # before an impact step and the impacts' scratch, the rows of elog written
    events = elog.shape[0] > 1
    old, ev_scratch, nev = d.status.copy(), np.zeros((3, d.v.shape[0] if events else 0)), 0
    elog[0, EL_T] = 0.0
    snapshots = snap_clock[1] > 0.0  # (keep_snapshot's own test; Python sets the interval between calls)
    # the inputs' forces: at every step when there are inputs (actuators, the mouse's pull: set between
    # calls), else zero from the first step on
    inputs = actuated or d.ctrl[d.ctrl.shape[0] - N_PT + PT_BODY] >= 0.0
    # a lazy run's near candidates (near_candidates.py); elsewhere live[0] = -1: every candidate
    live, ref = new_near(d.gap.shape[0] if lazy else 0, d.kin.pos.shape[0] if lazy else 0)
    evaluate(m, d, not const_M)
    if const_M:
        d.M[:, :] = m.M_const
    for step in range(nsteps):
        t = d.t[0]
        if blocks:
            apply_controllers(m, d, t)
        if inputs or step == 0:
            actuator_forces(m, d)
        if free_velocity_of_inputs(m, d) != OK:
            return SINGULAR, step, -1
        # a blow-up of the smooth dynamics is named here, before it reaches a contact problem
        code, col = check_state(d.vfree, m.layout.v, stats)
        if code != OK:
            return code, step, col
        if loops:
            constrain_free_velocity(m, d)
        if switched:
            update_switches(m, d)
        nact, fric = activate_contacts(m, d, live, live[0])
        warnings = stats[ST_WARNINGS]
        code, cand = solve_contact_problem(m, d, nact, fric)
        if stats[ST_WARNINGS] != warnings and logged < wlog.shape[0]:  # stamped with the step's own time
            wlog[logged, WL_T] = t + m.fs[FS_H]  # (commit_step's sum: the row's t)
            wlog[logged, WL_COUNT] = stats[ST_WARNINGS] - warnings
            wlog[logged, WL_ERR] = stats[ST_LASTERR]
            logged += 1
        if code != OK:
            return code, step, cand
        code, col = update_positions(m, d)
        if code != OK:
            return code, step, col
        if book:
            book_energy(m, d, nact)
        elif actuated:  # the inputs the step applied are recorded and read by controllers
            applied_inputs(m, d, m.fs[FS_THETA], m.fs[FS_H])
        impacts = stats[ST_IMPACTS]
        classify_contacts(m, d, nact)
        if events and stats[ST_IMPACTS] != impacts:
            _copy(ev_scratch[0], d.v)  # the velocities before an impact step
        commit_step(d, t + m.fs[FS_H])
        # end of step: the model at the new state (also the start of the next step)
        if lazy:
            upot = evaluate_near(m, d, not const_M, live, ref)
        else:
            upot = evaluate(m, d, not const_M)
        if loops:
            upot = project_loops(m, d, upot)
        if projection and loops:
            # each projection moves the other's constraints a little: alternate (the loops last,
            # closed to 1e-12; each pass shrinks what the contacts' projection has left)
            v0 = d.v.copy()  # the loops keep their velocities (loops.py)
            for _ in range(3):
                upot = project_positions(m, d, upot)
                upot = project_loops(m, d, upot)
            keep_loop_velocities(m, d, v0)
        elif projection and projection_due(m, d, live, live[0]):
            upot = project_positions(m, d, upot)
            # it may move the bodies after the list's test: every candidate is live until the next
            # evaluation builds the list anew (a move leaves every candidate's exact geometry)
            live[0] = -1
        if cols.shape[0] > 0:
            # record_step of a selection, written out here: a function holding arrays across a call of its
            # own pays two atomic reference-count operations per array and call (numba keeps them), more
            # than the few columns cost; _steps holds them once per call
            _keep_min_gap(m, d, live, live[0])
            code, col = OK, -1
            if record:
                kin = kinetic_energy(m, d, d.v) if parts & ROW_ENERGY else 0.0
                write_row_parts(m, d, scratch, kin, upot, parts)
                if parts & ROW_OTHERS:
                    write_row_others(m, d, scratch)
                for i in range(cols.shape[0]):  # rows[step] = scratch[cols]
                    j = cols[i]
                    x = scratch[j]
                    rows[step, i] = x
                    if not np.isfinite(x):
                        stats[ST_BADVALUE] = x
                        code, col = NOT_FINITE, j
                        break
            if code == OK and not (parts & ROW_ENERGY and record) and not (
                    np.isfinite(upot) and np.isfinite(d.energy.sum())):
                code = NOT_FINITE
        else:
            code, col = record_step(m, d, rows, step, upot, record)
        if code != OK:
            return code, step, col
        if events and events_due(d, old):  # (the call's arrays cost 24 reference counts a step)
            nev = log_step_events(m, d, nact, old, ev_scratch, elog, nev)
        stats[ST_STEPS] += 1
        if snapshots:
            keep_snapshot(d, snaps, snap_clock, step)
        if logged == wlog.shape[0] and logged > 0 and step + 1 < nsteps:
            return WARNINGS_FULL, step + 1, -1
        if events and nev + old.shape[0] >= elog.shape[0] and step + 1 < nsteps:
            return EVENTS_FULL, step + 1, -1
    return OK, nsteps, -1


@njit(cache=True)
def state_row(m, d, row, new_origin):
    """Signal row of the current state, with the percussions and status of the last step as they are;
    with new_origin the energy balance starts here (ACC_E0 = the total energy). Returns the total
    energy. m, d: as for run_steps."""
    upot = evaluate(m, d, True)
    kin = kinetic_energy(m, d, d.v)
    if new_origin:
        d.energy[ACC_E0] = kin + upot
    write_row(m, d, row, kin, upot)
    return kin + upot


# ------------------------------------------------------------------ phases of a step
@njit(cache=True)
def free_velocity(m, d):
    """Forces and iteration matrix: the actuator forces of d.u, the smooth forces' Jacobians (plus
    those of implicit controllers) and Ŵ = M - hθC - h²θ²K factored in d.What, and the free velocity
    d.vfree (the step without contacts). With constant M and forces and no implicit controller,
    d.vfree = v + M⁻¹ h (F + Qact). Returns OK or SINGULAR."""
    actuator_forces(m, d)
    return free_velocity_of_inputs(m, d)


@njit(cache=True)
def free_velocity_of_inputs(m, d):
    """free_velocity with the actuator forces d.Qact as they are. (It holds no arrays across its calls,
    which would cost their reference counts at each step: the work is in functions that call none.)"""
    if m.isets[IS_CONST_F] != 0 and m.isets[IS_IMPLICIT] == 0:
        _free_velocity_constant(m, d)
        return OK
    if m.isets[IS_CONST_F] != 0:
        _zero_jacobians(d)
    elif analytic_jacobians_apply(m):
        revolute_force_jacobians(m, d)
    else:
        force_jacobians(m, d)
    if m.isets[IS_IMPLICIT] != 0:
        add_actuator_jacobians(m, d, d.K, d.C)
    if d.v.shape[0] == 2:  # (a double pendulum: the rest in one function that calls nothing)
        return OK if _free_velocity_two(m, d) else SINGULAR
    _iteration_matrix(m, d)
    if not lu_factor_inplace(d.What, d.piv):
        return SINGULAR
    if d.v.shape[0] != 2:  # K v by BLAS (its sums: a loop's order moved the last bits, and hyperstatic
        np.dot(d.K, d.v, d.fd_Fp)  # feet amplify them); two coordinates: _free_rhs, the same bits
    _free_rhs(m, d)
    lu_solve_factored(d.What, d.piv, d.vfree)
    _add_velocity(d)
    return OK


@njit(cache=True)
def _free_velocity_constant(m, d):
    """d.vfree = v + M⁻¹ h (F + Qact): constant M and forces, no implicit controller."""
    h = m.fs[FS_H]
    vfree, v, F, Qact, ptr, col, val, at = d.vfree, d.v, d.F, d.Qact, m.mi_ptr, m.mi_col, m.mi_val, m.mi_diag
    n = v.shape[0]
    diagonal = at.shape[0] == n
    # M⁻¹ diagonal (ModelArrays.mi_diag: any other stored entry exactly 0, a free body's 3 x 3 block): each
    # row's sum below is 0 + its diagonal product plus products ±0, which change no sum when every
    # h (F + Qact) is finite (a ±0 sum ends +0 either way): the same numbers, one product a coordinate
    # (a resting 55-box pyramid: ~1.5 µs a step less). Else (a blow-up) the sums as they were
    finite = True
    for i in range(n if diagonal else 0):
        x = h * (F[i] + Qact[i])
        finite = finite and np.isfinite(x)
        vfree[i] = v[i] + (0.0 + val[at[i]] * x)
    # (one exit, loops of no turn and every array used last in the last block: 16 reference counts a step less)
    for i in range(0 if diagonal and finite else n):  # M⁻¹ by tree (sparse): O(n) for separate bodies
        s = 0.0
        for p in range(ptr[i], ptr[i + 1]):
            s += val[p] * (h * (F[col[p]] + Qact[col[p]]))
        vfree[i] = v[i] + s
    return _touch(vfree, v, F) & _touch(Qact, ptr, col) & _touch(val, at, at)


@njit(cache=True)
def _zero_jacobians(d):
    C, K = d.C, d.K
    C[:, :] = 0.0
    K[:, :] = 0.0


@njit(cache=True)
def _iteration_matrix(m, d):
    """Ŵ = M - hθC - h²θ²K into d.What."""
    h, theta = m.fs[FS_H], m.fs[FS_THETA]
    M, C, K, What = d.M, d.C, d.K, d.What
    n = M.shape[0]
    for i in range(n):
        for j in range(n):
            What[i, j] = M[i, j] - h * theta * C[i, j] - h * h * theta * theta * K[i, j]


@njit(cache=True)
def _free_rhs(m, d):
    """d.vfree = h (F + Qact + hθ K v), the free velocity's right-hand side, K v in d.fd_Fp (scratch: the
    finite differences are done), from BLAS there but for two coordinates, where it is written out as
    OpenBLAS's dgemv sums it (K[i, 0] v[0] added to K[i, 1] v[1] with one rounding: the same bits)."""
    h, theta = m.fs[FS_H], m.fs[FS_THETA]
    Kv = d.fd_Fp
    n = Kv.shape[0]
    if n == 2:
        K, v = d.K, d.v  # (bound here: arrays that die on one branch only keep their reference counts)
        Kv[0] = _fma(K[0, 0], v[0], K[0, 1] * v[1])
        Kv[1] = _fma(K[1, 0], v[0], K[1, 1] * v[1])
    F, Qact, rhs = d.F, d.Qact, d.vfree
    hth = h * theta
    for i in range(n):
        rhs[i] = h * (F[i] + Qact[i] + hth * Kv[i])


@njit(cache=True, error_model="numpy")
def _free_velocity_two(m, d):
    """free_velocity_of_inputs' last part for two coordinates, from the Jacobians on: _iteration_matrix,
    lu_factor_inplace, _free_rhs, lu_solve_factored and _add_velocity written out, the same operations
    in the same order, in a function that calls nothing: their five calls and the arrays' reference
    counts cost as much as the work. Returns False where lu_factor_inplace does (Ŵ singular), d.What
    and d.piv then as it leaves them, d.vfree unchanged. (Written with selects, not branches: an array
    last used on one branch only keeps its reference counts; the numpy error model, so that a quotient
    computed and not used on a singular Ŵ does not raise, which also keeps them.)"""
    h, theta = m.fs[FS_H], m.fs[FS_THETA]
    M, C, K, A, piv = d.M, d.C, d.K, d.What, d.piv
    v, F, Qact, Kv, x = d.v, d.F, d.Qact, d.fd_Fp, d.vfree
    for i in range(2):  # _iteration_matrix
        for j in range(2):
            A[i, j] = M[i, j] - h * theta * C[i, j] - h * h * theta * theta * K[i, j]
    amax = 0.0  # lu_factor_inplace, n = 2
    for i in range(2):
        for j in range(2):
            amax = max(amax, abs(A[i, j]))
    tiny = 1e-14 * amax
    a00, a01, a10, a11 = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
    p = 0
    pv = abs(a00)
    if abs(a10) > pv:
        pv = abs(a10)
        p = 1
    ok = amax != 0.0 and not pv <= tiny  # its first column: piv[0], the rows swapped, the multiplier
    if p != 0:
        a00, a01, a10, a11 = a10, a11, a00, a01
    f = a10 * (1.0 / a00)
    if f != 0.0:
        a11 -= f * a01
    piv[0] = p if ok else piv[0]
    A[0, 0], A[0, 1] = (a00, a01) if ok else (A[0, 0], A[0, 1])
    A[1, 0], A[1, 1] = (f, a11) if ok else (A[1, 0], A[1, 1])
    ok = ok and not abs(a11) <= tiny  # its second column
    piv[1] = 1 if ok else piv[1]
    kv0 = _fma(K[0, 0], v[0], K[0, 1] * v[1])  # _free_rhs
    kv1 = _fma(K[1, 0], v[0], K[1, 1] * v[1])
    Kv[0], Kv[1] = (kv0, kv1) if ok else (Kv[0], Kv[1])
    hth = h * theta
    b0 = h * (F[0] + Qact[0] + hth * kv0)
    b1 = h * (F[1] + Qact[1] + hth * kv1)
    if p != 0:  # lu_solve_factored
        b0, b1 = b1, b0
    b1 = b1 - f * b0
    b1 = b1 / a11
    b0 = (b0 - a01 * b1) / a00
    x[0], x[1] = (v[0] + b0, v[1] + b1) if ok else (x[0], x[1])  # _add_velocity
    return ok


@njit(cache=True)
def _add_velocity(d):
    """d.vfree = v + d.vfree (the solved increment, in place)."""
    v, vfree = d.v, d.vfree
    for i in range(v.shape[0]):
        vfree[i] = v[i] + vfree[i]


@intrinsic
def _fma(typingctx, a, b, c):
    """a b + c rounded once (llvm.fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        f64 = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [f64], ir.FunctionType(f64, [f64, f64, f64]))
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True)
def update_switches(m, d):
    """Switched contacts (scene `switch`): an `ahead` contact is enabled when its point on a is ahead of
    its reference point along its axis (and, if asked, approaching: normal velocity < 0), and stays
    enabled while it is closed (gap within the projection tolerance, or pushed in the last step);
    `controller` ones keep the flag a controller set. The flags (Data.ctrl) are state."""
    switched = m.switched
    if switched.shape[0] == 0:
        return
    swi, swf, ctrl, kin = m.swi, m.swf, d.ctrl, d.kin
    off = m.ai.shape[0] + m.ci.shape[0]
    tol = m.fs[FS_PROJ_TOL]
    for k in range(switched.shape[0]):
        c = switched[k]
        if swi[c, SWI_KIND] != SW_AHEAD:
            continue
        rx, ry = point_world(swi[c, SWI_BODY], swf[c, SWF_PX], swf[c, SWF_PY], kin.pos, kin.ang)
        ahead = (d.pa[c, 0] - rx) * swf[c, SWF_AX] + (d.pa[c, 1] - ry) * swf[c, SWF_AY] > 0.0
        if swi[c, SWI_APPROACH] != 0 and d.un[c] >= 0.0:
            ahead = False
        closed = d.gap[c] <= tol or d.lamN[c] > 0.0
        ctrl[off + c] = 1.0 if ahead or (ctrl[off + c] != 0.0 and closed) else 0.0


@njit(cache=True)
def activate_contacts(m, d, live=None, nlive=-1):
    """Activation and contact rows: the candidates closing within the step (gap + γ h U <= threshold at
    its start) enter the problem, in d.act, with their sparse normal and tangent rows in d.HN, d.HT.
    Returns (how many, whether any has friction). Given the near list (live, nlive: evaluation.live_count),
    of a lazy run's near candidates live[1:nlive + 1] only (near_candidates.py; the others cannot be
    active): the same contacts. (It holds no arrays across its calls: the work is in functions that call
    none, whose arrays cost no reference counts.)"""
    nact = _activation(m, d, live, nlive)
    if nact == 0:  # (a scene in flight: the rows' fields are not even bound)
        return 0, False
    return nact, _active_rows(m, d, nact)


@njit(cache=True)
def _activation(m, d, live=None, nlive=-1):
    """activate_contacts' test: the active candidates (of live[1:nlive + 1] when nlive >= 0) into d.act, in
    candidate order; returns how many."""
    h, gamma, threshold = m.fs[FS_H], m.fs[FS_GAMMA], m.fs[FS_ACTIVATION]
    projection = m.isets[IS_PROJECTION]
    gap, un, act = d.gap, d.un, d.act
    if live is None:
        live = act  # (nlive < 0: unread)
    nact = 0
    enabled = d.ctrl[m.ai.shape[0] + gap.shape[0]:]
    for i in range(live_count(gap.shape[0], nlive)):
        c = live_candidate(live, nlive, i)
        if enabled[c] == 0.0:  # a switched-off contact: the bodies pass through each other
            continue
        # standard rule y + γ h y' <= 0; with projection a closed contact (gap ~ 0 after the
        # projection) stays in the problem while separating, so its neighbours cannot push it through
        uact = un[c] if projection == 0 or un[c] < 0.0 else 0.0
        if gap[c] + gamma * h * uact <= threshold:
            act[nact] = c
            nact += 1
    return nact


@njit(cache=True)
def _active_rows(m, d, nact):
    """activate_contacts' rows of d.act[:nact] and whether each has friction (d.fric); returns whether
    any has. With projection, also the contacts' anchors (projection.anchor_into). The friction
    test is summed in the rows' own pass and the anchors are written here, inlined: no second pass over
    HT and no call of its own (whose arrays cost reference counts)."""
    kin, act, pa, pb, nrm, HN, HT, fric = d.kin, d.act, d.pa, d.pb, d.nrm, d.HN, d.HT, d.fric
    ci, cf, pos, cs, anchor, lamN = m.ci, m.cf, kin.pos, kin.cs, d.anchor, d.lamN
    anyfric = rows_into(m, kin, act, nact, nrm, pa, pb, HN, HT, fric)
    # (a loop of no turn, not a branch, and every array used last in the last block: a last use on a branch
    # kept their reference counts, 30 a step)
    for _ in range(1 if m.isets[IS_PROJECTION] != 0 else 0):
        anchor_into(ci, cf, pos, cs, anchor, act, nact, pa, pb, lamN)
    return (anyfric & _touch(act, pa, pb) & _touch(nrm, HN, HT) & _touch(fric, ci, cf) & _touch(pos, cs, anchor)
            & _touch(lamN, lamN, lamN))


@njit(cache=True)
def solve_contact_problem(m, d, nact, fric):
    """One-step problem: LCP (or, with friction, 2-D friction-contact problem interleaved [N, T] per
    contact) in the percussions of the active contacts, warm-started from the last step's, with
    Newton's law in the right-hand side. Sets d.v_new = vfree + Ŵ⁻¹Hᵀλ and the new percussions.
    Returns (code, the candidate at fault or -1). (The tiny path holds no arrays here: their reference
    counts are paid by the general path only, _solve_general.)"""
    _no_percussions(d)
    if nact == 0:
        return OK, -1
    solver = m.isets[IS_SOLVER]
    const_minv = m.isets[IS_CONST_F] != 0 and m.isets[IS_IMPLICIT] == 0 and m.li.shape[0] == 0
    tiny = nact <= TINY_CONTACTS if fric else nact <= TINY_ROWS  # (rows: 2 per contact with friction)
    if (tiny and const_minv and (solver == SOLVER_AUTO or (fric and solver == SOLVER_NSGS))
            and _solve_tiny(m, d, nact, fric)):
        return OK, -1
    return _solve_general(m, d, nact, fric, solver, const_minv)


@njit(cache=True)
def _no_percussions(d):
    """The step without contact problem: no percussions, v_new = v_free."""
    lamN_new, lamT_new, v_new, vfree, warm = d.lamN_new, d.lamT_new, d.v_new, d.vfree, d.warm
    lamN_new[:] = 0.0
    lamT_new[:] = 0.0
    warm[warm.shape[0] - 1] = -1.0  # (not solved by NSGS on the rows, until _solve_general says so)
    for i in range(v_new.shape[0]):  # (not v_new[:] = vfree: its size check's raise kept the reference counts)
        v_new[i] = vfree[i]


@njit(cache=True)
def _solve_general(m, d, nact, fric, solver, const_minv):
    """solve_contact_problem's general path (sparse W, any solver, the fallbacks and reports)."""
    lamN_new, lamT_new, v_new = d.lamN_new, d.lamT_new, d.v_new
    act = d.act
    n = v_new.shape[0]
    maxc = max(m.ccols.shape[1], 1)
    k = 2 * nact if fric else nact
    on_rows = fric and const_minv and solver != SOLVER_LEMKE
    if on_rows:
        # NSGS on the rows (a resting pyramid's every step): the rows in Data's scratch, not 7 arrays allocated
        # and zeroed per step (their entries past each row's count are never read; the first active set,
        # which _problem_rows leaves unwritten on tangent rows, is zeroed)
        rcols, rvals, rnnz = d.gp_cols[:k], d.gp_vals[:k], d.gp_nnz[:k]
        qd, r0, mu, active0 = d.gp_vec[0, :k], d.gp_vec[1, :k], d.gp_mu[:nact], d.gp_act0[:k]
        for i in range(k):
            active0[i] = False
        # M⁻¹ diagonal (a pile of free bodies): X's columns and the blocks written in the rows' pass, into
        # Data's scratch (delassus_columns_blocks' numbers, without its passes over the rows and allocations)
        columns = m.mi_diag.shape[0] > 0 and _problem_rows_columns(m, d, nact, rcols, rvals, rnnz, qd, mu, r0,
                                                                   active0, m.mi_diag, d.gp_cptr, d.gp_ccol,
                                                                   d.gp_cval, d.gp_blk)
        if m.mi_diag.shape[0] == 0:
            _problem_rows(m, d, nact, fric, rcols, rvals, rnnz, qd, mu, r0, active0)
    else:
        rcols = np.zeros((k, maxc), np.int64)
        rvals = np.zeros((k, maxc))
        rnnz = np.zeros(k, np.int64)
        qd = np.zeros(k)
        mu = np.zeros(nact)
        r0 = np.zeros(k)
        active0 = np.zeros(k, np.bool_)
        _problem_rows(m, d, nact, fric, rcols, rvals, rnnz, qd, mu, r0, active0)
        columns = False
    maxit, sweeps = m.isets[IS_MAXIT], 0
    if on_rows:
        done, r0, sweeps = _solve_friction_rows(m, d, nact, rcols, rvals, rnnz, qd, mu, r0, columns)
        if done:
            warm = d.warm
            warm[warm.shape[0] - 1] = sweeps  # (the warm start's gate, _warm_gate)
            return OK, -1
        maxit = 0  # NSGS stalled: the general path takes its answer, falls back (auto) or reports it
        # the general path keeps its rows (delassus_kept: d.sp_kept holds the arrays): arrays of their own,
        # with what the allocated ones held (zeros past each row's count)
        rcols, rvals, rnnz, qd, mu, active0 = _own_rows(rcols, rvals, rnnz, qd, mu, active0, maxc)
    G = np.zeros((0, 0))
    if const_minv:
        # constant M⁻¹, block-diagonal by tree: X and W sparse, O(entries) (chains, columns, piles), kept
        # while the rows repeat bit for bit (a resting column's)
        kept, reused = delassus_kept(d.sp_kept, rcols, rvals, rnnz, m.mi_ptr, m.mi_col, m.mi_val, n, True)
        if not reused:
            d.sp_kept = kept
        (xptr, xcol, xval), (wptr, wcol, wval), sym, fac = kept[3], kept[4], kept[5], kept[6]
    else:
        if m.isets[IS_CONST_F] != 0 and m.isets[IS_IMPLICIT] == 0:
            X, Wd = delassus_sparse(rcols, rvals, rnnz, m.Minv_const)
        else:
            X, Wd = delassus_lu(rcols, rvals, rnnz, d.What, d.piv)
        if m.li.shape[0] > 0:  # loop joints: the contact problem with the loops kept closed (loops.py)
            G = condense_contacts(m, d, X)
            Wd = sparse_rows_times(rcols, rvals, rnnz, X)
        xptr, xcol, xval = csr_from_dense(X)
        wptr, wcol, wval = csr_from_dense(Wd)
        sym, fac = csr_symmetric(wptr, wcol, wval), new_factor(0)
    lam, st, it, err = _solve(nact, fric, wptr, wcol, wval, sym, fac, qd, mu, r0, active0, solver, m.fs[FS_TOL],
                              maxit)
    it += sweeps
    stats = d.stats
    if it > stats[ST_MAXITER]:
        stats[ST_MAXITER] = it
    stats[ST_LASTERR] = err
    bad = False
    for i in range(k):
        if not np.isfinite(lam[i]):
            bad = True
    if st != SOLVED:
        if solver == SOLVER_NSGS or fric:  # (every friction problem ends in NSGS)
            stats[ST_WARNINGS] += 1
            if err > 1e-4 or bad:
                return SOLVER_FAILED, _worst(act, nact, fric, wptr, wcol, wval, qd, lam)
        else:
            return SOLVER_FAILED, _worst(act, nact, fric, wptr, wcol, wval, qd, lam)
    if bad:
        return SOLVER_FAILED, act[0]
    for i in range(n):  # v_new += X λ (per coordinate in the order of the rows, as a dense sweep adds)
        for t in range(xptr[i], xptr[i + 1]):
            lr = lam[xcol[t]]
            if lr != 0.0:
                v_new[i] += xval[t] * lr
    _keep_percussions(act, nact, fric, lam, lamN_new, lamT_new)
    if m.li.shape[0] > 0:
        dlam = G @ lam
        lamB = d.lamB
        for r in range(lamB.shape[0]):
            lamB[r] -= dlam[r]
    return OK, -1


@njit(cache=True)
def _own_rows(rcols, rvals, rnnz, qd, mu, active0, maxc):
    """Copies of a step problem's rows, right-hand side, friction coefficients and first active set (scratch
    views), as _solve_general allocates them: zeros past each row's count."""
    k = rnnz.shape[0]
    cols = np.zeros((k, maxc), np.int64)
    vals = np.zeros((k, maxc))
    nnz = np.zeros(k, np.int64)
    q = np.zeros(k)
    mu2 = np.zeros(mu.shape[0])
    act = np.zeros(k, np.bool_)
    for r in range(k):
        nnz[r] = rnnz[r]
        q[r] = qd[r]
        act[r] = active0[r]
        for kk in range(rnnz[r]):
            cols[r, kk] = rcols[r, kk]
            vals[r, kk] = rvals[r, kk]
    for c in range(mu.shape[0]):
        mu2[c] = mu[c]
    return cols, vals, nnz, q, mu2, act


@njit(cache=True)
def _solve_friction_rows(m, d, nact, rcols, rvals, rnnz, qd, mu, r0, columns):
    """The friction problem with a constant M⁻¹ by NSGS on the contact rows (nsgs_fc2d_rows): W is never
    formed (on the box pyramid its assembly and transpose cost three times the sweeps from the warm
    start). Returns (True, λ, sweeps) when solved; (False, NSGS's last iterate, sweeps), having changed no
    state (v_new back at v_free; λ or the iterate in r0's scratch), when NSGS stops short of the tolerance:
    the general path then starts from that iterate.
    columns: X's columns and the blocks are in Data's scratch (_problem_rows_columns), else computed here."""
    v_new = d.v_new
    n = v_new.shape[0]
    k = 2 * nact
    if columns:
        cptr = d.gp_cptr[:k + 1]
        ccol, cval, blk = d.gp_ccol[:cptr[k]], d.gp_cval[:cptr[k]], d.gp_blk[:nact]
    else:
        cptr, ccol, cval, blk = delassus_columns_blocks(rcols, rvals, rnnz, m.mi_ptr, m.mi_col, m.mi_val, n)
    # NSGS in place, allocating nothing: λ in r0 (Data's scratch, the warm start on entry) and its dv = X λ in
    # v_new (n entries, free until the answer is known)
    vfree = d.vfree
    st, it, err = nsgs_fc2d_rows_into(rcols, rvals, rnnz, cptr, ccol, cval, qd, mu, r0, m.fs[FS_TOL],
                                      m.isets[IS_MAXIT], blk, v_new, columns)
    if st != SOLVED:
        for i in range(n):
            v_new[i] = vfree[i]
        return False, r0, it
    stats = d.stats
    if it > stats[ST_MAXITER]:
        stats[ST_MAXITER] = it
    stats[ST_LASTERR] = err
    # v_new = v_free + X λ, X λ being NSGS's last exact dv (the same sums from 0, not from v_free: round-off
    # apart from the W path's order); a pass over X's columns less (~4 % of a resting pyramid's step)
    for i in range(n):
        v_new[i] = vfree[i] + v_new[i]
    _keep_percussions(d.act, nact, True, r0, d.lamN_new, d.lamT_new)
    return True, r0, it


@njit(cache=True, inline="always")
def _problem_rows(m, d, nact, fric, rcols, rvals, rnnz, qd, mu, r0, active0):
    """The step problem's sparse rows (interleaved [N, T] per contact with friction), right-hand side
    (Newton's law in it), warm start (_warm_start) and first active set; every entry of the first k rows written."""
    ccols, ccn, cf = m.ccols, m.ccn, m.cf
    act, un, lamN, lamT, HN, HT, cfric, vfree = d.act, d.un, d.lamN, d.lamT, d.HN, d.HT, d.fric, d.vfree
    warm, nc = d.warm, lamN.shape[0]
    on = warm[2 * nc + 1] != 0.0  # the warm start from the last two answers (_warm_gate)
    projection, rest_v, tol, impact = m.isets[IS_PROJECTION], m.fs[FS_REST_V], m.fs[FS_TOL], m.fs[FS_IMPACT]
    v = d.v  # (bound once: a field read in the loop costs a reference count per contact)
    cold = _cold(act, lamN, nact)
    for r in range(nact):
        c = act[r]
        rn = 2 * r if fric else r
        nn = ccn[c]
        rnnz[rn] = nn
        # (element loops, not slices and row views: each view costs reference counts, more than its sums)
        un_free = 0.0  # the row times v_free (sdot's sum)
        for kk in range(nn):
            j = ccols[c, kk]
            rcols[rn, kk] = j
            rvals[rn, kk] = HN[r, kk]
            un_free += HN[r, kk] * vfree[j]
        u = un[c]
        ln, lt = _warm_start(warm, nc, c, lamN[c], lamT[c], on)  # (ln > 0 as lamN[c] is: the same laws)
        qd[rn], r0[rn], active0[rn] = _normal_law(cf[c, CF_E], u, ln, un_free, projection, rest_v, tol, cold)
        if fric and cfric[r]:
            rnnz[rn + 1] = nn
            ut_free = 0.0
            for kk in range(nn):
                j = ccols[c, kk]
                rcols[rn + 1, kk] = j
                rvals[rn + 1, kk] = HT[r, kk]
                ut_free += HT[r, kk] * vfree[j]
            et = cf[c, CF_ET]
            imp = _tangent_impact(et, u, impact)
            qd[rn + 1], mu[r], r0[rn + 1] = _tangent_law(et, cf[c, CF_MU], lt, ut_free, imp,
                                                         _row_dot(ccols, c, HT, r, nn, v) if imp else 0.0)
        elif fric:  # a frictionless contact among frictional ones: an empty tangent row
            rnnz[rn + 1] = 0
            qd[rn + 1] = 0.0
            mu[r] = 0.0
            r0[rn + 1] = 0.0
            active0[rn + 1] = False


@njit(cache=True)
def _problem_rows_columns(m, d, nact, rcols, rvals, rnnz, qd, mu, r0, active0, at, cptr, ccol, cval, blk):
    """_problem_rows of a friction problem (the same rows, right-hand side, warm start and first active set,
    bit for bit) and, in the same pass, X = M⁻¹Hᵀ's columns (cptr, ccol, cval) and each contact's 2 x 2 block
    of W = H X (blk) for a diagonal M⁻¹ (at: ModelArrays.mi_diag), the numbers of
    contact_rows.delassus_columns_blocks (the same products, each sum in the same order: kk ascending).
    Every entry of the problem is written; returns False when some candidate's columns do not ascend
    (delassus_columns_blocks' test: its scatter then takes them), the columns and blocks unusable.
    Also X r0 into d.v_new (NSGS's dv scratch, v_free's copy until then), each contact's columns added as
    soon as its warm start is known: _exact_dv's sums in its order (rows ascending, zero entries skipped),
    NSGS's first pass over X's columns done here (nsgs_fc2d_rows_into's ready).
    (Two fewer passes over the rows and four allocations a step: a fifth of a resting 15-box pyramid's
    contact problem; it calls nothing, so its arrays cost no reference counts.)"""
    ccols, ccn, cf, mval = m.ccols, m.ccn, m.cf, m.mi_val
    act, un, lamN, lamT, HN, HT, cfric, vfree = d.act, d.un, d.lamN, d.lamT, d.HN, d.HT, d.fric, d.vfree
    warm, nc = d.warm, lamN.shape[0]
    on = warm[2 * nc + 1] != 0.0  # the warm start from the last two answers (_warm_gate)
    dv = d.v_new
    for i in range(dv.shape[0]):
        dv[i] = 0.0
    projection, rest_v, impact, tol = m.isets[IS_PROJECTION], m.fs[FS_REST_V], m.fs[FS_IMPACT], m.fs[FS_TOL]
    v = d.v  # (bound once: a field read in the loop costs a reference count per contact)
    cold = _cold(act, lamN, nact)
    ok = True
    p = 0
    for r in range(nact):
        c = act[r]
        rn = 2 * r
        nn = ccn[c]
        fr = cfric[r]
        rnnz[rn] = nn
        rnnz[rn + 1] = nn if fr else 0
        cptr[rn] = p
        cptr[rn + 1] = p + nn
        pt = p + nn
        un_free = ut_free = 0.0
        a = b = bp = dd = 0.0  # (delassus_columns_blocks' block sums; an empty tangent row: b sums zeros)
        jprev = -1  # (the ascent test: columns are >= 0)
        if fr:  # (M⁻¹'s entry and v_free's read once for both rows: the same numbers)
            for kk in range(nn):
                j = ccols[c, kk]
                if j <= jprev:
                    ok = False
                jprev = j
                hn, ht, w, vf = HN[r, kk], HT[r, kk], mval[at[j]], vfree[j]
                rcols[rn, kk] = j
                rvals[rn, kk] = hn
                rcols[rn + 1, kk] = j
                rvals[rn + 1, kk] = ht
                un_free += hn * vf
                ut_free += ht * vf
                xn = 0.0 + w * hn
                xt = 0.0 + w * ht
                ccol[p + kk] = j
                cval[p + kk] = xn
                ccol[pt + kk] = j
                cval[pt + kk] = xt
                a += hn * xn
                b += hn * xt
                bp += ht * xn
                dd += ht * xt
        else:
            for kk in range(nn):
                j = ccols[c, kk]
                if j <= jprev:
                    ok = False
                jprev = j
                hn = HN[r, kk]
                rcols[rn, kk] = j
                rvals[rn, kk] = hn
                un_free += hn * vfree[j]
                xn = 0.0 + mval[at[j]] * hn
                ccol[p + kk] = j
                cval[p + kk] = xn
                a += hn * xn
                b += hn * 0.0
        blk[r, 0], blk[r, 1], blk[r, 2], blk[r, 3] = 0.0 + a, 0.0 + b, 0.0 + bp, 0.0 + dd
        p = pt + nn if fr else pt
        u = un[c]
        ln, lt = _warm_start(warm, nc, c, lamN[c], lamT[c], on)  # (ln > 0 as lamN[c] is: the same laws)
        qd[rn], r0[rn], active0[rn] = _normal_law(cf[c, CF_E], u, ln, un_free, projection, rest_v, tol, cold)
        if fr:
            et = cf[c, CF_ET]
            imp = _tangent_impact(et, u, impact)
            qd[rn + 1], mu[r], r0[rn + 1] = _tangent_law(et, cf[c, CF_MU], lt, ut_free, imp,
                                                         _row_dot(ccols, c, HT, r, nn, v) if imp else 0.0)
        else:
            qd[rn + 1] = 0.0
            mu[r] = 0.0
            r0[rn + 1] = 0.0
            active0[rn + 1] = False
        x = r0[rn]
        if x != 0.0:
            for kk in range(nn):
                dv[ccol[pt - nn + kk]] += cval[pt - nn + kk] * x
        x = r0[rn + 1]
        if x != 0.0:
            for kk in range(nn):
                dv[ccol[pt + kk]] += cval[pt + kk] * x
    cptr[2 * nact] = p
    return ok


@njit(cache=True, inline="always")
def _cold(act, lamN, nact):
    """Whether nothing in the problem pushed in the last step (a scene's first contact, a column at rest)."""
    for r in range(nact):
        if lamN[act[r]] > 0.0:
            return False
    return True


@njit(cache=True, inline="always")
def _normal_law(e, u, lam, un_free, projection, rest_v, tol, cold):
    """A contact's normal row (restitution e, last normal velocity u and percussion lam): right-hand side
    (Newton's law), warm start, whether it starts active (_problem_rows' and _problem_rows_columns' rule,
    in one place). Scalars, not the arrays and the candidate: an inlined helper given arrays still pays
    their reference counts at each call, and in the rows' loops these cost more than the rest of the
    problem's set-up (a resting 55-box pyramid: ~15 of ~24 µs)."""
    # (a loaded contact's separation up to the tolerance is rest; an unloaded one keeps e = 1 from any
    # separation. A velocity mode that θ = ½ leaves undamped, not round-off, is no rest: the slider
    # crank's guide error, mirrored at every step, swapped its stop corners; its scene takes θ = 0.51)
    e = _restitution(e, u, projection, rest_v, tol if lam > 0.0 else 0.0)
    q = un_free + e * u
    # pushed in the last step or approaching faster than the rest velocity (an impact): the landing
    # beads of a column join in one solve, where the last step's set alone took block pivoting O(m)
    # swaps (O(m²) per step). Slower approaches keep the last set: two corners of a resting face are
    # redundant, and adding the unloaded one moved the load between them at every step. With no last
    # set (cold), every contact not separating joins: a column started at rest took one swap per
    # bead (m solves, O(m²)) from the empty set
    return q, lam, lam > 0.0 or q < -rest_v or (cold and q <= 0.0)


@njit(cache=True, inline="always")
def _tangent_impact(et, u, impact):
    """Whether a contact's tangent row takes the tangential Newton law (e_T, approaching faster than the
    impact threshold): then the caller sums the row times v (an array helper, called in that case only)."""
    return et != 0.0 and u < -impact


@njit(cache=True, inline="always")
def _tangent_law(et, mu, lam, ut_free, imp, ut_minus):
    """A contact's tangent row: right-hand side, friction coefficient, warm start (scalars, as _normal_law);
    ut_minus is the tangent row times v when imp (_tangent_impact)."""
    q = ut_free
    if imp:
        # tangential Newton law at an impact: the Coulomb law holds for U_T+ + e_T U_T-
        q += et * ut_minus
    return q, mu, lam


@njit(cache=True, inline="always")
def _row_dot(ccols, c, H, r, nn, x):
    """sdot(ccols[c], H[r], nn, x), the same sum in the same order, inlined: a call taking row views
    costs more than a contact row's few products."""
    acc = 0.0
    for kk in range(nn):
        acc += H[r, kk] * x[ccols[c, kk]]
    return acc


@njit(cache=True, inline="always")
def _keep_percussions(act, nact, fric, lam, lamN_new, lamT_new):
    for r in range(nact):
        c = act[r]
        rn = 2 * r if fric else r
        lamN_new[c] = lam[rn]
        if fric:
            lamT_new[c] = lam[rn + 1]


@njit(cache=True)
def _solve_tiny(m, d, nact, fric):
    """The step problem of nact <= TINY_CONTACTS contacts with friction, or TINY_ROWS without, with
    constant M⁻¹, dense in Data's scratch (tiny_problem.py): the general path's numbers without its
    allocations (NSGS with friction, block pivoting without, as _solve). Returns False, having changed
    no state, when it does not solve it (the general path then does, and reports or falls back).
    (It holds no arrays across its calls: the work is in functions that call none, whose arrays cost
    no reference counts; but for NSGS's sweeps, when the warm start does not solve the problem.)"""
    _tiny_rows(m, d, nact, fric)
    if fric:
        st, it, err = _tiny_friction(m, d, nact)
        if st == SWEEPS:
            st, it, err = _tiny_sweeps(m, d, nact)
    else:
        st, it = _tiny_lcp(m, d, nact)
        err = 0.0
    return st == SOLVED and _tiny_result(m, d, nact, fric, it, err)


@njit(cache=True)
def _tiny_rows(m, d, nact, fric):
    """_solve_tiny's problem: its rows, right-hand side, warm start and first active set (_problem_rows),
    X = M⁻¹Hᵀ and the dense W in Data's tp_* scratch; with friction the warm start also as NSGS's
    iterate (tp_vec[2]). X and W are kept while the rows repeat bit for bit (M⁻¹ is constant here): a
    resting column's or ball's, a flat box's; what tp_kept knows of W goes with them."""
    k = 2 * nact if fric else nact
    rcols, rvals, rnnz, flags, vec, mu = d.tp_cols, d.tp_vals, d.tp_nnz, d.tp_flags, d.tp_vec, d.tp_mu
    qd, r0, lam, kept = vec[0], vec[1], vec[2], d.tp_kept
    kcols, kvals, knnz, X, W, at, mval = d.tp_kcols, d.tp_kvals, d.tp_knnz, d.tp_X, d.tp_W, m.mi_diag, m.mi_val
    _problem_rows(m, d, nact, fric, rcols, rvals, rnnz, qd, mu, r0, flags[0])
    new = not same_tiny_rows(kcols, kvals, knnz, kept[KEPT_ROWS], rcols, rvals, rnnz, k)
    # (loops of no turn, not branches, and every array used last in the last block: each array's last use on a
    # branch kept its reference counts, ~40 a step)
    done = False  # X and W by M⁻¹'s diagonal (ModelArrays.mi_diag), else by its sparse rows
    for _ in range(1 if new and at.shape[0] == X.shape[0] else 0):
        done = delassus_x_diagonal(rcols, rvals, rnnz, k, at, mval, X)
    for _ in range(1 if new and not done else 0):
        delassus_x(rcols, rvals, rnnz, k, m.mi_ptr, m.mi_col, mval, X)
    for _ in range(1 if new else 0):
        sparse_rows_times_into(rcols, rvals, rnnz, X, k, k, W)
        keep_tiny_rows(kcols, kvals, knnz, rcols, rvals, rnnz, k)
    kept[KEPT_ROWS] = k if new else kept[KEPT_ROWS]
    kept[KEPT_SYM] = -1 if new else kept[KEPT_SYM]
    kept[KEPT_FACTOR] = 0 if new or fric else kept[KEPT_FACTOR]  # (with friction NSGS's extrapolation may write tp_L)
    for i in range(k if fric else 0):
        lam[i] = r0[i]
    return (_touch(rcols, rvals, rnnz) & _touch(flags, vec, mu) & _touch(qd, r0, lam) & _touch(kept, kcols, kvals)
            & _touch(knnz, X, W) & _touch(at, mval, at))


@njit(cache=True)
def _tiny_friction(m, d, nact):
    """NSGS on _tiny_rows' problem up to its first sweep (tiny_problem.nsgs_dense_start): (status,
    sweeps, error), the status SWEEPS when the warm start does not meet the tolerance."""
    W, vec, mu, tol = d.tp_W, d.tp_vec, d.tp_mu, m.fs[FS_TOL]
    q, r, u = vec[0], vec[2], vec[3]
    st, err, _norm, _dmax = nsgs_dense_start(W, q, mu, r, nact, tol, u)
    return st, 0, err


@njit(cache=True)
def _tiny_sweeps(m, d, nact):
    """NSGS on _tiny_rows' problem (tiny_problem.nsgs_dense), from its iterate: (status, sweeps, error).
    Its extrapolation's scratch is d.tp_L (the LCP's, unused with friction)."""
    vec = d.tp_vec
    return nsgs_dense(d.tp_W, vec[0], d.tp_mu, vec[2], nact, m.fs[FS_TOL], m.isets[IS_MAXIT], vec[3], d.tp_L)


@njit(cache=True, error_model="numpy")
def _tiny_lcp(m, d, nact):
    """Block pivoting on _tiny_rows' frictionless problem (tiny_problem.lcp_dense): (status, solves). (The
    numpy error model: lcp_dense's divisions, never by zero, then have no raise path, which would keep
    every array's reference counts.)"""
    vec, flags = d.tp_vec, d.tp_flags
    return lcp_dense(d.tp_W, vec[0], flags[0], nact, 3 * nact + 10, vec[2], vec[3], d.tp_idx, vec[4], d.tp_L,
                     flags[1], flags[2], flags[3], d.tp_kept)


@njit(cache=True)
def _tiny_result(m, d, nact, fric, it, err):
    """_solve_tiny's answer into the state: v_new += X λ and the percussions, the statistics; False, having
    changed nothing, if λ is not finite."""
    k = 2 * nact if fric else nact
    lam, X, v_new, stats, act, lamN_new, lamT_new = d.tp_vec[2], d.tp_X, d.v_new, d.stats, d.act, d.lamN_new, d.lamT_new
    finite = True
    for i in range(k):
        if not np.isfinite(lam[i]):
            finite = False
    # (one return, and every array's last use on every path, written with selects and loops of no turn:
    # an array last used on one branch only keeps its reference counts)
    mx = stats[ST_MAXITER]
    stats[ST_MAXITER] = it if finite and it > mx else mx
    stats[ST_LASTERR] = err if finite else stats[ST_LASTERR]
    for s in range(k if finite else 0):  # v_new += X λ, per coordinate in the order of the rows (as the general path)
        lr = lam[s]
        if lr != 0.0:
            for i in range(v_new.shape[0]):
                v_new[i] += X[i, s] * lr
    for r in range(nact if finite else 0):  # _keep_percussions written out (compiled in, it kept the counts)
        c = act[r]
        if fric:
            lamN_new[c] = lam[2 * r]
            lamT_new[c] = lam[2 * r + 1]
        else:
            lamN_new[c] = lam[r]
    # every array used once more after the loops, in one block (_touch: else 7 pairs of reference counts
    # a call); &, not and: a short circuit is a branch
    return finite & _touch(lam, X, v_new) & _touch(stats, act, lamN_new) & _touch(lamT_new, lamT_new, lamT_new)


@njit(cache=True)
def update_positions(m, d):
    """Velocity and position update: v_θ = θ v_new + (1-θ) v and q_new = q + h v_θ (d.vth, d.q_new).
    Returns (code, column) of a blow-up of v_new or q_new, else (OK, -1)."""
    h, theta = m.fs[FS_H], m.fs[FS_THETA]
    q, q_new, v_new, vth = d.q, d.q_new, d.v_new, d.vth
    v = d.v
    for j in range(q.shape[0]):  # no temporary arrays: the same arithmetic per coordinate
        vth[j] = theta * v_new[j] + (1.0 - theta) * v[j]
        q_new[j] = q[j] + h * vth[j]
    # check_state of v_new, then of q_new, written out: a call holding these arrays kept their reference
    # counts (9 a step); one return
    n, lv, lq, stats = q.shape[0], m.layout.v, m.layout.q, d.stats
    code, col = OK, -1
    for j in range(2 * n):  # (the first bad entry: no break, whose second exit kept the counts)
        x = v_new[j] if j < n else q_new[j - n]
        if code == OK and (not np.isfinite(x) or abs(x) > RUNAWAY_BOUND):
            stats[ST_BADVALUE] = x
            code = RUNAWAY if np.isfinite(x) else NOT_FINITE
            col = lv + j if j < n else lq + j - n
    return code, col


@njit(cache=True)
def book_energy(m, d, nact):
    """Energy bookkeeping of the step, at v_θ: the work of the contact percussions (impact, friction),
    of the actuators (the inputs the step applied) and of the dampers (the last with the start-of-step
    geometry)."""
    h, ai, energy, vth, u = m.fs[FS_H], m.ai, d.energy, d.vth, d.ctrl
    if nact > 0:
        ccols, ccn = m.ccols, m.ccn
        act, lamN_new, lamT_new, HN, HT = d.act, d.lamN_new, d.lamT_new, d.HN, d.HT
        for r in range(nact):
            c = act[r]
            energy[ACC_IMPACT] -= lamN_new[c] * _row_dot(ccols, c, HN, r, ccn[c], vth)
            energy[ACC_FRICTION] -= lamT_new[c] * _row_dot(ccols, c, HT, r, ccn[c], vth)
    # terms a scene cannot have are not called (adding their zero would change nothing)
    if ai.shape[0] > 0:
        applied_inputs(m, d, m.fs[FS_THETA], h)
        for i in range(ai.shape[0]):
            energy[ACC_ACTUATORS] += h * u[i] * vth[ai[i, AI_COORD]]  # d.ctrl[:na]: the applied inputs
    if u[u.shape[0] - N_PT + PT_BODY] >= 0.0:  # the mouse's work, booked alike
        energy[ACC_ACTUATORS] += h * perturbation_power(m, d, vth, d.row_n)
    if m.si.shape[0] + m.ji.shape[0] > 0:
        energy[ACC_DAMPING] -= h * damper_power(m, vth, d.kin, d.row_n)


@njit(cache=True)
def classify_contacts(m, d, nact):
    """Contact status of the step: IMPACT (pushed while approaching faster than the impact threshold,
    and not pushed in the step before), SLIP or STICK (pushed, by the sliding speed), OPEN (not pushed).
    A contact pushed in the step before cannot have been hit since: it approaches at most by the
    step's O(h) geometric drift (a pivoting foot), which is no impact. Impact steps are also counted
    per contact in d.ctrl (what controllers read as events)."""
    impact, stick = m.fs[FS_IMPACT], m.fs[FS_STICK]
    ccols, ccn = m.ccols, m.ccn
    status, act, lamN, lamN_new, un, HT, v_new, stats = d.status, d.act, d.lamN, d.lamN_new, d.un, d.HT, d.v_new, d.stats
    na = m.ai.shape[0]
    for c in range(status.shape[0]):
        status[c] = OPEN
    for r in range(nact):
        c = act[r]
        if lamN_new[c] > 0.0:
            if un[c] < -impact and lamN[c] == 0.0:
                status[c] = IMPACT
                stats[ST_IMPACTS] += 1
                d.ctrl[na + c] += 1.0
            elif abs(_row_dot(ccols, c, HT, r, ccn[c], v_new)) > stick:
                status[c] = SLIP
            else:
                status[c] = STICK


@njit(cache=True)
def commit_step(d, t_next):
    """The step's result becomes the state (and the last step's percussions the warm start's memory)."""
    # (calling nothing, each array used last in the one block at the end: a call holding them, or a last use
    # in a loop, kept 24 reference counts a step)
    warm, lamN, lamT, q, q_new, v, v_new, lamN_new, lamT_new = (d.warm, d.lamN, d.lamT, d.q, d.q_new, d.v, d.v_new,
                                                                 d.lamN_new, d.lamT_new)
    _warm_gate(warm, lamN, lamT)
    for i in range(q.shape[0]):  # (loops: a slice assignment costs more than these few numbers)
        q[i] = q_new[i]
    for i in range(v.shape[0]):
        v[i] = v_new[i]
    for c in range(lamN.shape[0]):
        lamN[c] = lamN_new[c]
        lamT[c] = lamT_new[c]
    d.t[0] = t_next
    return _touch(warm, lamN, lamT) & _touch(q, q_new, v) & _touch(v_new, lamN_new, lamT_new)


# The warm start from the last two answers. At rest NSGS's answers cycle at the tolerance's scale (a resting
# 55-box pyramid: two steps in three take a sweep; docs/benchmarks.md, sessions 22-23): the warm start r_k
# leaves the velocity changing by what it changed in the last step. A contact loaded in both last steps is
# warm-started from r_k + WARM_BETA (r_k - r_(k-1)) (a convex combination of the two answers: inside the
# cone) once WARM_AFTER steps in a row were solved by NSGS on the rows within WARM_QUIET sweeps, until a step
# takes more than WARM_OFF sweeps or another path: 55 boxes 3,319 -> ~2,760 sweeps in the 2000-step run. A
# gate that opens sooner (1, 5 or 30 quiet steps) or closes after every swept step sends the packed 200-disk
# pile into histories that rest less quietly (|v| up to 2e-8 m/s); every step from the first costs the
# pyramids' landings, where the answers trend instead of cycling. Only the warm start changes: the
# solver's tolerance and stopping tests do not.
WARM_BETA = -0.75
WARM_AFTER = 100
WARM_QUIET = 1
WARM_OFF = 10


@njit(cache=True, inline="always")
def _warm_gate(warm, lamN, lamT):
    """At the end of a step (commit_step, before lamN and lamT take its answer): the last step's percussions
    into the warm start's memory (Data.warm) and its gate moved by the step's sweeps on the rows."""
    nc = lamN.shape[0]
    for c in range(nc):
        warm[c] = lamN[c]
        warm[nc + c] = lamT[c]
    it = warm[2 * nc + 2]  # (-1: not solved by NSGS on the rows)
    quiet = min(warm[2 * nc] + 1.0, float(WARM_AFTER)) if 0.0 <= it <= WARM_QUIET else 0.0
    warm[2 * nc] = quiet
    warm[2 * nc + 1] = 1.0 if (warm[2 * nc + 1] != 0.0 or quiet >= WARM_AFTER) and 0.0 <= it <= WARM_OFF else 0.0


@njit(cache=True, inline="always")
def _warm_start(warm, nc, c, lam, lamT, on):
    """A contact's warm start (N, T) from its last percussions lam, lamT and the step before last's in
    warm (_warm_gate): r_k + WARM_BETA (r_k - r_(k-1)) when the gate is on and it was loaded in both."""
    if on and lam > 0.0 and warm[c] > 0.0:
        return lam + WARM_BETA * (lam - warm[c]), lamT + WARM_BETA * (lamT - warm[nc + c])
    return lam, lamT


@njit(cache=True)
def _copy(dst, src):
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def record_step(m, d, rows, step, upot, record):
    """Recording: the smallest gap so far, and (if record) the signal row of the new state in
    rows[step]. Returns (NOT_FINITE, column or -1) if a recorded value, the energy or a gap is not
    finite (no such row is ever handed out), else (OK, -1)."""
    stats = d.stats
    _keep_min_gap(m, d)
    if record:
        kin = kinetic_energy(m, d, d.v)
        write_row(m, d, rows[step], kin, upot)
        col = _first_nonfinite(rows[step], stats)
        if col >= 0:
            return NOT_FINITE, col
    elif not (np.isfinite(upot) and np.isfinite(d.energy.sum())):
        return NOT_FINITE, -1
    return OK, -1


@njit(cache=True)
def _keep_min_gap(m, d, live=None, nlive=-1):
    """The smallest gap of an enabled contact so far (stats, the run's largest penetration); given the near
    list, of the candidates live[1:nlive + 1] (near_candidates.py: the others' gaps are positive), else all."""
    if live is None:
        live = d.act  # (nlive < 0: unread)
    gap, stats = d.gap, d.stats
    enabled = d.ctrl[m.ai.shape[0] + gap.shape[0]:]
    for i in range(live_count(gap.shape[0], nlive)):
        c = live_candidate(live, nlive, i)
        if gap[c] < stats[ST_MINGAP] and enabled[c] != 0.0:
            stats[ST_MINGAP] = gap[c]


@njit(cache=True)
def keep_snapshot(d, snaps, clock, step):
    """clock = [next due time, interval (<= 0: none), snapshots in this call]. After a step that
    ends at t >= the due time, writes step, t and the state (q, v, energy, lamN, lamT, status, u,
    ctrl, stats, warm: state_block.STATE_ARRAYS' order) to the next row of snaps; the next one is due at
    t + interval - 1e-12 (the per-step rule the window's worker followed)."""
    t = d.t[0]
    if clock[1] <= 0.0 or t < clock[0]:
        return
    k = int(clock[2])
    if k < snaps.shape[0]:
        out = snaps[k]
        out[0] = step
        out[1] = t
        j = _put(out, 2, d.q)
        j = _put(out, j, d.v)
        j = _put(out, j, d.energy)
        j = _put(out, j, d.lamN)
        j = _put(out, j, d.lamT)
        j = _put(out, j, d.status)
        j = _put(out, j, d.u)
        j = _put(out, j, d.ctrl)
        j = _put(out, j, d.stats)
        _put(out, j, d.warm)
        clock[2] = k + 1
    clock[0] = t + clock[1] - 1e-12


# ------------------------------------------------------------------ helpers
@njit(cache=True)
def _put(out, k, a):
    for i in range(a.shape[0]):
        out[k + i] = a[i]
    return k + a.shape[0]


@njit(cache=True)
def write_row(m, d, row, kin, upot):
    """The signal row of the state in d, its kinetic and potential energies given (SignalLayout order)."""
    write_row_parts(m, d, row, kin, upot, ROW_ALL)
    write_row_others(m, d, row)


@njit(cache=True)
def write_row_parts(m, d, row, kin, upot, parts):
    """write_row of t, q, v and the groups in parts (ROW_* bits) but ROW_OTHERS (write_row_others); the
    other columns are left as they are."""
    lay = m.layout
    q, v = d.q, d.v
    n = q.shape[0]
    row[T_COLUMN] = d.t[0]
    for j in range(n):
        row[lay.q + j] = q[j]
        row[lay.v + j] = v[j]
    if parts & ROW_ENERGY:
        acc_e = d.energy
        k = lay.energy
        diss = acc_e[ACC_IMPACT] + acc_e[ACC_FRICTION] + acc_e[ACC_DAMPING]
        row[k + E_KINETIC] = kin
        row[k + E_POTENTIAL] = upot
        row[k + E_TOTAL] = kin + upot
        row[k + E_DISSIPATED] = diss
        row[k + E_IMPACT] = acc_e[ACC_IMPACT]
        row[k + E_FRICTION] = acc_e[ACC_FRICTION]
        row[k + E_DAMPING] = acc_e[ACC_DAMPING]
        row[k + E_ACTUATORS] = acc_e[ACC_ACTUATORS]
        row[k + E_PROJECTION] = acc_e[ACC_PROJECTION]
        row[k + E_RESIDUAL] = kin + upot + diss - acc_e[ACC_ACTUATORS] - acc_e[ACC_PROJECTION] - acc_e[ACC_E0]
    if parts & ROW_CONTACTS:
        gap, lamN, lamT, status = d.gap, d.lamN, d.lamT, d.status
        h = m.fs[FS_H]
        k = lay.contacts
        for c in range(gap.shape[0]):
            row[k + C_GAP] = gap[c]
            row[k + C_PN] = lamN[c]
            row[k + C_PT] = lamT[c]
            row[k + C_STATUS] = status[c]
            row[k + C_FN] = lamN[c] / h
            row[k + C_FT] = lamT[c] / h
            k += N_CONTACT_SIGNALS


@njit(cache=True)
def write_row_others(m, d, row):
    """The row's ROW_OTHERS group: inputs, switches, loop joints, the mouse's pull, blocks' signals. (Not
    in write_row_parts: a function that calls none keeps no reference counts of its arrays.)"""
    lay = m.layout
    ctrl = d.ctrl
    for i in range(lay.nactuators):
        row[lay.actuators + i] = ctrl[i]  # the applied inputs
    off = lay.nactuators + d.gap.shape[0]
    for k in range(m.switched.shape[0]):
        row[lay.switches + k] = ctrl[off + m.switched[k]]
    _write_loops(m, d, row)
    write_perturbation(m, d, row)
    ki = m.ki
    for b in range(ki.shape[0]):
        sig0, _s0 = block_segment(ki, b)
        col = ki[b, KI_SIGCOL]
        for k in range(ki[b, KI_NSIG]):
            row[col + k] = ctrl[sig0 + k]


@njit(cache=True)
def _write_loops(m, d, row):
    """Per loop joint: the mean force over the step on body a (fx, fy; world frame), the couple on a
    (prismatic) and the position residual at the state (m)."""
    nl = m.li.shape[0]
    if nl == 0:
        return
    h, lam, g, li, col = m.fs[FS_H], d.lamB, d.lerr, m.li, m.layout.loops
    loop_residuals(m, d.kin, g)
    for l in range(nl):
        r = LOOP_ROWS * l
        if li[l, LI_TYPE] == PRISMATIC:
            nx, ny = loop_normal(m, l, d.kin.ang)
            row[col], row[col + 1], row[col + 2] = nx * lam[r] / h, ny * lam[r] / h, lam[r + 1] / h
            row[col + 3] = abs(g[r])
        else:
            row[col], row[col + 1], row[col + 2] = lam[r] / h, lam[r + 1] / h, 0.0
            row[col + 3] = np.hypot(g[r], g[r + 1])
        col += N_LOOP_SIGNALS


@njit(cache=True, inline="always")
def _restitution(e, u, projection, rest_v, rest_tol):
    """The e in Newton's law U+ + e U- >= 0 of one active contact.

    Standard scheme (projection off): e itself, whatever the sign of U-. With projection, closed
    contacts stay in the problem: approaches slower than rest_v are plastic (else the projection feeds
    a micro-bouncing), and separating contacts get e = 1, the one value whose percussion does no work
    (λ (U+ + U-)/2 = 0 when U+ = -U-), so neighbours pushing them back cannot create energy.
    A separation no faster than rest_tol (the caller's: the solver's tolerance for a contact loaded in
    the last step) is that solve's error, not a motion: plastic. (A resting contact's U- of ±1e-11
    switched e between 0 and 1 at random, and e = 1 added U- to the warm start's error: a resting
    pyramid's step took a sweep 4 times in 5, 2 in 5 with this. The work e = 0 allows, λ U-/2 <=
    λ tol / 2, is what the solver's tolerance allows anyway.)
    A U- that is a real period-2 motion of size ~tol (a loop joint's velocity error, which H_b v+ =
    -(1-θ)/θ H_b v_k mirrors undamped at θ = ½) is not that error: such a scene needs θ > ½ to rest.
    """
    if projection == 0 or u < -rest_v:
        return e
    if u <= rest_tol:
        return 0.0
    return 1.0


@njit(cache=True)
def _solve(m, fric, wptr, wcol, wval, sym, fac, qd, mu, r0, active0, solver, tol, maxit):
    """Solves the step problem of m contacts, W in compressed sparse rows (sym: csr_symmetric of it;
    fac: block pivoting's kept factor of it, bpp_lcp_csr_kept);
    returns (r, status, iterations, error). Block pivoting, PGS and NSGS work on the sparse W
    (O(entries) per sweep, banded Cholesky for chains); Lemke's tableau is dense (the `lemke` solver
    and the LCP's fallback).

    fric: interleaved 2-D friction-contact problem of size 2m, else LCP of size m.
    """
    k = qd.shape[0]
    if solver == SOLVER_LEMKE:
        Wd = csr_to_dense(wptr, wcol, wval, k)
        if fric:
            r, st, it = lemke_fc2d(Wd, qd, mu, 100 * m + 100)
            err = fc2d_error_csr(wptr, wcol, wval, qd, mu, r)
            if st == SOLVED and err <= tol:
                return r, st, it, 0.0
            # Lemke's tableau loses a rank-deficient W (hyperstatic contacts: a box's two corners on
            # another box, a pyramid) to round-off: it stops on a ray near the answer, or ends on a basis
            # that does not solve the problem (errors of 0.5 on the pyramid). NSGS finishes from there or
            # from the warm start, whichever is closer, and its answer is judged as NSGS's are.
            if fc2d_error_csr(wptr, wcol, wval, qd, mu, r0) < err:
                r = r0
            tptr, tcol, tval = csr_transpose(wptr, wcol, wval, k)
            r, st, it2, err = nsgs_fc2d_csr(wptr, wcol, wval, tptr, tcol, tval, qd, mu, r, tol, maxit)
            return r, st, it + it2, err
        r, st, it = lemke(Wd, qd, 50 * m + 100)
        return r, st, it, 0.0
    if fric or solver == SOLVER_NSGS:
        tptr, tcol, tval = csr_transpose(wptr, wcol, wval, k)  # the columns, for the sweeps' updates
        if fric and solver == SOLVER_AUTO:  # NSGS, and Lemke where it stalls (hyperstatic piles)
            return fc2d_auto_csr(wptr, wcol, wval, tptr, tcol, tval, qd, mu, r0, tol, maxit)
        if fric:
            return nsgs_fc2d_csr(wptr, wcol, wval, tptr, tcol, tval, qd, mu, r0, tol, maxit)
        return pgs_lcp_csr(wptr, wcol, wval, tptr, tcol, tval, qd, r0, tol, maxit)
    z, st, it = bpp_lcp_csr_kept(wptr, wcol, wval, qd, active0, 3 * m + 10, sym, np.zeros(0, np.bool_), fac)
    if st != SOLVED:
        z, st, it = lemke(csr_to_dense(wptr, wcol, wval, k), qd, 50 * m + 100)
    return z, st, it, 0.0


@njit(cache=True)
def _worst(act, m, fric, wptr, wcol, wval, qd, lam):
    """The active contact whose complementarity is worst violated (to name it in the error)."""
    u = np.empty(qd.shape[0])
    csr_matvec_plus(wptr, wcol, wval, lam, qd, u)
    worst, wv = act[0], -1.0
    for r in range(m):
        rn = 2 * r if fric else r
        viol = abs(min(u[rn], lam[rn]))
        if not np.isfinite(viol):
            return act[r]
        if viol > wv:
            worst, wv = act[r], viol
    return worst


@njit(cache=True)
def check_state(x, column0, stats):
    """OK if every x is finite and within ±RUNAWAY_BOUND, else the code, with the column of the first
    bad entry (column0 + its index) returned and its value kept in stats[ST_BADVALUE]."""
    for j in range(x.shape[0]):
        if not np.isfinite(x[j]) or abs(x[j]) > RUNAWAY_BOUND:
            stats[ST_BADVALUE] = x[j]
            return (RUNAWAY if np.isfinite(x[j]) else NOT_FINITE), column0 + j
    return OK, -1


@njit(cache=True)
def _first_nonfinite(row, stats):
    for j in range(row.shape[0]):
        if not np.isfinite(row[j]):
            stats[ST_BADVALUE] = row[j]
            return j
    return -1
