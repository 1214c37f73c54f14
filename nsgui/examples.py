"""The example scenes: where they are, their names, and `nsgui examples`.

They live in the top-level resources/scenes/ of the source tree and ship in the wheel as the data
package nsgui.resources (pyproject.toml maps one to the other). A source checkout, editable
installs included (they cannot import a data package without __init__.py), uses its own folder:
the scenes beside the code being run. An installed package reads them with importlib.resources.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from importlib import resources
from pathlib import Path

DEFAULT = "default"


@functools.cache
def scenes_dir() -> Path:
    """The folder of the example scenes (a real folder: the wheel is installed unpacked)."""
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file() and (checkout / "resources" / "scenes").is_dir():
        return checkout / "resources" / "scenes"
    try:
        folder = resources.files("nsgui.resources") / "scenes"
    except ModuleNotFoundError:  # an incomplete install: no examples rather than a traceback
        return checkout / "resources" / "scenes"
    return Path(str(folder))


def natural_key(name: str):
    """bead_column_10 < bead_column_50 < bead_column_100."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def example_names() -> list[str]:
    return sorted((p.stem for p in scenes_dir().glob("*.json")), key=natural_key)


def example_path(name: str) -> Path:
    """The file of the example `name` (with or without .json); KeyError when there is none."""
    stem = name[:-5] if name.endswith(".json") else name
    path = scenes_dir() / f"{stem}.json"
    if "/" in stem or "\\" in stem or not path.is_file():
        raise KeyError(name)
    return path


def default_scene() -> Path:
    return scenes_dir() / f"{DEFAULT}.json"


def resolve_scene(arg: str) -> str:
    """A scene argument of the command line: an existing file, else an example's name; SceneError
    when it is neither."""
    if Path(arg).exists():
        return arg
    try:
        return str(example_path(arg))
    except KeyError:
        from nsgui.scene import Problem, SceneError
        raise SceneError([Problem(arg, "no such file, nor an example of that name "
                                       "(`nsgui examples` lists them)")]) from None


def _first_sentence(text: str, width: int) -> str:
    sentence = text.split(". ")[0].strip().rstrip(".")
    return sentence if len(sentence) <= width else sentence[:width - 1].rstrip() + "…"


def examples_main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="nsgui examples",
                                description="List the example scenes shipped with nsgui. Pass a name "
                                            "where a scene file is expected: `nsgui run NAME`, `nsgui NAME`.")
    p.add_argument("--paths", action="store_true", help="print each example's file instead of its description")
    args = p.parse_args([] if argv is None else argv)
    names = example_names()
    if not names:
        sys.stderr.write(f"nsgui examples: no example scenes found in {scenes_dir()}\n")
        return 1
    width = max(len(n) for n in names)
    for name in names:
        path = example_path(name)
        if args.paths:
            print(f"{name:<{width}}  {path}")
            continue
        try:
            about = json.loads(path.read_text(encoding="utf-8")).get("description", "")
        except (OSError, ValueError, AttributeError):
            about = ""
        print(f"{name:<{width}}  {_first_sentence(str(about), 90)}")
    return 0
