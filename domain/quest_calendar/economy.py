"""Credits and goods: pickpocketing, shops, debt, theft, equipment, rations, the Sunday lottery.

Rules QC-38, QC-39 and QC-57..QC-68.
"""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR

rules = RULES[QUEST_CALENDAR]
