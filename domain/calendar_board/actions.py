"""Night step 8 and day sleep: ambush, rizz, sleep, exhaustion and elimination (CB-33..CB-41)."""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import CALENDAR_BOARD

rules = RULES[CALENDAR_BOARD]
