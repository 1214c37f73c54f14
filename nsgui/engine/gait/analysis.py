"""A walker's gait analysis as plain data (the JSON of `nsgui poincare`, what the Gait analysis panel
draws): the fixed point, its step figures and eigenvalues, step-to-step iterates, the limit cycle, and
a continuation along a scene parameter with its bifurcations and the period-2 gait after a period
doubling."""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...scene.paths import PathError, get_value
from .fixed_point import TRIVIAL_NOTE, FixedPoint, newton, verdict
from .return_map import ReturnMap
from .section import GaitError

PERTURBATION = 0.01   # relative: step-to-step iterates of a scene that starts on its gait start this far off
SLOPE = "slope"   # pseudo-path: the angle (rad) of the scene's ground obstacle, descending as it does


def parse_sweep(text):
    """`PATH=START:STOP:N` -> (path, values)."""
    path, eq, rng = (text or "").partition("=")
    parts = rng.split(":")
    try:
        if not eq or not path.strip() or len(parts) != 3:
            raise ValueError
        start, stop, n = float(parts[0]), float(parts[1]), int(parts[2])
        if n < 2:
            raise ValueError
    except ValueError:
        raise GaitError(f"--sweep {text!r}: expected PATH=START:STOP:N with N >= 2, e.g. slope=0.02:0.1:9") from None
    return path.strip(), list(np.linspace(start, stop, n))


def _ground_index(scene):
    grounds = [k for k, o in enumerate(scene.obstacles) if o.type == "ground"]
    if len(grounds) != 1:
        raise GaitError(f"--sweep slope: the scene needs exactly one ground obstacle (it has {len(grounds)}); "
                        "give the path of the value instead")
    return grounds[0]


def parameter_value(scene, path):
    if path == SLOPE:
        n = scene.obstacles[_ground_index(scene)].normal
        return math.atan2(abs(n[0]), n[1])
    try:
        return float(get_value(scene, path))
    except PathError as e:
        raise GaitError(f"--sweep: {e}") from None
    except (TypeError, ValueError):
        raise GaitError(f"--sweep: {path} is not a number in the scene") from None


def with_parameter(scene, path, value):
    """The scene with the swept parameter set (`slope`: the ground turned to that angle)."""
    if path == SLOPE:
        k = _ground_index(scene)
        n = scene.obstacles[k].normal
        side = -1.0 if n[0] < 0 else 1.0
        return scene.with_values({f"obstacles[{k}].normal": [side * math.sin(value), math.cos(value)]})
    try:
        return scene.with_values({path: value})
    except PathError as e:
        raise GaitError(f"--sweep: {e}") from None
    except ValueError as e:
        raise GaitError(f"--sweep: {path} = {value:g}: {str(e).splitlines()[0]}") from None


def _eigen(fp):
    return [[float(l.real), float(l.imag)] for l in fp.eigenvalues]


def summarize(P: ReturnMap, fp: FixedPoint, k=1):
    """The JSON keys of a fixed point of P^k (k = 1: a gait; 2: a period-2 gait)."""
    steps, x = [], fp.x
    points = []
    for _ in range(k):
        points.append(dict(zip(P.names, map(float, x))))
        s = P.step(x)
        steps.append(s)
        x = s.x
    period = sum(s.period for s in steps)
    length = sum(s.step_length for s in steps)
    out = {
        "fixed_point": points[0] if k == 1 else points,
        "residual": fp.residual,
        "period": period,
        "step_length": length,
        "mean_speed": length / period,
        "eigenvalues": _eigen(fp),
        "moduli": [float(v) for v in fp.moduli],
        "stable": bool(fp.stable),
        "verdict": verdict(fp.moduli),
        "fd_step": dict(zip(P.names, map(float, fp.fd_step))),
        "newton_iterations": fp.iterations,
        "impact_loss": sum(s.impact_loss for s in steps),
        "potential_drop": sum(s.potential_drop for s in steps),
    }
    out["energy_balance"] = out["potential_drop"] - out["impact_loss"]
    if k == 2:
        out["step_periods"] = [s.period for s in steps]
        out["step_lengths"] = [s.step_length for s in steps]
    return out


def analyse(scene, section=None, iterates=0, cycle=False, P=None, x0=None):
    """The gait of a scene: its fixed point and everything the JSON reports. `iterates`: that many
    steps of the map from the scene's first strike, or from the gait perturbed by PERTURBATION if the
    scene starts on it (step-to-step plots); `cycle`: one step from the fixed point (phase portrait)."""
    P = P or ReturnMap(scene, section)
    fp = newton(P, P.x0 if x0 is None else x0, describe=P.section.describe)
    out = {"scene": scene.name, "section": P.event.text(), "names": P.names,
           "stance": P.model.contact_names[P.section.stance],
           "trailing": P.model.contact_names[P.section.trailing]}
    out.update(summarize(P, fp))
    out["excluded"] = TRIVIAL_NOTE
    out["jacobian"] = fp.jacobian.tolist()
    if iterates:
        x = P.x0
        start = "the first strike"
        if np.abs(x - fp.x).max() < 1e-6 * max(1.0, float(np.abs(fp.x).max())):
            # the scene starts on its gait: the iterates would only show the map's noise
            x = fp.x * (1.0 + PERTURBATION)
            start = f"the gait + {PERTURBATION:.0%}"
        xs = [x.tolist()]
        try:
            for _ in range(iterates):
                x = P(x)
                xs.append(x.tolist())
        except GaitError:
            pass   # the walker fell: the iterates up to there are what it did
        out["iterates"] = xs
        out["iterates_from"] = start
    if cycle:
        out["cycle"] = limit_cycle(P, fp.x)
    return out, P, fp


def limit_cycle(P, x, steps=1):
    """Body angles and rates over `steps` steps from x: {"bodies": names, "t", "angle" [nb][rows],
    "rate" (the motion up to each strike), "jumps": [{"t", "pre", "post", "start"}]}: each as
    [angles, rates] of every body just before the strike, just after it, and renamed as the next
    step starts (the compass gait's legs swap, the rimless wheel turns back by 2α)."""
    m, sec = P.model, P.section
    lay = m.layout
    t_all, ang_all, omg_all, jumps = [], [], [], []
    t0 = 0.0

    def bodies(q, v):
        k = m._kin(q, v)
        return k.ang.copy(), k.omg.copy()
    for _ in range(steps):
        s = P.step(x, record=True)
        rows = s.rows
        q0, v0 = sec.state(x)
        qs = np.vstack([q0, rows[:-1, lay.q:lay.q + m.nq]])
        vs = np.vstack([v0, rows[:-1, lay.v:lay.v + m.nq]])
        ts = np.concatenate([[0.0], rows[:-1, 0]]) + t0
        kin = [bodies(q, v) for q, v in zip(qs, vs)]
        t_all.append(ts)
        ang_all.append(np.array([a for a, _w in kin]))
        omg_all.append(np.array([w for _a, w in kin]))
        post = bodies(rows[-1, lay.q:lay.q + m.nq], rows[-1, lay.v:lay.v + m.nq])
        start = bodies(*sec.state(s.x))
        jumps.append({"t": float(ts[-1]), "pre": [kin[-1][0].tolist(), kin[-1][1].tolist()],
                      "post": [post[0].tolist(), post[1].tolist()], "start": [start[0].tolist(), start[1].tolist()]})
        t0 = ts[-1]
        x = s.x
    return {"bodies": list(m.body_names), "t": np.concatenate(t_all).tolist(),
            "angle": np.vstack(ang_all).T.tolist(), "rate": np.vstack(omg_all).T.tolist(), "jumps": jumps}


# ------------------------------------------------------------------------------------------ sweeps
def _crossing_kind(eigs):
    top = eigs[np.argmax(np.abs(eigs))]
    if abs(top.imag) > 1e-6 * max(1.0, abs(top)):
        return "Neimark-Sacker (complex pair)"
    return "period doubling" if top.real < 0 else "fold (λ = +1)"


def _map_at(scene, path, value, prev: ReturnMap | None, section):
    sc = with_parameter(scene, path, value)
    if prev is None:
        return ReturnMap(sc, section)
    ref_state = prev.template.copy()
    P = ReturnMap(sc, section, reference=(ref_state, prev.section.stance, prev.section.trailing))
    if P.names != prev.names:
        raise GaitError(f"--sweep {path} = {value:g}: the section coordinates changed ({prev.names} -> {P.names})")
    return P


def sweep(scene, path, values, section=None, progress=None, refine=True, cycles=False):
    """Continue the fixed point along `path` over `values`, from the scene's own gait outward (the
    values above the scene's parameter upward, those below downward); locate where max |λ| crosses 1
    and the kind of crossing; after a period doubling, follow the period-2 gait on the unstable side.
    A value where Newton fails ends its branch with an entry {"value", "error"}. Returns the JSON
    dict; `cycles`: the first period-2 gait found also gets its limit cycle over its two steps."""
    base = parameter_value(scene, path)   # a clear message for a bad path before any run
    values = sorted(float(v) for v in values)
    P0 = ReturnMap(scene, section)
    fp0 = newton(P0, P0.x0, describe=lambda x: f"{path} = {base:g}, {P0.section.describe(x)}")
    done = {}   # value -> (entry, P, fp)
    total = len(values)
    for branch in ([v for v in values if v >= base], [v for v in reversed(values) if v < base]):
        prev, xs = P0, [fp0.x]
        for value in branch:
            guess = 2 * xs[-1] - xs[-2] if len(xs) > 1 else xs[-1]   # secant predictor
            try:
                P = _map_at(scene, path, value, prev, section)
                fp = newton(P, guess, describe=lambda x, P=P, v=value: f"{path} = {v:g}, {P.section.describe(x)}")
            except GaitError as e:
                done[value] = ({"parameter": path, "value": value, "error": str(e)}, None, None)
                if progress is not None:
                    progress(len(done) / total, done[value][0])
                break
            entry = {"parameter": path, "value": value}
            entry.update(summarize(P, fp))
            done[value] = (entry, P, fp)
            prev = P
            xs.append(fp.x)
            if progress is not None and progress(len(done) / total, entry) is False:
                break
    ordered = [done[v] for v in sorted(done)]
    entries = [e for e, _P, _fp in ordered]
    bifurcations = []
    for (e0, P0_, f0), (e1, P1, f1) in itertools.pairwise(ordered):
        if f0 is None or f1 is None:
            continue
        a, b = max(f0.moduli), max(f1.moduli)
        if (a - 1.0) * (b - 1.0) >= 0.0:
            continue
        where = (_locate(scene, path, e0["value"], e1["value"], a, b, P1, f1.x, section) if refine
                 else e0["value"] + (1.0 - a) / (b - a) * (e1["value"] - e0["value"]))
        kind = _crossing_kind(f1.eigenvalues if b > a else f0.eigenvalues)
        bifurcations.append({"value": float(where), "kind": kind,
                             "direction": "loses stability" if b > a else "gains stability"})
        if kind == "period doubling":
            # the period-2 gait lives where the period-1 gait is unstable: follow it from the crossing
            side = ordered[ordered.index((e1, P1, f1)):] if b > a else ordered[:ordered.index((e0, P0_, f0)) + 1][::-1]
            guess = None
            for entry, P, fp in side:
                if fp is None or fp.stable:
                    break
                p2 = _period_two(P, fp, guess)
                if p2 is None:
                    break
                guess, entry["period2"] = p2
                if cycles and not any("cycle" in e.get("period2", {}) for e in entries):
                    entry["period2"]["cycle"] = limit_cycle(P, guess, steps=2)
    # the period-2 gait's own crossings (its next period doubling), between sweep values
    with2 = [e for e in entries if "period2" in e]
    for e0, e1 in itertools.pairwise(with2):
        a, b = max(e0["period2"]["moduli"]), max(e1["period2"]["moduli"])
        if (a - 1.0) * (b - 1.0) < 0.0:
            eig = np.array(e1["period2"]["eigenvalues"] if b > a else e0["period2"]["eigenvalues"])
            bifurcations.append({"value": e0["value"] + (1.0 - a) / (b - a) * (e1["value"] - e0["value"]),
                                 "kind": _crossing_kind(eig[:, 0] + 1j * eig[:, 1]), "of": "period-2 gait",
                                 "direction": "loses stability" if b > a else "gains stability",
                                 "located": "linear interpolation between sweep values"})
    return {"parameter": path, "values": values, "sweep": entries, "bifurcations": bifurcations,
            "names": P0.names, "base_value": base}


def _locate(scene, path, v0, v1, a, b, P1, x1, section):
    """The parameter where max |λ| = 1, by the secant method between two sweep values."""
    lo, hi, flo, fhi = v0, v1, a - 1.0, b - 1.0
    x, prev = x1, P1
    for _ in range(6):
        v = lo - flo * (hi - lo) / (fhi - flo)
        P = _map_at(scene, path, v, prev, section)
        fp = newton(P, x)
        f = max(fp.moduli) - 1.0
        if abs(f) < 1e-7:
            return v
        if f * flo > 0:
            lo, flo = v, f
        else:
            hi, fhi = v, f
        x = fp.x
        if abs(hi - lo) < 1e-7 * max(1.0, abs(v)):
            break
    return lo - flo * (hi - lo) / (fhi - flo)


def _period_two(P, fp, guess):
    """The period-2 gait near the period-1 point fp (from `guess`, or split along the eigenvector
    of the eigenvalue near -1); None if Newton only finds the period-1 point again."""
    starts = []
    if guess is not None:
        starts.append(np.asarray(guess))
    k = int(np.argmin(np.abs(fp.eigenvalues + 1.0)))
    _w, V = np.linalg.eig(fp.jacobian)
    vec = np.real(V[:, k])
    vec /= np.abs(vec).max()
    scale = max(1e-3, float(np.abs(fp.x).max()))
    for a in (0.01, 0.03, 0.1):
        starts.append(fp.x + a * scale * vec)
    for x0 in starts:
        try:
            f2 = newton(P, x0, k=2)
        except GaitError:
            continue
        x1 = P(f2.x)
        if np.abs(x1 - f2.x).max() > 1e3 * max(f2.residual, 1e-9):
            return f2.x, summarize(P, f2, k=2)
    return None
