"""Schemas of the dice routes: a roll with its dice and proof, and what an append answers."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import Schema, fields, validate

from domain.facade import FACE_DOCUMENT
from webapi.schemas.campaigns import DiceState
from webapi.schemas.fields import (
    CHECKPOINT_DESCRIPTION,
    LogPage,
    Text,
    checkpoint_field,
)


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


_DIE = r"([1-9][0-9]?)?[dD](4|6|8|10|12|20|100|%)([kK][hHlL][1-9][0-9]?)?"
_TERM = rf"({_DIE}|[0-9]{{1,3}})"
FREE_ROLL_PATTERN = rf"^([0-9]{{1,3}}[+-])*{_DIE}([+-]{_TERM})*$"
"""The free roll's notation as the document states it: dice terms and whole numbers joined by
+ and -, at least one of them a die; the sum of the dice, the sum of the numbers and the keeps
against their terms are said in words."""


class RollCreate(Schema):
    """A free roll: its notation and purpose, or faces rolled by hand."""

    refused_shapes: ClassVar[tuple[dict[str, Any], ...]] = (
        {"required": ["entropy", "faces"], "properties": {"entropy": {"type": "string"}}},
    )
    """What the document states of entropy and faces: one or the other (a null entropy is none)."""

    dice = Text(
        required=True,
        validate=validate.Length(max=200),
        metadata={
            "example": "d20+3",
            "description": "NdS[khK|klK] terms (d% is the d100) and ± integers, at least one "
            "die and at most 100 dice in all, a keep (kh/kl) no larger than its term's dice, "
            "and the integers adding up to at most ±1000.",
            "pattern": FREE_ROLL_PATTERN,
        },
    )
    purpose = Text(
        free_text=True,
        load_default="",
        validate=validate.Length(max=500),
        metadata={"example": "investigate"},
    )
    faces = fields.List(
        fields.Raw(metadata=FACE_DOCUMENT),
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


class RollPage(LogPage):
    """One page of a campaign's rolls."""

    items = fields.List(fields.Nested(Roll))


class ClientSeedSet(Schema):
    """A new client seed for the campaign's server dice."""

    client_seed = Text(required=True, blank=False, validate=validate.Length(1, 128))


class Appended(Schema):
    """What a change appended: the campaign's new version and head hash, and what it changed."""

    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = checkpoint_field()
    dice = fields.Nested(DiceState)
    house_rules = fields.Dict()
    revealed_seed = fields.String()
    revealed_commitment = fields.String()
