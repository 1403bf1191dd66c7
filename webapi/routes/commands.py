"""Game command routes: a typed commands route per campaign, the catalogue, house rules."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from flask_smorest import Blueprint
from werkzeug.exceptions import BadRequest

from domain.facade import RULES, command_results, rules_for
from webapi.http.declared import requires
from webapi.http.plumbing import (
    Rendered,
    appended,
    campaign_id,
    expected_version,
    idempotency,
    questlog,
    reply,
    summarised,
)
from webapi.schemas.catalogue import COMMANDS, describe, describe_setup
from webapi.schemas.commands import CommandList, CommandResult, CommandsQuery, HouseRuleChange
from webapi.schemas.dice import Appended
from webapi.schemas.openapi import APPEND_HEADERS, PREFER_HEADER

blp = Blueprint("commands", __name__, description="Game commands and house rules.")


def command_body() -> Any:
    """The request's JSON body as sent: the campaign's game checks it against its own command
    schemas before any rule runs, so every invalid body answers one problem type in the domain's
    wording (an unknown ``type`` names the commands of that game only)."""
    if not request.get_data():
        return None
    try:
        return request.get_json(force=True)
    except BadRequest:
        raise BadRequest("The request body is not valid JSON.") from None


def command_body_doc() -> dict[str, Any]:
    """The request body as OpenAPI shows it: one of the command schemas, told apart by ``type``."""
    refs = {name: f"#/components/schemas/{entry.component}" for name, entry in COMMANDS.items()}
    schema = {
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "type", "mapping": refs},
    }
    content = {"schema": schema, "examples": command_examples()}
    return {"required": True, "content": {"application/json": content}}


def command_examples() -> dict[str, Any]:
    """One OpenAPI example per command of every game."""
    return {
        f"{game}:{name}": {"summary": spec.summary, "value": spec.example}
        for game, game_rules in sorted(RULES.items())
        for name, spec in sorted(game_rules.commands.items())
    }


def render_command(result: command_results.CommandResult) -> Rendered:
    """A game command's response: the events it stored and the state after them."""
    state = result.value["state"]
    # The summaries are made here, not in the result: an idempotency row keeps the result, and
    # a summary is never stored.
    events = [summarised(event) for event in result.value["events"]]
    body = {"events": events, "state": state, "pending": state.get("pending")}
    return appended(201, result, body)


def render_house_rules(result: command_results.CommandResult) -> Rendered:
    """A house-rule change's response."""
    return appended(200, result, result.value)


@blp.route("/campaigns/<campaign>/commands")
class Commands(MethodView):
    @blp.doc(operationId="sendCommand")
    @blp.response(201, CommandResult)
    @blp.doc(parameters=[*APPEND_HEADERS, PREFER_HEADER], requestBody=command_body_doc())
    @requires(
        "append",
        seat="player",
        seat_binds_owner=True,
        seat_games=("calendar-board",),
        appends=True,
        token_from_cache=True,
    )
    def post(self, campaign: str) -> Any:
        """Run a game command; 409 names the rule that forbids it, 422 the field that is wrong."""
        outcome = questlog().campaigns.command(
            campaign_id(campaign),
            command_body(),
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_command, minimal=True)


@blp.route("/commands")
class CommandCatalogue(MethodView):
    @blp.doc(operationId="listCommands")
    @blp.arguments(CommandsQuery, location="query")
    @blp.response(200, CommandList)
    @requires("any")
    def get(self, query: dict[str, Any]) -> Any:
        """Every command of a game: summary, rule IDs, fields, dice and an example body."""
        game_rules = rules_for(query["game"])
        return {
            "game": query["game"],
            "commands": [
                {
                    "name": s.name,
                    "summary": s.summary,
                    "rules": list(s.rules),
                    "fields": describe(COMMANDS[s.name]),
                    "dice": COMMANDS[s.name].dice,
                    "example": s.example,
                }
                for _, s in sorted(game_rules.commands.items())
            ],
            "setup": describe_setup(query["game"]),
        }


@blp.route("/campaigns/<campaign>/house-rules")
class CampaignHouseRules(MethodView):
    @blp.doc(operationId="changeHouseRule")
    @blp.arguments(HouseRuleChange, example={"key": "qc.combat.mode", "value": "easy"})
    @blp.response(200, Appended)
    @blp.doc(parameters=APPEND_HEADERS)
    @requires("manage", appends=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Change one house rule; the change is a recorded event with the old and new values."""
        outcome = questlog().campaigns.configure_house_rule(
            campaign_id(campaign),
            body["key"],
            body["value"],
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_house_rules)
