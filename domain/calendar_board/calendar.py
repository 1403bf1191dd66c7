"""Night steps 5 and 6: calendar roll, supply, laps, weather, hail, event weather, wind.

Rules CB-08..CB-19, CB-21 and CB-28..CB-32.
"""

from __future__ import annotations

from domain.games import RULES
from domain.house_rules import CALENDAR_BOARD

rules = RULES[CALENDAR_BOARD]
