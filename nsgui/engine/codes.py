"""Every enumerated constant of the engine, in one place: the codes the compiled model's arrays hold,
the column names of those arrays, and the codes the numba kernels return and record.

The numba kernels read these as compile-time constants (so an edit here drops numba's cache:
`_numba_cache.py` hashes this file with the kernels). Views import them to read recorded signals
(a contact's status, for instance) without repeating a number. Pure Python: no numpy, no numba.
"""

# ---------------------------------------------------------------- joints (ModelArrays.bi[:, BI_JTYPE])
FIXED, REVOLUTE, PRISMATIC, FREE = range(4)
JOINT_TYPES = {"fixed": FIXED, "revolute": REVOLUTE, "prismatic": PRISMATIC, "free": FREE}

# body int columns: parent body (-1: world), joint type, index of the joint's first coordinate (-1: none)
BI_PARENT, BI_JTYPE, BI_COORD = range(3)
N_BI = 3
# body float columns: joint anchor on the parent and on the child, prismatic axis, joint angle offset,
# mass, inertia about the centre of mass, centre of mass (body frame)
(BF_APX, BF_APY, BF_ACX, BF_ACY, BF_AXX, BF_AXY, BF_ANGLE, BF_MASS, BF_INERTIA, BF_COMX,
 BF_COMY) = range(11)
N_BF = 11

# ---------------------------------------------------------------- contact candidates
# the B side of a candidate (A is always a circle of radius ra >= 0 on a body): a half-plane or a
# segment of the world, a circle or a rounded convex polygon on a body; a joint limit is a candidate too
HALFPLANE, SEGMENT, CIRCLE, POLYGON, LIMIT = range(5)
# candidate int columns; for LIMIT: CI_VSTART is the coordinate, CI_VCOUNT the sign (+1 lower, -1 upper)
CI_ABODY, CI_BTYPE, CI_BBODY, CI_VSTART, CI_VCOUNT = range(5)
N_CI = 5
# candidate float columns: A's circle (centre in A's frame, radius), restitution, friction, the B
# feature's four numbers (half-plane: point, normal; segment: ends; circle: centre; limit: bound), B's radius,
# tangential restitution e_T (CF_E is always Newton's e_N: Moreau's e is converted when compiling)
CF_ALX, CF_ALY, CF_RA, CF_E, CF_MU, CF_B0, CF_B1, CF_B2, CF_B3, CF_RB, CF_ET = range(11)
N_CF = 11
# anchor columns (Data.anchor, per candidate, written at the start of a step for the projection): its
# points on a and b in their bodies' frames, their separation pa - pb in the world, pushed in the last step
AN_RA, AN_RB, AN_SEP, AN_LOADED = 0, 2, 4, 6
N_AN = 7

# ---------------------------------------------------------------- loop-closing joints (scene `loops`)
# bilateral constraints between two bodies already in the tree, two rows each (revolute: the x and y of
# p_a − p_b; prismatic: n·(p_a − p_b) with n ⊥ the axis fixed in a, and θ_a − θ_b − angle).
# int columns: type (REVOLUTE or PRISMATIC), body a, body b (-1: the world)
LI_TYPE, LI_A, LI_B = range(3)
N_LI = 3
# float columns: the anchor on a and on b (body frames), the axis in a's frame, the relative angle
LF_AX, LF_AY, LF_BX, LF_BY, LF_UX, LF_UY, LF_ANGLE = range(7)
N_LF = 7
LOOP_ROWS = 2  # constraint rows per loop joint
# recorded per loop joint: the mean force over the step on body a (world frame, N), the couple on a
# (prismatic, N·m) and the position residual after the step (m)
LOOP_SIGNALS = ("fx", "fy", "torque", "error")
N_LOOP_SIGNALS = len(LOOP_SIGNALS)

# ---------------------------------------------------------------- force elements
# spring float columns (int columns: body a, body b; -1 is the world): attachment points, stiffness,
# damping, rest length
SF_AX, SF_AY, SF_BX, SF_BY, SF_K, SF_C, SF_L0 = range(7)
N_SF = 7
# joint spring float columns (int: the coordinate)
JF_K, JF_C, JF_REST = range(3)
N_JF = 3
# constant force float columns (int: the body): point of application (body frame), force (world)
FF_PX, FF_PY, FF_FX, FF_FY = range(4)
N_FF = 4

# ---------------------------------------------------------------- actuators and controllers
# an actuator's input is written by a controller block (nsgui.engine.control) or, when flagged in
# Data.external, by a Python law between kernel calls (Simulator.set_controller)
# actuator int columns: the driven coordinate, the block that drives it (-1: none)
AI_COORD, AI_BLOCK = range(2)
N_AI = 2
# actuator float columns: saturation (|u| <= limit)
AF_LIMIT, = range(1)
N_AF = 1

# controller kinds (a block's law); the compiled loop dispatches on these. K_PYTHON blocks are run
# by the simulator in Python between kernel calls.
(K_NONE, K_CONSTANT, K_PD, K_SLOTINE_LI, K_BNO, K_COMPUTED_TORQUE, K_STANDING, K_MANIPULATOR,
 K_PYTHON) = range(9)
K_SIMBICON = 9
# controller block int columns: kind, first entry in ModelArrays.kacts (its actuators, in order) and
# how many, first parameter in ModelArrays.kpar and how many, offset of the block's segment in the
# controller state (Data.ctrl), capacity of its delay queue, signals and state sizes, first row column
# of its signals, whether its Jacobians enter the iteration matrix (sampled every step, no delay)
(KI_KIND, KI_ACT0, KI_NACT, KI_P0, KI_NP, KI_C0, KI_QMAX, KI_NSIG, KI_NS, KI_SIGCOL, KI_IMPLICIT) = range(11)
N_KI = 11
# controller block float columns: sampling period (0: every step), measurement-to-actuation delay
KF_PERIOD, KF_DELAY = range(2)
N_KF = 2
# a block's segment of Data.ctrl: [next sample time, pending outputs, queue (QMAX x (1 + nact): apply
# time, inputs), signals (NSIG), state (NS)]; Data.ctrl starts with the applied inputs (one per
# actuator), the impact steps counted per contact and each contact's enabled flag (see SW_*)
KC_NEXT, KC_PENDING, KC_QUEUE = range(3)
# contacts switched during a run (a scene contact's `switch`): the kind of each candidate's switch, the
# body of its reference point (-1: world) and whether it must be approaching (SWI_*); the reference
# point (body frame) and the "ahead" axis (SWF_*). Each candidate's enabled flag (1/0) is state: it
# follows the impact counts in Data.ctrl.
SW_NONE, SW_AHEAD, SW_CONTROLLER = range(3)
SWITCH_KINDS = {"ahead": SW_AHEAD, "controller": SW_CONTROLLER}
SWI_KIND, SWI_BODY, SWI_APPROACH = range(3)
N_SWI = 3
SWF_PX, SWF_PY, SWF_AX, SWF_AY = range(4)
N_SWF = 4
# desired-trajectory kinds (nsgui.engine.control.trajectories)
T_CONSTANT, T_RAMP, T_SINE, T_CUBIC, T_SPLINE = range(5)
TRAJECTORY_KINDS = {"constant": T_CONSTANT, "ramp": T_RAMP, "sine": T_SINE, "cubic": T_CUBIC, "spline": T_SPLINE}

# ---------------------------------------------------------------- settings
# float settings: step, θ, γ (activation look-ahead), solver tolerance, impact threshold (m/s),
# gravity, stick threshold (m/s), activation threshold (m), plastic-bounce speed under projection
# (m/s), projection tolerance (m)
(FS_H, FS_THETA, FS_GAMMA, FS_TOL, FS_IMPACT, FS_GX, FS_GY, FS_STICK, FS_ACTIVATION, FS_REST_V,
 FS_PROJ_TOL) = range(11)
N_FS = 11
# int settings: solver, iteration cap, projection (0/1), M constant (0/1), smooth forces constant (0/1),
# some controller's Jacobians enter the iteration matrix (0/1)
IS_SOLVER, IS_MAXIT, IS_PROJECTION, IS_CONST_M, IS_CONST_F, IS_IMPLICIT = range(6)
N_IS = 6
SOLVER_AUTO, SOLVER_LEMKE, SOLVER_NSGS = range(3)
SOLVERS = {"auto": SOLVER_AUTO, "lemke": SOLVER_LEMKE, "nsgs": SOLVER_NSGS}

# status returned by the one-step problem solvers (nsgui.engine.solvers)
SOLVED, RAY_TERMINATION, ITERATION_CAP, SINGULAR_SUBPROBLEM, BAD_INPUT = range(5)

# ---------------------------------------------------------------- what a run accumulates and returns
# accumulated energies (Data.energy): impact, friction and damping losses, actuator and projection
# work, and the energy at t = 0 (the origin of the balance)
ACC_IMPACT, ACC_FRICTION, ACC_DAMPING, ACC_ACTUATORS, ACC_PROJECTION, ACC_E0 = range(6)
N_ACC = 6
# statistics (Data.stats); ST_BADVALUE: the offending value of a NOT_FINITE or RUNAWAY stop
ST_IMPACTS, ST_MINGAP, ST_WARNINGS, ST_MAXITER, ST_LASTERR, ST_STEPS, ST_BADVALUE = range(7)
N_STATS = 7
# kernel return codes; for NOT_FINITE and RUNAWAY the value returned with it is the signal column
# at fault, for the others the contact candidate (or -1); WARNINGS_FULL, EVENTS_FULL: no failure, the
# call stopped after a step because its solver-warning log or its event log is full (the caller
# empties it and goes on)
OK, SOLVER_FAILED, NOT_FINITE, SINGULAR, RUNAWAY, WARNINGS_FULL, EVENTS_FULL = range(7)
# a solver-warning log row (stepper.run_steps): the step's end time, its warnings, the last error
WL_T, WL_COUNT, WL_ERR = range(3)
# an event log row (stepper.run_steps, impact_events.py): a contact whose status changed in a step, or
# that had an impact: the step's end time, the contact, its new and old status, and for an impact the
# normal velocity before and after the step (m/s), the normal percussion (N·s), the energy it took (J)
EL_T, EL_CONTACT, EL_STATUS, EL_OLD, EL_UN_PRE, EL_UN_POST, EL_PERCUSSION, EL_LOST = range(8)
N_EL = 8
# a coordinate or velocity beyond ±RUNAWAY_BOUND (SI units: m, rad, m/s, rad/s) is a blow-up, stopped
# where it starts rather than when its overflow poisons an unrelated contact problem many steps later
RUNAWAY_BOUND = 1e8

# ---------------------------------------------------------------- recorded signals
# contact status, recorded as contact.<name>.status
OPEN, STICK, SLIP, IMPACT = range(4)
STATUS_NAMES = {OPEN: "open", STICK: "stick", SLIP: "slip", IMPACT: "impact"}
# energy signals (energy.<name>), in recorded order
ENERGY_SIGNALS = ("kinetic", "potential", "total", "dissipated", "impact", "friction", "damping",
                  "actuators", "projection", "residual")
(E_KINETIC, E_POTENTIAL, E_TOTAL, E_DISSIPATED, E_IMPACT, E_FRICTION, E_DAMPING, E_ACTUATORS,
 E_PROJECTION, E_RESIDUAL) = range(10)
N_ENERGY = len(ENERGY_SIGNALS)
# recorded per contact, in this order: gap, percussions over the step (N·s), status, and the mean
# forces over the step fn = pn / h, ft = pt / h (N)
CONTACT_SIGNALS = ("gap", "pn", "pt", "status", "fn", "ft")
C_GAP, C_PN, C_PT, C_STATUS, C_FN, C_FT = range(6)
N_CONTACT_SIGNALS = len(CONTACT_SIGNALS)

# ---------------------------------------------------------------- mouse perturbation (engine/perturbation.py)
# the last N_PT entries of Data.ctrl (state: snapshots carry it): the grabbed body (-1: none), the
# grabbed point in its frame, the target point (world), the force of the last evaluation (world), and
# the law's mass scale, stiffness and damping per unit mass (1/s², 1/s) and bound on force / mass (m/s²)
PT_BODY, PT_PX, PT_PY, PT_TX, PT_TY, PT_FX, PT_FY, PT_MASS, PT_K, PT_C, PT_AMAX = range(11)
N_PT = 11
# recorded as perturb.<name>: the first entries of that segment, in this order
PERTURB_SIGNALS = ("body", "point_x", "point_y", "target_x", "target_y", "fx", "fy")
N_PERTURB_SIGNALS = len(PERTURB_SIGNALS)
