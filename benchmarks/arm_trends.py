"""Seed 004's studies on the two-link arm under the switching scheme (docs/controllers.md, the trend table).

    .venv/bin/python benchmarks/arm_trends.py

One cycle per run (the template two_link_tracking, gravity modelled and compensated, plain
Moreau–Jean θ = 0.500001); prints markdown tables of the cycle metrics (nsgui/engine/control/cycles.py)
for the step-size and restitution sweep, and the two gain studies at h = 1e-4.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from nsgui.engine import simulate  # noqa: E402
from nsgui.scene.templates import two_link_tracking  # noqa: E402


def cycle(e=0.7, h=1e-4, gamma1=25.0, gamma2=30.0, duration=5.0):
    r = simulate(two_link_tracking(restitution=e, gamma1=gamma1, gamma2=gamma2, dt=h, cycles=1)
                 .with_values({"settings.duration": duration}), keep=False)
    return r.summary["controller"]["cycles"][0]


def fmt(c):
    length = "—" if c["transition_length"] is None else f"{c['transition_length']:.4f}"
    return (f"{c['impacts']} | {length} | {1e3 * c['first_rebound_height']:.3f} | "
            f"{1e3 * c['tracking_error_rms']:.2f}")


def main():
    head = "| impacts n_i | transition length (s) | first rebound (mm) | RMS error (mm) |"
    print("| e_N | h (s) " + head)
    print("|---|---" + "|---" * 4 + "|")
    for e in (0.2, 0.5, 0.7, 0.9, 0.95):
        for h in (1e-3, 1e-4, 1e-5):
            print(f"| {e} | {h:g} | {fmt(cycle(e, h))} |")
    print()
    print("| γ1 | γ2 " + head)
    print("|---|---" + "|---" * 4 + "|")
    for g1, g2 in ((25.0, 2.0), (25.0, 30.0), (25.0, 55.0), (10.0, 80.0), (25.0, 32.0), (50.0, 16.0), (80.0, 10.0)):
        print(f"| {g1:g} | {g2:g} | {fmt(cycle(gamma1=g1, gamma2=g2))} |")


if __name__ == "__main__":
    main()
