"""Smoke test of the wheel outside the checkout (`make test` runs it; not collected by pytest).

Builds the wheel from a clean copy of the sources, installs it with its dependencies into a fresh
virtual environment in a temporary folder, and from another temporary folder runs what a new user
runs first: `nsgui --version/--help`, `nsgui examples`, `nsgui run bouncing_ball` (compiling its
kernels into the install's empty cache) and, when xvfb-run is there, the window on the default example
(`nsgui --screenshot`).
Prints the time of each stage; exits non-zero with the failing command's output on any failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What the wheel is built from (a copy: an in-tree build would leave build/ and *.egg-info behind,
# and a stale build/lib could slip deleted modules into the wheel).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "nsgui", "resources")


class SmokeFailure(Exception):
    pass


def run(cmd, cwd, env=None, timeout=3600):  # a fresh compile beside make test's warm-up: 44 min under load 4-5
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise SmokeFailure(f"`{' '.join(map(str, cmd))}` exited {proc.returncode}\n"
                           f"--- stdout\n{proc.stdout}--- stderr\n{proc.stderr}")
    return proc.stdout


def build_wheel(out_dir: Path, python=sys.executable) -> Path:
    """Build the wheel of the checkout into out_dir and return its path."""
    src = Path(tempfile.mkdtemp(prefix="nsgui-src-"))
    try:
        for name in SOURCES:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, src / name,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
            else:
                shutil.copy2(ROOT / name, src / name)
        run([python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", out_dir, src], cwd=src)
    finally:
        shutil.rmtree(src, ignore_errors=True)
    wheels = sorted(out_dir.glob("nsgui-*.whl"))
    if len(wheels) != 1:
        raise SmokeFailure(f"expected one nsgui wheel in {out_dir}, found {[w.name for w in wheels]}")
    return wheels[0]


def clean_env(venv: Path, home: Path) -> dict:
    """The environment of a user of the venv: nothing points back at the checkout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(home / "cache")
    env["XDG_CONFIG_HOME"] = str(home / "config")
    return env


def check(condition, what):
    if not condition:
        raise SmokeFailure(what)


@contextlib.contextmanager
def stage(name):
    t0 = time.perf_counter()
    yield
    print(f"  wheel smoke: {name}: {time.perf_counter() - t0:.1f} s", flush=True)


def smoke(tmp: Path):
    dist, venv, work = tmp / "dist", tmp / "venv", tmp / "work"
    work.mkdir()
    with stage("build the wheel"):
        wheel = build_wheel(dist)
    with stage("install it into a fresh venv"):
        run([sys.executable, "-m", "venv", venv], cwd=tmp)
        run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel], cwd=tmp)
    env = clean_env(venv, tmp)
    nsgui = venv / "bin" / "nsgui"
    with stage("nsgui --version, --help, examples"):
        where = run([venv / "bin" / "python", "-c", "import nsgui; print(nsgui.__file__)"], work, env)
        check(Path(where.strip()).is_relative_to(venv), f"nsgui imported from {where.strip()}, not the venv")
        check(run([nsgui, "--version"], work, env).split() == ["nsgui", wheel.name.split("-")[1]],
              "nsgui --version does not give the wheel's version")
        helptext = run([nsgui, "--help"], work, env)
        check(all(c in helptext for c in ("run", "examples")), f"nsgui --help lists no commands:\n{helptext}")
        listed = [line.split()[0] for line in run([nsgui, "examples"], work, env).splitlines()]
        expected = sorted(p.stem for p in (ROOT / "resources" / "scenes").glob("*.json"))
        check(sorted(listed) == expected, f"nsgui examples lists {listed}, expected {expected}")
    # A first run compiles what it needs into the install's cache (the full warm-up is tested in the
    # checkout: here it would only add minutes of compiling the same kernels).
    with stage("nsgui run bouncing_ball (compiles into an empty cache)"):
        run([nsgui, "run", "bouncing_ball", "--duration", "0.1", "--summary-json", "s.json", "--quiet"],
            work, env)
        summary = json.loads((work / "s.json").read_text())
        dt = json.loads((ROOT / "resources" / "scenes" / "bouncing_ball.json").read_text())["settings"]["dt"]
        check(summary["failure"] is None and summary["steps"] == round(0.1 / dt)
              and abs(summary["t_end"] - 0.1) < 1e-9, f"unexpected summary {summary}")
        cached = list(venv.rglob("nsgui/engine/**/*.nbi")) + list((tmp / "cache").rglob("*.nbi"))
        check(len(cached) >= 10, f"the first run cached {len(cached)} kernels")
    if shutil.which("xvfb-run"):
        with stage("nsgui --screenshot (window on the default example)"):
            out = run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", nsgui, "--screenshot", "shot.png"],
                      work, env)
            check((work / "shot.png").stat().st_size > 10_000 and "screenshot written" in out,
                  f"no screenshot of the default example:\n{out}")


def main():
    tmp = Path(tempfile.mkdtemp(prefix="nsgui-wheel-smoke-"))
    started = time.perf_counter()
    try:
        smoke(tmp)
    except (SmokeFailure, subprocess.TimeoutExpired) as exc:
        print(f"wheel smoke test FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"wheel smoke test passed in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
