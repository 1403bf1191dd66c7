"""The one filter of the analytics: by campaign, game, house rule, the game's dates, recording
time, and whether rows a rollback undid count.

Every analytics read (``GET /analytics/campaigns``, ``GET /analytics/dice``) takes a ``Filter``
and asks it for the SQL condition of each table it reads, with the columns that table has:

- ``game``: a table of one game's rows answers nothing for the other game; a table of both
  games' rows (the roll log) compares its ``game`` column.
- The game's dates: ``from_date`` and ``to_date`` (inclusive, ISO dates) bound the Quest
  Calendar page date of Quest Calendar rows; ``from_night`` and ``to_night`` (inclusive) bound
  the night number of Calendar Board rows. A bound of one game never hides the other game's rows:
  ask for ``game`` too to see one game only. A row with no page date (or night) falls outside a
  range that bounds it.
- ``house_rules``: only campaigns whose house rule has this value in force now (the
  ``house_rules`` view), every pair at once.
- ``since`` and ``until``: when the event was recorded (``until`` excluded), not the game's date.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

QUEST_CALENDAR = "quest-calendar"
CALENDAR_BOARD = "calendar-board"


def house_rule_value(value: Any) -> str:
    """A house rule's value as the ``house_rules`` view stores it: compact JSON, keys sorted."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Filter:
    """Which rows the analytics count."""

    campaign_id: str | None = None
    game: str | None = None
    house_rules: tuple[tuple[str, Any], ...] = ()
    from_date: str | None = None
    to_date: str | None = None
    from_night: int | None = None
    to_night: int | None = None
    since: str | None = None
    until: str | None = None
    include_undone: bool = False

    def where(
        self,
        *,
        game: str | None = None,
        game_column: str | None = None,
        date_column: str | None = None,
        night_column: str | None = None,
    ) -> tuple[str, list[Any]]:
        """The SQL condition (``?`` parameters) of a table and its parameters.

        ``game`` is the one game whose rows the table holds, or ``game_column`` the column that
        names each row's game; ``date_column`` and ``night_column`` hold the game's dates.
        """
        conditions: list[str] = []
        params: list[Any] = []
        if not self.include_undone:
            conditions.append("undone_by IS NULL")
        if self.campaign_id is not None:
            conditions.append("campaign_id = ?")
            params.append(self.campaign_id)
        if self.game is not None:
            if game_column is not None:
                conditions.append(f"{game_column} = ?")
                params.append(self.game)
            elif game is not None and game != self.game:
                conditions.append("1 = 0")
        for bounded, column, low, high in (
            (QUEST_CALENDAR, date_column, self.from_date, self.to_date),
            (CALENDAR_BOARD, night_column, self.from_night, self.to_night),
        ):
            if low is None and high is None:
                continue
            ranged, values = _range(column, low, high)
            if game_column is not None:
                conditions.append(f"({game_column} <> ? OR {ranged})")
                params.extend([bounded, *values])
            elif game == bounded:
                conditions.append(ranged)
                params.extend(values)
        for rule, value in self.house_rules:
            conditions.append(
                "campaign_id IN "
                "(SELECT campaign_id FROM {house_rules} WHERE rule = ? AND value = ?)"
            )
            params.extend([rule, house_rule_value(value)])
        if self.since is not None:
            conditions.append("recorded_at >= ?")
            params.append(self.since)
        if self.until is not None:
            conditions.append("recorded_at < ?")
            params.append(self.until)
        return " AND ".join(conditions) or "1 = 1", params


def _range(column: str | None, low: Any, high: Any) -> tuple[str, Sequence[Any]]:
    """``column`` within [low, high] (either may be None); no column: nothing falls inside."""
    if column is None:
        return "1 = 0", ()
    parts, values = [], []
    if low is not None:
        parts.append(f"{column} >= ?")
        values.append(low)
    if high is not None:
        parts.append(f"{column} <= ?")
        values.append(high)
    return "(" + " AND ".join(parts) + ")", values
