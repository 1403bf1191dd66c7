"""House rules: each documented default is data, overridable per campaign (QC-01; the gaps they
settle are listed in docs/rules.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.model.errors import InvalidInput, NotHeld, RuleViolation
from domain.model.text import not_unicode, shown_key

QUEST_CALENDAR = "quest-calendar"
CALENDAR_BOARD = "calendar-board"
GAMES = (QUEST_CALENDAR, CALENDAR_BOARD)


@dataclass(frozen=True)
class HouseRule:
    """One configurable rule: its key, default, allowed values and where the gap is documented."""

    key: str
    default: Any
    description: str
    kind: str = "choice"  # "choice" | "int" | "bool" | "str" | "list" | "object"
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False
    gap: str | None = None
    validator: Callable[[Any], str | None] | None = None

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not allowed for this rule, or None when it is."""
        if value is None:
            return None if self.nullable else "must not be null"
        if self.validator is not None:
            return self.validator(value)
        if self.kind == "choice":
            if value not in self.choices:
                allowed = ", ".join(repr(c) for c in self.choices)
                return f"must be one of {allowed}"
        elif self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                return "must be an integer"
            if self.minimum is not None and value < self.minimum:
                return f"must be at least {self.minimum}"
            if self.maximum is not None and value > self.maximum:
                return f"must be at most {self.maximum}"
        elif self.kind == "bool":
            if not isinstance(value, bool):
                return "must be true or false"
        elif self.kind == "str":
            if not isinstance(value, str) or len(value) > 200:
                return "must be a string of at most 200 characters"
        elif self.kind == "list":
            if not isinstance(value, list) or len(value) > 100:
                return "must be a list of at most 100 items"
            if self.choices and any(
                not isinstance(item, str) or item not in self.choices for item in value
            ):
                return f"items must be among {', '.join(repr(c) for c in self.choices)}"
            if any(not isinstance(item, str | int) or isinstance(item, bool) for item in value):
                return "items must be strings or integers"
        elif self.kind == "object" and not isinstance(value, dict):
            return "must be an object"
        return None

    def problems(self, value: Any, name: str) -> dict[str, list[str]]:
        """What is wrong with ``value`` for this rule, by path under ``name``: text anywhere in
        it that is not valid Unicode (a lone surrogate), else what ``check`` says."""
        not_text = not_unicode(value, name)
        if not_text:
            return not_text
        problem = self.check(value)
        return {name: [problem]} if problem else {}

    def describe(self) -> dict[str, Any]:
        """A JSON description for the house-rules listing."""
        return {
            "key": self.key,
            "default": self.default,
            "kind": self.kind,
            "choices": list(self.choices) or None,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "nullable": self.nullable,
            "gap": self.gap,
            "description": self.description,
        }


@dataclass
class HouseRuleBook:
    """The house rules a game offers, by key."""

    game: str
    rules: dict[str, HouseRule] = field(default_factory=dict)

    def add(self, *rules: HouseRule) -> None:
        """Offer more rules for this game."""
        for rule in rules:
            self.rules[rule.key] = rule

    def change(self, current: Mapping[str, Any], key: str, value: Any) -> HouseRule:
        """The house rule a campaign changes from ``current`` to ``value`` (QC-01).

        The body's own form first (``check_change``: 422). Then the campaign's: a key of the
        other game, or a value this game's rule does not take though the other's does, is a 409
        not-held naming the field; a value already in force is a 409 under the game's rule."""
        check_change(key, value)
        rule = self.rules.get(key)
        if rule is None:
            raise NotHeld("key", f"not a house rule of {self.game}, the campaign's game")
        problems = rule.problems(value, "value")
        if problems:
            raise NotHeld("value", f"{problems['value'][0]} in {self.game}, the campaign's game")
        if current.get(key) == value:
            rule_id = "QC-01" if self.game == "quest-calendar" else "house-rules"
            raise RuleViolation(rule_id, f"house rule {key} is already {value!r}")
        return rule

    def resolve(self, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
        """The full set in force: defaults, then overrides; refuses unknown keys and bad values."""
        overrides = overrides or {}
        errors: dict[str, list[str]] = {}
        for key, value in overrides.items():
            rule = self.rules.get(key)
            if rule is None:
                errors[f"house_rules.{shown_key(str(key))}"] = ["unknown house rule for this game"]
                continue
            errors.update(rule.problems(value, f"house_rules.{key}"))
        if errors:
            raise InvalidInput(errors, message="Invalid house rules.")
        resolved = {key: rule.default for key, rule in sorted(self.rules.items())}
        resolved.update(overrides)
        return resolved


DICE_MODE = HouseRule(
    key="dice_mode",
    default="either",
    choices=("server", "reported", "either"),
    description=(
        "Who rolls: 'server' (every roll on the verifiable server dice), 'reported' (the player "
        "rolls by hand and reports faces) or 'either' (chosen per roll)."
    ),
)

PLAYER_ENTROPY = HouseRule(
    key="player_entropy",
    default="optional",
    choices=("optional", "required"),
    description=(
        "Whether every server roll must carry the player's own entropy (the command's 'entropy' "
        "field, chosen at the moment of rolling), so that not even the host can foresee a roll: "
        "'optional' (a roll may carry it) or 'required' (a server roll without it is refused)."
    ),
)

ROLLBACK_OVER_SERVER_ROLLS = "rollback_over_server_rolls"
ROLLBACK_POLICIES = ("allow", "flag", "forbid")
_ROLLBACK_DESCRIPTION = (
    "What a rollback that undoes server rolls needs (undoing a roll and rolling again is a "
    "reroll): 'allow' nothing more, 'flag' allows it and flags the rollback and the undone rolls "
    "in the audit, 'forbid' needs every player's agreement through a rollback proposal."
)
ROLLBACK_SOLO = HouseRule(
    key=ROLLBACK_OVER_SERVER_ROLLS,
    default="allow",
    choices=ROLLBACK_POLICIES,
    description=_ROLLBACK_DESCRIPTION + " Default 'allow': a solo game affects nobody else.",
)
ROLLBACK_TABLE = HouseRule(
    key=ROLLBACK_OVER_SERVER_ROLLS,
    default="forbid",
    choices=ROLLBACK_POLICIES,
    description=_ROLLBACK_DESCRIPTION + " Default 'forbid': other players are affected.",
)

BOOKS: dict[str, HouseRuleBook] = {game: HouseRuleBook(game) for game in GAMES}
for _book in BOOKS.values():
    _book.add(DICE_MODE)
    _book.add(PLAYER_ENTROPY)
BOOKS[QUEST_CALENDAR].add(ROLLBACK_SOLO)
BOOKS[CALENDAR_BOARD].add(ROLLBACK_TABLE)


def check_change(key: Any, value: Any) -> None:
    """A house-rule change's own form, whatever the campaign (422 naming the field): ``key`` is
    a house rule of either game and ``value`` one that key's rule takes (in either game)."""
    rules = [b.rules[key] for b in BOOKS.values() if isinstance(key, str) and key in b.rules]
    if not rules:
        raise InvalidInput.field("key", f"unknown house rule: not one of {' or '.join(GAMES)}")
    problems = [rule.problems(value, "value") for rule in rules]
    if all(problems):
        raise InvalidInput.of(problems[0])


def book(game: str) -> HouseRuleBook:
    """The house rule book of a game; an unknown game is invalid input."""
    try:
        return BOOKS[game]
    except KeyError:
        raise InvalidInput.field("game", f"must be one of {', '.join(GAMES)}") from None
