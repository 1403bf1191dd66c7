"""Time-travel routes: step-through replay, undo by rollback, rollback proposals, forks."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import CommandResult
from webapi.http import access
from webapi.http.declared import requires
from webapi.http.plumbing import (
    Render,
    Rendered,
    appended,
    campaign_id,
    expected_version,
    idempotency,
    questlog,
    reply,
    shown,
    summarised,
)
from webapi.schemas.campaigns import Campaign, render_created
from webapi.schemas.openapi import APPEND_HEADERS
from webapi.schemas.timetravel import (
    Approval,
    ForkCreate,
    ProposalCreate,
    ProposalList,
    Replay,
    ReplayQuery,
    RollbackCreate,
    RollbackResult,
)

blp = Blueprint(
    "timetravel",
    __name__,
    description="Time travel: replay, undo by rollback (nothing is deleted), forks.",
)


def render_rollback(status: int) -> Render:
    """How a rollback's, a proposal's or an approval's result is rendered (with this status)."""

    def render(result: CommandResult) -> Rendered:
        return appended(status, result, result.value)

    return render


@blp.route("/campaigns/<campaign>/rollback")
class Rollback(MethodView):
    @blp.doc(operationId="rollbackCampaign")
    @blp.arguments(RollbackCreate, example={"to_version": 12, "reason": "misread the page"})
    @blp.response(201, RollbackResult)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("manage", appends=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Undo back to a version: one RolledBack event; 409 names the policy that forbids it."""
        outcome = questlog().time_travel.rollback(
            campaign_id(campaign),
            to_version=body["to_version"],
            reason=body["reason"],
            actor=body.get("actor") or access.label(),
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_rollback(201))


@blp.route("/campaigns/<campaign>/rollback/proposals")
class Proposals(MethodView):
    @blp.doc(operationId="proposeRollback")
    @blp.arguments(
        ProposalCreate,
        example={"to_version": 12, "reason": "the hail roll used the wrong goal", "proposer": "A"},
    )
    @blp.response(201, RollbackResult)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("propose", seat="proposer", seat_binds_owner=True, appends=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Propose a rollback that every player must agree to (the proposer agrees by proposing)."""
        outcome = questlog().time_travel.propose_rollback(
            campaign_id(campaign),
            to_version=body["to_version"],
            reason=body["reason"],
            proposer=body["proposer"],
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_rollback(201))

    @blp.doc(operationId="listRollbackProposals")
    @blp.response(200, ProposalList)
    @requires("read")
    def get(self, campaign: str) -> Any:
        """The campaign's rollback proposals, open and carried out, oldest first."""
        found = questlog().campaign(campaign_id(campaign))
        return {"items": sorted(found.proposals.values(), key=lambda p: p["version"])}


@blp.route("/campaigns/<campaign>/rollback/proposals/<proposal_id>/approve")
class Approve(MethodView):
    @blp.doc(operationId="approveRollback")
    @blp.arguments(Approval, example={"player": "B"})
    @blp.response(200, RollbackResult)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("approve", seat="player", seat_binds_owner=True, appends=True)
    def post(self, body: dict[str, Any], campaign: str, proposal_id: str) -> Any:
        """A player agrees to a proposal; the last agreement carries the rollback out."""
        outcome = questlog().time_travel.approve_rollback(
            campaign_id(campaign),
            proposal_id,
            player=body["player"],
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_rollback(200))


@blp.route("/campaigns/<campaign>/fork")
class ForkResource(MethodView):
    @blp.doc(operationId="forkCampaign")
    @blp.arguments(ForkCreate, example={"at_version": 12, "name": "What if I fled?"})
    @blp.response(201, Campaign)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("manage", appends=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Start a new campaign from this one's state at a version, with its own dice seed."""
        outcome = questlog().time_travel.fork(
            campaign_id(campaign),
            at_version=body["at_version"],
            name=body["name"],
            client_seed=body.get("client_seed"),
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_created)


@blp.route("/campaigns/<campaign>/replay")
class ReplayResource(MethodView):
    @blp.doc(operationId="replayCampaign")
    @blp.arguments(ReplayQuery, location="query")
    @blp.response(200, Replay)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Events ?from=A&to=B, each with an RFC 6902 patch of what it changed in the view."""
        app = questlog()
        cid = campaign_id(campaign)
        result = app.time_travel.replay(cid, first=query["first"], last=query.get("last"))
        first = result.steps[0].event.originator_version if result.steps else 0
        records = app.reading.event_records(cid, after=first - 1, limit=len(result.steps))
        items = [
            {"event": summarised(shown(record, result.timeline)), "patch": step.patch}
            for record, step in zip(records, result.steps, strict=True)
        ]
        last = result.steps[-1].event.originator_version if result.steps else query["first"] - 1
        more = last < result.timeline.head
        return {"before": result.before, "items": items, "next_from": last + 1 if more else None}
