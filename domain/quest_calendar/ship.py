"""The ship: dogfights, compartment damage, repairs, crew and upgrades (QC-69..QC-83)."""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR

rules = RULES[QUEST_CALENDAR]
