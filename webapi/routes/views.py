"""View routes: the read models of a campaign and across campaigns, and how far they have got.

Every response carries ``position`` (the last notification id the view had applied when it was
read), the log's ``head`` and the ``lag`` between them. Read-your-writes: ``?wait_for_version=V``
(the ``version`` an appending response returned) or ``?wait_for=P`` (a notification id, such as
the ``head`` of an earlier response) makes the request wait, at most ``timeout`` seconds (5 by
default, 10 at most), until the view has applied that event; if it has not by then, the answer
is the view as it is, with ``caught_up: false``.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import NotFound
from projections.charts import campaign_charts
from projections.rebuild import view_status
from projections.store import ViewStore
from projections.views.campaigns import CampaignSummary, campaign_summaries, campaign_summary
from projections.views.debt_ledger import DebtLedger, debt_ledger, debt_spans
from projections.views.exhaustion import ExhaustionHistory, exhaustion_history
from projections.views.hero_timeline import HeroTimeline, hero_lives, hero_timeline
from projections.views.roll_log import RollLog, roll_log
from projections.views.ship import ShipHistory, ship_history, ship_losses
from projections.views.weather import WeatherHistory, weather_history
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.http.view_store import WORKER_KEY, iso, read, views_store
from webapi.schemas.views import (
    CampaignRollsQuery,
    CampaignsQuery,
    CampaignWaitQuery,
    Charts,
    ChartsQuery,
    ExhaustionQuery,
    LedgerQuery,
    LivesQuery,
    LossesQuery,
    ProjectionStatus,
    RollsQuery,
    ShipQuery,
    SpanList,
    SpansQuery,
    Summary,
    TimelineQuery,
    ViewPage,
    WeatherQuery,
)

blp = Blueprint(
    "views",
    __name__,
    description="Read models (projections) of the log: each says how far it has caught up.",
)


# -- routes ----------------------------------------------------------------------------------------


def _page(query: dict[str, Any]) -> dict[str, Any]:
    return {"after": query.get("after"), "limit": query["limit"]}


def _undone(query: dict[str, Any]) -> dict[str, Any]:
    return {**_page(query), "include_undone": query["include_undone"]}


@blp.route("/campaigns/<campaign>/views/exhaustion-history")
class Exhaustion(MethodView):
    @blp.doc(operationId="getExhaustionHistory")
    @blp.arguments(ExhaustionQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Each change of a party's exhaustion: night, from, to, cause and eliminations."""
        cid = campaign_id(campaign)
        return read(
            [ExhaustionHistory],
            query,
            lambda store: exhaustion_history(
                store,
                str(cid),
                party=query.get("party"),
                night=query.get("night"),
                **_undone(query),
            ),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/debt-ledger")
class Ledger(MethodView):
    @blp.doc(operationId="getDebtLedger")
    @blp.arguments(LedgerQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Every credit movement of the hero with the balance after it."""
        cid = campaign_id(campaign)
        return read(
            [DebtLedger],
            query,
            lambda store: debt_ledger(
                store,
                str(cid),
                hero_id=query.get("hero_id"),
                cause=query.get("cause"),
                entry=query.get("entry"),
                **_undone(query),
            ),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/charts")
class CampaignCharts(MethodView):
    @blp.doc(operationId="getCampaignCharts")
    @blp.arguments(ChartsQuery, location="query")
    @blp.response(200, Charts)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The table page's charts: HP and virtue, credits and debt (Quest Calendar) or each
        party's exhaustion (Calendar Board), each series at most ``points`` points however long
        the campaign (the first, the last, and each run's lowest and highest)."""
        cid = campaign_id(campaign)
        created = questlog().campaign_events(cid, after=0, limit=1)
        if not created:
            raise NotFound(f"Campaign {cid} does not exist.")
        game = str(created[0].game)
        views = [HeroTimeline, DebtLedger] if game == "quest-calendar" else [ExhaustionHistory]
        return read(
            views,
            query,
            lambda store: campaign_charts(store, str(cid), game, query["points"]),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/debt-spans")
class Spans(MethodView):
    @blp.doc(operationId="getDebtSpans")
    @blp.arguments(SpansQuery, location="query")
    @blp.response(200, SpanList)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The spans the hero was in debt: start, end (null while in debt), deepest, penalties."""
        cid = campaign_id(campaign)
        return read(
            [DebtLedger],
            query,
            lambda store: debt_spans(store, str(cid), hero_id=query.get("hero_id")),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/hp-virtue")
class HpVirtue(MethodView):
    @blp.doc(operationId="getHpVirtue")
    @blp.arguments(TimelineQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The hero's HP and virtue over the pages: value, previous value, page date and cause."""
        cid = campaign_id(campaign)
        return read(
            [HeroTimeline],
            query,
            lambda store: hero_timeline(
                store,
                str(cid),
                stat=query.get("stat"),
                hero_id=query.get("hero_id"),
                **_undone(query),
            ),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/hp-virtue/lives")
class Lives(MethodView):
    @blp.doc(operationId="getHeroLives")
    @blp.arguments(LivesQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The hero's deaths and clones, with the clone result."""
        cid = campaign_id(campaign)
        return read(
            [HeroTimeline],
            query,
            lambda store: hero_lives(
                store, str(cid), hero_id=query.get("hero_id"), **_undone(query)
            ),
            cid,
        )


def _roll_filters(query: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": query.get("source"),
        "purpose": query.get("purpose"),
        "verified": query.get("verified"),
        "since": iso(query.get("since")),
        "until": iso(query.get("until")),
        **_undone(query),
    }


@blp.route("/campaigns/<campaign>/views/rolls")
class CampaignRolls(MethodView):
    @blp.doc(operationId="getCampaignRollLog")
    @blp.arguments(CampaignRollsQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The campaign's roll log: dice, faces, total, source, verdict, and whether undone."""
        cid = campaign_id(campaign)
        return read(
            [RollLog],
            query,
            lambda store: roll_log(store, campaign_id=str(cid), **_roll_filters(query)),
            cid,
        )


@blp.route("/views/rolls")
class Rolls(MethodView):
    @blp.doc(operationId="getRollLog")
    @blp.arguments(RollsQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("analyse")
    def get(self, query: dict[str, Any]) -> Any:
        """The roll log across every campaign, in log order."""
        owner = query.get("campaign")
        return read(
            [RollLog],
            query,
            lambda store: roll_log(
                store,
                campaign_id=None if owner is None else str(owner),
                game=query.get("game"),
                **_roll_filters(query),
            ),
        )


@blp.route("/campaigns/<campaign>/views/weather-wind")
class Weather(MethodView):
    @blp.doc(operationId="getWeatherWind")
    @blp.arguments(WeatherQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Each night of the match: the god piece's space, the weather and the wind."""
        cid = campaign_id(campaign)
        return read(
            [WeatherHistory],
            query,
            lambda store: weather_history(
                store, str(cid), weather=query.get("weather"), **_undone(query)
            ),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/ship")
class Ship(MethodView):
    @blp.doc(operationId="getShipIntegrity")
    @blp.arguments(ShipQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Each change of a compartment's Integrity (or maximum), with the event that made it."""
        cid = campaign_id(campaign)
        return read(
            [ShipHistory],
            query,
            lambda store: ship_history(
                store, str(cid), compartment=query.get("compartment"), **_undone(query)
            ),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/ship/losses")
class ShipLosses(MethodView):
    @blp.doc(operationId="getShipLosses")
    @blp.arguments(LossesQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The crew and upgrades the ship lost."""
        cid = campaign_id(campaign)
        return read(
            [ShipHistory],
            query,
            lambda store: ship_losses(store, str(cid), kind=query.get("kind"), **_undone(query)),
            cid,
        )


@blp.route("/campaigns/<campaign>/views/summary")
class CampaignSummaryView(MethodView):
    @blp.doc(operationId="getCampaignSummary")
    @blp.arguments(CampaignWaitQuery, location="query")
    @blp.response(200, Summary)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Game, name, pages or nights played, last activity and counts of the campaign."""
        cid = campaign_id(campaign)

        def fetch(store: ViewStore) -> dict[str, Any]:
            found = campaign_summary(store, str(cid))
            if found is None:
                row = store.positions().get(CampaignSummary.name, {})
                return {"summary": None, "position": int(row.get("position", 0))}
            position = found.pop("position")
            return {"summary": found, "position": position}

        return read([CampaignSummary], query, fetch, cid)


@blp.route("/views/campaigns")
class Campaigns(MethodView):
    @blp.doc(operationId="listCampaignSummaries")
    @blp.arguments(CampaignsQuery, location="query")
    @blp.response(200, ViewPage)
    @requires("analyse")
    def get(self, query: dict[str, Any]) -> Any:
        """Every campaign's summary in creation order, optionally of one game."""
        return read(
            [CampaignSummary],
            query,
            lambda store: campaign_summaries(store, game=query.get("game"), **_page(query)),
        )


@blp.route("/projections")
class Projections(MethodView):
    @blp.doc(operationId="getProjectionStatus")
    @blp.response(200, ProjectionStatus)
    @requires("admin")
    def get(self) -> Any:
        """Each view's position, the log's head and the lag; a rebuild in progress; the worker."""
        report = view_status(views_store(), questlog())
        worker = current_app.extensions.get(WORKER_KEY)
        report["worker"] = (
            None
            if worker is None
            else {
                "running": worker.thread.is_alive(),
                "last_error": None if worker.current_error is None else repr(worker.current_error),
                "leases": sorted(worker.held),
            }
        )
        return report
