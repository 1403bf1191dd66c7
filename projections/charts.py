"""The table page's charts, drawn from the views on the server, each series at most a few hundred
points whatever the campaign's length.

The page used to download the rows of the views it charts (the hero's HP and virtue, the debt
ledger, the parties' exhaustion), a thousand at a time, up to three thousand: its load grew with
the campaign's life, and past three thousand rows a chart showed only the oldest of them. Here
the server reads the rows it needs and answers the points to draw: the x of each change and its
value. The x is drawn as the page drew it: for a Quest Calendar chart, the number of distinct
page dates among that chart's own changes up to this one (a page with no change of the chart is
not counted, so x counts the pages on which the chart changed, not the page's number, and one
page can sit at a different x on the two charts), or, while the chart's changes are all on one
page, the change's number (axis "change"); for a party's exhaustion, its night, or its last night
for a change outside one. A series longer than
the limit is cut into runs of consecutive points, and each run keeps its first, lowest, highest
and last points (``decimate``): the line keeps each run's extremes and where it starts and ends,
so a step drawn from them still falls and rises where the values did, with at most ``limit``
points.

Rows a rollback undid are left out, as the page left them out; a ledger's reversal rows stay (they
are movements of the balance), and a row without a value is not drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.facade import START
from projections.store import ViewStore, position_in
from projections.views.debt_ledger import DebtLedger, debt_ledger
from projections.views.exhaustion import ExhaustionHistory, exhaustion_history
from projections.views.hero_timeline import HeroTimeline, hero_timeline

DEFAULT_POINTS = 400
"""Points per series unless the request asks for another number."""
MIN_POINTS, MAX_POINTS = 4, 1000
"""The fewest and most points per series a request may ask for."""
READ_PAGE = 1000
Point = tuple[int, int]


def view_rows(read: Callable[[str | None], dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row a view's reader gives (asked without the undone ones), page after page."""
    rows: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        found = read(after)
        rows += found["items"]
        after = found["next"]
        if not after:
            return rows


def decimate(points: list[Point], limit: int) -> list[Point]:
    """At most ``limit`` points of a series (``limit`` at least ``MIN_POINTS``), in order: the
    series cut into ``limit // 4`` runs of consecutive points as even as can be, each keeping
    its first, lowest, highest and last points (each once)."""
    if limit < MIN_POINTS:
        raise ValueError(f"limit must be at least {MIN_POINTS}")
    if len(points) <= limit:
        return points
    runs = limit // 4
    kept: list[Point] = []
    for k in range(runs):
        run = list(enumerate(points[k * len(points) // runs : (k + 1) * len(points) // runs]))
        low = min(run, key=lambda pair: pair[1][1])
        high = max(run, key=lambda pair: pair[1][1])
        kept += [point for _, point in sorted({run[0], low, high, run[-1]})]
    return kept


def along(rows: list[dict[str, Any]]) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    """Each row with its x, and the axis' name: the distinct page dates among the rows up to it
    ("page") when the rows span more than one, else the row's number ("change")."""
    dates = {row["page_date"] for row in rows if row.get("page_date")}
    if len(dates) <= 1:
        return [(k + 1, row) for k, row in enumerate(rows)], "change"
    seen: set[str] = set()
    placed = []
    for row in rows:
        if row.get("page_date"):
            seen.add(row["page_date"])
        placed.append((len(seen), row))
    return placed, "page"


def series(name: str, cls: str, points: Iterable[Point], limit: int) -> dict[str, Any]:
    every = list(points)
    return {
        "name": name,
        "cls": cls,
        "points": [list(point) for point in decimate(every, limit)],
        "of": len(every),
    }


def quest_calendar(store: ViewStore, campaign: str, limit: int) -> list[Any]:
    """The hero's HP and virtue, and the credits and debt, over the pages."""
    stats = view_rows(
        lambda after: hero_timeline(
            store, campaign, include_undone=False, after=after, limit=READ_PAGE
        )
    )
    ledger = view_rows(
        lambda after: debt_ledger(
            store, campaign, include_undone=False, after=after, limit=READ_PAGE
        )
    )
    placed, x_stats = along([row for row in stats if row["value"] is not None])

    def stat(name: str) -> list[Point]:
        return [(x, int(row["value"])) for x, row in placed if row["stat"] == name]

    owed, x_owed = along([row for row in ledger if row["balance_after"] is not None])
    balance = [(x, int(row["balance_after"])) for x, row in owed]
    charts = [
        {
            "title": "HP and virtue, event by event over the pages",
            "x_label": x_stats,
            "series": [
                series("HP", "hp", stat("hp"), limit),
                series("virtue", "virtue", stat("virtue"), limit),
            ],
        },
        {
            "title": "Credits and debt",
            "x_label": x_owed,
            "series": [
                series("credits", "credits", ((x, max(0, b)) for x, b in balance), limit),
                series("debt", "debt", ((x, max(0, -b)) for x, b in balance), limit),
            ],
        },
    ]
    return charts


def nights(rows: list[dict[str, Any]]) -> list[Point]:
    """A party's exhaustion at each change: at its night, or, for a change outside a night (no
    night recorded), at the last night before it (0 before the first), so x never goes back."""
    night, points = 0, []
    for row in rows:
        if row["to"] is None:
            continue
        night = int(row["night"]) if row["night"] is not None else night
        points.append((night, int(row["to"])))
    return points


def calendar_board(store: ViewStore, campaign: str, limit: int) -> list[Any]:
    """Each party's exhaustion, night by night."""
    changes = view_rows(
        lambda after: exhaustion_history(
            store, campaign, include_undone=False, after=after, limit=READ_PAGE
        )
    )
    parties = list(dict.fromkeys(row["party"] for row in changes))
    lines = [
        series(
            f"party {party}",
            f"party{k % 4}",
            nights([row for row in changes if row["party"] == party]),
            limit,
        )
        for k, party in enumerate(parties)
    ]
    return [{"title": "Exhaustion per night, per party", "x_label": "night", "series": lines}]


def campaign_charts(store: ViewStore, campaign: str, game: str, limit: int) -> dict[str, Any]:
    """The charts of a campaign's game, each series at most ``limit`` points, with ``position``:
    that of the view read least far along the log (read before the rows, so the rows hold at
    least what it says), for the freshness ``read`` adds."""
    quest = game == "quest-calendar"
    names = [HeroTimeline.name, DebtLedger.name] if quest else [ExhaustionHistory.name]
    positions = store.positions()
    behind = min((position_in(positions.get(name)) for name in names), default=START)
    charts = (quest_calendar if quest else calendar_board)(store, campaign, limit)
    return {"game": game, "charts": charts, "position": behind.notification}
