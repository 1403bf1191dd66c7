"""The house rules as JSON Schema: what a campaign's ``house_rules`` and a house-rule change
may hold, read from the games' rule books so the document and the server say the same."""

from __future__ import annotations

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
        items: Json = {"enum": list(rule.choices)} if rule.choices else {"type": "string"}
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


def house_rules_properties() -> Json:
    """The ``properties`` of a campaign's ``house_rules``: every key of both games."""
    return {key: key_schema(rules) for key, rules in rules_by_key().items()}


HOUSE_RULES_WORDS = (
    "Overrides of house-rule defaults (see GET /house-rules?game=): only the keys of the "
    "campaign's game (a key of the other game is refused by name); each value as its rule says."
)
"""What a campaign's house rules may hold, in the words the schema cannot say (the keys by game)."""
VALUE_WORDS = (
    "The rule's new value: what the key's rule takes (GET /house-rules?game= lists each rule's "
    "kind, choices, minimum and maximum), and different from the value in force (else 409)."
)
"""What a house-rule change's value may be: it depends on the key."""
