"""Request and response schemas (marshmallow); they also make the OpenAPI document."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.house_rules import GAMES

MAX_POSITION = 2**62


class CampaignCreate(Schema):
    game = fields.String(
        required=True, validate=validate.OneOf(GAMES), metadata={"example": "quest-calendar"}
    )
    name = fields.String(
        required=True, validate=validate.Length(1, 200), metadata={"example": "Voidspark year one"}
    )
    house_rules = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "Overrides of house-rule defaults (see GET /house-rules)."},
    )
    client_seed = fields.String(
        validate=validate.Length(1, 128),
        metadata={"description": "Client seed for server dice; random when omitted."},
    )
    setup = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "The game's own setup (e.g. the players of a match)."},
    )


class DiceState(Schema):
    commitment = fields.String(metadata={"description": "SHA-256 of the current secret seed."})
    client_seed = fields.String()
    nonce = fields.Integer(metadata={"description": "The nonce of the next server roll."})
    revealed_seeds = fields.Dict(
        keys=fields.String(), values=fields.String(), metadata={"description": "commitment → seed"}
    )


class Campaign(Schema):
    id = fields.UUID()
    game = fields.String()
    name = fields.String()
    version = fields.Integer()
    head_hash = fields.String()
    commitment = fields.String()
    client_seed = fields.String()
    origin = fields.Dict(allow_none=True)
    state = fields.Dict()


class CampaignSummary(Schema):
    id = fields.UUID()
    game = fields.String()
    name = fields.String()
    created_at = fields.DateTime()
    position = fields.Integer(metadata={"description": "Cursor value for ?after= paging."})


class CampaignPage(Schema):
    items = fields.List(fields.Nested(CampaignSummary))
    next_after = fields.Integer(allow_none=True)


class CampaignQuery(Schema):
    version = fields.Integer(
        validate=validate.Range(min=1, max=MAX_POSITION),
        metadata={"description": "Show the state at this version."},
    )


class PageQuery(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_POSITION))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=1000))


class Die(Schema):
    sides = fields.Integer()
    face = fields.Integer()
    kept = fields.Boolean()


class Proof(Schema):
    commitment = fields.String()
    client_seed = fields.String()
    nonce = fields.Integer()
    server_seed = fields.String(metadata={"description": "Present once the seed is revealed."})


class RollCreate(Schema):
    dice = fields.String(
        required=True,
        validate=validate.Length(max=200),
        metadata={"example": "d20+3", "description": "NdS[khK|klK] terms and ± integers."},
    )
    purpose = fields.String(
        load_default="", validate=validate.Length(max=500), metadata={"example": "investigate"}
    )
    faces = fields.List(
        fields.Raw(),
        metadata={
            "description": "Faces rolled by hand, in draw order: integers, a d10 may read 0 "
            '(= 10), a d100 may be {"tens": 60, "units": 5}. Omit to roll on the server.'
        },
    )


class Roll(Schema):
    roll_id = fields.String()
    version = fields.Integer()
    purpose = fields.String()
    notation = fields.String()
    dice = fields.List(fields.Nested(Die))
    modifier = fields.Integer()
    total = fields.Integer()
    source = fields.String(metadata={"description": "server | reported"})
    proof = fields.Nested(Proof)
    verified = fields.Boolean(
        allow_none=True, metadata={"description": "null while the seed is secret"}
    )
    head_hash = fields.String(metadata={"description": "Chain head after the append (receipt)."})


class RollPage(Schema):
    items = fields.List(fields.Nested(Roll))
    next_after = fields.Integer(allow_none=True)


class ClientSeedSet(Schema):
    client_seed = fields.String(required=True, validate=validate.Length(1, 128))


class Appended(Schema):
    version = fields.Integer()
    head_hash = fields.String()
    dice = fields.Nested(DiceState)
    house_rules = fields.Dict()
    revealed_seed = fields.String()
    revealed_commitment = fields.String()


class Event(Schema):
    version = fields.Integer()
    type = fields.String()
    timestamp = fields.String()
    data = fields.Dict()
    prev_hash = fields.String()
    hash = fields.String()


class EventPage(Schema):
    items = fields.List(fields.Nested(Event))
    next_after = fields.Integer(allow_none=True)


class AuditQuery(Schema):
    head = fields.String(
        validate=validate.Regexp(r"^[0-9a-f]{64}$", error="must be a 64-character hex hash"),
        metadata={"description": "A head_hash receipt to look for in the chain."},
    )


class RollCounts(Schema):
    server = fields.Integer()
    verified = fields.Integer()
    awaiting_reveal = fields.Integer()
    failed = fields.Integer()
    reported = fields.Integer()


class Audit(Schema):
    ok = fields.Boolean()
    chain_ok = fields.Boolean()
    first_bad_version = fields.Integer(allow_none=True)
    head = fields.Dict()
    problems = fields.List(fields.Dict())
    rolls = fields.Nested(RollCounts)
    failed_rolls = fields.List(fields.String())
    receipt = fields.Dict()


class HouseRulesQuery(Schema):
    game = fields.String(required=True, validate=validate.OneOf(GAMES))


class HouseRule(Schema):
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
    game = fields.String()
    rules = fields.List(fields.Nested(HouseRule))


class Problem(Schema):
    """An RFC 9457 problem: every error response has this shape."""

    type = fields.String(metadata={"example": "urn:questlog:problem:invalid-input"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    instance = fields.String()
    errors = fields.Dict(metadata={"description": "422: field name → list of messages"})
    rule = fields.String(metadata={"description": "409: the rule ID that forbids the command"})
