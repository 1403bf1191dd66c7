"""Every event in words: one line per event, made here and read by the API, the page and the CLI.

Each event type's summary is written once, by a function registered for its payload class with
``@summary(CheckRolled)``: the campaign events' below, each game's where its events are (a game's
``summaries`` modules, or a command's handler module). The function reads the event's payload,
decoded (``Payload.decode``), and what else the event stored through ``Facts`` (a game event's
rolls, figures and the names its command gives); a summary is computed whenever an event is read
and never stored: no stored byte or hash depends on it, and events written by earlier releases
get summaries too (docs/events.md, "Summaries").

``summarise_as`` never raises: a payload that does not decode as its class (an old or odd shape)
or that its summary cannot read gets the generic line of ``fallback``, which names the event's
type. ``domain.model.event_summaries`` finds a stored topic's payload class.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from domain.model.events.payload import Absent, Payload

LOG = logging.getLogger(__name__)

MAX_TEXT = 120
"""The most characters of a text the event recorded as given (a reason, a purpose) a summary
quotes; a longer one ends in an ellipsis."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[a-z])(?=[0-9])")
_SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
"""An id written as a slug (``lucky-break``, ``med_kit``): lower-case words joined by - or _."""
_ROLL_REF = re.compile(r"\(fate reroll of [^)]*\)")
"""A roll id (``72-1``) in a recorded purpose: an internal reference the reader has no use for."""


class Facts:
    """What a summary reads of one event besides its payload: the rolls and figures it recorded
    and the names its command or patch gives (a campaign event records none of them)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data

    @property
    def rolls(self) -> list[Mapping[str, Any]]:
        """The roll records the event stored."""
        rolls = self._data.get("rolls")
        return [r for r in rolls if isinstance(r, Mapping)] if isinstance(rolls, list) else []

    @property
    def figures(self) -> Mapping[str, Any]:
        """The tracked figures the event changed, with their values after (none before figures)."""
        figures = self._data.get("figures")
        return figures if isinstance(figures, Mapping) else {}

    @property
    def effects(self) -> list[Any] | None:
        """The patch the event applied to the game state (None if it stored none)."""
        effects = self._data.get("effects")
        return effects if isinstance(effects, list) else None

    def name(self, ident: Any) -> str:
        """The name the event's command or patch gives the thing with id ``ident`` (an item, an
        ability, a crew member), or else the id in words (``lucky-break`` reads "Lucky Break")."""
        for found in _objects(self._data.get("command"), self._data.get("effects")):
            if found.get("id") == ident and isinstance(found.get("name"), str):
                return text(found["name"])
        return id_words(ident)


def _objects(*values: Any) -> Iterator[Mapping[str, Any]]:
    """Every JSON object inside the values, depth first."""
    stack = list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            yield value
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


P = TypeVar("P", bound=Payload)
T = TypeVar("T")
_SUMMARIES: dict[type[Payload], Callable[[Any, Facts], str]] = {}


def summary(
    payload: type[P],
) -> Callable[[Callable[[P, Facts], str]], Callable[[P, Facts], str]]:
    """Register the summary of an event type by its payload class (``CheckRolled``); once only.

    The function is given the event's payload, decoded, and its other ``Facts``.
    """

    def register(function: Callable[[P, Facts], str]) -> Callable[[P, Facts], str]:
        if payload in _SUMMARIES:
            raise RuntimeError(f"{payload.__name__} has a summary already")
        _SUMMARIES[payload] = function
        return function

    return register


def summarised() -> frozenset[type[Payload]]:
    """The payload classes that have a summary of their own."""
    return frozenset(_SUMMARIES)


def has_summary(payload: type[Payload] | None) -> bool:
    """Whether an event type has a summary of its own (not the fallback)."""
    return payload in _SUMMARIES


def fallback(topic: str) -> str:
    """The generic line of an event whose summary cannot read it: its type in words and topic."""
    name = text(topic).rpartition(".")[2]
    words = _WORD_START.sub(" ", name).lower().capitalize() or "Event"
    return f"{words} ({text(topic)})"


def summarise_as(event: Mapping[str, Any], payload: type[Payload] | None) -> str:
    """One event as the API shows it (``type`` and ``data``) in one line, its payload read as
    ``payload`` (its topic's payload class; None for a topic no payload declares); never raises."""
    topic = event.get("type")
    if not isinstance(topic, str):
        return fallback("event")
    data = event.get("data")
    function = _SUMMARIES.get(payload) if payload is not None else None
    if payload is None or function is None or not isinstance(data, Mapping):
        return fallback(topic)
    try:
        line = function(payload.decode(_current(payload, data)), Facts(data))
    except Exception:  # an old or odd payload: the generic line, never an error for the reader
        LOG.debug("no summary of a %s event", topic, exc_info=True)
        return fallback(topic)
    return one_line(line) if isinstance(line, str) and line.strip() else fallback(topic)


def _current(payload: type[Payload], data: Mapping[str, Any]) -> Mapping[str, Any]:
    """What an event stored of its payload, upcast to the payload's current version: a game
    event's ``details`` (none if not an object), a campaign event's data itself."""
    if "details" not in data:
        return data
    details = data["details"]
    if not isinstance(details, Mapping):
        return {}
    version = data.get("class_version", 1)
    known = isinstance(version, int) and version >= 1
    upcasters = payload.UPCASTERS[version - 1 :] if known else ()
    if not upcasters:
        return details
    upcast = dict(details)
    for upcaster in upcasters:
        upcaster(upcast)
    return upcast


def decoded(event: Any) -> dict[str, Any]:
    """A decoded domain event (as the code reads it, upcast) in the shape ``summarise_as`` reads."""
    data = dict(vars(event))
    version = getattr(type(event), "class_version", 1)
    if version > 1:
        data["class_version"] = version
    return {"type": getattr(event, "TOPIC", None), "data": data}


def given(recorded: T | Absent) -> T | None:
    """A fact that may be absent as a summary compares it: None when the event left it out."""
    return None if isinstance(recorded, Absent) else recorded


# -- wording helpers ----------------------------------------------------------------------------


def one_line(value: str) -> str:
    """Text on one line, without control characters."""
    return _CONTROL.sub(" ", value).strip()


def text(value: Any, limit: int = MAX_TEXT) -> str:
    """A recorded value as text on one line, at most ``limit`` characters."""
    shown = one_line(str(value))
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def words(value: Any) -> str:
    """A recorded code name in words: ``nightlyDecay`` and ``until_cured`` read "nightly decay"
    and "until cured"."""
    shown = text(value)
    if shown.isupper():
        return shown  # an abbreviation (a trait such as STR) stays as written
    return _WORD_START.sub(" ", shown).replace("_", " ").lower()


def id_words(ident: Any) -> str:
    """An id as a name when nothing recorded names it: a slug's words, each capitalised
    (``lucky-break`` and ``med_kit`` read "Lucky Break" and "Med Kit"); any other id as written."""
    shown = text(ident)
    if not _SLUG.fullmatch(shown):
        return shown
    return " ".join(part.capitalize() for part in re.split(r"[-_]", shown))


def key_words(key: Any) -> str:
    """A setting's dotted key in words, without its game prefix: ``qc.combat.mode`` reads
    "combat mode", ``cb.fateReroll.refresh`` "fate reroll refresh"."""
    parts = text(key).split(".")
    if len(parts) > 1 and parts[0] in ("qc", "cb"):
        parts = parts[1:]
    return " ".join(words(part) for part in parts if part)


def value(recorded: Any, limit: int = 40) -> str:
    """A recorded value as a reader reads it: ``yes``/``no`` for a boolean, ``none`` for null,
    a text as written, and anything else as JSON (never a Python repr such as ``True``)."""
    if isinstance(recorded, bool):
        return "yes" if recorded else "no"
    if recorded is None:
        return "none"
    if isinstance(recorded, str):
        return text(recorded, limit)
    try:
        shown = json.dumps(recorded, ensure_ascii=False, separators=(", ", ": "), default=str)
    except ValueError:  # a circular value cannot be recorded; its text still reads
        shown = str(recorded)
    return text(shown, limit)


def choice(option: Any) -> str:
    """One option a decision offers, in words: its name, its id as a name, its kind, or its fields
    and values. A text option is an id as the player names it (a piece ``a1``, a seat ``B``),
    with only its underscores read as spaces."""
    if not isinstance(option, Mapping):
        return text(option, 40).replace("_", " ") if isinstance(option, str) else value(option)
    if option.get("name"):
        return text(option["name"], 40)
    if option.get("id"):
        return id_words(text(option["id"], 40))
    if option.get("kind"):
        return words(text(option["kind"], 40))
    return " ".join(f"{words(k)} {value(v)}" for k, v in option.items()) or "none"


def signed(number: Any) -> str:
    """A modifier as it is added: ``+ 2``, ``- 2`` (nothing for 0 or a missing one)."""
    if not isinstance(number, int) or isinstance(number, bool) or number == 0:
        return ""
    return f" + {number}" if number > 0 else f" - {-number}"


def delta(number: Any) -> str:
    """A change by a number, with its sign: ``+6``, ``-4``, ``0``."""
    return f"{number:+d}" if isinstance(number, int) and number else str(number)


def added(value: Any, *modifiers: Any, total: Any = None) -> str:
    """A die and the modifiers added to it, then the total if any modifier was added:
    ``13 + 2 = 15``, or ``3`` alone."""
    shown = "".join(signed(m) for m in modifiers)
    return f"{value}{shown} = {total}" if shown and total is not None else f"{value}{shown}"


def change(before: Any, after: Any) -> str:
    """A figure that changed, ``before → after``."""
    return f"{before} → {after}"


def counted(number: Any, one: str, many: str | None = None) -> str:
    """A number and its noun, singular or plural: ``1 enemy``, ``2 enemies``, ``0 events``."""
    noun = one if number == 1 else (many or f"{one}s")
    return f"{number} {noun}"


def actor(recorded: Any) -> str:
    """Who acted, as a reader names them: a token's name (``alice#1f0c2a9b7d3e`` reads "alice"),
    "the owner" for the owner's seat, an invitation's or a share link's token as what it is."""
    name = text(recorded, 60).split("#", 1)[0]
    if name in ("", "owner"):
        return "the owner"
    if name.startswith("invite-"):
        return "an invited member"
    if name.startswith("share-"):
        return "a viewer link"
    return name


def first_up(line: str) -> str:
    """A line starting with a capital, the rest as written."""
    return line[:1].upper() + line[1:]


def outcome(flag: Any, yes: str = "success", no: str = "failed") -> str:
    """A recorded boolean outcome in words."""
    return yes if flag else no


def listed(values: Any, empty: str = "none") -> str:
    """A recorded list (or the keys of an object) as ``a, b, c``."""
    if isinstance(values, Mapping):
        values = list(values)
    if not isinstance(values, list) or not values:
        return empty
    return ", ".join(text(v, 40) for v in values[:8]) + (", …" if len(values) > 8 else "")


def faces(roll: Mapping[str, Any]) -> str:
    """A roll's dice in words: the kept faces added up, with the modifier and total, and the dice
    dropped (``13 + 2 = 15``, ``11 = 11 (dropped 4)``)."""
    dice = [d for d in roll.get("dice") or [] if isinstance(d, Mapping)]
    kept = [str(d.get("face")) for d in dice if d.get("kept", True)]
    dropped = [str(d.get("face")) for d in dice if not d.get("kept", True)]
    line = " + ".join(kept) or "0"
    if len(kept) > 1 or signed(roll.get("modifier")) or dropped:
        line += f"{signed(roll.get('modifier'))} = {roll.get('total')}"
    if dropped:
        line += f" (dropped {', '.join(dropped)})"
    return line


def purpose_words(purpose: Any) -> str:
    """A roll's recorded purpose in words: a code name such as ``hail_damage`` reads "hail damage",
    a purpose written by the player as written (without roll ids)."""
    shown = _ROLL_REF.sub("(fate reroll)", text(purpose or "roll"))
    return shown.replace("_", " ") if _SLUG.fullmatch(shown) else shown


def roll_words(roll: Mapping[str, Any]) -> str:
    """One roll record in words: its purpose, its dice with modifier and total, its notation."""
    return f"{purpose_words(roll.get('purpose'))}: {faces(roll)} ({text(roll.get('notation'), 40)})"
