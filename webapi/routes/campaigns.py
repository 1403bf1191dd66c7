"""Campaign routes: create, list, read (now, at a version or a time), events, audit, house rules."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import ResumePoint, book
from webapi.http import access
from webapi.http.declared import requires
from webapi.http.memory import give_back
from webapi.http.plumbing import (
    campaign_id,
    event_items,
    idempotency,
    questlog,
    reply,
    summarised,
)
from webapi.schemas.campaigns import (
    Audit,
    AuditQuery,
    CampaignCreate,
    CampaignPage,
    CampaignQuery,
    EventPage,
    HouseRuleList,
    HouseRulesQuery,
    PageQuery,
    campaign_body,
    render_created,
)
from webapi.schemas.campaigns import Campaign as CampaignSchema
from webapi.schemas.openapi import APPEND_HEADERS

blp = Blueprint("campaigns", __name__, description="Campaigns: one hash-chained event log each.")


@blp.route("/campaigns")
class Campaigns(MethodView):
    @blp.doc(operationId="createCampaign")
    @blp.arguments(CampaignCreate, example={"game": "quest-calendar", "name": "Year one"})
    @blp.response(201, CampaignSchema)
    @blp.doc(parameters=[APPEND_HEADERS[0]])  # Idempotency-Key: a new campaign has no version
    @requires("any", appends=True)
    def post(self, body: dict[str, Any]) -> Any:
        """Start a campaign; its first event fixes the house rules and the dice commitment."""
        app = questlog()
        outcome = app.campaigns.create_campaign(
            game=body["game"],
            name=body["name"],
            house_rules=body["house_rules"],
            client_seed=body.get("client_seed"),
            setup=body["setup"],
            idempotency=idempotency(),
            public=body["public"],
        )
        return reply(outcome, render_created)

    @blp.doc(operationId="listCampaigns")
    @blp.arguments(PageQuery, location="query")
    @blp.response(200, CampaignPage)
    @requires("any")
    def get(self, query: dict[str, Any]) -> Any:
        """List the campaigns the caller may see, oldest first; page with ?after=<next>."""
        items, next_after = questlog().reading.list_campaigns(
            after=query["after"], limit=query["limit"]
        )
        visible = access.visible()
        if visible is not None:
            items = [(p, e) for p, e in items if str(e.originator_id) in visible]
        return {
            "items": [
                {
                    "id": event.originator_id,
                    "game": event.game,
                    "name": event.name,
                    "created_at": event.timestamp,
                    "position": position,
                }
                for position, event in items
            ],
            "next": next_after,
            "next_after": next_after,
        }


@blp.route("/campaigns/<campaign>")
class CampaignResource(MethodView):
    @blp.doc(operationId="getCampaign")
    @blp.arguments(CampaignQuery, location="query")
    @blp.response(200, CampaignSchema)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """A campaign's state now, at ?version=N or at ?at=<ISO-8601>; the ETag is the version."""
        app = questlog()
        cid = campaign_id(campaign)
        travel = app.time_travel
        version = query.get("version")
        if "at" in query:
            version = travel.version_at(cid, query["at"])
        found = app.campaign(cid, version=version)
        return campaign_body(found, travel.forks(cid)), {"ETag": f'"{found.version}"'}


@blp.route("/campaigns/<campaign>/events")
class Events(MethodView):
    @blp.doc(operationId="getCampaignEvents")
    @blp.arguments(PageQuery, location="query")
    @blp.response(200, EventPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The campaign's events after ?after=V, each with its prev_hash and hash."""
        found, items = event_items(
            questlog(), campaign_id(campaign), after=query["after"], limit=query["limit"]
        )
        last = items[-1]["version"] if items else query["after"]
        cursor = last if last < found.version else None
        return {"items": [summarised(item) for item in items], "next": cursor, "next_after": cursor}


@blp.route("/campaigns/<campaign>/audit")
class AuditResource(MethodView):
    @blp.doc(operationId="auditCampaign")
    @blp.arguments(AuditQuery, location="query")
    @blp.response(200, Audit)
    @requires("audit")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Re-check the hash chain and every revealed server roll; ?head=H checks a receipt;
        ?after=V&after_hash=H resumes from a point the verifier has verified."""
        after = None
        if "after" in query:
            after = ResumePoint(query["after"], query["after_hash"])
        try:
            report = questlog().reading.audit(campaign_id(campaign), after=after)
        finally:
            if after is None:  # a whole log was decoded: its pages go back, not to this thread
                give_back()
        return report.as_dict(receipt=query.get("head"))


@blp.route("/house-rules")
class HouseRules(MethodView):
    @blp.doc(operationId="listHouseRules")
    @blp.arguments(HouseRulesQuery, location="query")
    @blp.response(200, HouseRuleList)
    @requires("any")
    def get(self, query: dict[str, Any]) -> Any:
        """Every house rule of a game, with its default, allowed values and description."""
        rules = book(query["game"]).rules
        return {"game": query["game"], "rules": [r.describe() for _, r in sorted(rules.items())]}
