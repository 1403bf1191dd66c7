"""Analytics routes: dice fairness statistics and cross-campaign figures, read from the views."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from projections.fairness import dice_fairness
from projections.view import View
from projections.views.house_rules import HouseRules
from projections.views.roll_log import RollLog
from projections.views.stats import CampaignStats, campaign_figures
from projections.views.weather import WeatherHistory
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id
from webapi.http.view_store import read
from webapi.schemas.analytics import (
    CampaignDiceQuery,
    CampaignFigures,
    CampaignFiguresQuery,
    DiceFairness,
    DiceQuery,
    analytics_filter,
)

HOUSE_RULES_VIEWS: list[type[View]] = [HouseRules]
"""The view the house rule filter reads."""

blp = Blueprint(
    "analytics",
    __name__,
    description="Analytics: dice fairness (chi-square against the exact distributions) and "
    "figures across campaigns.",
)


@blp.route("/analytics/dice")
class Dice(MethodView):
    @blp.doc(operationId="getDiceAnalytics")
    @blp.arguments(DiceQuery, location="query")
    @blp.response(200, DiceFairness)
    @requires("analyse")
    def get(self, query: dict[str, Any]) -> Any:
        """Face counts per die type and source, chi-square p-values, and a flag on unfair dice."""
        return read(
            [RollLog, *HOUSE_RULES_VIEWS],
            query,
            lambda store: dice_fairness(
                store,
                analytics_filter(query),
                source=query.get("source"),
                purpose=query.get("purpose"),
                by_campaign=query["by_campaign"],
                alpha=query["alpha"],
            ),
        )


@blp.route("/campaigns/<campaign>/analytics/dice")
class CampaignDice(MethodView):
    @blp.doc(operationId="getCampaignDiceAnalytics")
    @blp.arguments(CampaignDiceQuery, location="query")
    @blp.response(200, DiceFairness)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """One campaign's dice: face counts per die type and source against a fair die's, with
        chi-square p-values (what ``/analytics/dice?campaign=`` shows an admin, for any reader)."""
        cid = campaign_id(campaign)
        return read(
            [RollLog],
            query,
            lambda store: dice_fairness(
                store,
                analytics_filter(query, str(cid)),
                source=query.get("source"),
                purpose=query.get("purpose"),
                alpha=query["alpha"],
            ),
            cid,
        )


@blp.route("/analytics/campaigns")
class Campaigns(MethodView):
    @blp.doc(operationId="getCampaignAnalytics")
    @blp.arguments(CampaignFiguresQuery, location="query")
    @blp.response(200, CampaignFigures)
    @requires("analyse")
    def get(self, query: dict[str, Any]) -> Any:
        """Credits and debt by page, deaths per level, combats won per mode, exhaustion by
        night, weather: each defined in docs/projections.md."""
        return read(
            [CampaignStats, WeatherHistory, *HOUSE_RULES_VIEWS],
            query,
            lambda store: campaign_figures(store, analytics_filter(query)),
        )
