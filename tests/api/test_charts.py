"""``GET /campaigns/{id}/views/charts``: the table page's charts drawn on the server from the
views, each series bounded however long the campaign (``projections.charts``)."""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient

from domain.service.application import Questlog
from projections.charts import min_max
from tests.api.test_view_routes import api, client, column, get, match, synced, views, week

__all__ = ["api", "client", "match", "synced", "views", "week"]  # the fixtures used here


def along_pages(rows: list[dict[str, Any]]) -> list[int]:
    """The x the page drew each row at: the pages played up to it (more than one page played),
    else the change's number."""
    dates = {r["page_date"] for r in rows if r["page_date"]}
    if len(dates) <= 1:
        return list(range(1, len(rows) + 1))
    seen: set[str] = set()
    xs = []
    for row in rows:
        if row["page_date"]:
            seen.add(row["page_date"])
        xs.append(len(seen))
    return xs


def lines(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {line["name"]: line for chart in answer["charts"] for line in chart["series"]}


def test_the_quest_calendar_charts_are_the_views_rows_as_points(
    client: FlaskClient, synced: dict[str, str]
) -> None:
    week = synced["week"]
    answer = get(client, f"/campaigns/{week}/views/charts")
    assert answer["game"] == "quest-calendar" and answer["lag"] == 0
    assert [c["title"] for c in answer["charts"]] == [
        "HP and virtue, event by event over the pages",
        "Credits and debt",
    ]
    drawn = lines(answer)
    ledger = [r for r in get(client, f"/campaigns/{week}/views/debt-ledger")["items"]]
    owed = [r for r in ledger if not r["undone"] and r["balance_after"] is not None]
    balance = column(owed, "balance_after")
    assert [y for _, y in drawn["credits"]["points"]] == [max(0, b) for b in balance]
    assert [y for _, y in drawn["debt"]["points"]] == [max(0, -b) for b in balance]
    assert [x for x, _ in drawn["debt"]["points"]] == along_pages(owed)
    stats = [r for r in get(client, f"/campaigns/{week}/views/hp-virtue")["items"]]
    stats = [r for r in stats if not r["undone"]]
    xs = along_pages(stats)  # HP and virtue on one axis
    hp = [(x, r["value"]) for x, r in zip(xs, stats, strict=True) if r["stat"] == "hp"]
    assert [tuple(p) for p in drawn["HP"]["points"]] == hp
    assert answer["charts"][0]["x_label"] == ("page" if len(set(xs)) > 1 else "change")
    assert [y for _, y in drawn["HP"]["points"]] == [20, 18, 0, 10]
    assert drawn["HP"]["of"] == 4


def test_the_calendar_board_chart_is_each_partys_exhaustion_by_night(
    client: FlaskClient, synced: dict[str, str]
) -> None:
    match = synced["match"]
    answer = get(client, f"/campaigns/{match}/views/charts")
    (chart,) = answer["charts"]
    assert (chart["title"], chart["x_label"]) == ("Exhaustion per night, per party", "night")
    history = get(client, f"/campaigns/{match}/views/exhaustion-history")["items"]
    for line in chart["series"]:
        party = line["name"].removeprefix("party ")
        rows = [r for r in history if r["party"] == party and not r["undone"]]
        assert [tuple(p) for p in line["points"]] == [(r["night"] or 0, r["to"]) for r in rows]


def test_a_series_longer_than_points_keeps_its_ends_and_extremes(
    client: FlaskClient, synced: dict[str, str]
) -> None:
    answer = get(client, f"/campaigns/{synced['week']}/views/charts?points=4")
    credits = lines(answer)["credits"]
    assert credits["of"] == 11 and len(credits["points"]) <= 4
    full = lines(get(client, f"/campaigns/{synced['week']}/views/charts"))["credits"]["points"]
    assert credits["points"][0] == full[0] and credits["points"][-1] == full[-1]
    assert max(y for _, y in credits["points"]) == max(y for _, y in full)


def test_min_max_bounds_a_series_and_keeps_its_order_its_ends_and_every_extreme() -> None:
    rng = random.Random(7)
    for length in (0, 1, 2, 5, 399, 400, 401, 3_000, 30_001):
        points = [(float(x), float(rng.randint(-50, 50))) for x in range(length)]
        for limit in (4, 5, 400):
            kept = min_max(points, limit)
            assert len(kept) <= max(limit, 0) or kept == points
            assert kept == sorted(kept) and set(kept) <= set(points)
            if length > limit:
                assert kept[0] == points[0] and kept[-1] == points[-1]
                assert min(p[1] for p in kept) == min(p[1] for p in points)
                assert max(p[1] for p in kept) == max(p[1] for p in points)
            else:
                assert kept == points


def test_bad_points_and_unknown_campaigns_are_refused_by_name(
    app: Questlog, client: FlaskClient, week: str
) -> None:
    for bad in ("3", "1001", "x"):
        errors = get(client, f"/campaigns/{week}/views/charts?points={bad}", 422)["errors"]
        assert "points" in errors
    unknown = "00000000-0000-4000-8000-000000000000"
    assert "does not exist" in get(client, f"/campaigns/{unknown}/views/charts", 404)["detail"]
