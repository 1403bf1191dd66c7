"""Death and cloning, Rest and level-up (QC-41..QC-56)."""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR

rules = RULES[QUEST_CALENDAR]
