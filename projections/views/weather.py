"""Weather and wind history: one row per night of a match.

Each ``NightPhaseStarted`` opens a row; the night's events fill it: the god piece's move (from and
to space), the weather in force as the night began (``day_weather``: the weather of the day
that led to it, which the night's calendar roll ends), the weather the landed space set (its
type, source, whether it waits for the next round and the weather in force for the rest of the
night, ``in_force``: Normal under the default night gap, G-CB-14), the hail save flag, and the
wind's d20, speed and direction.
``WeatherActivated`` later records the round the pending weather took effect. A rollback sets
``undone_by`` on the nights it undid (by the version of the night's start).
"""

from __future__ import annotations

from typing import Any

from domain.facade import Timeline, cb_board_events
from projections.events import Recorded
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ROW_COLUMNS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    RolledBack,
    View,
    campaign_rows,
    handles,
    page,
    row_basics,
)

WEATHER = table(
    *ROW_COLUMNS,
    "night INTEGER NOT NULL",
    "round INTEGER",
    "space_from INTEGER",
    "space INTEGER",
    "space_type TEXT",
    "weather TEXT",
    "source TEXT",
    "pending INTEGER",
    "in_force TEXT",
    "activated_round INTEGER",
    "hail_save INTEGER",
    "wind_d20 INTEGER",
    "wind_speed TEXT",
    "wind_direction TEXT",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    "day_weather TEXT",
    key=ROW_KEY,
    doc={
        **ROW_DOC,
        "event_id": "The notification id of the event that started the night.",
        "version": "The version of the event that started the night.",
        "night": "The night's number in the match.",
        "round": "The round the night is in.",
        "space_from": "The space the god piece moved from.",
        "space": "The space the god piece landed on.",
        "space_type": "That space's type (e.g. rain, snow).",
        "weather": "The weather the landed space set.",
        "source": "Where that weather came from (e.g. weatherSpace).",
        "pending": "Whether the weather waits for the next round to take effect.",
        "in_force": "The weather in force for the rest of the night after the calendar roll "
        "(Normal under the default night gap, house rule cb.weather.nightGap): what "
        "/analytics/campaigns counts as weather.in_force_tonight.",
        "day_weather": "The weather in force as the night began: the day's weather, which the "
        "night's calendar roll ends; what /analytics/campaigns counts as weather.in_force.",
        "activated_round": "The round the pending weather took effect in.",
        "hail_save": "Whether a hail save was called for.",
        "wind_d20": "The wind's d20 face.",
        "wind_speed": "The wind's speed (e.g. light, heavy).",
        "wind_direction": "The wind's direction (e.g. south).",
    },
    kinds={**ROW_KINDS, "pending": "bool", "hail_save": "bool"},
)
COLUMNS = WEATHER.names
GodPieceMoved = cb_board_events.GodPieceMoved
NightPhaseStarted = cb_board_events.NightPhaseStarted
WeatherActivated = cb_board_events.WeatherActivated
WeatherEnded = cb_board_events.WeatherEnded
WeatherSet = cb_board_events.WeatherSet
WindRolled = cb_board_events.WindRolled
WindSet = cb_board_events.WindSet


class WeatherHistory(View):
    """Per match and night: space, weather and wind."""

    name = "weather"
    revision = 2
    """2: ``day_weather``, the weather in force as each night began."""
    tables = {"weather": WEATHER}
    undoable = ("weather",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.changed: dict[tuple[str, int], dict[str, Any]] = {}

    def _row(self, event: Recorded) -> dict[str, Any] | None:
        row: dict[str, Any] | None = self.state(event.campaign_id).get("row")
        if row is not None:
            self.changed[(row["campaign_id"], row["event_id"])] = row
        return row

    @handles(NightPhaseStarted)
    def night_started(self, event: Recorded, started: NightPhaseStarted) -> None:
        """Open the night's row."""
        row = dict.fromkeys(COLUMNS)
        row.update(
            campaign_id=event.campaign_id,
            event_id=event.id,
            n=0,
            version=event.version,
            night=started.night_number,
            round=started.round,
            recorded_at=event.timestamp,
        )
        self.state(event.campaign_id)["row"] = row
        self.changed[(event.campaign_id, event.id)] = row

    @handles(GodPieceMoved)
    def moved(self, event: Recorded, move: GodPieceMoved) -> None:
        """The space the god piece landed on."""
        row = self._row(event)
        if row is not None:
            row.update(space_from=move.from_space, space=move.to_space)

    @handles(WeatherEnded)
    def weather_ended(self, event: Recorded, ended: WeatherEnded) -> None:
        """The weather the night's calendar roll ended: the one in force as the night began."""
        row = self._row(event)
        if row is not None and row["day_weather"] is None and ended.reason == "newCalendarRoll":
            row["day_weather"] = ended.weather

    @handles(WeatherSet)
    def weather_set(self, event: Recorded, weather: WeatherSet) -> None:
        """The weather the landed space set. Where the roll ended no weather (the night gap
        keeps the previous one, G-CB-14), the weather in force tonight is the day's."""
        row = self._row(event)
        if row is not None:
            if row["day_weather"] is None:
                row["day_weather"] = weather.in_force_tonight
            row.update(
                space=weather.space_index,
                space_type=weather.space_type,
                weather=weather.weather,
                source=weather.source,
                pending=int(weather.pending),
                in_force=weather.in_force_tonight,
                hail_save=int(weather.hail_save),
            )

    @handles(WeatherActivated)
    def activated(self, event: Recorded, activation: WeatherActivated) -> None:
        """The round in which the weather set this night took effect."""
        row = self._row(event)
        if (
            row is not None
            and row["activated_round"] is None
            and row["weather"] == activation.weather
        ):
            row["activated_round"] = activation.round

    @handles(WindRolled)
    def wind_rolled(self, event: Recorded, roll: WindRolled) -> None:
        """The wind d20."""
        row = self._row(event)
        if row is not None:
            row["wind_d20"] = roll.d20

    @handles(WindSet)
    def wind_set(self, event: Recorded, wind: WindSet) -> None:
        """The wind until the next wind roll."""
        row = self._row(event)
        if row is not None:
            row.update(wind_speed=wind.speed, wind_direction=wind.direction)

    def flush(self) -> None:
        """Write buffered rows and upsert the nights this batch touched (before any statement)."""
        super().flush()
        rows = [WEATHER.row(**row) for row in self.changed.values()]
        self.changed.clear()
        if rows:
            self.write_rows("weather", rows, upsert=True)

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """A night the rollback undid is no longer the one to fill."""
        row = state.get("row")
        if row is not None and timeline.undone_by(int(row["version"])) is not None:
            state["row"] = None


def _item(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    pending, hail = row["pending"], row["hail_save"]
    item.update(
        night=row["night"],
        round=row["round"],
        space_from=row["space_from"],
        space=row["space"],
        space_type=row["space_type"],
        weather=row["weather"],
        source=row["source"],
        pending=None if pending is None else bool(pending),
        day_weather=row["day_weather"],
        in_force=row["in_force"],
        activated_round=row["activated_round"],
        hail_save=None if hail is None else bool(hail),
        wind={
            "d20": row["wind_d20"],
            "speed": row["wind_speed"],
            "direction": row["wind_direction"],
        },
        recorded_at=row["recorded_at"],
    )
    return item


def weather_history(
    store: ViewStore,
    campaign_id: str,
    *,
    weather: str | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """A match's nights in order with their space, weather and wind."""
    template, params = campaign_rows(
        "weather", campaign_id, {"weather": weather}, include_undone=include_undone
    )
    return page(store, WeatherHistory.name, template, params, after=after, limit=limit, item=_item)
