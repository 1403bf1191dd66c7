"""The rule index: what each rule ID of the two games says, in one line of our own words.

``STATEMENTS`` holds every rule of Quest Calendar (QC-nn) and of The Calendar Board (CB-nn) and
every gap in them (G-QC-nn, G-CB-nn): a point the rulebook leaves open, which a house rule settles
(``domain.model.house_rules.book(game).rules``, each with its ``gap``) or, where no house rule
does, the code (``SETTLED_IN_CODE``). docs/rules.md is generated from these, the house rules and the
source tree: ``questlog reference rules --write docs/rules.md``.
"""

from __future__ import annotations

from domain.model.rule_index.calendar_board import CALENDAR_BOARD
from domain.model.rule_index.quest_calendar import QUEST_CALENDAR

STATEMENTS: dict[str, str] = dict(
    sorted({**CALENDAR_BOARD, **QUEST_CALENDAR}.items(), key=lambda rule: rule[0].startswith("G-"))
)
"""One line per rule ID: what the rule says (CB, then QC) or what the gap leaves open (G-CB, then
G-QC)."""

SETTLED_IN_CODE: dict[str, str] = {
    "G-CB-15": "No house rule: Wet is recorded on the pieces and changes no modifier.",
    "G-CB-19": (
        "No house rule: the offender's attack in Fog is reported with a disadvantage flag for "
        "the main rules to apply."
    ),
    "G-CB-21": (
        "No house rule: the active event in the match options carries its `special_weather`; "
        "without one it brings Normal weather."
    ),
    "G-QC-01": (
        "No house rule: heroes, items, pages, shops and crew arrive as data with the commands "
        "and are validated; an item effect the engine does not know is invalid input."
    ),
    "G-QC-07": (
        "No house rule: each item's `usable_between_rounds` flag decides; left unset, healing "
        "items may not be used between rounds and other items may."
    ),
}
"""How the code settles each gap that no house rule covers."""
