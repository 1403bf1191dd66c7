"""``GET /campaigns/{id}/views/charts``: the table page's charts drawn on the server from the
views, each series bounded however long the campaign (``projections.charts``)."""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient

from domain.facade import LogPosition
from domain.service.questlog import Questlog
from projections.charts import decimate
from projections.store import ViewStore
from projections.views.debt_ledger import DebtLedger
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
        assert [y for _, y in line["points"]] == [r["to"] for r in rows]
        xs = [x for x, _ in line["points"]]
        assert xs == sorted(xs)  # a change outside a night stays at the last night
        nights = [r["night"] for r in rows if r["night"] is not None]
        assert [x for x, r in zip(xs, rows, strict=True) if r["night"] is not None] == nights


def test_a_series_longer_than_points_keeps_its_ends_and_extremes(
    client: FlaskClient, synced: dict[str, str]
) -> None:
    answer = get(client, f"/campaigns/{synced['week']}/views/charts?points=4")
    credits = lines(answer)["credits"]
    assert credits["of"] == 11 and len(credits["points"]) <= 4
    full = lines(get(client, f"/campaigns/{synced['week']}/views/charts"))["credits"]["points"]
    assert credits["points"][0] == full[0] and credits["points"][-1] == full[-1]
    assert max(y for _, y in credits["points"]) == max(y for _, y in full)


def test_decimate_bounds_a_series_and_keeps_its_order_its_ends_and_every_runs_extremes() -> None:
    rng = random.Random(7)
    for length in (0, 1, 2, 5, 399, 400, 401, 1_000, 3_000, 30_001):
        points = [(x, rng.randint(-50, 50)) for x in range(length)]
        for limit in (4, 5, 400):
            kept = decimate(points, limit)
            if length <= limit:
                assert kept == points
                continue
            assert len(kept) <= limit and kept == sorted(kept) and set(kept) <= set(points)
            assert len(kept) >= min(length, limit) * 3 // 4  # the budget is used
            assert kept[0] == points[0] and kept[-1] == points[-1]
            assert min(y for _, y in kept) == min(y for _, y in points)
            assert max(y for _, y in kept) == max(y for _, y in points)
    # a one-point dip keeps the points around it: the stepped line rises again where it did
    flat = [(x, 10) for x in range(1_000)]
    flat[500] = (500, 0)
    kept = decimate(flat, 40)
    after = kept[kept.index((500, 0)) + 1]
    assert after[1] == 10 and after[0] <= 525


def test_bad_points_and_unknown_campaigns_are_refused_by_name(
    app: Questlog, client: FlaskClient, week: str
) -> None:
    for bad in ("3", "1001", "x"):
        errors = get(client, f"/campaigns/{week}/views/charts?points={bad}", 422)["errors"]
        assert "points" in errors
    unknown = "00000000-0000-4000-8000-000000000000"
    assert "does not exist" in get(client, f"/campaigns/{unknown}/views/charts", 404)["detail"]


def test_the_charts_say_how_far_the_view_furthest_behind_got(
    client: FlaskClient, views: ViewStore, synced: dict[str, str]
) -> None:
    """The credits come from the ledger and the HP from the hero's timeline: the answer's
    position is the one further behind, so a stale ledger never reads as current."""
    week = synced["week"]
    with views.write() as cursor:
        views.set_position(cursor, DebtLedger.name, LogPosition(0, 5), 5)
    answer = get(client, f"/campaigns/{week}/views/charts?timeout=0")
    ledger = get(client, f"/campaigns/{week}/views/debt-ledger?timeout=0")
    assert answer["position"] == ledger["position"] == 5
    assert answer["lag"] == ledger["lag"] > 0
