"""Abilities, items, conditions and choices.

Rules QC-11, QC-13..QC-19, QC-23, QC-24, QC-31, QC-32 (cures) and QC-50 (Wound Sealant).
"""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR

rules = RULES[QUEST_CALENDAR]
