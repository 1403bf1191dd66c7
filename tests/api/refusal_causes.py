"""What the OpenAPI document cannot state as a schema and states in words instead: every cause
for which a request the document allows may still be refused (400/422), each with why no JSON
Schema in OpenAPI 3.0 can say it. One list for the game commands (by command) and one for every
other route (by operation).

Three places read them: tests/api/test_document_bodies.py and
tests/api/test_document_route_bodies.py, which generate requests from the document and fail on a
refusal with no cause here; tests/api/schemathesis_hooks.py, which lets the live schemathesis run
forgive a refusal only when every error in it is one of these; and docs/api-clients.md, whose
table "What the document says in words" is kept equal to them (tests/api/test_docs.py).
What the store does not hold now (a version past the head, a name taken, a player the campaign
does not have) is never here: it is a 409 not-held.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from domain.facade import GAMES, book

Json = dict[str, Any]
COMMANDS = "POST /campaigns/{campaign}/commands"
"""The operation whose refusals are judged by the game commands' causes."""
REFUSALS = (400, 422)
"""The statuses of a refusal of the request itself (400 for a query the SQL engine refuses)."""
VALIDATED = "|".join(
    re.escape(key) for game in GAMES for key, rule in book(game).rules.items() if rule.validator
)
"""The house rules with a validator of their own, which a schema gives only the shape of."""


@dataclass(frozen=True)
class Cause:
    """A refusal the document cannot state: where (a regular expression over ``METHOD path``, or
    over the command types for a game command), the error's field and message (regular
    expressions; a field's indices written ``[]``), and why no schema says it."""

    where: str
    field: str
    message: str
    why: str

    def matches(self, where: str, field: str, message: str) -> bool:
        """Whether a refusal's error is this cause."""
        return bool(
            re.fullmatch(self.where, where)
            and re.fullmatch(self.field, field)
            and re.search(self.message, message)
        )


@dataclass(frozen=True)
class CommandCause(Cause):
    """A game command's 422 the document cannot state (``where`` names the commands), with the
    words of the description that say it (``component``/``prop`` name where)."""

    component: str
    prop: str
    words: str


COMMAND_CAUSES: tuple[CommandCause, ...] = (
    CommandCause(
        "start_page",
        "date",
        r"^must be a date",
        "the pattern says YYYY-MM-DD or MM-DD with months 01-12 and days 01-31; which days a "
        "month has is the calendar's (02-29 as MM-DD in the campaign's year is its 409 not-held)",
        "StartPageCommand",
        "date",
        "a real day of the calendar",
    ),
    CommandCause(
        "select_hero|choose_clone_outcome|enter_shop|gain_item|hire_crew|level_up|install_upgrade",
        r".*(damage_dice|effect\.dice)",
        r"^dice: .*(at most \d+ dice|cannot keep)",
        "the pattern gives the notation's words; a keep against its term's dice is arithmetic",
        "Effect",
        "dice",
        "a keep (kh/kl) no larger than its term's dice",
    ),
    CommandCause(
        "make_choice",
        "options|selected",
        r"listed twice|selected twice|not an option|both an option and a group|mixes numbered",
        "labels compare without case (uniqueItems is exact), and that they form one tree of "
        "options and that the selected ones are among them relates items to each other",
        "MakeChoiceCommand",
        "options",
        "each once: together one tree of options",
    ),
    CommandCause(
        "enter_shop",
        r"stock\[\]\.item\.id",
        r"appears twice in the stock",
        "uniqueItems compares whole items, not one key of them",
        "EnterShopCommand",
        "stock",
        "each item id once",
    ),
    CommandCause(
        "select_hero|choose_clone_outcome",
        r"hero\.(hp|equipped\[\])",
        r"must be at most|not in the inventory|not equipment|one item per type",
        "relations between fields of the hero: hp within hp_max, the equipment worn taken "
        "from the inventory, one item per slot",
        "Hero",
        "equipped",
        "by the id of an item from the inventory: one item per type",
    ),
    CommandCause(
        "select_hero|choose_clone_outcome",
        r"hero\.inventory\[\]\.id",
        r"another item of the inventory",
        "two items with one id must be the same item: a relation between items",
        "Hero",
        "inventory",
        "an id names one item",
    ),
    CommandCause(
        "level_up",
        "new_uses",
        r"control characters",
        "OpenAPI 3.0 has no propertyNames: the text rule of an object's keys (ability ids)",
        "LevelUpCommand",
        "new_uses",
        "text with no control characters",
    ),
)
"""Every 422 cause the document cannot state, its state aside; any other 422 is a finding.
What depends on the campaign (an item id the hero's inventory takes, a slot type of the house
rules, 02-29 in the campaign's year) is a 409 not-held, never here. The faces stay here for
now: which dice a command draws is the state's, but the table page reads the 422 "not enough
faces" to ask for more (webapi/static/dice.js)."""


ROUTE_CAUSES: tuple[Cause, ...] = (
    Cause(
        r"GET /log/tile/.*",
        "_",
        r"^(level|index|width): ",
        "a tile path's parts relate to each other (tlog-tiles): every index group but the last "
        "starts with x, the first is not x000, and a width follows only a last group ending in .p",
    ),
    Cause(r".*/replay", "from", r"must not be after to", "relates two parameters"),
    Cause(
        r"POST /campaigns/\{campaign\}/invites",
        "seat",
        r"only a player has a seat",
        "a seat is for the role player only: relates two fields (whether the game has seats is "
        "the campaign's, a 409 not-held)",
    ),
    Cause(
        r"POST /campaigns/\{campaign\}/house-rules",
        "value.*",
        r".",
        "a rule with a validator of its own (wind table and effects, rizz chart, night steps, "
        "board layout): the key's branch gives the value's shape, the rule's description the rest "
        "(a key of the other game is the campaign's answer, a 409 not-held)",
    ),
    Cause(
        ".*analytics.*",
        "house_rule",
        r".",
        "a rule with a validator of its own (wind table and effects, rizz chart, night steps, "
        "board layout): the pattern gives the value's shape, the rule's description the rest",
    ),
    Cause(
        "POST /campaigns",
        rf"house_rules\.({VALIDATED})",
        r".",
        "a rule with a validator of its own: the component gives the value's shape, the rule's "
        "description the rest",
    ),
    Cause(
        "POST /campaigns",
        r"players(\[\]\.(weapons|pieces))?|starting_token|creatures",
        r"must be unique|must be one of",
        "ids unique across a list's items (players, pieces, a party's weapons, creatures), and "
        "the starting player one of the players: "
        "relations between items (uniqueItems compares whole items)",
    ),
    Cause(
        "POST /campaigns",
        r"players\[\]\.(exhaustion|weapons\[\]\.ammo|fate_rerolls)|annustar",
        r"must be at most|must not exceed",
        "a number bounded by another field or by a house rule of the same body (ammo by "
        "ammo_max, exhaustion by cb.exhaustion.max): the field's description says which",
    ),
    Cause(".*", "to_date|to_night|until", r"must not be before", "relates two parameters"),
    Cause(r"GET /campaigns/\{campaign\}", "at|version", r"not both", "exclusive parameters"),
    Cause(r".*/audit", "head|after|after_hash", r".", "exclusive parameters"),
    Cause(r".*/evening", ".*", r"give|range|not dates and nights", "range combinations"),
    Cause(
        r"POST /campaigns/\{campaign\}/rolls",
        "dice",
        r"at most \d+ dice|cannot keep|the modifiers add up",
        "the sum of the dice and a keep against its term's dice are arithmetic",
    ),
    Cause(
        r"POST /campaigns/\{campaign\}/rolls",
        "faces",
        r"is not a face of|face\(s\) left over|not enough faces|is not a whole number",
        "how many faces and which die each must fit are the dice notation's, in the same body",
    ),
    Cause("GET /analytics/sql", "_|q", r".", "a SQL statement: its grammar is the engine's"),
    Cause("POST /campaigns/import", ".*", r".", "a signed bundle: its hash chain and signature"),
    Cause(
        "POST .*",
        "Idempotency-Key",
        r"already used with a different request body",
        "a key names one request: reused with another body it is refused (the IETF draft's "
        "422); which keys were used is the store's, and the header's description says so",
    ),
    Cause(
        r"POST /library/.*",
        r"(hero|item)\..*",
        r"cannot keep|must be at most|not in the inventory|not equipment|one item per|another item",
        "relations between fields of the hero or item (the commands' own listed causes)",
    ),
)
"""Every refusal cause the document cannot state; any other is a finding. What the store does not
hold now (a version past the head, a name taken) is a 409 not-held, never a 422."""


def errors(answer: Json | None) -> list[tuple[str, str]]:
    """A refusal's (field, message) pairs, indices (``[0]`` or ``.0``) written ``[]``."""
    answer = answer or {}
    found = answer.get("errors") or {"_": [answer.get("detail", "")]}
    pairs: list[tuple[str, str]] = []
    for field, messages in found.items():
        for message in messages if isinstance(messages, list) else [messages]:
            pairs.append((re.sub(r"\.\d+(?=\.|$)|\[\d+\]", "[]", field), str(message)))
    return pairs


def command_cause(command: str, path: str, message: str) -> CommandCause | None:
    """The listed cause of one error of a command's refusal, or None."""
    return next((c for c in COMMAND_CAUSES if c.matches(command, path, message)), None)


def route_cause(operation: str, field: str, message: str) -> Cause | None:
    """The listed cause of one error of a route's refusal, or None."""
    return next((c for c in ROUTE_CAUSES if c.matches(operation, field, message)), None)


def explained(operation: str, body: Any, status: int, answer: Any) -> bool:
    """Whether a refusal is, error by error, one the document announces in words (for the
    commands route, by the command its body names)."""
    if status not in REFUSALS or not isinstance(answer, dict):
        return False
    command = str(body.get("type")) if operation == COMMANDS and isinstance(body, dict) else None
    pairs = errors(answer)
    return bool(pairs) and all(
        route_cause(operation, field, message) is not None
        or (command is not None and command_cause(command, field, message) is not None)
        for field, message in pairs
    )


TABLE_START = "<!-- refusal causes: tests/api/refusal_causes.py -->"
TABLE_END = "<!-- end of refusal causes -->"
"""Where docs/api-clients.md holds the table (tests/api/test_docs.py keeps it equal)."""


def plain(pattern: str) -> str:
    """A regular expression as a reader reads it: ``\\{campaign\\}`` as ``{campaign}``."""
    return re.sub(r"\\(.)", r"\1", pattern).replace(".*", "…").replace("|", " or ")


def docs_table() -> str:
    """The causes as the markdown table docs/api-clients.md shows, between its markers."""
    rows = ["| where | field | why no schema says it |", "|---|---|---|"]
    rows += [f"| `{plain(c.where)}` | `{plain(c.field)}` | {c.why} |" for c in ROUTE_CAUSES]
    rows += [
        f"| command `{plain(c.where)}` | `{plain(c.field)}` | {c.why} |" for c in COMMAND_CAUSES
    ]
    return "\n".join([TABLE_START, *rows, TABLE_END])


if __name__ == "__main__":
    print(docs_table())
