"""The four-bar closed by a loop joint against the old workaround, a stiff spring (issue 11 §2).

    .venv/bin/python benchmarks/loop_vs_spring.py [--duration 2] [--dt 1e-4]

resources/scenes/four_bar.json as it is (loop joint `coupler_rocker`), and with the loop joint replaced
by a zero-length spring of stiffness k = 1e5, 1e7, 1e9 N/m between the same two points (the tree is
unchanged). For each: the crank angle at t = duration, its error against the DAE in maximal coordinates
integrated by scipy (tests/engine/test_loop_joints.py), the largest rise of the total energy above its
start, and the largest closure error |p_a − p_b|. Accuracy figures, not timings.
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nsgui.engine import compile_scene  # noqa: E402
from nsgui.engine.simulate import simulate  # noqa: E402
from nsgui.scene import ForceElement, PointRef, load_scene  # noqa: E402
from tests.engine.test_loop_joints import _dae_four_bar  # noqa: E402


def closure(scene, r):
    """Largest |p_a − p_b| of the loop's two anchors over the run (from the recorded coordinates)."""
    model = compile_scene(scene)
    lj = load_scene(os.path.join(ROOT, "resources", "scenes", "four_bar.json")).loops[0]
    a, b = model.body_index[lj.a.body], model.body_index[lj.b.body]
    worst = 0.0
    for k in range(0, len(r["t"]), max(1, len(r["t"]) // 2000)):
        q = np.array([r[f"q.{c}"][k] for c in model.coord_names])
        P = model.body_poses(q)

        def world(i, p):
            c, s = np.cos(P[i, 2]), np.sin(P[i, 2])
            return P[i, :2] + np.array([c * p[0] - s * p[1], s * p[0] + c * p[1]])
        worst = max(worst, float(np.linalg.norm(world(a, lj.a.point) - world(b, lj.b.point))))
    return worst


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--dt", type=float, default=1e-4)
    args = ap.parse_args(argv)
    base = load_scene(os.path.join(ROOT, "resources", "scenes", "four_bar.json"))
    exact = _dae_four_bar(base, args.duration)[0](args.duration)
    print(f"four-bar, h = {args.dt:g}, t = {args.duration:g} s; DAE crank angle {exact:.6f} rad")
    print("| closure | crank angle (rad) | error (rad) | max energy rise (J) | max closure error (m) |")
    print("|---|---|---|---|---|")
    cases = [("loop joint", None)] + [(f"spring k = {k:.0e}", k) for k in (1e5, 1e7, 1e9)]
    for label, k in cases:
        s = load_scene(os.path.join(ROOT, "resources", "scenes", "four_bar.json"))
        s.settings.dt, s.settings.duration = args.dt, args.duration
        if k is not None:
            # the assembled initial state of the loop model, then the tree alone with a spring
            m = compile_scene(s)
            lj = s.loops.pop()
            s.initial.q = dict(zip(m.coord_names, map(float, m.q0)))
            s.initial.v = dict(zip(m.coord_names, map(float, m.v0)))
            s.forces.append(ForceElement(name="closure", type="spring", a=PointRef(body=lj.a.body, point=lj.a.point),
                                         b=PointRef(body=lj.b.body, point=lj.b.point), stiffness=k,
                                         damping=0.0, rest_length=0.0))
        r = simulate(s)
        E = r["energy.total"]
        crank = r["q.crank"][-1]
        print(f"| {label} | {crank:.6f} | {crank - exact:+.2e} | {np.max(E - E[0]):.3g} | {closure(s, r):.2e} |")


if __name__ == "__main__":
    main()
