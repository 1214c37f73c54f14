"""The key tables of docs/scene-format.md, made from the schema (schema.py).

Each table sits between two marker comments naming its object; `python -m nsgui.scene.schema_docs --write`
rewrites them all, `--check` exits 1 if the doc differs from the schema (tests/scene/test_schema.py
checks it too), and `python -m nsgui.scene.schema_docs Body` prints one table.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from .schema import SPECS, Field, ObjectSpec, TypedSpec

DOC = Path(__file__).resolve().parents[2] / "docs" / "scene-format.md"
BEGIN = "<!-- schema:{} (generated from nsgui/scene/schema.py by python -m nsgui.scene.schema_docs --write) -->"
END = "<!-- /schema:{} -->"
_BLOCK = re.compile(r"<!-- schema:(\w+) [^\n]*-->\n(.*?)<!-- /schema:\1 -->", re.S)
_HEAD = "| key | type | default | unit | meaning |\n|---|---|---|---|---|"


def _g(x) -> str:
    return f"{x:g}"


def type_text(f: Field) -> str:
    """The type column: kind, range or choices, and `or null`."""
    if f.doc_type:
        return f.doc_type
    k = f.kind
    if k in ("number", "integer"):
        lo = f.ge if f.ge is not None else f.gt
        if k == "integer" and lo is not None and f.le is not None:
            text = f"int from {_g(lo if f.ge is not None else lo + 1)} to {_g(f.le)}"
        else:
            text = "float" if k == "number" else "int"
            if lo is not None and f.le is not None:
                text += f" in {'[' if f.ge is not None else '('}{_g(lo)}, {_g(f.le)}]"
            elif lo is not None:
                text += f" {'≥' if f.ge is not None else '>'} {_g(lo)}"
            elif f.le is not None:
                text += f" ≤ {_g(f.le)}"
    elif k == "enum":
        text = " \\| ".join(f"`{c}`" for c in f.choices)
    elif k == "object" and f.keys:
        text = "{" + ", ".join(f"`{x}`" for x in f.keys) + "}"
    else:
        text = {"boolean": "bool", "string": "str", "name": "str (a name)", "vec2": "[x, y]", "color": '"#rrggbb"',
                "polygon": "list of [x, y]", "map": "{name: float}", "const": f"`{json.dumps(f.default)}`",
                "list": f"list of {f.of}", "object": str(f.of), "numbers": "list of float",
                "names": "list of names", "params": "{name: value}"}[k]
    return text + (" or null" if f.nullable else "")


def default_text(f: Field) -> str:
    if f.doc_default is not None:
        return f.doc_default
    if f.required:
        return "required"
    if f.kind == "object" and f.default == {}:
        return "all defaults"
    return f"`{json.dumps(f.default)}`"


def _rows(fields) -> str:
    return "\n".join("|" + "|".join(f" {c} " if c else " " for c in
                                    (f"`{f.key}`", type_text(f), default_text(f), f.unit, f.help)) + "|"
                     for f in fields)


def markdown(spec: ObjectSpec) -> str:
    """The table(s) of one object: its keys; for a typed object, then the keys of each type."""
    parts = [_HEAD + "\n" + _rows(spec.fields)]
    if isinstance(spec, TypedSpec):
        groups: list = []  # types with the same keys and help share one table
        for name, t in spec.types.items():
            same = [g for g in groups if (g[0], g[1]) == (t.fields, t.help)]
            if same:
                same[0][2].append(name)
            else:
                groups.append((t.fields, t.help, [name]))
        for fields, help_, names in groups:
            head = ", ".join(f"**`{n}`**" for n in names) + (f": {help_}" if help_ else "")
            parts.append(head + (f"\n\n{_HEAD}\n{_rows(fields)}" if fields else "; no other key")
                         + _signals_text(spec, names))
    return "\n\n".join(parts) + "\n"


def _signals_text(spec, names) -> str:
    """For controller types: the signals each records (declared in controller_types.py)."""
    from .controller_types import signals_of
    from .schema import CONTROLLER, CONTROLLER_BLOCK
    if spec not in (CONTROLLER, CONTROLLER_BLOCK) or not signals_of(names[0], spec is CONTROLLER_BLOCK):
        return ""
    units = {"coord": "m or rad", "input": "N or N·m"}
    items = [f"`controller.<name>.{s.name}{'.<actuator>' if s.per_actuator else ''}`"
             + (f" ({units.get(s.unit, s.unit)})" if s.unit else "") + (f" {s.help}" if s.help else "")
             for s in signals_of(names[0], spec is CONTROLLER_BLOCK)]
    return "\n\nSignals: " + "; ".join(items) + "."


def render(text: str) -> str:
    """`text` with every marked table replaced by its generated form."""
    def block(m):
        name = m.group(1)
        if name not in SPECS:
            raise KeyError(f"docs: no schema object named {name!r}")
        return f"{BEGIN.format(name)}\n\n{markdown(SPECS[name])}\n{END.format(name)}"
    return _BLOCK.sub(block, text)


def marked(text: str) -> list[str]:
    """The objects whose tables `text` marks, in order."""
    return [m.group(1) for m in _BLOCK.finditer(text)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nsgui.scene.schema_docs", description=__doc__.split("\n\n")[0])
    ap.add_argument("objects", nargs="*", help="print the table of these objects (e.g. Body Settings)")
    ap.add_argument("--write", action="store_true", help=f"rewrite the tables of {DOC.name}")
    ap.add_argument("--check", action="store_true", help=f"exit 1 if the tables of {DOC.name} are out of date")
    ap.add_argument("--doc", type=Path, default=DOC)
    args = ap.parse_args(argv)
    for name in args.objects:
        if name not in SPECS:
            print(f"unknown object {name!r} (one of: {', '.join(SPECS)})", file=sys.stderr)
            return 2
        print(markdown(SPECS[name]))
    if args.write or args.check:
        text = args.doc.read_text(encoding="utf-8")
        new = render(text)
        missing = [n for n in SPECS if n not in marked(text)]
        if args.check:
            if new != text or missing:
                print(f"{args.doc}: tables out of date" + (f"; no table for {', '.join(missing)}" if missing else "")
                      + " (run python -m nsgui.scene.schema_docs --write)", file=sys.stderr)
                return 1
        elif new != text:
            from nsgui.atomic import atomic_write_text
            atomic_write_text(args.doc, new)
            print(f"{args.doc}: tables rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
