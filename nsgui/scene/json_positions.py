"""Where in a JSON text a duplicate key is (json's object_pairs_hook sees keys, not positions)."""

from json.decoder import scanstring

_OPEN, _CLOSE = "{[", "}]"


def duplicate_key_position(text: str):
    """(line, column) of the first key that repeats a key of the same object, or None.

    A small scanner over the already-valid text: strings are skipped with json's own scanstring, and a
    string followed by ':' is a key of the innermost open object.
    """
    stack = []  # per open container: the set of its keys (None for arrays)
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            key, end = scanstring(text, i + 1)
            j = end
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] == ":" and stack and stack[-1] is not None:
                if key in stack[-1]:
                    line = text.count("\n", 0, i) + 1
                    return line, i - (text.rfind("\n", 0, i) + 1) + 1
                stack[-1].add(key)
            i = end
            continue
        if ch in _OPEN:
            stack.append(set() if ch == "{" else None)
        elif ch in _CLOSE and stack:
            stack.pop()
        i += 1
    return None
