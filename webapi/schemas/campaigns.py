"""Schemas of the campaign routes: a campaign, its events, its audit and its house rules."""

from __future__ import annotations

from typing import Any, ClassVar
from uuid import UUID

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.facade import GAMES, CommandResult, campaign_facts
from domain.facade import Campaign as CampaignAggregate
from webapi.http.plumbing import Rendered
from webapi.schemas import catalogue
from webapi.schemas.fields import (
    CHECKPOINT_DESCRIPTION,
    ISO_EXAMPLE,
    MAX_POSITION,
    Flag,
    LogPage,
    Text,
    Timestamp,
    checkpoint_field,
)
from webapi.schemas.house_rules import GAME_COMPONENTS, HOUSE_RULES_WORDS, house_rules_properties


def of_game(game: str, **more: Any) -> dict[str, Any]:
    """A body of this game with more (JSON Schema keywords)."""
    shape: dict[str, Any] = {"properties": {"game": {"enum": [game]}}, "required": ["game"]}
    for name, schema in more.pop("properties", {}).items():
        shape["properties"][name] = schema
    shape["required"] += more.pop("required", [])
    return shape | more


def component(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


class CampaignCreate(Schema):
    """A new campaign: its game, name, house rules, client seed and the game's setup."""

    refused_shapes: ClassVar[tuple[dict[str, Any], ...]] = (
        *(
            of_game(
                game, properties={"house_rules": {"not": component(name)}}, required=["house_rules"]
            )
            for game, name in GAME_COMPONENTS.items()
        ),
        of_game(
            "quest-calendar",
            properties={"setup": {"not": component("QuestCalendarSetup")}},
            required=["setup"],
        ),
        of_game(
            "calendar-board",
            **{
                "not": {
                    "properties": {"setup": component("CalendarBoardSetup")},
                    "required": ["setup"],
                }
            },
        ),
    )
    """What the document states of a game's body: only that game's house rules and setup (a
    match needs its players)."""

    game = Text(
        required=True, validate=validate.OneOf(GAMES), metadata={"example": "quest-calendar"}
    )
    name = Text(
        required=True,
        blank=False,
        validate=validate.Length(1, 200),
        metadata={"example": "Voidspark year one"},
    )
    house_rules = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={
            "description": HOUSE_RULES_WORDS,
            "properties": house_rules_properties(),
            "additionalProperties": False,
        },
    )
    client_seed = Text(
        blank=False,
        validate=validate.Length(1, 128),
        metadata={"description": "Client seed for server dice; random when omitted."},
    )
    setup = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={
            "description": "The game's own setup, checked by the game's setup schema: "
            "QuestCalendarSetup for quest-calendar, CalendarBoardSetup for calendar-board (the "
            "players of a match); GET /commands?game= lists its fields.",
            "oneOf": [
                {"$ref": f"#/components/schemas/{name}"} for name in catalogue.setup_schemas()
            ],
        },
    )
    public = Flag(
        load_default=False,
        metadata={"description": "Readable by every token; otherwise only by its members."},
    )


class DiceState(Schema):
    """The campaign's dice: the commitment, the client seed, the next nonce, revealed seeds."""

    commitment = fields.String(metadata={"description": "SHA-256 of the current secret seed."})
    client_seed = fields.String()
    nonce = fields.Integer(metadata={"description": "The nonce of the next server roll."})
    revealed_seeds = fields.Dict(
        keys=fields.String(), values=fields.String(), metadata={"description": "commitment → seed"}
    )


class Origin(Schema):
    """Where a forked campaign came from."""

    campaign_id = fields.UUID(metadata={"description": "The campaign this one was forked from."})
    version = fields.Integer(metadata={"description": "The version it was forked at."})
    head_hash = fields.String(metadata={"description": "The original's head hash at that version."})


class Fork(Schema):
    """A campaign forked from this one."""

    id = fields.UUID()
    name = fields.String()
    at_version = fields.Integer(metadata={"description": "The version of this campaign forked."})
    created_at = fields.String()


class Campaign(Schema):
    """A campaign: its game, version, head hash, dice commitment, house rules and state."""

    id = fields.UUID()
    game = fields.String()
    name = fields.String()
    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = checkpoint_field(
        f"{CHECKPOINT_DESCRIPTION} Only in the answer that creates the campaign (or the fork)."
    )
    commitment = fields.String()
    client_seed = fields.String()
    origin = fields.Nested(
        Origin, allow_none=True, metadata={"description": "Where a fork came from; null if none."}
    )
    forks = fields.List(
        fields.Nested(Fork), metadata={"description": "The campaigns forked from this one."}
    )
    state = fields.Dict()


class CampaignSummary(Schema):
    """A campaign as the campaign list shows it."""

    id = fields.UUID()
    game = fields.String()
    name = fields.String()
    created_at = fields.DateTime()
    position = fields.Integer(metadata={"description": "Cursor value for ?after= paging."})


class CampaignPage(LogPage):
    """One page of campaigns."""

    items = fields.List(fields.Nested(CampaignSummary))


class CampaignQuery(Schema):
    version = fields.Integer(
        validate=validate.Range(min=1, max=MAX_POSITION),
        metadata={"description": "Show the state at this version."},
    )
    at = Timestamp(
        metadata={
            "description": "Show the state at this moment (ISO-8601; UTC without an offset): "
            "the last version recorded at or before it.",
            "example": ISO_EXAMPLE,
            "type": "string",
            "format": "date-time",
        }
    )

    @validates_schema
    def one_point(self, data: dict[str, Any], **_: Any) -> None:
        """A point in the past is a version or a moment, not both."""
        if "version" in data and "at" in data:
            raise ValidationError("give version or at, not both", field_name="at")


class PageQuery(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_POSITION))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=1000))


class Event(Schema):
    """One stored event as the event list shows it, with its place in the hash chain."""

    version = fields.Integer()
    type = fields.String()
    timestamp = fields.String()
    data = fields.Dict()
    prev_hash = fields.String()
    hash = fields.String()
    undone = fields.Boolean(metadata={"description": "Off the active history after a rollback."})
    undone_by = fields.Integer(
        allow_none=True, metadata={"description": "The version of the rollback that undid it."}
    )
    actor = fields.String(
        allow_none=True,
        metadata={
            "description": "Who caused it (token name#id or system); part of the event's hash "
            "when present."
        },
    )
    summary = fields.String(
        metadata={
            "description": "The event in one line of words, read from its data (who, the numbers "
            "and what they mean, before → after, the outcome). Computed when read, never stored "
            "and outside the hash (docs/events.md, Summaries). Not in a bundle."
        }
    )


class EventPage(LogPage):
    """One page of a campaign's events."""

    items = fields.List(fields.Nested(Event))


class AuditQuery(Schema):
    head = fields.String(
        validate=validate.Regexp(r"^[0-9a-f]{64}$", error="must be a 64-character hex hash"),
        metadata={"description": "A head_hash receipt to look for in the chain."},
    )
    after = fields.Integer(
        validate=validate.Range(min=1, max=MAX_POSITION),
        metadata={
            "description": "Resume from a version this verifier has verified already (with "
            "after_hash, the head hash it holds for it, e.g. from a signed checkpoint): only "
            "what the new events need is read (docs/trust.md, 'Re-auditing')."
        },
    )
    after_hash = fields.String(
        validate=validate.Regexp(r"^[0-9a-f]{64}$", error="must be a 64-character hex hash"),
        metadata={"description": "The head hash the verifier holds for version `after`."},
    )

    @validates_schema
    def both_or_neither(self, data: dict[str, Any], **_: Any) -> None:
        """A resume point is a version and its hash, together."""
        if ("after" in data) != ("after_hash" in data):
            missing = "after_hash" if "after" in data else "after"
            raise ValidationError("give after and after_hash together", missing)
        if "head" in data and "after" in data:
            raise ValidationError(
                "a receipt is looked for in the whole chain, and a resumed audit reads only "
                "from its window: check it without after",
                "head",
            )


class RollCounts(Schema):
    """How many of a campaign's rolls are server, verified, awaiting a reveal, failed, reported."""

    server = fields.Integer()
    verified = fields.Integer()
    awaiting_reveal = fields.Integer()
    failed = fields.Integer()
    reported = fields.Integer()
    with_entropy = fields.Integer(
        metadata={"description": "Server rolls that carried the player's entropy."}
    )


class NonceGap(Schema):
    """A server roll whose nonce is not the next one under its commitment."""

    version = fields.Integer()
    roll_id = fields.String()
    commitment = fields.String()
    nonce = fields.Raw(metadata={"description": "The nonce the roll carries."})
    missing = fields.List(
        fields.Integer(),
        allow_none=True,
        metadata={"description": "The first and last missing nonce, or null (out of order)."},
    )
    problem = fields.String()


class Audit(Schema):
    """Whether a campaign's hash chain and rolls verify, and the first problem found."""

    ok = fields.Boolean()
    chain_ok = fields.Boolean()
    first_bad_version = fields.Integer(allow_none=True)
    head = fields.Dict()
    problems = fields.List(fields.Dict())
    rolls = fields.Nested(RollCounts)
    failed_rolls = fields.List(fields.String())
    nonces_ok = fields.Boolean(
        metadata={
            "description": "Whether the server rolls under each commitment carry nonces 0, 1, "
            "2, ... in log order (a missing nonce is a roll removed from the log)."
        }
    )
    nonce_gaps = fields.List(fields.Nested(NonceGap))
    receipt = fields.Dict()
    rollbacks = fields.List(
        fields.Dict(),
        metadata={"description": "Every rollback: who, when, why, the rolls it undid, the policy."},
    )
    rerolls = fields.Dict(
        metadata={
            "description": "count and items: undone rolls followed by a later active roll "
            "for the same purpose"
        }
    )
    flagged_rolls = fields.List(
        fields.String(), metadata={"description": "Server rolls undone under the 'flag' policy."}
    )
    fate_rerolls = fields.Dict(
        metadata={
            "description": "count and items: rolls that replaced an earlier roll by a fate "
            "reroll (G-CB-12), each with fate_reroll_of naming the roll it replaced"
        }
    )
    resumed = fields.Dict(
        metadata={
            "description": "Only for ?after=: the verifier's point (after, after_hash) and the "
            "first version this audit read (read_from); the counts cover read_from to the head."
        }
    )


class HouseRulesQuery(Schema):
    game = fields.String(required=True, validate=validate.OneOf(GAMES))


class HouseRule(Schema):
    """One house rule: its key, default, kind, choices or bounds, and whether it may be null."""

    key = fields.String()
    default = fields.Raw(allow_none=True)
    kind = fields.String()
    choices = fields.List(fields.Raw(), allow_none=True)
    minimum = fields.Integer(allow_none=True)
    maximum = fields.Integer(allow_none=True)
    nullable = fields.Boolean()
    gap = fields.String(allow_none=True)
    description = fields.String()


class HouseRuleList(Schema):
    """The house rules of a game."""

    game = fields.String()
    rules = fields.List(fields.Nested(HouseRule))


# -- a campaign as the routes answer it ------------------------------------------------------------


def campaign_body(
    campaign: CampaignAggregate, forks: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The public representation of a campaign."""
    facts = campaign_facts(campaign)
    return _body(campaign.id, campaign.version, campaign.head_hash, facts, forks or [])


def render_created(result: CommandResult) -> Rendered:
    """A new campaign's response (a creation or a fork)."""
    body = _body(result.campaign_id, result.version, result.head_hash, result.value, [])
    headers = {"Location": f"/campaigns/{result.campaign_id}", "ETag": f'"{result.version}"'}
    return 201, body, headers


def _body(
    cid: UUID, version: int, head_hash: str, facts: dict[str, Any], forks: list[dict[str, Any]]
) -> dict[str, Any]:
    """A campaign as ``Campaign`` shows it, from its id, head and facts."""
    body: dict[str, Any] = Campaign().dump(
        {"id": cid, "version": version, "head_hash": head_hash, **facts, "forks": forks}
    )
    return body
