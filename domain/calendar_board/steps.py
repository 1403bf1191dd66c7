"""Night steps 2, 3, 4 and 7, fate rerolls, weather modifiers and movement rolls.

Rules CB-04..CB-07 (creatures, relationship decay, basketball, Annustaria upkeep), CB-10,
CB-20..CB-27 (weather modifiers) and CB-23 (movement rolls).
"""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import CALENDAR_BOARD

rules = RULES[CALENDAR_BOARD]
