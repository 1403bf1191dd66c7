"""Schemas of the table page's guidance routes: what the state accepts now, and the samples."""

from __future__ import annotations

from marshmallow import Schema, fields, validate


class PendingDecision(Schema):
    """The decision the game waits for: as a refusal names it, plus what its answer needs."""

    decision = fields.String(allow_none=True)
    who = fields.String(allow_none=True, metadata={"description": "Whose decision it is."})
    rule = fields.String(allow_none=True)
    commands = fields.List(fields.String(), metadata={"description": "The commands it accepts."})
    options = fields.Raw(allow_none=True, metadata={"description": "The options it offers."})
    context = fields.Dict(allow_none=True, metadata={"description": "What the answer needs."})


class Turn(Schema):
    """Whose move it is in a match (null for a solo game)."""

    player = fields.String(
        allow_none=True,
        metadata={"description": "The player a decision waits for, else whose turn it is."},
    )
    phase = fields.String(validate=validate.OneOf(("day", "night")))
    step = fields.String(allow_none=True, metadata={"description": "The night step (at night)."})
    yours = fields.Boolean(metadata={"description": "Whether the caller's seat is that player."})


class CommandAvailability(Schema):
    """One command of the game and whether the state accepts it now."""

    name = fields.String()
    available = fields.Boolean()
    rule = fields.String(metadata={"description": "The rule that refuses it (if unavailable)."})
    reason = fields.String(metadata={"description": "Why (if unavailable)."})


class Undo(Schema):
    """How the newest command is undone: a rollback to the version before it."""

    to_version = fields.Integer()
    command = fields.String(metadata={"description": "The newest command (or event) type."})
    from_version = fields.Integer(metadata={"description": "Its first version."})
    policy = fields.String(
        validate=validate.OneOf(("direct", "proposal", "forbidden")),
        metadata={
            "description": "direct: POST /rollback; proposal: POST /rollback/proposals; "
            "forbidden: not by this caller."
        },
    )
    reason = fields.String()


class Actions(Schema):
    """What the campaign's head accepts now, computed by the game's rules."""

    version = fields.Integer()
    pending = fields.Nested(PendingDecision, allow_none=True)
    turn = fields.Nested(Turn, allow_none=True)
    commands = fields.List(fields.Nested(CommandAvailability))
    undo = fields.Nested(Undo, allow_none=True)


class SampleHero(Schema):
    """A sample hero: its name and a ``select_hero`` body without ``type``."""

    name = fields.String()
    hero = fields.Dict(metadata={"description": "phase and hero, as select_hero takes them."})


class SampleSetup(Schema):
    """A sample match: its name, a calendar-board set-up and the house rules it is meant for."""

    name = fields.String()
    setup = fields.Dict()
    house_rules = fields.Dict()


class Samples(Schema):
    """Sample heroes and match set-ups."""

    heroes = fields.List(fields.Nested(SampleHero))
    setups = fields.List(fields.Nested(SampleSetup))
