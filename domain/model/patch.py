"""JSON Patch (RFC 6902, the add/remove/replace subset): what an event changed in a game state.

Game events store the patch that turns the state before them into the state after them, so applying
an event is a mechanical assignment, and a replay shows exactly what each event changed.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator
from copy import deepcopy
from functools import lru_cache
from itertools import compress
from operator import is_not
from typing import Any, SupportsIndex

import orjson

from domain.model.text import ascii_number

Op = dict[str, Any]


def pointer_token(key: str) -> str:
    """A key as a JSON Pointer reference token (RFC 6901 escapes)."""
    return key.replace("~", "~0").replace("/", "~1")


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON Pointer (``/a~1b/0`` is ``["a/b", "0"]``)."""
    return list(_tokens(pointer))


@lru_cache(maxsize=4096)
def _tokens(pointer: str) -> tuple[str, ...]:
    """``pointer_tokens``, remembered: a game's figures are read at the same few pointers twice
    in every command."""
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:])


def resolve(document: Any, pointer: str) -> Any:
    """The value at a JSON Pointer (``/hero/hp``), or None where the path does not exist.

    A list index is ASCII digits only (``²`` or ``٣`` name nothing).
    """
    for token in _tokens(pointer):
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


SHARED_FROM = 32
"""A list of at least this many items is shared item by item in a working copy (``SharedItems``)."""


class SharedItems(list[Any]):
    """A long list of a working copy (``working_copy``): its items are the original's until reached.

    Copying a long page's checks whole for every command made a command cost the page's length.
    This list starts as a new list of the original's item objects, and each item is copied the
    first time anything reaches it (indexing, slicing, iterating, popping, concatenating), so a
    handler may change whatever it reaches and the original state never changes, while a command
    that only appends copies nothing before. ``diff`` and ``same`` read the items as they are,
    skipping those still shared with the other side. (``heapq``'s functions read a list's items
    as stored, past these methods: game rules do not use them on a state's lists.)
    """

    __slots__ = ("_original", "_shared")

    def __init__(self, original: list[Any]) -> None:
        super().__init__(original)
        self._original = original
        self._shared: set[int] | None = None

    def _reach(self, index: int) -> Any:
        item = list.__getitem__(self, index)
        if not isinstance(item, dict | list):
            return item
        if self._shared is None:
            self._shared = set(map(id, self._original))
        if id(item) in self._shared:
            item = working_copy(item)
            list.__setitem__(self, index, item)
        return item

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._reach(i) for i in range(*index.indices(len(self)))]
        list.__getitem__(self, index)  # an IndexError or TypeError as a list gives it
        return self._reach(index)

    def __iter__(self) -> Iterator[Any]:
        index = 0
        while index < len(self):
            yield self._reach(index)
            index += 1

    def __reversed__(self) -> Iterator[Any]:
        index = len(self) - 1
        while 0 <= index < len(self):
            yield self._reach(index)
            index -= 1

    def pop(self, index: SupportsIndex = -1) -> Any:
        item = self[index]
        list.pop(self, index)
        return item

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        # ``list.sort`` hands the items as stored to ``key``: each is reached (copied) first.
        for index in range(len(self)):
            self._reach(index)
        list.sort(self, key=key, reverse=reverse)

    def copy(self) -> list[Any]:
        return list(iter(self))

    def __copy__(self) -> list[Any]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return deepcopy(list(list.__iter__(self)), memo)

    def __add__(self, other: Any) -> Any:
        return self.copy() + other

    def __radd__(self, other: Any) -> Any:
        return other + self.copy()

    def __mul__(self, times: SupportsIndex) -> Any:
        return self.copy() * times

    __rmul__ = __mul__


def working_copy(value: Any) -> Any:
    """A copy of a JSON value for a command to change: the same document, sharing nothing that
    may change with ``value`` except the items of its long lists, each copied when first reached
    (``SharedItems``). It costs the state without its long lists, whatever their length."""
    kind = type(value)
    if kind is dict:
        return {key: working_copy(item) for key, item in value.items()}
    if kind is list:
        if len(value) >= SHARED_FROM:
            return SharedItems(value)
        return [working_copy(item) for item in value]
    if kind is str or kind is int or value is None or kind is bool or kind is float:
        return value
    return copy_json(value)


def _unshared(before: list[Any], after: list[Any], count: int) -> Iterator[int]:
    """The indices below ``count`` where two lists hold different objects (items as stored)."""
    return compress(range(count), map(is_not, list.__iter__(before), list.__iter__(after)))


def same(before: Any, after: Any) -> bool:
    """Whether two JSON values are the same document, types included (``1`` is not ``true``
    and not ``1.0``, although Python's ``==`` says so): ``diff`` skips such a subtree whole.

    A working copy's long list (``SharedItems``) is compared item by item, skipping the items
    both sides still share, so it costs what the command reached, not the list's length; a
    document holding one is compared key by key by ``diff`` instead."""
    if before is after:
        return True
    if isinstance(before, SharedItems) or isinstance(after, SharedItems):
        if not isinstance(before, list) or not isinstance(after, list) or len(before) != len(after):
            return False
        return all(
            same(list.__getitem__(before, i), list.__getitem__(after, i))
            for i in _unshared(before, after, len(before))
        )
    if type(before) is not type(after) or before != after:
        return False
    try:  # ``after`` first: a working copy's long list stops it before anything is serialised
        return _exact(after) == _exact(before)
    except (TypeError, orjson.JSONEncodeError):
        return False  # a long list of a working copy, or an int beyond 64 bits: key by key


def _exact(value: Any) -> bytes:
    """A value's JSON with its types (a ``SharedItems`` inside is refused: TypeError)."""
    return orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_SUBCLASS)


def diff(before: Any, after: Any, path: str = "") -> list[Op]:
    """The operations that turn ``before`` into ``after`` (objects key by key, lists by index).

    A subtree that is the same on both sides (``same``) is skipped without walking it, and a list
    item that is one object on both sides is not looked at, so the cost follows what changed and
    what a working copy did not share, not the size of the state."""
    both_lists = isinstance(before, list) and isinstance(after, list)
    if type(before) is not type(after) and not both_lists:
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
    if both_lists:
        return _list_diff(before, after, path)
    if before != after:
        return [{"op": "replace", "path": path, "value": copy_json(after)}]
    return []


def _list_diff(before: list[Any], after: list[Any], path: str) -> list[Op]:
    """``diff`` of two lists, by index: the items both hold, then removals from the end, then
    additions at the end."""
    ops: list[Op] = []
    common = min(len(before), len(after))
    for index in _unshared(before, after, common):
        item = list.__getitem__(after, index)
        ops.extend(diff(list.__getitem__(before, index), item, f"{path}/{index}"))
    for index in range(len(before) - 1, common - 1, -1):
        ops.append({"op": "remove", "path": f"{path}/{index}"})
    for index in range(common, len(after)):
        item = list.__getitem__(after, index)
        ops.append({"op": "add", "path": f"{path}/{index}", "value": copy_json(item)})
    return ops


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
