"""Credits: pickpocketing, shops, debt, theft, equipment, rations and the Sunday lottery (QC-38, QC-39, QC-57..QC-68)."""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR

rules = RULES[QUEST_CALENDAR]
