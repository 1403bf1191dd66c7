"""Schemas of the analytics routes: dice fairness per campaign and across campaigns, and the
figures across campaigns, each over an optional period."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.facade import GAMES
from projections.fairness import ALPHA
from webapi.schemas.fields import Timestamp
from webapi.schemas.views import Freshness, WaitQuery, text


class Period(Schema):
    since = Timestamp(metadata={"description": "Recorded at or after (ISO-8601)."})
    until = Timestamp(metadata={"description": "Recorded before (ISO-8601)."})
    include_undone = fields.Boolean(
        load_default=False, metadata={"description": "Count what a rollback undid too."}
    )


class CampaignDiceQuery(WaitQuery, Period):
    """Which of one campaign's rolls to count: by source, purpose and time."""

    source = fields.String(validate=validate.OneOf(["server", "reported"]))
    purpose = text("Only rolls made for this purpose.", free_text=True)
    alpha = fields.Float(
        load_default=ALPHA,
        validate=validate.Range(min=0, max=1, min_inclusive=False),
        metadata={"description": "Flag dice whose p-value is below this (default 0.001)."},
    )


class DiceQuery(WaitQuery, Period):
    campaign = fields.UUID(metadata={"description": "Only this campaign."})
    game = fields.String(validate=validate.OneOf(GAMES))
    source = fields.String(validate=validate.OneOf(["server", "reported"]))
    purpose = text("Only rolls made for this purpose.", free_text=True)
    by_campaign = fields.Boolean(
        load_default=False, metadata={"description": "Count and test each campaign apart."}
    )
    alpha = fields.Float(
        load_default=ALPHA,
        validate=validate.Range(min=0, max=1, min_inclusive=False),
        metadata={"description": "Flag dice whose p-value is below this (default 0.001)."},
    )


class CampaignFiguresQuery(WaitQuery, Period):
    pass


class DiceFairness(Freshness):
    """How the campaign's dice have fallen, face by face."""

    dice = fields.List(
        fields.Dict(),
        metadata={
            "description": "Per die type and source: faces, expected, test, groups, unlikely_fair."
        },
    )
    sources = fields.List(
        fields.Dict(), metadata={"description": "Per source: die types combined."}
    )
    alpha = fields.Float()
    skipped_rolls = fields.Integer(metadata={"description": "Rolls whose notation did not parse."})


class CampaignFigures(Freshness):
    """A campaign's figures from the read models."""

    credits_by_page = fields.List(fields.Dict())
    deaths_by_level = fields.List(fields.Dict())
    clone_results = fields.Dict(metadata={"description": "clone result (d4 outcome) → count"})
    combat_by_mode = fields.List(fields.Dict())
    exhaustion_by_night = fields.List(fields.Dict())
    weather = fields.Dict()
    positions = fields.Dict(metadata={"description": "The position of each view read."})
