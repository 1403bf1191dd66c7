"""Combat pages in standard, easy and hard mode (QC-20..QC-30, QC-33..QC-37, QC-40)."""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR

rules = RULES[QUEST_CALENDAR]
