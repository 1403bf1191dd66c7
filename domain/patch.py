"""JSON Patch (RFC 6902, the add/remove/replace subset): what an event changed in a game state.

Game events store the patch that turns the state before them into the state after them, so applying
an event is a mechanical assignment, and a replay shows exactly what each event changed.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

Op = dict[str, Any]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def diff(before: Any, after: Any, path: str = "") -> list[Op]:
    """The operations that turn ``before`` into ``after`` (objects key by key, lists by index)."""
    if type(before) is not type(after):
        return [{"op": "replace", "path": path, "value": deepcopy(after)}]
    if isinstance(before, dict):
        ops: list[Op] = []
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in after.items():
            child = f"{path}/{_escape(key)}"
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
    tokens = [_unescape(t) for t in path.split("/")[1:]]
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
