"""Values of a scene by path: `"settings.dt"`, `"contacts[0].restitution"`, `"bodies[2].shapes[0].radius"`,
`"initial.q['pivot']"` — the paths validation messages are written with — for `nsgui run --set`,
`Scene.with_values` and the editor's undo commands.

Syntax: a top-level key, then `.key` for an object's key and `[selector]` for a list item or a map
entry. In a list, `[3]` is the item at index 3 and `[ball_ground]` (or `['ball_ground']`) the item
whose `name` is that, if exactly one has it: `contacts[ball_ground].restitution`,
`bodies[bob].shapes[tip].radius`. A quoted selector is always a name (`['0']`). In a map
(`initial.q`, `initial.v`) the selector is the key, quoted or not: `initial.q['block.x']`,
`initial.v[pivot]`; a map entry may be new, every other key must already be in the scene's JSON form
(keys of another shape type are unknown: set the whole object to change a type,
`bodies[0].shapes[0]={"type": "box", "width": 0.2, "height": 0.1}`).

Paths address the scene's JSON form (`scene_to_dict`), whose keys are the dataclasses' attribute
names, so the same path reads and writes a `Scene` or its dict.
"""

from __future__ import annotations

import ast
import copy
import difflib
import json
import re
from dataclasses import fields, is_dataclass

from .model import Problem, Scene, SceneError, scene_from_dict, scene_to_dict

__all__ = ["PathError", "parse_path", "format_path", "get_value", "set_value", "resolve_path", "with_values",
           "parse_assignment"]

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KINDS = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}


class PathError(SceneError):
    """A path that is malformed or names nothing in the scene; `problems[0].path` is the path."""

    def __init__(self, path: str, message: str):
        super().__init__([Problem(path, message)])


class _Key(str):
    """`.key`: an object's key."""


class _Select(str):
    """`[selector]`: a list index or item name, or a map key; `quoted` when written in quotes."""
    quoted = False


def parse_path(path: str) -> list:
    """The steps of a path: `_Key` for `.key`, `_Select` for `[selector]` (both str subclasses)."""
    if not isinstance(path, str):
        raise PathError(str(path), f"a path is a string such as 'settings.dt', not {type(path).__name__}")
    steps, i, n = [], 0, len(path)
    while i < n:
        if path[i] == "[":
            end = path.find("]", i)
            if end < 0:
                raise PathError(path, f"'[' at character {i + 1} is not closed")
            text = path[i + 1:end].strip()
            if not text:
                raise PathError(path, f"empty [] at character {i + 1}")
            step = _Select(_unquote(text, path))
            step.quoted = text[0] in "'\""
            steps.append(step)
            i = end + 1
            continue
        if steps:
            if path[i] != ".":
                raise PathError(path, f"expected '.' or '[' at character {i + 1}, not {path[i]!r}")
            i += 1
        m = _KEY.match(path, i)
        if not m:
            raise PathError(path, f"expected a key at character {i + 1}")
        steps.append(_Key(m.group()))
        i = m.end()
    if not steps:
        raise PathError(path, "empty path")
    return steps


def _unquote(text: str, path: str) -> str:
    if text[0] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = None
        if not isinstance(value, str):
            raise PathError(path, f"bad quoted name {text}")
        return value
    return text


def format_path(steps) -> str:
    """A path's text from its steps (ints are list indices, quoted names as validation writes them)."""
    out = ""
    for s in steps:
        if isinstance(s, int):
            out += f"[{s}]"
        elif isinstance(s, _Select):
            out += f"[{s!r}]" if s.quoted else f"[{s}]"
        else:
            out += f".{s}" if out else str(s)
    return out


def _resolve(d, path: str, new_key: bool = False) -> list:
    """The path's steps with every list selector turned into an index, checked against the JSON-form
    scene `d`. With `new_key` the last step may be a new map entry."""
    steps = parse_path(path)
    out, node = [], d
    for k, step in enumerate(steps):
        here = format_path(out) or "the scene"
        last = k == len(steps) - 1
        if isinstance(node, list):
            if isinstance(step, _Key):
                raise PathError(path, f"{here} is a list: select an item with [index] or [name]")
            index = _list_index(node, step, path, here)
            out.append(index)
            node = node[index]
        elif isinstance(node, dict):
            is_map = _is_map(out)
            if isinstance(step, _Select) and not is_map:
                raise PathError(path, f"{here} is an object: give a key with .key, not [{step}]")
            if step not in node and not (is_map and last and new_key):
                raise PathError(path, _unknown_key(node, step, here))
            if is_map:  # written as validation writes it: initial.q['pivot']
                step = _Select(step)
                step.quoted = True
            out.append(step)
            node = node.get(step)
        else:
            what = "null" if node is None else _KINDS.get(type(node), f"a {type(node).__name__}")
            hint = f" (set {here} itself, e.g. {here}={{...}})" if node is None else ""
            raise PathError(path, f"{here} is {what} and has no {step!r}{hint}")
    return out


def _is_map(steps) -> bool:
    """The coordinate maps `initial.q` and `initial.v` are the only objects whose keys are data."""
    return len(steps) == 2 and steps[0] == "initial" and steps[1] in ("q", "v")


def _list_index(items: list, step: str, path: str, here: str) -> int:
    if not step.quoted and step.lstrip("-").isdigit():
        index = int(step)
        if not 0 <= index < len(items):
            span = f"indices 0 to {len(items) - 1}" if items else "it is empty"
            raise PathError(path, f"{here} has {len(items)} item{'s' * (len(items) != 1)} ({span}), "
                                  f"no [{index}]")
        return index
    named = [i for i, it in enumerate(items) if isinstance(it, dict) and it.get("name") == step]
    if len(named) == 1:
        return named[0]
    if named:
        raise PathError(path, f"{len(named)} items of {here} are named {step!r}: use an index, "
                              + " or ".join(f"{here}[{i}]" for i in named))
    names = [it.get("name") for it in items if isinstance(it, dict) and isinstance(it.get("name"), str)]
    near = difflib.get_close_matches(step, names, n=1)
    if near:
        hint = f" (did you mean {near[0]!r}?)"
    else:
        hint = f" (names: {', '.join(names[:8])}{', ...' if len(names) > 8 else ''})" if names else ""
    raise PathError(path, f"{here} has no item named {step!r}{hint}")


def _unknown_key(node: dict, key: str, here: str) -> str:
    keys = [str(k) for k in node]
    near = difflib.get_close_matches(key, keys, n=1)
    hint = f"did you mean {near[0]!r}?" if near else f"keys: {', '.join(keys)}"
    return f"{here} has no key {key!r} ({hint})"


def resolve_path(scene, path: str) -> str:
    """The path with names replaced by indices (`contacts[ball_ground].e` → `contacts[0].e`), checked
    against `scene` (a Scene or its JSON form); raises PathError."""
    return format_path(_resolve(_json_form(scene), path))


def _json_form(scene):
    return scene_to_dict(scene) if isinstance(scene, Scene) else scene


def _child(node, step):
    if isinstance(step, int):
        return node[step]
    return node[str(step)] if isinstance(node, dict) else getattr(node, step)


def get_value(scene, path: str):
    """The value at `path` in a Scene (dataclass values: a sub-object is returned as such) or in its
    JSON form; raises PathError naming the path when it names nothing."""
    node = scene
    for step in _resolve(_json_form(scene), path):
        node = _child(node, step)
    return node


def set_value(scene, path: str, value) -> None:
    """Set the value at `path` in place, unchecked (validate afterwards, or use `with_values`). In a
    Scene the value replaces the attribute as given: dataclass values for sub-objects."""
    steps = _resolve(_json_form(scene), path, new_key=True)
    node = scene
    for step in steps[:-1]:
        node = _child(node, step)
    last = steps[-1] if isinstance(steps[-1], int) else str(steps[-1])
    if isinstance(last, int) or isinstance(node, dict):
        node[last] = value
    elif is_dataclass(node) and last in {f.name for f in fields(node)}:
        setattr(node, last, value)
    else:  # not reachable for paths that _resolve accepted
        raise PathError(path, f"cannot set {format_path(steps)}")


def with_values(scene: Scene, values: dict) -> Scene:
    """A new validated Scene: `scene` with each `{path: value}` set in its JSON form, checked exactly
    as a file (the same messages). Raises SceneError listing every problem: the paths that name
    nothing, then those of the result. `scene` is not modified."""
    d = scene_to_dict(scene)
    problems = []
    for path, value in values.items():
        try:
            set_value(d, path, copy.deepcopy(value))
        except PathError as exc:
            problems.extend(exc.problems)
    try:
        result = scene_from_dict(d)
    except SceneError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SceneError(problems)
    return result


def parse_assignment(text: str) -> tuple[str, object]:
    """`"PATH=VALUE"` → (path, value) as `--set` takes it: the first `=` outside brackets splits, the
    value is JSON (`0.5`, `false`, `[0, -1.62]`, `{"lower": 0}`) or else the text itself (`lemke`).
    Raises ValueError with the reason."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "=" and depth == 0:
            path, raw = text[:i].strip(), text[i + 1:].strip()
            break
    else:
        raise ValueError("expected PATH=VALUE, e.g. settings.dt=1e-4 or contacts[0].restitution=0.5")
    if not path:
        raise ValueError("no path before '='")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return path, value
