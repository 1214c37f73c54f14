"""`nsgui run SCENE ...`: headless runs with a progress bar, a summary, CSV/HDF5 output."""

import argparse
import json
import os
import sys
import time

USAGE_EPILOG = """examples:
  nsgui run bouncing_ball --out ball.csv
  nsgui run double_pendulum_wall --no-projection --solver lemke --summary-json s.json
  nsgui run my_scene.json --duration 10 --out run.h5
(`nsgui examples` lists the example names)
"""


def _parser():
    p = argparse.ArgumentParser(prog="nsgui run", description="Simulate a scene without a window.",
                                epilog=USAGE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scene", help="scene file (.json) or the name of an example")
    p.add_argument("--dt", type=float, help="time step h (s)")
    p.add_argument("--duration", type=float, help="end time (s)")
    p.add_argument("--theta", type=float, help="θ of the Moreau–Jean scheme, in [0.5, 1]")
    projection = p.add_mutually_exclusive_group()
    projection.add_argument("--no-projection", action="store_true",
                            help="plain Moreau–Jean (no position projection)")
    projection.add_argument("--projection", action="store_true", help="force the position projection on")
    p.add_argument("--solver", choices=["auto", "lemke", "nsgs"], help="one-step problem solver")
    p.add_argument("--out", help="write every signal to FILE.csv or FILE.h5")
    p.add_argument("--summary-json", help="write the run summary to this JSON file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


class _Progress:
    """A one-line progress bar on stderr, only for runs that last more than a moment."""

    def __init__(self, enabled):
        self.enabled = enabled and sys.stderr.isatty() or enabled == "force"
        self.start = time.perf_counter()
        self.shown = False

    def __call__(self, fraction):
        if not self.enabled or time.perf_counter() - self.start < 0.5:
            return
        n = int(30 * fraction)
        sys.stderr.write(f"\r[{'#' * n}{'.' * (30 - n)}] {100 * fraction:5.1f}%")
        sys.stderr.flush()
        self.shown = True

    def close(self):
        if self.shown:
            sys.stderr.write("\n")


def _fail(msg, code=2):
    sys.stderr.write(f"nsgui run: {msg}\n")
    return code


def run_main(argv):
    args = _parser().parse_args(argv)
    from nsgui.engine import SceneError, load_scene
    from nsgui.engine.export import write_csv, write_hdf5
    from nsgui.engine.simulate import configured_scene, simulate
    from nsgui.engine.scene import validate_scene
    from nsgui.examples import resolve_scene

    if args.out and not args.out.lower().endswith((".csv", ".h5", ".hdf5")):
        return _fail(f"--out {args.out}: the file name must end in .csv, .h5 or .hdf5")
    for opt, val in (("--dt", args.dt), ("--duration", args.duration)):
        if val is not None and not val > 0:
            return _fail(f"{opt} {val}: must be > 0")
    try:
        args.scene = resolve_scene(args.scene)  # a file, or an example's name
        scene = load_scene(args.scene)
        projection = False if args.no_projection else (True if args.projection else None)
        scene = configured_scene(scene, args.dt, args.duration, args.theta, projection, args.solver)
        problems = validate_scene(scene)
        if problems:
            raise SceneError(problems)
    except SceneError as e:
        return _fail(f"invalid scene {args.scene}:\n" + "\n".join(f"  {p}" for p in e.problems))
    progress = _Progress(not args.quiet)
    try:
        result = simulate(scene, progress=progress)
    except SceneError as e:
        progress.close()
        return _fail(f"invalid scene {args.scene}:\n" + "\n".join(f"  {p}" for p in e.problems))
    progress.close()
    s = result.summary
    if args.out:
        writing = _Progress(not args.quiet)  # shown only if the write lasts more than a moment
        try:
            if args.out.lower().endswith(".csv"):
                write_csv(args.out, result.signals, progress=writing)
            else:
                write_hdf5(args.out, result.signals, {"scene": os.path.abspath(args.scene),
                                                      "summary": json.dumps(s)}, progress=writing)
        except OSError as e:
            writing.close()
            return _fail(f"cannot write {args.out}: {e.strerror or e}")
        writing.close()
    if args.summary_json:
        try:
            from nsgui.engine.atomic import atomic_write_text
            atomic_write_text(args.summary_json, json.dumps(s, indent=2))
        except OSError as e:
            return _fail(f"cannot write {args.summary_json}: {e.strerror or e}")
    print(f"scene            {args.scene}")
    print(f"steps            {s['steps']}  (t = {s['t_end']:.6g} s, h = {scene.settings.dt:g} s)")
    print(f"wall time        {s['wall_time']:.3f} s of stepping  ({s['steps_per_second']:.0f} steps/s)")
    print(f"impacts          {s['impacts']}")
    print(f"max penetration  {s['max_penetration']:.3e} m")
    print(f"energy residual  {s['energy_residual']:.3e} J")
    if s["solver_warnings"]:
        print(f"solver warnings  {s['solver_warnings']}")
    if s["failure"]:
        sys.stderr.write(f"nsgui run: stopped early: {s['failure']}; the {s['steps']} steps before it were kept"
                         + (f" in {args.out}" if args.out else "") + "\n")
        return 1
    return 0
