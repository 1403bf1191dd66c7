"""Request and response schemas (marshmallow); they also make the OpenAPI document."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.model.house_rules import GAMES
from domain.model.text import has_control_characters
from domain.service.timetravel import MAX_REPLAY
from webapi.schemas import catalogue

MAX_POSITION = 2**62
ISO_EXAMPLE = "2026-11-30T15:47:17Z"


CHECKPOINT_DESCRIPTION = (
    "A signed checkpoint of this answer's version and head hash: a C2SP signed note "
    "(docs/trust.md). Keep it: it proves what the log said, to anyone with the verifier key."
)


def checkpoint_field(description: str = CHECKPOINT_DESCRIPTION) -> fields.String:
    """The ``checkpoint`` of an appending answer."""
    return fields.String(metadata={"description": description})


class Timestamp(fields.Field):
    """An ISO-8601 timestamp; without an offset it is UTC.

    In a query string an unescaped ``+`` arrives as a space, so a space before a trailing offset
    is read as ``+`` again (``?at=2026-11-30T15:47:17+01:00`` works as typed).
    """

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> datetime:
        if not isinstance(value, str) or len(value) > 64:
            raise ValidationError(f"must be an ISO-8601 timestamp, such as {ISO_EXAMPLE}")
        text = re.sub(
            r"(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$", r"\1+\2", value.strip()
        )
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError(f"must be an ISO-8601 timestamp, such as {ISO_EXAMPLE}") from None
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Text(fields.String):
    """A string without control characters (Unicode Cc); ``free_text`` (a purpose, a reason) may
    hold tabs and line breaks. NUL is never allowed: PostgreSQL text cannot hold it."""

    def __init__(self, *, free_text: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.free_text = free_text

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        if has_control_characters(text, free_text=self.free_text):
            allowed = " other than tab, line feed and carriage return" if self.free_text else ""
            raise ValidationError(f"must not contain control characters{allowed}")
        return text


class Flag(fields.Boolean):
    """A JSON body's true or false, nothing else (not 0, 1, 0.0 or "true"); a query string's
    flags stay ``fields.Boolean``, since a query string is text."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def version(**kwargs: Any) -> fields.Integer:
    """A version in a JSON body: a JSON integer (not 1.5, 1.0, "1" or true) from 1 up."""
    return fields.Integer(
        strict=True, required=True, validate=validate.Range(min=1, max=MAX_POSITION), **kwargs
    )


class CampaignCreate(Schema):
    """A new campaign: its game, name, house rules, client seed and the game's setup."""

    game = Text(
        required=True, validate=validate.OneOf(GAMES), metadata={"example": "quest-calendar"}
    )
    name = Text(
        required=True, validate=validate.Length(1, 200), metadata={"example": "Voidspark year one"}
    )
    house_rules = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={"description": "Overrides of house-rule defaults (see GET /house-rules)."},
    )
    client_seed = Text(
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


class CampaignPage(Schema):
    """One page of campaigns."""

    items = fields.List(fields.Nested(CampaignSummary))
    next_after = fields.Integer(allow_none=True)


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


class Die(Schema):
    """One die of a roll: its sides, its reading and what was shown."""

    sides = fields.Integer()
    face = fields.Integer(metadata={"description": "The reading (a lone d10's 0 reads 10)."})
    raw = fields.Raw(
        metadata={
            "description": "What the player reported, where it differs from the reading: a "
            'd10 0 (QC-08) or a d100 {"tens", "units"} pair (QC-09).'
        }
    )
    kept = fields.Boolean()


class Proof(Schema):
    """What proves a server roll: commitment, client seed, nonce, the player's entropy if the
    roll carried one and, once revealed, the seed."""

    commitment = fields.String()
    client_seed = fields.String()
    nonce = fields.Integer()
    entropy = fields.String(
        metadata={"description": "The player's entropy, when the roll carried one."}
    )
    server_seed = fields.String(metadata={"description": "Present once the seed is revealed."})


class RollCreate(Schema):
    """A free roll: its notation and purpose, or faces rolled by hand."""

    dice = Text(
        required=True,
        validate=validate.Length(max=200),
        metadata={
            "example": "d20+3",
            "description": "NdS[khK|klK] terms (d% is the d100) and ± integers.",
        },
    )
    purpose = Text(
        free_text=True,
        load_default="",
        validate=validate.Length(max=500),
        metadata={"example": "investigate"},
    )
    faces = fields.List(
        fields.Raw(),
        metadata={
            "description": "Faces rolled by hand, in draw order: integers, a d10 may read 0 "
            '(= 10), a d100 may be {"tens": 60, "units": 5}. Omit to roll on the server.'
        },
    )
    entropy = Text(
        allow_none=True,
        validate=validate.Regexp(
            r"^[A-Za-z0-9_-]{1,64}$",
            error="must be 1 to 64 characters, each a letter, a digit, '_' or '-'",
        ),
        metadata={
            "example": "k3V9-qT2x_8bLw0Z",
            "description": "The player's entropy, chosen at the moment of rolling (the table "
            "page fills it from crypto.getRandomValues): mixed into the server's dice so that "
            "not even the host can foresee the roll, and kept in its proof. A retry under the "
            "same Idempotency-Key must carry the same entropy. Not with `faces`.",
        },
    )


class Roll(Schema):
    """A stored roll: its notation, dice, total and proof."""

    roll_id = fields.String()
    version = fields.Integer()
    purpose = fields.String()
    notation = fields.String()
    dice = fields.List(fields.Nested(Die))
    modifier = fields.Integer()
    total = fields.Integer()
    source = fields.String(metadata={"description": "server | reported"})
    proof = fields.Nested(Proof)
    fate_reroll_of = fields.String(
        metadata={"description": "The roll this one replaced by a fate reroll (G-CB-12)."}
    )
    verified = fields.Boolean(
        allow_none=True, metadata={"description": "null while the seed is secret"}
    )
    undone = fields.Boolean(metadata={"description": "Undone by a rollback (its event is)."})
    undone_by = fields.Integer(
        allow_none=True, metadata={"description": "The version of the rollback that undid it."}
    )
    summary = fields.String(
        metadata={
            "description": "The roll in words: its purpose, dice, modifier and total, and when a "
            "game event made it, that event's summary (its outcome). Computed when read, never "
            "stored (docs/events.md, Summaries)."
        }
    )
    head_hash = fields.String(metadata={"description": "Chain head after the append (receipt)."})
    checkpoint = checkpoint_field(f"{CHECKPOINT_DESCRIPTION} Only in a new roll's answer.")


class RollPage(Schema):
    """One page of a campaign's rolls."""

    items = fields.List(fields.Nested(Roll))
    next_after = fields.Integer(allow_none=True)


class ClientSeedSet(Schema):
    """A new client seed for the campaign's server dice."""

    client_seed = Text(required=True, validate=validate.Length(1, 128))


class Appended(Schema):
    """What a change appended: the campaign's new version and head hash, and what it changed."""

    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = checkpoint_field()
    dice = fields.Nested(DiceState)
    house_rules = fields.Dict()
    revealed_seed = fields.String()
    revealed_commitment = fields.String()


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


class EventPage(Schema):
    """One page of a campaign's events."""

    items = fields.List(fields.Nested(Event))
    next_after = fields.Integer(allow_none=True)


class AuditQuery(Schema):
    head = fields.String(
        validate=validate.Regexp(r"^[0-9a-f]{64}$", error="must be a 64-character hex hash"),
        metadata={"description": "A head_hash receipt to look for in the chain."},
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


# -- time travel ---------------------------------------------------------------------------------


class RollbackCreate(Schema):
    """A rollback to an earlier version (or a proposal of one, in a match)."""

    to_version = version(
        metadata={"description": "The earlier version whose state becomes the state again."},
    )
    reason = Text(required=True, free_text=True, validate=validate.Length(1, 500))
    actor = Text(
        validate=validate.Length(1, 200), metadata={"description": "Who rolls back (free text)."}
    )


class ProposalCreate(Schema):
    """A proposal to roll a match back to an earlier version."""

    to_version = version()
    reason = Text(required=True, free_text=True, validate=validate.Length(1, 500))
    proposer = Text(
        required=True,
        validate=validate.Length(1, 200),
        metadata={"description": "Who proposes; a player who proposes agrees by proposing."},
    )


class Approval(Schema):
    """A player's approval of a rollback proposal."""

    player = Text(required=True, validate=validate.Length(1, 200))


class Proposal(Schema):
    """A proposed rollback and the approvals it has."""

    proposal_id = fields.String()
    version = fields.Integer(metadata={"description": "The version of the proposal event."})
    to_version = fields.Integer()
    reason = fields.String()
    proposer = fields.String()
    players = fields.List(fields.String(), metadata={"description": "Who must agree."})
    approvals = fields.List(fields.String(), metadata={"description": "Who has agreed."})
    status = fields.String(metadata={"description": "open | executed"})
    executed_at = fields.Integer(
        allow_none=True, metadata={"description": "The version of its RolledBack event."}
    )


class ProposalList(Schema):
    """The open rollback proposals of a match."""

    items = fields.List(fields.Nested(Proposal))


class RollbackResult(Schema):
    """A rollback request's result: new version and head hash, the rollback or proposal, state."""

    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = checkpoint_field()
    rollback = fields.Dict(
        allow_none=True, metadata={"description": "The RolledBack event's data, once carried out."}
    )
    proposal = fields.Nested(Proposal, allow_none=True)
    state = fields.Dict(metadata={"description": "The campaign state after the request."})


class ForkCreate(Schema):
    """A fork of this campaign at a version, as a new campaign."""

    at_version = version(
        metadata={"description": "The version of this campaign the fork starts from."},
    )
    name = Text(required=True, validate=validate.Length(1, 200))
    client_seed = Text(
        validate=validate.Length(1, 128),
        metadata={"description": "Client seed for the fork's server dice; random when omitted."},
    )


class ReplayQuery(Schema):
    first = fields.Integer(
        data_key="from",
        load_default=1,
        validate=validate.Range(min=1, max=MAX_POSITION),
        metadata={"description": "The first version to replay."},
    )
    last = fields.Integer(
        data_key="to",
        validate=validate.Range(min=1, max=MAX_POSITION),
        metadata={
            "description": f"The last version (default: the head, at most from + {MAX_REPLAY - 1})."
        },
    )


class ReplayStep(Schema):
    """One step of a replay: an event and the patch it makes to the view."""

    event = fields.Nested(Event)
    patch = fields.List(
        fields.Dict(),
        metadata={"description": "RFC 6902 JSON Patch from the view before to after."},
    )


class Replay(Schema):
    """A campaign replayed event by event."""

    before = fields.Dict(metadata={"description": "The view before the first event ({} at 1)."})
    items = fields.List(fields.Nested(ReplayStep))
    next_from = fields.Integer(allow_none=True, metadata={"description": "The next page's from."})


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


class Problem(Schema):
    """An RFC 9457 problem: every error response has this shape."""

    type = fields.String(metadata={"example": "urn:questlog:problem:invalid-input"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    instance = fields.String()
    errors = fields.Dict(metadata={"description": "422: field name → list of messages"})
    rule = fields.String(metadata={"description": "409: the rule ID that forbids the command"})
    pending = fields.Dict(
        metadata={
            "description": "409 while a decision is pending: decision, who, rule, the commands "
            "accepted now and the options"
        }
    )
    also = fields.Dict(
        metadata={
            "description": "409 while a decision is pending: the rule (and detail) that would "
            "refuse the command on its own"
        }
    )
    stored = fields.Boolean(
        allow_none=True,
        metadata={
            "description": "503/507: false if the command was not stored, null if that could "
            "not be found out (retry with the same Idempotency-Key)"
        },
    )
