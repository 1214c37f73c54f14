"""The house (docs/architecture.md): the import contracts of pyproject.toml hold — scene, engine and
runtime never import Qt or the views, imports go one way (views -> runtime -> engine -> scene), and
the views import no kernel, solver or numerics library."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint_imports(*args, cwd=ROOT):
    exe = Path(sys.executable).with_name("lint-imports")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([str(exe), "--no-cache", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


def test_import_contracts_are_kept():
    out = lint_imports()
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "3 kept, 0 broken" in out.stdout


def test_a_qt_import_in_the_engine_breaks_a_contract(tmp_path):
    # the check can fail: a copy of the package whose engine imports PySide6 is refused
    import shutil
    shutil.copytree(ROOT / "nsgui", tmp_path / "nsgui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "nsgui" / "engine" / "bad_plot.py").write_text("import PySide6.QtWidgets\n")
    (tmp_path / "nsgui" / "scene" / "bad_layer.py").write_text("from nsgui.runtime import history\n")
    exe = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(exe), "--no-cache"], capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(tmp_path)), timeout=300)
    assert out.returncode != 0
    assert "nsgui.engine.bad_plot -> PySide6" in out.stdout
    assert "nsgui.scene.bad_layer -> nsgui.runtime" in out.stdout
