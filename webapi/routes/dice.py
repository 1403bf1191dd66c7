"""Dice routes: roll, read rolls with their proofs, set the client seed, rotate the server seed."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import CommandResult, roll_summary
from webapi.http.declared import requires
from webapi.http.plumbing import (
    Rendered,
    appended,
    campaign_id,
    expected_version,
    idempotency,
    questlog,
    reply,
)
from webapi.schemas.campaigns import DiceState, PageQuery
from webapi.schemas.dice import Appended, ClientSeedSet, Roll, RollCreate, RollPage
from webapi.schemas.openapi import APPEND_HEADERS, PREFER_HEADER

DICE_STATE = DiceState()

blp = Blueprint("dice", __name__, description="Verifiable server dice and reported dice.")


def render_roll(result: CommandResult) -> Rendered:
    """A roll's response."""
    # The record is already plain JSON in the documented Roll shape; a schema dump would only
    # copy it again (this is the hottest route, see docs/performance-results.md).
    # The summary is made here (never stored, so not in the idempotency row's result).
    summary = roll_summary(result.value)
    return appended(201, result, {**result.value, "verified": None, "summary": summary})


def render_dice(result: CommandResult) -> Rendered:
    """A client-seed change's or a rotation's response."""
    body = {**result.value, "dice": DICE_STATE.dump(result.value["dice"])}
    return appended(200, result, body)


@blp.route("/campaigns/<campaign>/rolls")
class Rolls(MethodView):
    @blp.doc(operationId="rollDice")
    @blp.arguments(RollCreate(), example={"dice": "d20+3", "purpose": "investigate"})
    @blp.response(201, Roll)
    @blp.doc(parameters=[*APPEND_HEADERS, PREFER_HEADER])
    @requires("append", appends=True, token_from_cache=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Roll on the verifiable server dice, or record faces the player rolled by hand."""
        outcome = questlog().dice.roll(
            campaign_id(campaign),
            notation=body["dice"],
            purpose=body["purpose"],
            faces=body.get("faces"),
            entropy=body.get("entropy"),
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_roll, minimal=True)

    @blp.doc(operationId="listRolls")
    @blp.arguments(PageQuery, location="query")
    @blp.response(200, RollPage)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """The campaign's rolls after ?after=V, each with its proof and verdict."""
        items, next_after = questlog().reading.rolls(
            campaign_id(campaign), after=query["after"], limit=query["limit"]
        )
        return {"items": items, "next": next_after, "next_after": next_after}


@blp.route("/campaigns/<campaign>/rolls/<roll_id>")
class RollResource(MethodView):
    @blp.doc(operationId="getRoll")
    @blp.response(200, Roll)
    @requires("read")
    def get(self, campaign: str, roll_id: str) -> Any:
        """One roll with its proof; adds proof.server_seed and verified once the seed is out."""
        return questlog().reading.find_roll(campaign_id(campaign), roll_id)


@blp.route("/campaigns/<campaign>/dice/client-seed")
class ClientSeed(MethodView):
    @blp.doc(operationId="setClientSeed")
    @blp.arguments(ClientSeedSet, example={"client_seed": "my lucky string"})
    @blp.response(200, Appended)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("manage", appends=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Set the client seed mixed into the server rolls that follow."""
        outcome = questlog().dice.set_client_seed(
            campaign_id(campaign),
            body["client_seed"],
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_dice)


@blp.route("/campaigns/<campaign>/dice/rotate")
class Rotate(MethodView):
    @blp.doc(operationId="rotateServerSeed")
    @blp.response(200, Appended)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("manage", appends=True)
    def post(self, campaign: str) -> Any:
        """Reveal the current server seed and commit to a new one; the nonce restarts at 0."""
        outcome = questlog().dice.rotate_seed(
            campaign_id(campaign),
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_dice)
