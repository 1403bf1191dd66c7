"""JSON Patch (RFC 6902, the add/remove/replace subset): what an event changed in a game state.

Game events store the patch that turns the state before them into the state after them, so applying
an event is a mechanical assignment, and a replay shows exactly what each event changed.
"""

from __future__ import annotations

import marshal
from copy import deepcopy
from typing import Any

import orjson

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


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value, several times faster than ``copy.deepcopy``.

    ``marshal`` round-trips exactly the types a game state holds (dicts, lists, strings,
    numbers, booleans, None), keeping each value's type; anything it cannot carry is copied by
    ``deepcopy`` instead.
    """
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return deepcopy(value)


def same(before: Any, after: Any) -> bool:
    """Whether two JSON values are the same document, types included (``1`` is not ``true``
    and not ``1.0``, although Python's ``==`` says so): ``diff`` skips such a subtree whole."""
    if before is after:
        return True
    if before != after:
        return False
    try:
        return orjson.dumps(before) == orjson.dumps(after)
    except (TypeError, orjson.JSONEncodeError):
        return False  # not plain JSON (an int beyond 64 bits): compared key by key instead


def diff(before: Any, after: Any, path: str = "") -> list[Op]:
    """The operations that turn ``before`` into ``after`` (objects key by key, lists by index).

    A subtree that is the same on both sides (``same``) is skipped without walking it, so the
    cost follows what changed, not the size of the state."""
    if type(before) is not type(after):
        return [{"op": "replace", "path": path, "value": copy_json(after)}]
    if isinstance(before, dict | list) and same(before, after):
        return []
    if isinstance(before, dict):
        ops: list[Op] = []
        for key in before:
            if key not in after:
                ops.append({"op": "remove", "path": f"{path}/{pointer_token(key)}"})
        for key, value in after.items():
            child = f"{path}/{pointer_token(key)}"
            if key not in before:
                ops.append({"op": "add", "path": child, "value": copy_json(value)})
            else:
                ops.extend(diff(before[key], value, child))
        return ops
    if isinstance(before, list):
        ops = []
        common = min(len(before), len(after))
        if common < len(before) or common < len(after):  # grew or shrank: often only at the end
            start = common if same(before[:common], after[:common]) else 0
        else:
            start = 0
        for index in range(start, common):
            ops.extend(diff(before[index], after[index], f"{path}/{index}"))
        for index in range(len(before) - 1, common - 1, -1):
            ops.append({"op": "remove", "path": f"{path}/{index}"})
        for index in range(common, len(after)):
            ops.append({"op": "add", "path": f"{path}/{index}", "value": copy_json(after[index])})
        return ops
    if before != after:
        return [{"op": "replace", "path": path, "value": copy_json(after)}]
    return []


def apply(document: Any, ops: list[Op]) -> Any:
    """Apply operations to ``document`` and return the result; ``document`` is not changed.

    Only the objects and lists on the paths the operations touch are copied (each once); the
    rest of the result is shared with ``document``. A game state is never changed in place
    (events replace it, commands work on their own copy), so sharing is safe, and applying an
    event costs what it changed, not the size of the state.
    """
    owned: set[int] = set()
    result = document
    for op in ops:
        result = _apply_one(result, op, owned)
    return result


def _own(container: Any, owned: set[int]) -> Any:
    """A shallow copy of a dict or list that this ``apply`` may change (once per container)."""
    if id(container) in owned or not isinstance(container, dict | list):
        return container
    copied = container.copy()
    owned.add(id(copied))
    return copied


def _apply_one(document: Any, op: Op, owned: set[int]) -> Any:
    path = op["path"]
    if path == "":
        if op["op"] == "remove":
            return None
        return copy_json(op["value"])
    tokens = pointer_tokens(path)
    root = parent = _own(document, owned)
    for token in tokens[:-1]:
        key: Any = int(token) if isinstance(parent, list) else token
        child = _own(parent[key], owned)
        parent[key] = child
        parent = child
    last = tokens[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if op["op"] == "add":
            parent.insert(index, copy_json(op["value"]))
        elif op["op"] == "remove":
            del parent[index]
        else:
            parent[index] = copy_json(op["value"])
    elif op["op"] == "remove":
        del parent[last]
    else:
        parent[last] = copy_json(op["value"])
    return root
