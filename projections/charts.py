"""The table page's charts, drawn from the views on the server, each series at most a few hundred
points whatever the campaign's length.

The page used to download the rows of the views it charts (the hero's HP and virtue, the debt
ledger, the parties' exhaustion), a thousand at a time, up to three thousand: its load grew with
the campaign's life, and past three thousand rows a chart showed only the oldest of them. Here
the server reads the rows it needs and answers the points to draw: the x of each change (the
count of pages played up to it, or, while one page only has been played, the change's number)
and its value. A series longer than the limit keeps its first and last points and, of each run
of consecutive points, the lowest and the highest (``min_max``): the line keeps every peak and
trough a reader would look for, with at most ``limit`` points.

Rows a rollback undid are left out, as the page left them out; a ledger's reversal rows stay (they
are movements of the balance).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from projections.store import ViewStore
from projections.views.debt_ledger import debt_ledger
from projections.views.exhaustion import exhaustion_history
from projections.views.hero_timeline import hero_timeline

DEFAULT_POINTS = 400
"""Points per series unless the request asks for another number (at most ``MAX_POINTS``)."""
MAX_POINTS = 1000
READ_PAGE = 1000
Point = tuple[float, float]


def view_rows(read: Callable[[str | None], dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Every row a view's reader gives, page after page, without the undone ones; and the view's
    position when its first page was read."""
    rows: list[dict[str, Any]] = []
    first = read(None)
    found, after = first, first["next"]
    rows += found["items"]
    while after:
        found = read(after)
        rows += found["items"]
        after = found["next"]
    return [row for row in rows if not row.get("undone")], int(first["position"])


def min_max(points: list[Point], limit: int) -> list[Point]:
    """At most ``limit`` points of a series: the first, the last, and the lowest and highest of
    each run of consecutive points between them, in order."""
    if len(points) <= limit:
        return points
    inner = points[1:-1]
    buckets = max(1, (limit - 2) // 2)
    size = -(-len(inner) // buckets)  # ceiling: every point in a bucket
    kept: list[Point] = [points[0]]
    for start in range(0, len(inner), size):
        run = list(enumerate(inner[start : start + size]))
        low = min(run, key=lambda pair: pair[1][1])
        high = max(run, key=lambda pair: pair[1][1])
        kept += [point for _, point in sorted({low, high})]
    kept.append(points[-1])
    return kept


def along(rows: list[dict[str, Any]]) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    """Each row with its x, and the axis' name: the pages played up to it when more than one
    page has been, else the change's number."""
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


def series(
    name: str, cls: str, points: Iterable[Point], limit: int, rows: int | None = None
) -> dict[str, Any]:
    every = list(points)
    return {
        "name": name,
        "cls": cls,
        "points": [list(point) for point in min_max(every, limit)],
        "of": len(every) if rows is None else rows,
    }


def quest_calendar(store: ViewStore, campaign: str, limit: int) -> tuple[list[Any], int]:
    """The hero's HP and virtue, and the credits and debt, over the pages."""
    stats, position = view_rows(
        lambda after: hero_timeline(store, campaign, after=after, limit=READ_PAGE)
    )
    ledger, _ = view_rows(lambda after: debt_ledger(store, campaign, after=after, limit=READ_PAGE))
    placed, x_stats = along(stats)

    def stat(name: str) -> list[Point]:
        return [(x, float(row["value"])) for x, row in placed if row["stat"] == name]

    owed, x_owed = along([row for row in ledger if row["balance_after"] is not None])
    balance = [(x, float(row["balance_after"])) for x, row in owed]
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
                series("credits", "credits", ((x, max(0.0, b)) for x, b in balance), limit),
                series("debt", "debt", ((x, max(0.0, -b)) for x, b in balance), limit),
            ],
        },
    ]
    return charts, position


def calendar_board(store: ViewStore, campaign: str, limit: int) -> tuple[list[Any], int]:
    """Each party's exhaustion, night by night."""
    changes, position = view_rows(
        lambda after: exhaustion_history(store, campaign, after=after, limit=READ_PAGE)
    )
    parties = list(dict.fromkeys(row["party"] for row in changes))
    lines = [
        series(
            f"party {party}",
            f"party{k % 4}",
            (
                (float(row["night"] or 0), float(row["to"]))
                for row in changes
                if row["party"] == party
            ),
            limit,
        )
        for k, party in enumerate(parties)
    ]
    return [{"title": "Exhaustion per night, per party", "x_label": "night", "series": lines}], (
        position
    )


def campaign_charts(store: ViewStore, campaign: str, game: str, limit: int) -> dict[str, Any]:
    """The charts of a campaign's game, each series at most ``limit`` points, with the position
    of the first view read (``position``, for the freshness ``read`` adds)."""
    draw = quest_calendar if game == "quest-calendar" else calendar_board
    charts, position = draw(store, campaign, limit)
    return {"game": game, "charts": charts, "position": position}
