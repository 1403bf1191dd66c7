"""Hypothesis strategies for game commands, built from the catalogue the API publishes.

``GET /commands?game=...`` lists each command's fields: type, required, default, bounds, choices,
an object's own fields, a list's items, an object's values, and where a value is picked from in
the campaign state (``picks``). ``bodies`` turns one command's entry into a strategy of request
bodies: mostly values its schema accepts (within bounds, one of the choices, ids the state
holds), mixed with what a careless or hostile client sends: boundary numbers and one past them,
null where a field is nullable (and where it is not), free text with lone surrogates, control
characters and odd Unicode, wrong types and unknown keys. The command's published example is a
second source: its values, each kept or replaced by a generated one, reach deeper into the rules
than values made from nothing.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

Json = dict[str, Any]

ODD_TEXT = (
    "\ud800",  # a lone high surrogate: valid JSON ("\\ud800"), not valid Unicode
    "\udfff",
    "id-\udc00",
    "\ud83d\ude00",  # a surrogate pair as two escapes: one emoji once decoded
    "😀",
    "\u202eevil",  # right-to-left override
    "\u200b",  # zero-width space
    "\ufeff",
    "e\u0301",  # combining accent
    "\uff21\uff22\uff23",  # full-width ABC
    "\u0661\u0662\u0663",  # Arabic-Indic digits
    "\u00b2",  # superscript two
    "\x00",
    "nul\x00in",
    "\x7f",
    "\x85",
    "\u2028",
    "tab\there",
    "line\nbreak",
    "",
    " ",
    "null",
    "0",
    "-1",
)
"""Text a form would never send: each once caused, or could cause, a crash somewhere."""


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a code point UTF-8 cannot encode (U+D800..U+DFFF)."""
    return any(0xD800 <= ord(character) <= 0xDFFF for character in text)


JUNK = (None, True, False, 0, -1, 1.5, "x", [], {}, [None], {"x": 1})
"""A value of the wrong type for almost any field."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Any JSON value."""

HAND_ROLLED = "faces"
"""The field a schema-keeping body leaves out: its dice are the server's (maybe with the
player's ``entropy``, which makes each body another roll)."""

any_characters = st.characters(exclude_categories=())
"""Every code point, lone surrogates included (Hypothesis leaves them out by default)."""
printable = st.characters(exclude_categories=("Cs", "Cc"))
"""Any text a form would send."""


def weighted(*options: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, each as often as its weight says (``one_of`` counts a strategy
    given twice as one)."""
    return st.one_of([strategy.map(_same) for weight, strategy in options for _ in range(weight)])


def _same(value: Any) -> Any:
    return value


def free_text(max_length: int) -> st.SearchStrategy[str]:
    """Text of any code points, the odd ones above, and the lengths at the bound and one past."""
    return st.one_of(
        st.text(any_characters, max_size=min(max_length, 24)),
        st.sampled_from(ODD_TEXT),
        st.sampled_from(ODD_TEXT).map(lambda odd: f"name {odd}"),
        st.just("x" * max_length),
        st.just("x" * (max_length + 1)),
    )


def _paths(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value: the value itself, each member and each item, all the way
    down."""
    found = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*at, index))
    return found


def hostile_like(value: Any) -> st.SearchStrategy[Any]:
    """Something to put where ``value`` was: odd text for text, boundary numbers for a
    number, null or a value of another type for anything."""
    junk = st.sampled_from(JUNK)
    if isinstance(value, str):
        surrogates = st.sampled_from([odd for odd in ODD_TEXT if has_lone_surrogate(odd)])
        return weighted((2, surrogates), (3, free_text(len(value) or 1)), (1, junk))
    if isinstance(value, int) and not isinstance(value, bool):
        near = [value - 1, value + 1, -value, 0, -1, 2**31, 2**63, 10**30, -(10**30)]
        return weighted((3, st.sampled_from(near)), (1, junk))
    return junk


@st.composite
def one_thing_wrong(draw: st.DrawFn, bodies: st.SearchStrategy[Json]) -> Json:
    """A body of ``bodies`` with one thing wrong, anywhere in it: a value replaced (by odd
    text, a boundary number, null or a wrong type), a member dropped or an unknown one added."""
    body = copy.deepcopy(draw(bodies))
    path = draw(st.sampled_from([p for p in _paths(body) if p and p != ("type",)] or [()]))
    if not path:
        return body
    *parents, last = path
    holder: Any = body
    for step in parents:
        holder = holder[step]
    how = draw(st.sampled_from(("replace", "replace", "replace", "drop", "add")))
    if how == "replace":
        holder[last] = draw(hostile_like(holder[last]))
    elif how == "drop":
        del holder[last]
    elif isinstance(holder, dict):
        holder[draw(st.sampled_from(("x", "\ud800", "", "type ")))] = draw(json_values)
    else:
        holder.append(draw(json_values))
    return body


# -- values picked from the state ------------------------------------------------------------------


def _members(node: Any) -> Iterator[tuple[str | None, Any]]:
    """An object's (key, value) pairs or a list's (None, item) pairs."""
    if isinstance(node, dict):
        yield from node.items()
    elif isinstance(node, list):
        for item in node:
            yield None, item


def _walk(node: Any, tokens: list[str]) -> Iterator[Any]:
    """The nodes a JSON pointer reaches, ``*`` (and ``{name}``) standing for every member."""
    if not tokens:
        yield node
        return
    head, rest = tokens[0], tokens[1:]
    if head == "*" or (head.startswith("{") and head.endswith("}")):
        for _, value in _members(node):
            yield from _walk(value, rest)
    elif isinstance(node, dict) and head in node:
        yield from _walk(node[head], rest)
    elif isinstance(node, list) and head.isdigit() and int(head) < len(node):
        yield from _walk(node[int(head)], rest)


def _member(entry: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        entry = entry.get(part) if isinstance(entry, dict) else None
    return entry


def picked(state: Json, hint: Json) -> list[Any]:
    """The values a client would offer for a field with this ``picks`` hint, in this state."""
    tokens = [t for t in hint["source"].split("/") if t]
    found: list[Any] = []
    for source in _walk(state, tokens):
        for key, entry in _members(source):
            where = hint.get("where") or {}
            if any(_member(entry, k) != v for k, v in where.items()):
                continue
            wanted = hint.get("value")
            if wanted == "@key":
                value = key
            elif wanted is not None:
                value = _member(entry, wanted)
            elif isinstance(entry, dict) and "id" in entry:
                value = entry["id"]
            else:
                value = key if key is not None else entry
            if value is not None and value not in found:
                found.append(value)
    return found


def vocabulary(state: Any, limit: int = 60) -> list[str]:
    """Strings the state holds (ids, names, options): likely values for a text field."""
    words: list[str] = []

    def visit(node: Any) -> None:
        if len(words) >= limit:
            return
        if isinstance(node, str):
            if node not in words and len(node) <= 80:
                words.append(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                visit(key)
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(state)
    return words


# -- values from a field's description ---------------------------------------------------------


class Builder:
    """Strategies for one campaign state (its picks and words known): ``hostile`` ones mix in
    nulls, wrong types, out-of-range numbers and odd text; the others keep to what the schema
    accepts, so that commands get past it to the rules."""

    def __init__(self, state: Json, *, hostile: bool) -> None:
        self.state = state
        self.hostile = hostile
        self.words = vocabulary(state)

    def body(self, command: Json) -> st.SearchStrategy[Json]:
        """Bodies of one command: from its fields, or its example with values replaced."""
        name = command["name"]
        fields = [f for f in command["fields"] if self.hostile or f["name"] != HAND_ROLLED]
        by_name = {f["name"]: f for f in fields}
        example = {k: v for k, v in (command.get("example") or {}).items() if k != "type"}
        near = st.fixed_dictionaries(
            {
                key: st.one_of(st.just(value), self.value(by_name[key]))
                if key in by_name
                else st.just(value)
                for key, value in example.items()
            },
            optional={f["name"]: self.value(f) for f in fields if f["name"] not in example},
        )
        stray = st.fixed_dictionaries({"x": json_values})  # an unknown field
        options = [(2, near), (1, self.object_of(fields)), (1 if self.hostile else 0, stray)]
        return weighted(*options).map(lambda body: {"type": name, **body})

    def object_of(self, fields: list[Json]) -> st.SearchStrategy[Json]:
        """An object of these fields: the required ones present (hostile: maybe not), optional
        ones maybe."""
        required = {f["name"]: self.value(f) for f in fields if f["required"]}
        optional = {f["name"]: self.value(f) for f in fields if not f["required"]}
        whole = st.fixed_dictionaries(required, optional=optional)
        if not self.hostile:
            return whole
        partial = st.fixed_dictionaries({}, optional={**required, **optional})
        return weighted((2, whole), (1, partial))

    def value(self, field: Json) -> st.SearchStrategy[Any]:
        """A value for a field: of its type mostly; null where it is nullable (hostile: also
        where it is not, and values of the wrong type)."""
        good = self.typed(field)
        if self.hostile:
            return weighted((3, good), (1, st.none()), (1, st.sampled_from(JUNK)))
        return good if field["required"] else weighted((3, good), (1, st.none()))

    def typed(self, field: Json) -> st.SearchStrategy[Any]:
        """A value of the field's declared type(s)."""
        return st.one_of([self.of_kind(kind, field) for kind in field["type"].split(" or ")])

    def of_kind(self, kind: str, field: Json) -> st.SearchStrategy[Any]:
        picks = picked(self.state, field["picks"]) if "picks" in field else []
        if kind == "integer":
            return self.integer(field, picks)
        if kind == "string":
            return self.text(field, picks)
        if kind == "boolean":
            return st.booleans()
        if kind == "array":
            return self.array(field)
        if kind == "object":
            return self.object(field)
        return json_values

    def integer(self, field: Json, picks: list[Any]) -> st.SearchStrategy[int]:
        low, high = field.get("minimum"), field.get("maximum")
        start = -5 if low is None or self.hostile else low
        inside = st.integers(start, start + 35 if high is None else max(high, start))
        bounds = [n for n in (low, high) if n is not None]
        options = [(2, inside)]
        if bounds:
            options.append((1, st.sampled_from(bounds)))
        if self.hostile:
            edges = [0, -1, 2**31, -(2**31), 2**63, 10**30]
            options.append((1, st.sampled_from(edges + [n + d for n in bounds for d in (-1, 1)])))
        numbers = [p for p in picks if isinstance(p, int) and not isinstance(p, bool)]
        if numbers:
            options.append((2, st.sampled_from(numbers)))
        return weighted(*options)

    def text(self, field: Json, picks: list[Any]) -> st.SearchStrategy[str]:
        limit = field.get("max_length", 200)
        strings = [str(p) for p in picks]
        if field.get("choices"):
            strings += [str(c) for c in field["choices"]]
        if field["name"] == "entropy":
            return st.from_regex(re.compile(r"[A-Za-z0-9_-]{1,64}"), fullmatch=True)
        options: list[tuple[int, st.SearchStrategy[Any]]] = []
        if strings:
            options.append((6, st.sampled_from(strings)))
        if self.words:
            options.append((1, st.sampled_from(self.words)))
        if self.hostile:
            options.append((2, free_text(limit)))
        elif not strings or field.get("picks", {}).get("free"):
            options.append((1, st.text(printable, max_size=min(limit, 12))))
        return weighted(*options)

    def array(self, field: Json) -> st.SearchStrategy[list[Any]]:
        shape = field.get("items")
        item = self.shape(shape) if shape else json_values
        most = field.get("max_items", 100)
        small = st.lists(item, max_size=min(most, 4))
        if not self.hostile:
            return small
        past = item.map(lambda one: [one] * (most + 1))  # one past the bound, cheaply
        return weighted((3, small), (1, past))

    def object(self, field: Json) -> st.SearchStrategy[Json]:
        if "fields" in field:
            return self.object_of(field["fields"])
        if "values" in field:
            keys = [st.integers(1, 6).map(str)]
            if self.words:
                keys.append(st.sampled_from(self.words))
            if self.hostile:
                keys += [st.sampled_from(ODD_TEXT), st.text(any_characters, max_size=6)]
            return st.dictionaries(st.one_of(keys), self.shape(field["values"]), max_size=3)
        die = st.fixed_dictionaries({"tens": st.integers(-10, 100), "units": st.integers(-1, 10)})
        return st.one_of(die, st.dictionaries(st.text(max_size=8), json_values, max_size=3))

    def shape(self, shape: Json) -> st.SearchStrategy[Any]:
        """A list's item or an object's value, as the catalogue describes it."""
        good = self.typed({"name": "item", "required": True, **shape})
        return weighted((3, good), (1, st.sampled_from(JUNK))) if self.hostile else good
