"""Campaign statistics: the facts the cross-campaign figures need and no other view keeps.

- ``stat_pages``: a row per ended Quest Calendar page: its number in the campaign (the calendar's
  ``pages_played``), date, the hero's level, credits (below 0: in debt), HP and virtue.
- ``stat_lives``: a row per death and per clone, with the hero's level at the death and the clone
  result (the d4 outcome).
- ``stat_combats``: a row per finished combat: difficulty mode, kind, rounds, rounds played and
  won, how it ended.
- ``stat_nights``: a row per party at the end of each Calendar Board night, with its exhaustion.

A page's figures are the ones its ``qc.PageEnded`` records (payload version 2). For a PageEnded of
an older store, which records none, and for the rest, the view keeps the figures every game event
records when it changes them (the hero's, the pages played, the combat's mode and kind, each party's
exhaustion; ``projections.figures``), as the hero timeline does; a rollback marks the rows of the
versions it undid (``undone_by``) and starts again from the restored state. ``campaign_figures``
turns these rows, and the weather view's nights, into the figures of ``GET /analytics/campaigns``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.facade import (
    START,
    Timeline,
    cb_board_events,
    qc_fight_events,
    qc_hero_events,
    qc_page_events,
)
from projections.events import Recorded
from projections.figures import apply_figures, cb_places, qc_places, remember
from projections.filters import CALENDAR_BOARD, QUEST_CALENDAR, Filter
from projections.schema import table
from projections.store import ViewStore, position_in
from projections.view import (
    ANY,
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    CampaignCreated,
    RolledBack,
    View,
    common,
    handles,
    recorders_of,
)
from projections.views.weather import WeatherHistory

PAGES = table(
    *ROW_COLUMNS,
    "hero_id TEXT",
    "page_number INTEGER",
    "page_date TEXT",
    "level INTEGER",
    "credits BIGINT",
    "hp INTEGER",
    "hp_max INTEGER",
    "virtue INTEGER",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    defaults=ROW_DEFAULTS,
    doc={
        **ROW_DOC,
        "event_id": "The notification id of the qc.PageEnded event.",
        "hero_id": "The hero at the page's end.",
        "page_number": "The page's number in the campaign (the pages played).",
        "page_date": "The page's date.",
        "level": "The hero's level at the page's end.",
        "credits": "The hero's credits at the page's end (below 0: in debt).",
        "hp": "The hero's HP at the page's end.",
        "hp_max": "The hero's maximum HP at the page's end.",
        "virtue": "The hero's virtue at the page's end.",
    },
    kinds={**ROW_KINDS, "page_date": "date"},
)
LIVES = table(
    *ROW_COLUMNS,
    "hero_id TEXT",
    "kind TEXT NOT NULL",
    "level INTEGER",
    "cause TEXT",
    "outcome INTEGER",
    "page_date TEXT",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    defaults=ROW_DEFAULTS,
    doc={
        **ROW_DOC,
        "hero_id": "The hero who died (or was cloned).",
        "kind": "died or cloned.",
        "level": "The hero's level at the death.",
        "cause": "The cause of death.",
        "outcome": "cloned: the clone roll's result (the d4); empty for a death.",
        "page_date": "The date of the page the hero died on.",
    },
    kinds={**ROW_KINDS, "page_date": "date"},
)
COMBATS = table(
    *ROW_COLUMNS,
    "page_date TEXT",
    "mode TEXT",
    "kind TEXT",
    "level INTEGER",
    "rounds INTEGER",
    "rounds_played INTEGER",
    "rounds_won INTEGER",
    "ended_by TEXT",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    defaults=ROW_DEFAULTS,
    doc={
        **ROW_DOC,
        "event_id": "The notification id of the qc.CombatEnded event.",
        "page_date": "The date of the calendar page the combat was on.",
        "mode": "The combat's difficulty mode.",
        "kind": "The combat's kind: several_enemies (one enemy per round) or one_enemy (one "
        "enemy over several rounds), QC-22.",
        "level": "The hero's level then.",
        "rounds": "The combat's rounds: played and unplayed.",
        "rounds_played": "The rounds played.",
        "rounds_won": "The rounds the hero won.",
        "ended_by": "How the combat ended, as the event records it.",
    },
    kinds={**ROW_KINDS, "page_date": "date"},
)
NIGHTS = table(
    *ROW_COLUMNS,
    "night INTEGER NOT NULL",
    "party TEXT NOT NULL",
    "exhaustion INTEGER",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    defaults=ROW_DEFAULTS,
    doc={
        **ROW_DOC,
        "event_id": "The notification id of the cb.NightPhaseEnded event.",
        "n": "The party's index among the match's parties.",
        "night": "The night's number in the match.",
        "party": "The party (the player's seat, e.g. A).",
        "exhaustion": "The party's exhaustion at the night's end.",
    },
    kinds=ROW_KINDS,
)
QC_FIGURES = qc_places(
    "hero.id",
    "hero.level",
    "hero.credits",
    "hero.hp",
    "hero.hp_max",
    "hero.virtue",
    "calendar.pages_played",
    "combat.mode",
    "combat.kind",
)
HERO, LEVEL, MODE, KIND = (
    QC_FIGURES[n] for n in ("hero.id", "hero.level", "combat.mode", "combat.kind")
)
"""Where the view's memory keeps those figures."""

PAGE_FIGURES = {
    "hero_id": "hero.id",
    "pages_played": "calendar.pages_played",
    "level": "hero.level",
    "credits": "hero.credits",
    "hp": "hero.hp",
    "hp_max": "hero.hp_max",
    "virtue": "hero.virtue",
}
"""The figures a PageEnded records, and the tracked figures they are for an older PageEnded."""


PageEnded = qc_page_events.PageEnded
Died = qc_hero_events.Died
Cloned = qc_hero_events.Cloned
CombatEnded = qc_fight_events.CombatEnded
NightPhaseEnded = cb_board_events.NightPhaseEnded


def _figures(state: dict[str, Any]) -> dict[str, str]:
    """The figures a campaign's memory keeps: each party's exhaustion, or the hero's."""
    parties = state.get("parties")
    return QC_FIGURES if parties is None else cb_places(parties)


class CampaignStats(View):
    """Per page, life, combat and night: what the cross-campaign figures are computed from."""

    name = "stats"
    tables = {
        "stat_pages": PAGES,
        "stat_lives": LIVES,
        "stat_combats": COMBATS,
        "stat_nights": NIGHTS,
    }
    undoable = ("stat_pages", "stat_lives", "stat_combats", "stat_nights")

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Follow the campaign's first state: the hero's, or each party's exhaustion."""
        state, game_state = self.state(event.campaign_id), created.state
        parties = game_state.get("parties")
        if isinstance(parties, dict):
            state["parties"] = list(game_state.get("players") or sorted(parties))
        figures = _figures(state)
        # Remembered as earlier releases did, so their view stores carry on unchanged.
        state["watched"] = list(figures.values())
        state["mirror"] = remember(game_state, figures)

    @handles(ANY)
    def followed(self, event: Recorded) -> None:
        """Take in the figures, then record the pages, lives, combats and nights that ended."""
        if event.game is None:
            return
        state = self.state(event.campaign_id)
        mirror = state.setdefault("mirror", {})
        before = dict(mirror)
        apply_figures(event, mirror, _figures(state))
        found = RECORDERS.get(event.topic)
        if found is not None:  # (its payload class, its recorder)
            found[1](self, event, event.payload(found[0]), state, before)

    def _page_ended(
        self, event: Recorded, ended: PageEnded, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        figures: Mapping[str, Any] | None = ended.figures
        if not isinstance(figures, Mapping):
            # A PageEnded of an older store records none: the tracked figures have them.
            mirror = state["mirror"]
            figures = {name: mirror.get(QC_FIGURES[f]) for name, f in PAGE_FIGURES.items()}
        self.insert(
            "stat_pages",
            **common(event),
            hero_id=figures.get("hero_id"),
            page_number=figures.get("pages_played"),
            page_date=ended.page_date,
            level=figures.get("level"),
            credits=figures.get("credits"),
            hp=figures.get("hp"),
            hp_max=figures.get("hp_max"),
            virtue=figures.get("virtue"),
        )

    def _life(
        self, event: Recorded, life: Died | Cloned, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        if isinstance(life, Died):
            state["death_level"] = before.get(LEVEL)
            state["death_page"] = life.page_date
        self.insert(
            "stat_lives",
            **common(event),
            hero_id=before.get(HERO),
            kind="died" if isinstance(life, Died) else "cloned",
            level=state.get("death_level", before.get(LEVEL)),
            cause=life.cause,
            outcome=None if isinstance(life, Died) else life.outcome,
            page_date=state.get("death_page"),
        )

    def _combat_ended(
        self, event: Recorded, ended: CombatEnded, state: dict[str, Any], before: dict[str, Any]
    ) -> None:
        mirror = state["mirror"]
        self.insert(
            "stat_combats",
            **common(event),
            page_date=ended.page_date,
            mode=mirror.get(MODE) or before.get(MODE),
            kind=mirror.get(KIND) or before.get(KIND),
            level=mirror.get(LEVEL),
            rounds=ended.rounds_played + ended.rounds_unplayed,
            rounds_played=ended.rounds_played,
            rounds_won=ended.rounds_won,
            ended_by=ended.ended_by,
        )

    def _night_ended(
        self, event: Recorded, ended: NightPhaseEnded, state: dict[str, Any], _: dict[str, Any]
    ) -> None:
        mirror = state["mirror"]
        parties = state.get("parties") or []
        places = cb_places(parties)
        for n, party in enumerate(parties):
            self.insert(
                "stat_nights",
                **common(event, n),
                night=ended.night_number,
                party=party,
                exhaustion=mirror.get(places[f"party.{party}.exhaustion"]),
            )

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Follow the restored state from here."""
        state["mirror"] = remember(rollback.restored_state, _figures(state))


RECORDERS = recorders_of(
    {
        PageEnded: CampaignStats._page_ended,
        Died: CampaignStats._life,
        Cloned: CampaignStats._life,
        CombatEnded: CampaignStats._combat_ended,
        NightPhaseEnded: CampaignStats._night_ended,
    }
)
"""What the view records of the events of these types, as it follows every game event."""


# -- the figures ----------------------------------------------------------------------------------


def _ratio(part: Any, whole: Any, digits: int = 4) -> float | None:
    return round(float(part) / float(whole), digits) if whole else None


def campaign_figures(store: ViewStore, rows: Filter | None = None) -> dict[str, Any]:
    """Cross-campaign figures from one snapshot of the stats and weather views.

    Credits and debt by page number, deaths per level and clone results, combats won and rounds
    won per difficulty mode, the distribution of exhaustion at the end of each night, how often
    each weather came up. ``rows`` picks what counts (``projections.filters``); rows a rollback
    undid are left out unless it includes them. docs/projections.md defines every figure.
    """
    chosen = rows or Filter()
    with store.read() as cursor:
        found = {}
        for name, (template, game, dated) in FIGURE_QUERIES.items():
            where, params = chosen.where(
                game=game,
                date_column="page_date" if dated == "date" else None,
                night_column="night" if dated == "night" else None,
            )
            found[name] = store.rows(cursor, template.replace("{where}", where), params)
        marks = store.rows(
            cursor,
            "SELECT view, position, transaction_id FROM {positions} WHERE view IN (?, ?)",
            [CampaignStats.name, WeatherHistory.name],
        )
    positions = {str(r["view"]): int(r["position"]) for r in marks}
    # The view least far along the log's order (not always the smaller notification id).
    behind = min((position_in(r) for r in marks), default=START)
    return {
        "credits_by_page": _credits_by_page(found["pages"]),
        **_lives(found["lives"]),
        "combat_by_mode": _combat_by_mode(found["combats"]),
        "exhaustion_by_night": _nights(found["nights"]),
        "weather": _weather(found["weather"]),
        "positions": positions,
        "position": behind.notification,
    }


WON = "ended_by = 'all_rounds_played' AND rounds_won = rounds"
"""A combat won: the hero lived through all its rounds and won every one (QC-21, QC-22: against
several enemies every enemy was killed; against one, it was stunned every round)."""

FIGURE_QUERIES: dict[str, tuple[str, str, str]] = {
    "pages": (
        "SELECT page_number, COUNT(*) AS pages, SUM(credits) AS credits, "
        "SUM(CASE WHEN credits < 0 THEN -credits ELSE 0 END) AS debt, "
        "SUM(CASE WHEN credits < 0 THEN 1 ELSE 0 END) AS in_debt "
        "FROM {stat_pages} WHERE {where} AND page_number IS NOT NULL "
        "AND credits IS NOT NULL GROUP BY page_number ORDER BY page_number",
        QUEST_CALENDAR,
        "date",
    ),
    "lives": (
        "SELECT kind, level, outcome, COUNT(*) AS n FROM {stat_lives} WHERE {where} "
        "GROUP BY kind, level, outcome",
        QUEST_CALENDAR,
        "date",
    ),
    "combats": (
        "SELECT mode, COUNT(*) AS combats, SUM(rounds) AS rounds, "
        "SUM(rounds_played) AS played, SUM(rounds_won) AS won, "
        f"SUM(CASE WHEN {WON} THEN 1 ELSE 0 END) AS combats_won "
        "FROM {stat_combats} WHERE {where} GROUP BY mode ORDER BY mode",
        QUEST_CALENDAR,
        "date",
    ),
    "nights": (
        "SELECT night, exhaustion, COUNT(*) AS n FROM {stat_nights} WHERE {where} "
        "GROUP BY night, exhaustion ORDER BY night, exhaustion",
        CALENDAR_BOARD,
        "night",
    ),
    "weather": (
        "SELECT weather, day_weather, in_force, COUNT(*) AS n FROM {weather} WHERE {where} "
        "GROUP BY weather, day_weather, in_force",
        CALENDAR_BOARD,
        "night",
    ),
}
"""The queries behind ``campaign_figures``, by name: each with the game whose rows its table
holds and which of the game's dates bounds them; ``{where}`` is the filter's condition."""


def _credits_by_page(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Average credits and debt, and the share of campaigns in debt, by page number."""
    return [
        {
            "page": int(r["page_number"]),
            "campaigns": int(r["pages"]),
            "average_credits": _ratio(r["credits"], r["pages"], 2),
            "average_debt": _ratio(r["debt"], r["pages"], 2),
            "in_debt": _ratio(r["in_debt"], r["pages"]),
        }
        for r in rows
    ]


def _combat_by_mode(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per difficulty mode: combats and the share won (``WON``), rounds and rounds won."""
    return [
        {
            "mode": r["mode"],
            "combats": int(r["combats"]),
            "combats_won": int(r["combats_won"] or 0),
            "share_won": _ratio(r["combats_won"] or 0, r["combats"]),
            "rounds": int(r["rounds"] or 0),
            "rounds_played": int(r["played"] or 0),
            "rounds_won": int(r["won"] or 0),
            "rounds_won_per_combat": _ratio(r["won"] or 0, r["combats"], 3),
            "won_per_combat": _ratio(r["won"] or 0, r["combats"], 3),
            "won_per_round_played": _ratio(r["won"] or 0, r["played"]),
        }
        for r in rows
    ]


def _lives(rows: list[dict[str, Any]]) -> dict[str, Any]:
    deaths: dict[Any, dict[str, Any]] = {}
    results: dict[str, int] = {}
    for r in rows:
        level = r["level"]
        entry = deaths.setdefault(level, {"level": level, "deaths": 0, "clone_results": {}})
        if r["kind"] == "died":
            entry["deaths"] += int(r["n"])
        else:
            outcome = str(r["outcome"])
            entry["clone_results"][outcome] = entry["clone_results"].get(outcome, 0) + int(r["n"])
            results[outcome] = results.get(outcome, 0) + int(r["n"])
    ordered = sorted(deaths.values(), key=lambda e: (e["level"] is None, e["level"] or 0))
    for entry in ordered:
        entry["clone_results"] = dict(sorted(entry["clone_results"].items()))
    return {"deaths_by_level": ordered, "clone_results": dict(sorted(results.items()))}


def _nights(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_night: dict[int, dict[str, Any]] = {}
    for r in rows:
        night = int(r["night"])
        entry = by_night.setdefault(night, {"night": night, "parties": 0, "distribution": {}})
        count = int(r["n"])
        entry["parties"] += count
        entry["distribution"][str(r["exhaustion"])] = count
        entry.setdefault("_sum", 0)
        entry["_sum"] += (r["exhaustion"] or 0) * count
    result = []
    for entry in by_night.values():
        total = entry.pop("_sum")
        entry["average"] = _ratio(total, entry["parties"], 3)
        result.append(entry)
    return result


def _weather(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per weather: how many nights' calendar rolls set it, how many nights began under it (the
    weather in force through the day before), and under which the rest of the night was played."""
    landed: dict[str, int] = {}
    in_force: dict[str, int] = {}
    tonight: dict[str, int] = {}
    for r in rows:
        count = int(r["n"])
        for counts, value in (
            (landed, r["weather"]),
            (in_force, r["day_weather"]),
            (tonight, r["in_force"]),
        ):
            key = str(value or "none")
            counts[key] = counts.get(key, 0) + count
    nights = sum(landed.values())
    return {
        "nights": nights,
        "set": dict(sorted(landed.items())),
        "share_set": {k: _ratio(v, nights) for k, v in sorted(landed.items())},
        "in_force": dict(sorted(in_force.items())),
        "share_in_force": {k: _ratio(v, nights) for k, v in sorted(in_force.items())},
        "in_force_tonight": dict(sorted(tonight.items())),
    }
