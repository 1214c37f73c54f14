"""`nsgui run SCENE ...`: headless runs with a progress bar, a summary, CSV/HDF5 output."""

import argparse
import json
import os
import signal
import sys
import time

from nsgui import startup

USAGE_EPILOG = """examples:
  nsgui run bouncing_ball --out ball.csv
  nsgui run double_pendulum_wall --no-projection --solver lemke --summary-json s.json
  nsgui run my_scene.json --duration 10 --out run.h5
  nsgui run bouncing_ball --set contacts[ball_ground].restitution=0.5 --set settings.dt=1e-4
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
    p.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="overrides",
                   help="set one value of the scene, e.g. --set contacts[0].restitution=0.5 or "
                        "--set settings.solver=lemke (VALUE is JSON, else text; repeatable; paths in "
                        "docs/user-guide.md)")
    p.add_argument("--out", help="write every signal to FILE.csv or FILE.h5, row by row as the run goes")
    p.add_argument("--every", type=int, default=1, metavar="N",
                   help="record one step in N (rows 0, N, 2N…); the summary still covers every step")
    p.add_argument("--summary-json", help="write the run summary to this JSON file")
    p.add_argument("--events", metavar="FILE.csv", help="write the event log (time, kind, contact, normal "
                   "velocities before and after, percussion, energy lost) to this CSV file")
    p.add_argument("--perturbations", metavar="RUN.csv",
                   help="replay the mouse perturbations (perturb.* signals) of a run exported from the window "
                        "(.csv or .h5)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--allow-code", action="store_true",
                   help="run the scene's Python controllers (`python` blocks import and run code from "
                        "the files they name: use only with scenes you trust)")
    return p


def _cycle_line(c):
    """One cycle of a switching tracking controller (docs/controllers.md defines the metrics)."""
    length = "unfinished" if c["transition_length"] is None else f"{c['transition_length']:.4g} s"
    rebound = "—" if c["first_rebound_height"] is None else f"{c['first_rebound_height']:.3g} m"
    return (f"impacts {c['impacts']}, transition {length}, first rebound {rebound}, "
            f"tracking error (RMS) {c['tracking_error_rms']:.3g} m" + ("" if c["complete"] else " (partial cycle)"))


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


def invalid_scene(path, problems, overrides=()):
    """The message refusing a scene: its file, the --set edits it went through (a problem an edit made is
    the edit's, not the file's), then each problem on its own line."""
    edited = f" as edited by --set {', '.join(overrides)}" if overrides else ""
    return f"invalid scene {path}{edited}:\n" + "\n".join(f"  {p}" for p in problems)


def _fail(msg, code=2):
    sys.stderr.write(f"nsgui run: {msg}\n")
    return code


class _StopOnSignal:
    """Ctrl-C (SIGINT) and SIGTERM. Until the run steps they interrupt at once (KeyboardInterrupt);
    once it steps (`deferred`) they ask it to stop after the current kernel call (a fraction of a
    second), so the rows so far are kept and the output file is whole."""

    SIGNALS = ("SIGINT", "SIGTERM")

    def __init__(self):
        self.signum = None
        self.deferred = False
        self._previous = {}

    def __enter__(self):
        for name in self.SIGNALS:
            sig = getattr(signal, name)
            try:
                self._previous[sig] = signal.signal(sig, self._handle)
            except ValueError:  # not the main thread: signals stay as they are
                pass
        return self

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        self.signum = signum
        if not self.deferred:
            raise KeyboardInterrupt

    @property
    def requested(self):
        return self.signum is not None

    @property
    def exit_code(self):
        return 128 + (self.signum or signal.SIGINT)


def run_main(argv):
    args = _parser().parse_args(argv)
    with _StopOnSignal() as stop:
        try:
            code = _run(args, stop)
        except KeyboardInterrupt:
            code = _fail("interrupted before the run started; nothing written", stop.exit_code)
    if stop.requested:
        # everything is written and closed: leave now, as asked, without the interpreter's teardown
        # of the compiled kernels (about a second)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def parse_overrides(texts):
    """{path: value} from the --set options; ValueError naming the bad one."""
    from nsgui.scene.paths import parse_assignment
    out = {}
    for text in texts:
        try:
            path, value = parse_assignment(text)
        except ValueError as e:
            raise ValueError(f"--set {text}: {e}") from None
        out[path] = value
    return out


def _read_perturbations(path):
    """The PerturbationSchedule of an exported run (CSV or HDF5)."""
    from nsgui.engine.export import read_csv, read_hdf5
    from nsgui.engine.perturbation import PerturbationSchedule
    if not path.lower().endswith((".csv", ".h5", ".hdf5")):
        raise ValueError("the file name must end in .csv, .h5 or .hdf5")
    signals = read_csv(path) if path.lower().endswith(".csv") else read_hdf5(path)
    return PerturbationSchedule.from_signals(signals)


def _run(args, stop):
    from nsgui.scene import SceneError, load_scene
    from nsgui.engine.export import WriteError
    from nsgui.engine.simulate import RunTooLarge, configured_scene, human_bytes, simulate
    from nsgui.scene import validate_scene
    from nsgui.examples import resolve_scene

    if args.events and not args.events.lower().endswith(".csv"):
        return _fail(f"--events {args.events}: the file name must end in .csv")
    if args.out and not args.out.lower().endswith((".csv", ".h5", ".hdf5")):
        return _fail(f"--out {args.out}: the file name must end in .csv, .h5 or .hdf5")
    for opt, val in (("--dt", args.dt), ("--duration", args.duration)):
        if val is not None and not val > 0:
            return _fail(f"{opt} {val}: must be > 0")
    if args.every < 1:
        return _fail(f"--every {args.every}: must be a whole number ≥ 1")
    try:
        overrides = parse_overrides(args.overrides)
    except ValueError as e:
        return _fail(str(e))
    try:
        args.scene = resolve_scene(args.scene)  # a file, or an example's name
        scene = load_scene(args.scene)
        if overrides:
            scene = scene.with_values(overrides)
        projection = False if args.no_projection else (True if args.projection else None)
        scene = configured_scene(scene, args.dt, args.duration, args.theta, projection, args.solver)
        problems = validate_scene(scene)
        if problems:
            raise SceneError(problems)
    except SceneError as e:
        return _fail(invalid_scene(args.scene, e.problems, args.overrides))
    schedule = None
    if args.perturbations:
        try:
            schedule = _read_perturbations(args.perturbations)
        except (OSError, ValueError, KeyError) as e:
            return _fail(f"--perturbations {args.perturbations}: {e}")
    from nsgui.engine.control.python_block import CodeRefused, Consent, set_consent
    from nsgui.engine.simulator import ControllerError
    set_consent(Consent(os.path.dirname(os.path.abspath(args.scene)), bool(args.allow_code)))
    bar = _Progress(not args.quiet)

    def progress(fraction):
        stop.deferred = True  # stepping: a signal now stops the run where it is, keeping its rows
        startup.done()
        bar(fraction)
        return not stop.requested

    try:
        # rows go straight to --out (nothing kept in memory), or nowhere: only the summary is shown
        result = simulate(scene, progress=progress, every=args.every, out=args.out, keep=False,
                          perturbations=schedule,
                          attrs={"scene": os.path.abspath(args.scene)})
    except SceneError as e:
        return _fail(invalid_scene(args.scene, e.problems, args.overrides))
    except CodeRefused as e:
        return _fail(f"{args.scene}: {e.where}.module {e.module!r} is Python code: pass --allow-code to run it "
                     "(only for scenes you trust)")
    except ControllerError as e:  # importing or starting the user's code failed
        sys.stderr.write(e.user_traceback)
        return _fail(str(e), 1)
    except RunTooLarge as e:
        return _fail(f"--out {args.out}: this run would write about {human_bytes(e.nbytes)} ({e.rows:,} rows × "
                     f"{e.signals} signals), more than the {human_bytes(e.available)} free there; record one "
                     f"step in N with --every N")
    except WriteError as e:
        return _fail(f"{e}; nothing written", 1)
    finally:
        bar.close()
    s = result.summary
    if args.events:
        try:
            from nsgui.engine.event_log import write_events_csv
            write_events_csv(args.events, result.events)
        except OSError as e:
            return _fail(f"cannot write {args.events}: {e.strerror or e}")
    if args.summary_json:
        try:
            from nsgui.atomic import atomic_write_text
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
    for c in s.get("controller", {}).get("cycles", []):
        print(f"cycle {c['cycle']:<10} {_cycle_line(c)}")
    w = s.get("walker")
    if w:
        print(f"walker           {w['steps']} steps, {w['distance']:.3f} m at {w['mean_speed']:.3f} m/s"
              + (", fallen" if w["fallen"] else ""))
    kept = f"; the {s['rows']} rows so far are in {args.out}" if args.out else ""
    if s["failure"]:
        sys.stderr.write(s.get("failure_traceback") or "")  # the user's code raised: where
        return _fail(f"stopped early: {s['failure']}{kept}", 1)
    if s["interrupted"]:
        return _fail(f"interrupted at t = {s['t_end']:.6g} s after {s['steps']} steps{kept}", stop.exit_code)
    return 0
