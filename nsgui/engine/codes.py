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
# feature's four numbers (half-plane: point, normal; segment: ends; circle: centre; limit: bound), B's radius
CF_ALX, CF_ALY, CF_RA, CF_E, CF_MU, CF_B0, CF_B1, CF_B2, CF_B3, CF_RB = range(10)
N_CF = 10

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

# ---------------------------------------------------------------- actuators and their control laws
# the law driving an actuator: the scene's built-in ones run inside the compiled loop; EXTERNAL is a
# Python controller (Simulator.set_controller) that writes the actuator's input between kernel calls
CTRL_NONE, CTRL_CONSTANT, CTRL_PD, CTRL_EXTERNAL = range(4)
CONTROLLER_KINDS = {"none": CTRL_NONE, "constant": CTRL_CONSTANT, "pd": CTRL_PD}
# actuator int columns: the driven coordinate, the scene's law
AI_COORD, AI_KIND = range(2)
N_AI = 2
# actuator float columns: PD gains, targets and feedforward, gravity compensation (0/1), saturation,
# sampling period (0: every step), the constant law's value
AF_KP, AF_KD, AF_TARGET, AF_TARGET_V, AF_FEEDFORWARD, AF_GRAVITY, AF_LIMIT, AF_PERIOD, AF_VALUE = range(9)
N_AF = 9

# ---------------------------------------------------------------- settings
# float settings: step, θ, γ (activation look-ahead), solver tolerance, impact threshold (m/s),
# gravity, stick threshold (m/s), activation threshold (m), plastic-bounce speed under projection
# (m/s), projection tolerance (m)
(FS_H, FS_THETA, FS_GAMMA, FS_TOL, FS_IMPACT, FS_GX, FS_GY, FS_STICK, FS_ACTIVATION, FS_REST_V,
 FS_PROJ_TOL) = range(11)
N_FS = 11
# int settings: solver, iteration cap, projection (0/1), M constant (0/1), smooth forces constant (0/1)
IS_SOLVER, IS_MAXIT, IS_PROJECTION, IS_CONST_M, IS_CONST_F = range(5)
N_IS = 5
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
# at fault, for the others the contact candidate (or -1)
OK, SOLVER_FAILED, NOT_FINITE, SINGULAR, RUNAWAY = range(5)
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
