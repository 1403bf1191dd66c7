"""Typed event payloads: each event type is a dataclass whose fields mypy checks where it is
emitted, and whose declaration (docs/events.md, ``EventType.check``) is read from the class.

A payload class names the event (its class name is the stored event type), says what happened
(its docstring) and declares each fact it records with ``fact``: the Python type is the JSON type
stored (``int`` is integer, ``str`` string, ``bool`` boolean, ``Sequence`` array, ``Mapping``
object, ``None`` null, ``Any`` anything the game records there) and the description says what it
means. A fact recorded only in some cases has the default ``ABSENT``: it is then left out of the
stored details, exactly as the events stored before payloads were typed leave it out.

>>> @event
... class Paid(Payload):
...     '''Credits were paid.'''
...
...     amount: int = fact("credits paid")
...     shop_id: str | Absent = fact("the shop, when in one", default=ABSENT)
>>> Paid(amount=3).details()
{'amount': 3}
>>> [(f.name, f.type, f.optional) for f in declaration(Paid).fields]
[('amount', 'integer', False), ('shop_id', 'string', True)]
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

PAYLOAD_TYPES = frozenset(
    {"integer", "number", "string", "boolean", "array", "object", "null", "any"}
)
"""The JSON types a payload field may declare (``any``: whatever the game records there)."""


@dataclasses.dataclass(frozen=True)
class PayloadField:
    """One fact an event records: its name, JSON type(s) and what it means."""

    name: str
    type: str
    """One or more of ``PAYLOAD_TYPES`` joined by ``|``, e.g. ``integer|null``."""
    description: str
    optional: bool = False
    """Recorded only in some cases (the description says when)."""


Upcaster = Callable[[dict[str, Any]], None]
"""Changes a payload stored at one version, in place, into the shape of the next version."""


@dataclasses.dataclass(frozen=True)
class EventType:
    """A game event type: its past-tense name, what it records, its payload and payload version.

    ``upcasters[n]`` turns a payload stored at version ``n + 1`` into version ``n + 2``; the
    event class applies them when an older event is loaded (docs/events.md).
    """

    name: str
    summary: str
    fields: tuple[PayloadField, ...]
    version: int = 1
    upcasters: tuple[Upcaster, ...] = ()
    cls: type[Payload] | None = dataclasses.field(default=None, compare=False, repr=False)
    """The payload class it is declared by."""

    def __post_init__(self) -> None:
        if len(self.upcasters) != self.version - 1:
            raise RuntimeError(f"{self.name} v{self.version} needs {self.version - 1} upcaster(s)")

    def check(self, details: Mapping[str, Any]) -> None:
        """Refuse details that do not match the declaration: a programming error."""
        declared = {f.name for f in self.fields}
        unknown = sorted(set(details) - declared)
        missing = sorted(f.name for f in self.fields if not f.optional and f.name not in details)
        if unknown or missing:
            raise RuntimeError(
                f"{self.name} emitted with undeclared field(s) {unknown} and without "
                f"declared field(s) {missing}"
            )
        for declared_field in self.fields:
            if declared_field.name in details and not json_type_matches(
                details[declared_field.name], declared_field.type
            ):
                raise RuntimeError(
                    f"{self.name}.{declared_field.name} is declared {declared_field.type}, "
                    f"emitted as {type(details[declared_field.name]).__name__}"
                )


def json_type_matches(value: Any, declared: str) -> bool:
    """Whether a value is of one of the JSON types ``declared`` names (``integer|null``...).

    >>> json_type_matches(3, "integer"), json_type_matches(True, "integer")
    (True, False)
    """
    for kind in declared.split("|"):
        if kind == "any":
            return True
        if kind == "null" and value is None:
            return True
        if kind == "boolean" and isinstance(value, bool):
            return True
        if kind in ("integer", "number") and isinstance(value, int) and not isinstance(value, bool):
            return True
        if kind == "number" and isinstance(value, float):
            return True
        if kind == "string" and isinstance(value, str):
            return True
        if kind == "array" and isinstance(value, list | tuple):
            return True
        if kind == "object" and isinstance(value, Mapping):
            return True
    return False


class Absent:
    """The value of a fact an event does not record (it is left out of the stored details)."""

    _instance: ClassVar[Absent | None] = None

    def __new__(cls) -> Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT = Absent()
"""The one ``Absent`` value."""

STORED_AS = "stored_as"
DESCRIPTION = "description"


def fact(description: str, *, default: Any = dataclasses.MISSING, stored_as: str = "") -> Any:
    """One fact a payload records and what it means; ``default=ABSENT`` if only sometimes.

    ``stored_as`` is the key it is stored under when that is not a Python name (``from``).
    """
    metadata = {DESCRIPTION: description, STORED_AS: stored_as}
    return dataclasses.field(default=default, metadata=metadata)


class Payload:
    """Base of every event payload class (see the module's docstring)."""

    VERSION: ClassVar[int] = 1
    """The payload version stored with the event (docs/events.md)."""
    UPCASTERS: ClassVar[tuple[Upcaster, ...]] = ()
    """``UPCASTERS[n]`` turns details stored at version ``n + 1`` into version ``n + 2``."""
    STORED_KEYS: ClassVar[tuple[tuple[str, str], ...]] = ()
    """Each field by its Python name and the key it is stored under (set by ``event``)."""

    def details(self) -> dict[str, Any]:
        """The details the event stores: every recorded fact by its stored key."""
        recorded = {}
        for name, key in self.STORED_KEYS:
            value = getattr(self, name)
            if value is not ABSENT:
                recorded[key] = value
        return recorded

    @classmethod
    def decode(cls, stored: Mapping[str, Any]) -> Self:
        """The payload an event stored: each fact from its stored key (``details``' inverse).

        ``stored`` is a game event's ``details``, or a campaign event's data, in the current
        version (an event stored in an older one is upcast when it is read). A fact that may be
        absent and is not stored is ``ABSENT``; keys the class does not declare are ignored. A
        required fact that is missing raises ``TypeError``, and a value of the wrong JSON type
        ``ValueError``: the stored shape is not this class's.
        """
        values = {name: stored[key] for name, key in cls.STORED_KEYS if key in stored}
        decoded = cls(**values)
        for field in _declared(cls).fields:
            value = stored.get(field.name, ABSENT)
            if value is not ABSENT and not json_type_matches(value, field.type):
                raise ValueError(f"{cls.__name__}.{field.name}: not of type {field.type}")
        return decoded


P = TypeVar("P", bound=type[Payload])


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(fact,))
def event(cls: P) -> P:
    """Make a payload class a frozen, keyword-only dataclass (its facts by name, as stored)."""
    made = typing.cast(P, dataclasses.dataclass(frozen=True, kw_only=True)(cls))
    made.STORED_KEYS = tuple(
        (each.name, each.metadata[STORED_AS] or each.name)
        for each in dataclasses.fields(made)  # type: ignore[arg-type]
    )
    return made


_JSON_TYPES: dict[Any, str] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    type(None): "null",
    Any: "any",
}
_CONTAINERS: dict[Any, str] = {
    list: "array",
    tuple: "array",
    Sequence: "array",
    dict: "object",
    Mapping: "object",
}


def _json_type(hint: Any, where: str) -> tuple[str, bool]:
    """The JSON type(s) of a fact's Python type, and whether it may be absent."""
    options = typing.get_args(hint) if _is_union(hint) else (hint,)
    kinds, optional = [], False
    for option in options:
        if option is Absent:
            optional = True
        elif option in _JSON_TYPES:
            kinds.append(_JSON_TYPES[option])
        elif typing.get_origin(option) in _CONTAINERS:
            kinds.append(_CONTAINERS[typing.get_origin(option)])
        else:
            raise RuntimeError(f"{where}: {option!r} is not a JSON type")
    return "|".join(kinds), optional


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def figure(name: str, kind: Any, description: str) -> PayloadField:
    """One figure a game's events record when it changes (``rules_engine.Figures``): its name,
    Python type (``int | None``) and meaning.

    >>> figure("hero.hp", int | None, "the hero's hit points").type
    'integer|null'
    """
    json_type, optional = _json_type(kind, name)
    if optional or not description:
        raise RuntimeError(f"{name}: a figure is always recorded, and says what it is")
    return PayloadField(name, json_type, description)


def declaration(cls: type[Payload]) -> EventType:
    """The declaration of a payload class: its name, summary, fields, version and upcasters."""
    hints = typing.get_type_hints(cls)
    declared = []
    for each in dataclasses.fields(cls):  # type: ignore[arg-type]
        where = f"{cls.__name__}.{each.name}"
        kind, optional = _json_type(hints[each.name], where)
        description = each.metadata.get(DESCRIPTION)
        if not description:
            raise RuntimeError(f"{where}: declare it with fact('what it means')")
        if optional and each.default is not ABSENT:
            raise RuntimeError(f"{where}: a fact that may be absent defaults to ABSENT")
        key = each.metadata[STORED_AS] or each.name
        declared.append(PayloadField(key, kind, description, optional))
    summary = " ".join((cls.__doc__ or "").split())
    if not summary:
        raise RuntimeError(f"{cls.__name__}: say what happened in its docstring")
    return EventType(cls.__name__, summary, tuple(declared), cls.VERSION, cls.UPCASTERS, cls)


_DECLARATIONS: dict[type[Payload], EventType] = {}


def _declared(cls: type[Payload]) -> EventType:
    """A payload class's declaration, made once per process (``decode`` reads it per event)."""
    known = _DECLARATIONS.get(cls)
    if known is None:
        known = _DECLARATIONS[cls] = declaration(cls)
    return known


PAYLOAD_CLASSES: dict[str, type[Payload]] = {}
"""Each stored topic's payload class: the campaign events' and, once the games load, theirs."""
PAYLOAD_TOPICS: dict[type[Payload], str] = {}
"""Each payload class's stored topic (``qc.CheckRolled``, ``questlog.RolledBack``)."""


def register_payload(topic: str, declared: EventType) -> None:
    """Record that events of ``topic`` store payloads of the declared class (done where topics
    are made: ``domain.model.campaign``); a class is the payload of one topic only."""
    cls = declared.cls
    if cls is None:
        return
    known = PAYLOAD_TOPICS.setdefault(cls, topic)
    if known != topic:
        raise RuntimeError(f"{cls.__name__} is the payload of {known} and {topic}")
    PAYLOAD_CLASSES[topic] = cls


def topic_of(payload: type[Payload]) -> str:
    """The stored topic of a payload class's events; a class no event type declares is a
    programming error (``KeyError``)."""
    return PAYLOAD_TOPICS[payload]


def payload_class(topic: str) -> type[Payload] | None:
    """The payload class of a stored topic, or None for a topic no payload declares."""
    return PAYLOAD_CLASSES.get(topic)


def details_upcaster(upcaster: Upcaster) -> staticmethod[[dict[str, Any]], None]:
    """An eventsourcing upcaster of a game event's stored fields from one of its ``details``."""

    def upcast(fields: dict[str, Any]) -> None:
        upcaster(fields["details"])

    return staticmethod(upcast)
