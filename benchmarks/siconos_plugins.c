/* Siconos 4.4 C plugins for the benchmark scenes (benchmarks/siconos_scenes.py).
 *
 * Why C and not Python subclasses: in the Debian python3-siconos 4.4 build a Python
 * LagrangianScleronomousR subclass segfaults in MoreauJeanOSI::computeFreeOutput as
 * soon as its interaction becomes active, so nonlinear relations and the double
 * pendulum dynamics are plugged the way Siconos's own C++ examples do it.
 *
 * Parameters come in as -D macros at compile time (see compile_plugins()).
 * Matrices are column-major. Plugin signatures are those of Siconos 4.4:
 *   LagrangianScleronomousR h, G0 : (nq, q, ny, y|G, nz, z)
 *   LagrangianDS mass             : (ndof, q, M, nz, z)
 *   LagrangianDS FGyr and jacobians: (ndof, q, v, out, nz, z)
 *   LagrangianDS FInt and jacobians: (t, ndof, q, v, out, nz, z)
 */
#include <math.h>

#ifndef GROUND_Y
#define GROUND_Y 0.0
#endif

/* ---------- falling rod: q = (x, y, theta), ends at -L/2 (end 0) and +L/2 (end 1) ---------- */
#ifndef ROD_HALF
#define ROD_HALF 0.5
#endif
#ifndef ROD_RADIUS
#define ROD_RADIUS 0.0
#endif

static void rod_h(double s, const double *q, double *y)
{
  y[0] = q[1] + s * ROD_HALF * sin(q[2]) - ROD_RADIUS - GROUND_Y;
}
static void rod_G(double s, const double *q, double *G)
{
  G[0] = 0.0;
  G[1] = 1.0;
  G[2] = s * ROD_HALF * cos(q[2]);
}
void rod_h0(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z) { rod_h(-1.0, q, y); }
void rod_G0(unsigned int nq, const double *q, unsigned int ny, double *G, unsigned int nz, double *z) { rod_G(-1.0, q, G); }
void rod_h1(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z) { rod_h(1.0, q, y); }
void rod_G1(unsigned int nq, const double *q, unsigned int ny, double *G, unsigned int nz, double *z) { rod_G(1.0, q, G); }

/* ---------- sliding box: q = (x, y, theta), bottom corners (-W/2, -H/2) and (+W/2, -H/2) ----------
 * y = (normal gap, tangential position); G is 2 x 3. */
#ifndef BOX_HW
#define BOX_HW 0.2
#endif
#ifndef BOX_HH
#define BOX_HH 0.1
#endif

static void box_h(double cx, double cy, const double *q, double *y)
{
  double c = cos(q[2]), s = sin(q[2]);
  y[0] = q[1] + cx * s + cy * c - GROUND_Y;
  y[1] = q[0] + cx * c - cy * s;
}
static void box_G(double cx, double cy, const double *q, double *G)
{
  double c = cos(q[2]), s = sin(q[2]);
  /* column-major 2 x 3, rows (normal, tangent) */
  G[0] = 0.0; G[1] = 1.0;                          /* d/dx */
  G[2] = 1.0; G[3] = 0.0;                          /* d/dy */
  G[4] = cx * c - cy * s; G[5] = -cx * s - cy * c; /* d/dtheta */
}
void box_h0(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z) { box_h(-BOX_HW, -BOX_HH, q, y); }
void box_G0(unsigned int nq, const double *q, unsigned int ny, double *G, unsigned int nz, double *z) { box_G(-BOX_HW, -BOX_HH, q, G); }
void box_h1(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z) { box_h(BOX_HW, -BOX_HH, q, y); }
void box_G1(unsigned int nq, const double *q, unsigned int ny, double *G, unsigned int nz, double *z) { box_G(BOX_HW, -BOX_HH, q, G); }

/* ---------- double pendulum with a wall x = WALL_X ----------
 * Point masses (plus optional rotational inertias PEND_I1, PEND_I2 of the bodies).
 * Absolute angles phi from the downward vertical; q = phi (PEND_RELATIVE 0) or
 * q = (phi1, phi2 - phi1) (PEND_RELATIVE 1, the revolute-chain coordinates), phi = A q. */
#ifndef PEND_M1
#define PEND_M1 1.0
#endif
#ifndef PEND_M2
#define PEND_M2 1.0
#endif
#ifndef PEND_L1
#define PEND_L1 1.0
#endif
#ifndef PEND_L2
#define PEND_L2 1.0
#endif
#ifndef PEND_G
#define PEND_G 10.0
#endif
#ifndef PEND_RELATIVE
#define PEND_RELATIVE 0
#endif
#ifndef PEND_I1
#define PEND_I1 0.0
#endif
#ifndef PEND_I2
#define PEND_I2 0.0
#endif
/* wall line x = WALL_X, shifted by the radius of the shape in contact (one per mass) */
#ifndef WALL_X1
#define WALL_X1 0.0
#endif
#ifndef WALL_X2
#define WALL_X2 0.0
#endif

static void to_abs(const double *q, double *phi)
{
  phi[0] = q[0];
  phi[1] = PEND_RELATIVE ? q[0] + q[1] : q[1];
}
/* B = A^T X A for a 2x2 column-major X, A = [[1,0],[r,1]] (r = PEND_RELATIVE) */
static void congruence(const double *X, double *B)
{
  if (!PEND_RELATIVE) { B[0] = X[0]; B[1] = X[1]; B[2] = X[2]; B[3] = X[3]; return; }
  /* A = [[1,0],[1,1]] ; A^T X A */
  double x00 = X[0], x10 = X[1], x01 = X[2], x11 = X[3];
  B[0] = x00 + x10 + x01 + x11; /* (0,0) */
  B[1] = x10 + x11;             /* (1,0) */
  B[2] = x01 + x11;             /* (0,1) */
  B[3] = x11;                   /* (1,1) */
}
static void vec_AT(const double *f, double *out)
{
  out[0] = PEND_RELATIVE ? f[0] + f[1] : f[0];
  out[1] = f[1];
}

void pend_mass(unsigned int n, const double *q, double *M, unsigned int nz, double *z)
{
  double p[2], X[4];
  to_abs(q, p);
  double c = PEND_M2 * PEND_L1 * PEND_L2 * cos(p[0] - p[1]);
  X[0] = (PEND_M1 + PEND_M2) * PEND_L1 * PEND_L1 + PEND_I1; X[1] = c;
  X[2] = c; X[3] = PEND_M2 * PEND_L2 * PEND_L2 + PEND_I2;
  congruence(X, M);
}
void pend_FGyr(unsigned int n, const double *q, const double *v, double *F, unsigned int nz, double *z)
{
  double p[2], w[2], f[2];
  to_abs(q, p); to_abs(v, w);
  double s = PEND_M2 * PEND_L1 * PEND_L2 * sin(p[0] - p[1]);
  f[0] = s * w[1] * w[1];
  f[1] = -s * w[0] * w[0];
  vec_AT(f, F);
}
void pend_jacFGyrq(unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  double p[2], w[2], X[4];
  to_abs(q, p); to_abs(v, w);
  double c = PEND_M2 * PEND_L1 * PEND_L2 * cos(p[0] - p[1]);
  X[0] = c * w[1] * w[1];  X[1] = -c * w[0] * w[0]; /* d/dphi1 */
  X[2] = -c * w[1] * w[1]; X[3] = c * w[0] * w[0];  /* d/dphi2 */
  congruence(X, J);
}
void pend_jacFGyrv(unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  double p[2], w[2], X[4];
  to_abs(q, p); to_abs(v, w);
  double s = PEND_M2 * PEND_L1 * PEND_L2 * sin(p[0] - p[1]);
  X[0] = 0.0;             X[1] = -2.0 * s * w[0]; /* d/dphidot1 */
  X[2] = 2.0 * s * w[1];  X[3] = 0.0;             /* d/dphidot2 */
  congruence(X, J);
}
/* gravity as internal force: FInt = dV/dq (Siconos forces = -FInt) */
void pend_FInt(double t, unsigned int n, const double *q, const double *v, double *F, unsigned int nz, double *z)
{
  double p[2], f[2];
  to_abs(q, p);
  f[0] = (PEND_M1 + PEND_M2) * PEND_G * PEND_L1 * sin(p[0]);
  f[1] = PEND_M2 * PEND_G * PEND_L2 * sin(p[1]);
  vec_AT(f, F);
}
void pend_jacFIntq(double t, unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  double p[2], X[4];
  to_abs(q, p);
  X[0] = (PEND_M1 + PEND_M2) * PEND_G * PEND_L1 * cos(p[0]); X[1] = 0.0;
  X[2] = 0.0; X[3] = PEND_M2 * PEND_G * PEND_L2 * cos(p[1]);
  congruence(X, J);
}
void pend_jacFIntv(double t, unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  J[0] = J[1] = J[2] = J[3] = 0.0;
}
/* wall contacts: gap of mass k = x_k - WALL_Xk; G = d gap / dq (1 x 2) */
void pend_h0(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z)
{
  double p[2]; to_abs(q, p);
  y[0] = PEND_L1 * sin(p[0]) - WALL_X1;
}
void pend_G0(unsigned int nq, const double *q, unsigned int ny, double *G, unsigned int nz, double *z)
{
  double p[2], g[2]; to_abs(q, p);
  g[0] = PEND_L1 * cos(p[0]); g[1] = 0.0;
  vec_AT(g, G);
}
void pend_h1(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z)
{
  double p[2]; to_abs(q, p);
  y[0] = PEND_L1 * sin(p[0]) + PEND_L2 * sin(p[1]) - WALL_X2;
}
void pend_G1(unsigned int nq, const double *q, unsigned int ny, double *G, unsigned int nz, double *z)
{
  double p[2], g[2]; to_abs(q, p);
  g[0] = PEND_L1 * cos(p[0]); g[1] = PEND_L2 * cos(p[1]);
  vec_AT(g, G);
}
