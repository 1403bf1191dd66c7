"""JSON Patch (RFC 6902, the add/remove/replace subset): what an event changed in a game state.

Game events store the patch that turns the state before them into the state after them, so applying
an event is a mechanical assignment, and a replay shows exactly what each event changed.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from domain.model.text import ascii_number

Op = dict[str, Any]


def pointer_token(key: str) -> str:
    """A key as a JSON Pointer reference token (RFC 6901 escapes)."""
    return key.replace("~", "~0").replace("/", "~1")


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON Pointer (``/a~1b/0`` is ``["a/b", "0"]``)."""
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def resolve(document: Any, pointer: str) -> Any:
    """The value at a JSON Pointer (``/hero/hp``), or None where the path does not exist.

    A list index is ASCII digits only (``²`` or ``٣`` name nothing).
    """
    for token in pointer_tokens(pointer):
        if isinstance(document, dict):
            document = document.get(token)
        elif isinstance(document, list) and (index := ascii_number(token)) is not None:
            if index >= len(document):
                return None
            document = document[index]
        else:
            return None
    return document


def diff(before: Any, after: Any, path: str = "") -> list[Op]:
    """The operations that turn ``before`` into ``after`` (objects key by key, lists by index)."""
    if type(before) is not type(after):
        return [{"op": "replace", "path": path, "value": deepcopy(after)}]
    if isinstance(before, dict):
        ops: list[Op] = []
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{pointer_token(key)}"})
        for key, value in after.items():
            child = f"{path}/{pointer_token(key)}"
            if key not in before:
                ops.append({"op": "add", "path": child, "value": deepcopy(value)})
            else:
                ops.extend(diff(before[key], value, child))
        return ops
    if isinstance(before, list):
        ops = []
        common = min(len(before), len(after))
        for index in range(common):
            ops.extend(diff(before[index], after[index], f"{path}/{index}"))
        for index in range(len(before) - 1, common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{index}"})
        for index in range(common, len(after)):
            ops.append({"op": "add", "path": f"{path}/{index}", "value": deepcopy(after[index])})
        return ops
    if before != after:
        return [{"op": "replace", "path": path, "value": deepcopy(after)}]
    return []


def apply(document: Any, ops: list[Op]) -> Any:
    """Apply operations to a copy of ``document`` and return the result."""
    result = deepcopy(document)
    for op in ops:
        result = _apply_one(result, op)
    return result


def _apply_one(document: Any, op: Op) -> Any:
    path = op["path"]
    if path == "":
        if op["op"] == "remove":
            return None
        return deepcopy(op["value"])
    tokens = pointer_tokens(path)
    parent = document
    for token in tokens[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    last = tokens[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if op["op"] == "add":
            parent.insert(index, deepcopy(op["value"]))
        elif op["op"] == "remove":
            del parent[index]
        else:
            parent[index] = deepcopy(op["value"])
    elif op["op"] == "remove":
        del parent[last]
    else:
        parent[last] = deepcopy(op["value"])
    return document
