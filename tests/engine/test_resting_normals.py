"""A point just outside a polygon gets the edge's exact normal (contact_geometry.polygon_side), and a
resting pyramid's friction problems stay warm-started for as long as it rests.

At the gaps of resting contacts (1e-13 m, on either side of zero after a position projection) the
normal of a point outside was (c - foot) / |c - foot|, whose sideways part is round-off: it tilted by up
to 3e-3 rad, anew at every step, and the 15-box pyramid's NSGS took 20-30 sweeps a step from t = 7.5 s
on (1-2 before) until the end of the run."""
import math
import os

import numpy as np

from nsgui.engine import Simulator, compile_scene
from nsgui.engine.codes import POLYGON, ST_MAXITER
from nsgui.engine.contact_geometry import feature_geometry
from nsgui.scene import load_scene
from tests.helpers import SCENES


def _box(w, h):
    return np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])


def test_a_point_just_outside_an_edge_gets_the_edges_normal_and_distance():
    rng = np.random.default_rng(7)
    verts = _box(0.2, 0.2)
    worst_n = worst_d = 0.0
    for _ in range(400):
        bx, by, th = rng.uniform(-1.0, 1.0), rng.uniform(0.0, 2.0), rng.uniform(-math.pi, math.pi)
        c, s = math.cos(th), math.sin(th)
        k = rng.integers(4)
        a, b = verts[k], verts[(k + 1) % 4]
        e = b - a
        n_local = np.array([e[1], -e[0]]) / np.hypot(*e)          # outward (counter-clockwise vertices)
        t = rng.uniform(0.05, 0.95)
        gap = 10.0 ** rng.uniform(-14, -2)
        p_local = a + t * e + gap * n_local
        rot = np.array([[c, -s], [s, c]])
        p = np.array([bx, by]) + rot @ p_local
        n = rot @ n_local
        sd, nx, ny = feature_geometry(POLYGON, p[0], p[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, bx, by, c, s,
                                      verts, 0, 4)[:3]
        worst_n = max(worst_n, abs(nx - n[0]), abs(ny - n[1]))
        worst_d = max(worst_d, abs(sd - gap))
    # the rotated edge normal to round-off (the old quotient was off by up to ~1e-3 at gaps of 1e-13)
    assert worst_n < 1e-14
    # the distance to the round-off of the point's coordinates (~2e-16 of 2 m)
    assert worst_d < 2e-15


def test_a_point_outside_a_corner_gets_the_direction_from_the_corner():
    verts = _box(0.2, 0.1)
    for corner, direction in (((0.1, 0.05), (1.0, 2.0)), ((-0.1, -0.05), (-3.0, -1.0))):
        d = np.array(direction) / np.hypot(*direction)
        p = np.array(corner) + 0.01 * d
        sd, nx, ny = feature_geometry(POLYGON, p[0], p[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, 0.0, 0.0, 1.0, 0.0,
                                      verts, 0, 4)[:3]
        assert abs(sd - 0.01) < 1e-15 and abs(nx - d[0]) < 1e-14 and abs(ny - d[1]) < 1e-14


def test_a_resting_pyramid_stays_warm_started_after_its_projections():
    """The 15-box example rests from t ~ 0.15 s; on main before the fix, the projection at t = 7.534 s
    left resting gaps of +1e-13 and every later step took 15-34 sweeps. Now at most a few, to t = 9 s."""
    scene = load_scene(os.path.join(SCENES, "box_pyramid.json"))
    sim = Simulator(compile_scene(scene))
    sim.run(1000, signals=["t"])
    d = sim._data
    worst = []
    for _ in range(16):
        d.stats[ST_MAXITER] = 0
        sim.run(500, signals=["t"])
        worst.append(d.stats[ST_MAXITER])
    assert max(worst) <= 4, worst
    assert np.abs(d.v).max() < 1e-8  # still at rest
