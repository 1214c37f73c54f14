"""Start-up time of nsgui, as whole processes: medians of fresh runs, next to `python -c pass`.

    .venv/bin/python benchmarks/startup.py [--repeat N] [--tree NAME=PATH ...] [--only ROW[,ROW...]]

Rows (each a new process, timed from its start to its exit):
  pass      python -c pass                                   (the interpreter and site alone)
  engine    python -c "import nsgui.engine"
  run       nsgui run bouncing_ball --duration 0.1 --quiet   (20 steps of 5 ms)
  examples  nsgui examples
  help      nsgui --help
  window    nsgui (the default example), timed until the window's first paint is on the screen
            (NSGUI_STARTUP_PROBE=1 makes the app print "nsgui: first paint (cpu S s)" then, once a
            paint shows the scene, "nsgui: scene shown (cpu S s)" and leave); 'scene' is the second.

Every command runs once unmeasured (disk caches, numba's cache, the modules' bytecode: the runs
write __pycache__ even where PYTHONDONTWRITEBYTECODE is set), then --repeat times (default 7); the
runs of the rows and trees are interleaved so that a change of the machine's load hits them alike.
Prints the wall-clock medians (and min–max) with their ratio to the median of `python -c pass` (all
trees' runs pooled), and the medians of the CPU time (user + system; for the window, as reported
by the app at that paint), steadier than wall time on a loaded machine.

--tree NAME=PATH (repeatable) times the checkout at PATH (PYTHONPATH=PATH, numba kernels warmed up
there): e.g. `--tree before=/tmp/base --tree after=.` measures a change in one run. Default: this
checkout. The window rows need a display: without DISPLAY, an Xvfb is started for them (the
Xvfb start is not timed). Settings the window writes go to a temporary folder, not ~/.config.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = sys.executable

COMMANDS = {
    "pass": ["-c", "pass"],
    "engine": ["-c", "import nsgui.engine"],
    "run": ["-m", "nsgui", "run", "bouncing_ball", "--duration", "0.1", "--quiet"],
    "examples": ["-m", "nsgui", "examples"],
    "help": ["-m", "nsgui", "--help"],
    "window": ["-m", "nsgui"],
}
LABELS = {
    "pass": "python -c pass",
    "engine": 'python -c "import nsgui.engine"',
    "run": "nsgui run bouncing_ball --duration 0.1 --quiet",
    "examples": "nsgui examples",
    "help": "nsgui --help",
    "window": "window shown (first paint)",
    "scene": "window with the scene drawn",
}
PROBE_LINES = {"nsgui: first paint": "window", "nsgui: scene shown": "scene"}
PROBE = re.compile(r"^(nsgui: [a-z ]+?)(?: \(cpu ([0-9.]+) s\))?$")
WINDOW_TIMEOUT = 120


def _env(tree, extra=None):
    env = dict(os.environ, PYTHONPATH=tree)
    # as after an install (pip compiles the modules) or any earlier run: bytecode cached in __pycache__
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra or {})
    return env


def time_command(tree, row, env_extra):
    """({key: wall seconds}, {key: CPU seconds}) of one fresh process. key: the row's name, or for
    the window row 'window' (first paint) and 'scene' (scene shown), whose CPU times the app
    reports; for the others, CPU is the process's user + system time."""
    cmd = [PY, *COMMANDS[row]]
    env = _env(tree, env_extra if row == "window" else None)
    wall, cpu = {}, {}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE if row == "window" else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        if row == "window":
            for line in proc.stdout:
                m = PROBE.match(line.strip())
                key = PROBE_LINES.get(m.group(1)) if m else None
                if key:
                    wall[key] = time.perf_counter() - t0
                    if m.group(2):
                        cpu[key] = float(m.group(2))
                if key == "scene" or time.perf_counter() - t0 > WINDOW_TIMEOUT:
                    break
            proc.kill()
    finally:
        _pid, status, usage = os.wait4(proc.pid, 0)
        if proc.stdout:
            proc.stdout.close()
    if row != "window":
        code = os.waitstatus_to_exitcode(status)
        if code:
            raise RuntimeError(f"{tree}: {' '.join(cmd)} failed (exit code {code})")
        wall[row] = time.perf_counter() - t0
        cpu[row] = usage.ru_utime + usage.ru_stime
    elif "window" not in wall:
        raise RuntimeError(f"{tree}: the window never reported its first paint")
    else:  # an app that draws the scene in its first paint
        wall.setdefault("scene", wall["window"])
        if "window" in cpu:
            cpu.setdefault("scene", cpu["window"])
    return wall, cpu


class _Display:
    """A display for the window rows: the current one, or an Xvfb of our own."""

    def __init__(self):
        self.proc = None
        self.env = {}

    def __enter__(self):
        if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
            return self
        if not shutil.which("Xvfb"):
            raise RuntimeError("no DISPLAY and no Xvfb: run under xvfb-run or leave out the window row")
        r, w = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                                     pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        self.env = {"DISPLAY": f":{number}"}
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--only", default=",".join(COMMANDS), help="rows, among " + ", ".join(COMMANDS))
    args = ap.parse_args(argv)
    trees = {}
    for spec in args.tree or [f"this={ROOT}"]:
        name, _, path = spec.partition("=")
        trees[name] = os.path.abspath(path or name)
    rows = [r.strip() for r in args.only.split(",") if r.strip()]
    for r in rows:
        if r not in COMMANDS:
            ap.error(f"--only: unknown row {r!r} (rows: {', '.join(COMMANDS)})")
    if "pass" not in rows:
        rows.insert(0, "pass")

    times = {(t, r): [] for t in trees for r in rows + ["scene"]}
    cpu = {(t, r): [] for t in trees for r in rows + ["scene"]}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="nsgui-startup-") as config, _Display() as display:
        # the window's QSettings (recent files, layout) land in a throwaway folder
        window_env = dict(display.env, XDG_CONFIG_HOME=config, NSGUI_STARTUP_PROBE="1")
        for rep in range(args.repeat + 1):  # the first round warms up and is not kept
            for r in rows:
                for t, path in trees.items():
                    walls, cpus = time_command(path, r, window_env)
                    if rep:
                        for key, seconds in walls.items():
                            times[(t, key)].append(seconds)
                        for key, seconds in cpus.items():
                            cpu[(t, key)].append(seconds)
            print(f"round {rep}/{args.repeat} done", file=sys.stderr)
    load_after = os.getloadavg()

    shown = rows + (["scene"] if "window" in rows else [])
    names = list(trees)
    # `python -c pass` is the same command for every tree: its runs are pooled for the ratios
    base_wall = statistics.median([x for n in names for x in times[(n, "pass")]])
    base_cpu = statistics.median([x for n in names for x in cpu[(n, "pass")]])
    print("| command | " + " | ".join(f"{n}: wall, median (min–max) | {n}: × pass | {n}: CPU (× pass)" for n in names) + " |")
    print("|---|" + "---|---|---|" * len(names))
    for r in shown:
        cells = []
        for n in names:
            v, c = times[(n, r)], cpu[(n, r)]
            med = statistics.median(v)
            cells.append(f"{med:.3f} s ({min(v):.3f}–{max(v):.3f}) | {med / base_wall:.1f}×")
            cells.append(f"{statistics.median(c):.3f} s ({statistics.median(c) / base_cpu:.0f}×)" if c else "–")
        print(f"| {LABELS[r]} | " + " | ".join(cells) + " |")
    print(f"\n{args.repeat} runs each after one warm-up run; {os.cpu_count()} CPUs; load average "
          f"{load_before[0]:.1f} before, {load_after[0]:.1f} after; python {sys.version.split()[0]}; "
          + "; ".join(f"{n} = {p}" for n, p in trees.items()))


if __name__ == "__main__":
    main()
