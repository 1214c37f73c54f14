"""`nsgui poincare SCENE [--section EVENT] [--json out.json] [--sweep PATH=START:STOP:N]`: a walker's
periodic gait by its Poincaré return map (docs/walking.md, "Gait analysis")."""

import argparse
import json
import sys

EPILOG = """examples:
  nsgui poincare rimless_wheel
  nsgui poincare compass_gait --json gait.json
  nsgui poincare compass_gait --sweep slope=0.05:0.09:9 --json sweep.json
  nsgui poincare my_walker.json --section impact:heel_l,heel_r
The section is the state just after a heel strike (default: an impact of any foot but the stance
foot); the sweep's PATH is a scene path (docs/user-guide.md, --set) or `slope` (the ground's angle, rad).
"""


def _parser():
    p = argparse.ArgumentParser(prog="nsgui poincare", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Fixed point, stability and bifurcations of a walker's gait "
                                            "(Poincaré return map at heel strike).")
    p.add_argument("scene", help="scene file (.json) or the name of an example")
    p.add_argument("--section", default="impact", metavar="EVENT",
                   help="the event ending a step: 'impact' (default: a heel strike of any foot but the "
                        "stance foot) or 'impact:CONTACT[,CONTACT...]' (naming the stance foot: a stride)")
    p.add_argument("--json", metavar="FILE", help="write the results to this JSON file")
    p.add_argument("--sweep", metavar="PATH=START:STOP:N",
                   help="continue the gait along a scene parameter (e.g. slope=0.04:0.09:11) and report "
                        "where the largest |λ| crosses 1")
    p.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", dest="overrides",
                   help="set one value of the scene first (as in nsgui run)")
    return p


def _fail(msg, code=2):
    sys.stderr.write(f"nsgui poincare: {msg}\n")
    return code


def _eig_text(eigs):
    return ", ".join(f"{re:.6g}{im:+.3g}i" if abs(im) > 0 else f"{re:.6g}" for re, im in eigs)


def report_lines(out):
    """Human-readable lines of an analysis (one fixed point)."""
    names = out["fixed_point"]
    lines = [f"section: {out['section']} (stance foot {out['stance']}, trailing {out['trailing']})",
             "fixed point: " + ", ".join(f"{k} = {v:.10g}" for k, v in names.items()),
             f"residual |P(x) - x| = {out['residual']:.2e} after {out['newton_iterations']} Newton iteration(s); "
             "central-difference steps " + ", ".join(f"{v:.2e}" for v in out["fd_step"].values()),
             f"period {out['period']:.6g} s, step length {out['step_length']:.6g} m, "
             f"mean speed {out['mean_speed']:.6g} m/s",
             f"energy per step: impact loss {out['impact_loss']:.6g} J, potential drop "
             f"{out['potential_drop']:.6g} J (balance {out['energy_balance']:.1e} J)",
             f"eigenvalues of DP: {_eig_text(out['eigenvalues'])} (|λ| max {max(out['moduli']):.6g}): "
             f"{out['verdict']}",
             "(the trivial eigenvalues of the section constraint are excluded: the section coordinates are "
             "reduced)"]
    return lines


def poincare_main(argv):
    args = _parser().parse_args(argv)
    from nsgui.cli import parse_overrides
    from nsgui.examples import resolve_scene
    from nsgui.scene import SceneError, load_scene
    try:
        overrides = parse_overrides(args.overrides)
        path = resolve_scene(args.scene)
        scene = load_scene(path)
        if overrides:
            scene = scene.with_values(overrides)
    except ValueError as e:  # SceneError is a ValueError
        problems = getattr(e, "problems", None)
        text = "; ".join(str(p) for p in problems) if problems else str(e)
        return _fail(f"invalid scene {args.scene}: {text}")
    from nsgui.engine.gait import GaitError, SectionEvent
    from nsgui.engine.gait.analysis import analyse, parameter_value, parse_sweep, sweep
    try:
        section = SectionEvent.parse(args.section)
        swept = parse_sweep(args.sweep) if args.sweep else None
        if swept:
            parameter_value(scene, swept[0])   # a bad path is refused before any run
        out, _P, _fp = analyse(scene, section)
        for line in report_lines(out):
            print(line)
        if swept:
            param, values = swept

            def progress(fraction, entry):
                v = entry
                if "error" in v:
                    print(f"  {param} = {v['value']:.6g}: {v['error']} (the branch stops here)", flush=True)
                    return
                print(f"  {param} = {v['value']:.6g}: " + ", ".join(f"{x:.8g}" for x in v["fixed_point"].values())
                      + f"  |λ| max {max(v['moduli']):.4g} ({v['verdict']})"
                      + ("  + period-2 gait" if "period2" in v else ""), flush=True)
            print(f"sweep of {param}:")
            result = sweep(scene, param, values, section, progress=progress)
            out["sweep"] = result["sweep"]
            out["bifurcations"] = result["bifurcations"]
            for b in result["bifurcations"]:
                of = f" of the {b['of']}" if "of" in b else ""
                print(f"bifurcation{of}: {b['kind']} at {param} = {b['value']:.6g} ({b['direction']})")
            if not result["bifurcations"]:
                print("no crossing of |λ| = 1 in the sweep")
    except GaitError as e:
        return _fail(str(e))
    except SceneError as e:
        return _fail(f"invalid scene {args.scene}: " + "; ".join(str(p) for p in e.problems))
    if args.json:
        from nsgui.atomic import atomic_write_text
        try:
            atomic_write_text(args.json, json.dumps(out, indent=1))
        except OSError as e:
            return _fail(f"--json {args.json}: {e.strerror or e}", 1)
    return 0
