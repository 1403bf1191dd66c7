"""The house rules as JSON Schema: what a campaign's ``house_rules`` and a house-rule change
may hold, read from the games' rule books so the document and the server say the same."""

from __future__ import annotations

import json
import re
from typing import Any

from domain.facade import GAMES, book

Json = dict[str, Any]


def value_schema(rule: Any) -> Json:
    """The values one rule takes, as far as JSON Schema says it (a rule's own validator, when it
    has one, is said in its description)."""
    schema: Json
    if rule.kind == "choice":
        schema = {"enum": list(rule.choices)}
    elif rule.kind == "int":
        schema = {"type": "integer"}
        schema.update({"minimum": rule.minimum} if rule.minimum is not None else {})
        schema.update({"maximum": rule.maximum} if rule.maximum is not None else {})
    elif rule.kind == "bool":
        schema = {"type": "boolean"}
    elif rule.kind == "str":
        schema = {"type": "string", "maxLength": 200}
    elif rule.kind == "list":
        items: Json = (
            {"enum": list(rule.choices)}
            if rule.choices
            else {"anyOf": [{"type": "string"}, {"type": "integer"}]}  # as the rule checks
        )
        schema = {"type": "array", "maxItems": 100, "items": items}
    else:
        schema = {"type": "object"}
    if rule.nullable:
        schema["nullable"] = True
    schema["description"] = rule.description
    return schema


def rules_by_key() -> dict[str, list[Any]]:
    """Every key either game offers, with its rule in each game that offers it."""
    found: dict[str, list[Any]] = {}
    for game in GAMES:
        for key, rule in book(game).rules.items():
            found.setdefault(key, []).append(rule)
    return dict(sorted(found.items()))


def key_schema(rules: list[Any]) -> Json:
    """One key's values: its rule's, or any of its rules' where the games differ."""
    schemas = [value_schema(rule) for rule in rules]
    distinct = [s for i, s in enumerate(schemas) if s not in schemas[:i]]
    return distinct[0] if len(distinct) == 1 else {"anyOf": distinct}


GAME_COMPONENTS = {
    "quest-calendar": "QuestCalendarHouseRules",
    "calendar-board": "CalendarBoardHouseRules",
}
"""The document's component of each game's house rules."""


def by_game_components() -> dict[str, Json]:
    """Each game's house rules as a component: its keys only, each value as its rule says."""
    return {
        GAME_COMPONENTS[game]: {
            "type": "object",
            "description": f"The house rules of {game}: GET /house-rules?game={game} lists them.",
            "properties": {
                key: value_schema(rule) for key, rule in sorted(book(game).rules.items())
            },
            "additionalProperties": False,
        }
        for game in GAMES
    }


def house_rules_properties() -> Json:
    """The ``properties`` of a campaign's ``house_rules``: every key of both games."""
    return {key: key_schema(rules) for key, rules in rules_by_key().items()}


HOUSE_RULES_WORDS = (
    "Overrides of house-rule defaults (see GET /house-rules?game=): only the keys of the "
    "campaign's game (a key of the other game is refused by name); each value as its rule says."
)
"""What a campaign's house rules may hold, in the words the schema cannot say (the keys by game)."""


def change_schema() -> tuple[Json, dict[str, Json]]:
    """A house-rule change as the document states it: one branch per key of either game, each
    with the values its rule takes, so that a body the document takes is refused only by the
    campaign (a key of the other game, a value in force: 409) or a rule's own validator. An
    object value is a component of its own (``value_components``): openapi-python-client makes
    a model of an inline object in a branch twice and fails."""
    branches = []
    for key, rules in rules_by_key().items():
        value = key_schema(rules)
        if value.get("type") == "object":
            value = {"$ref": f"#/components/schemas/{value_component(key)}"}
        branches.append(
            {
                "type": "object",
                "properties": {"key": {"type": "string", "enum": [key]}, "value": value},
                "required": ["key", "value"],
                "additionalProperties": False,
            }
        )
    schema = {
        "description": "A change of one house rule, recorded as an event: a key of the "
        "campaign's game (GET /house-rules?game=; a key of the other game is a 409 not-held) and "
        "a value its rule takes, different from the value in force (else 409).",
        "oneOf": branches,
    }
    return schema, value_components()


def value_component(key: str) -> str:
    """The component of a house rule's object value: HouseRule and the key in CamelCase."""
    return "HouseRule" + "".join(part[:1].upper() + part[1:] for part in re.split(r"[._]", key))


def value_components() -> dict[str, Json]:
    """The object values of the house rules, as components, by name."""
    found = {}
    for key, rules in rules_by_key().items():
        value = key_schema(rules)
        if value.get("type") == "object":
            found[value_component(key)] = value
    return found


VALUE_WORDS = (
    "The rule's new value: what the key's rule takes (GET /house-rules?game= lists each rule's "
    "kind, choices, minimum and maximum), and different from the value in force (else 409)."
)
"""What a house-rule change's value may be: it depends on the key."""


NOT_CONTROL = "[^\\u0000-\\u001f\\u007f-\\u009f]"
"""A character the text rule allows."""


def digits(low: str, high: str) -> str:
    """A pattern of the numerals from ``low`` to ``high``, two of the same length."""
    if low == high:
        return low
    if len(low) == 1:
        return f"[{low}-{high}]"
    if low[0] == high[0]:
        return low[0] + digits(low[1:], high[1:])
    rest = len(low) - 1
    parts = [low[0] + digits(low[1:], "9" * rest)]
    if int(high[0]) - int(low[0]) > 1:
        parts.append(f"[{int(low[0]) + 1}-{int(high[0]) - 1}][0-9]{{{rest}}}")
    parts.append(high[0] + digits("0" * rest, high[1:]))
    return "(?:" + "|".join(parts) + ")"


def natural_range(low: int, high: int) -> list[str]:
    """Patterns of the numerals from ``low`` to ``high`` (both at least 0), no leading zero."""
    parts = []
    for length in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (length - 1) if length > 1 else 0)
        end = min(high, 10**length - 1)
        if start <= end:
            parts.append(digits(str(start), str(end)))
    return parts


def integer_pattern(low: int | None, high: int | None) -> str:
    """A pattern of the integers from ``low`` to ``high`` as JSON writes them (no bound: any)."""
    if low is None or high is None:
        return "0|-?[1-9][0-9]{0,17}"
    parts = natural_range(max(low, 0), high) if high >= 0 else []
    if low < 0:
        parts += ["-" + part for part in natural_range(max(1, -min(high, -1)), -low)]
    return "|".join(parts)


def filter_value_pattern(rule: Any) -> str:
    """The values a ``key=value`` filter may give one rule, as the server reads them (JSON, or
    plain text for a string), as far as a pattern says it; a rule's own validator is said in
    its description."""
    item = f'"(?:(?![\\\\"]){NOT_CONTROL})*"'
    if rule.kind == "choice":
        words = [str(c) for c in rule.choices if isinstance(c, str)]
        pattern = "|".join(re.escape(v) for v in [*words, *map(json.dumps, rule.choices)])
    elif rule.kind == "bool":
        pattern = "true|false"
    elif rule.kind == "int":
        pattern = integer_pattern(rule.minimum, rule.maximum)
    elif rule.kind == "str":
        pattern = f"{NOT_CONTROL}{{0,200}}"
    elif rule.validator is not None:  # a validator of its own: the shape only
        pattern = f"\\[{NOT_CONTROL}*\\]" if rule.kind == "list" else f"\\{{{NOT_CONTROL}*\\}}"
    elif rule.kind == "list":
        one = "|".join(re.escape(json.dumps(c)) for c in rule.choices) or f"{item}|0|-?[1-9][0-9]*"
        pattern = f"\\[(?:(?:{one})(?:,(?:{one})){{0,99}})?\\]"
    else:
        pattern = f"\\{{{NOT_CONTROL}*\\}}"
    return f"{pattern}|null" if rule.nullable else pattern


def filter_pattern() -> str:
    """What a ``house_rule`` analytics filter may be: one of either game's keys, ``=``, and a
    value that key's rule takes."""
    keys = (
        f"{re.escape(key)}=(?:{'|'.join(dict.fromkeys(map(filter_value_pattern, rules)))})"
        for key, rules in rules_by_key().items()
    )
    return "^(?:" + "|".join(keys) + ")$"
