"""Schemas of the time-travel routes: rollbacks, proposals, forks and step-through replay."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.facade import MAX_REPLAY
from webapi.schemas.campaigns import Event
from webapi.schemas.fields import (
    MAX_POSITION,
    Text,
    checkpoint_field,
    version,
)


class RollbackCreate(Schema):
    """A rollback to an earlier version (or a proposal of one, in a match)."""

    to_version = version(
        metadata={"description": "The earlier version whose state becomes the state again."},
    )
    reason = Text(required=True, free_text=True, blank=False, validate=validate.Length(1, 500))
    actor = Text(
        blank=False,
        validate=validate.Length(1, 200),
        metadata={"description": "Who rolls back (free text)."},
    )


class ProposalCreate(Schema):
    """A proposal to roll a match back to an earlier version."""

    to_version = version()
    reason = Text(required=True, free_text=True, blank=False, validate=validate.Length(1, 500))
    proposer = Text(
        required=True,
        blank=False,
        validate=validate.Length(1, 200),
        metadata={"description": "Who proposes; a player who proposes agrees by proposing."},
    )


class Approval(Schema):
    """A player's approval of a rollback proposal."""

    player = Text(required=True, blank=False, validate=validate.Length(1, 200))


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
    name = Text(required=True, blank=False, validate=validate.Length(1, 200))
    client_seed = Text(
        blank=False,
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
