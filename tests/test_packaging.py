"""The wheel works outside the checkout: it holds every module and example scene, the installed
package finds its examples with importlib.resources, and a read-only install caches its kernels in
the user's cache folder. (tests/wheel_smoke.py, run by `make test`, installs it with its
dependencies in a fresh venv and runs the commands.)"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import nsgui
from tests.wheel_smoke import build_wheel

ROOT = Path(__file__).resolve().parents[1]
SCENES = sorted(p.name for p in (ROOT / "resources" / "scenes").glob("*.json"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def site(wheel, tmp_path_factory):
    """The wheel unpacked as pip installs it (no dependencies: those of the test run are used)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                    str(wheel)], check=True, capture_output=True)
    return target


def run_installed(site, code, cwd, **env):
    """Python code run against the installed copy, from a folder outside the checkout."""
    env = dict(os.environ, PYTHONPATH=str(site), **env)
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_wheel_holds_every_module_every_example_and_the_license(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "nsgui").rglob("*.py")
               if "__pycache__" not in p.parts}
    assert modules - names == set()
    assert {f"nsgui/resources/scenes/{s}" for s in SCENES} <= names
    assert "default.json" in SCENES and "bouncing_ball.json" in SCENES
    info = f"nsgui-{nsgui.__version__}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert f"Version: {nsgui.__version__}\n" in metadata
    assert "License-Expression: MIT\n" in metadata
    assert "nsgui = nsgui.__main__:main" in zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()


def test_wheel_holds_the_python_controller_example_beside_its_scene(wheel, site, tmp_path):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"nsgui/resources/examples/controllers/pendulum_swing_up.json",
            "nsgui/resources/examples/controllers/energy_pump.py"} <= names
    code = ("import importlib.resources as r; from nsgui.scene import load_scene;"
            " from nsgui.engine.control.python_block import module_file;"
            " d = r.files('nsgui.resources') / 'examples' / 'controllers';"
            " s = load_scene(d / 'pendulum_swing_up.json');"
            " print(module_file(s.controllers[0].module, str(d)))")
    assert run_installed(site, code, tmp_path).strip().endswith("nsgui/resources/examples/controllers/energy_pump.py")


def test_installed_package_finds_its_examples_with_importlib_resources(site, tmp_path):
    code = ("import json, nsgui, importlib.resources as r; from nsgui import examples;"
            "print(json.dumps([nsgui.__file__, str(examples.scenes_dir()), examples.example_names(),"
            " sorted(f.name for f in (r.files('nsgui.resources') / 'scenes').iterdir()),"
            " str(examples.default_scene())]))")
    package, folder, names, listed, default = json.loads(run_installed(site, code, tmp_path))
    assert Path(package).is_relative_to(site) and Path(folder).is_relative_to(site)
    assert listed == SCENES
    assert sorted(names) == [s[:-5] for s in SCENES]
    assert Path(default) == Path(folder) / "default.json" and Path(default).is_file()
    # the warm-up and the window take their scenes from there too
    code = ("import json; from nsgui.engine.warmup import WARMUP_SCENES; from nsgui.examples import example_path;"
            "print(json.dumps([str(example_path(n)) for n, _ in WARMUP_SCENES]))")
    for path in json.loads(run_installed(site, code, tmp_path)):
        assert Path(path).is_relative_to(site) and Path(path).is_file()


def _make_read_only(folder):
    """Undo function, or None when this user cannot make a folder read-only for itself."""
    if os.geteuid() != 0:
        for p in [folder, *folder.rglob("*")]:
            p.chmod(p.stat().st_mode & ~0o222)
        return lambda: [p.chmod(p.stat().st_mode | 0o200) for p in [folder, *folder.rglob("*")]]
    # root writes anywhere, except into an immutable folder
    dirs = [str(p) for p in [folder, *folder.rglob("*")] if p.is_dir()]
    if not shutil.which("chattr") or subprocess.run(["chattr", "+i", *dirs], capture_output=True).returncode:
        subprocess.run(["chattr", "-i", *dirs], capture_output=True)
        return None
    return lambda: subprocess.run(["chattr", "-i", *dirs], check=True)


def test_read_only_install_caches_kernels_in_the_user_cache_keyed_by_the_sources(site, tmp_path):
    from nsgui.engine._numba_cache import sources_digest
    package = site / "nsgui"
    undo = _make_read_only(package)
    if undo is None:
        pytest.skip("cannot make a folder read-only for root here (no chattr +i)")
    try:
        code = ("import os, numpy as np; from nsgui.engine.solvers.residuals import lcp_residual;"
                "print(lcp_residual(np.eye(2), np.array([-1.0, 2.0]), np.array([1.0, 0.0])));"
                "print(os.environ['NUMBA_CACHE_DIR'])")
        out = run_installed(site, code, tmp_path, XDG_CACHE_HOME=str(tmp_path / "cache")).split()
    finally:
        undo()
    assert float(out[0]) == 0.0  # z = (1, 0) solves the LCP w = q + z, 0 <= z _|_ w >= 0
    expected = tmp_path / "cache" / "nsgui" / f"numba-{sources_digest()[:16]}"
    assert Path(out[1]) == expected
    assert any(expected.rglob("residuals.lcp_residual-*.nbi")), "the kernel was not cached there"
    assert not list(package.rglob("*.nbi"))
