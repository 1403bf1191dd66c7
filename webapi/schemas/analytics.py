"""Schemas of the analytics routes: dice fairness per campaign and across campaigns, and the
figures across campaigns, each over an optional period."""

from __future__ import annotations

import json
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domain.facade import GAMES, book
from projections.fairness import ALPHA
from projections.filters import Filter
from webapi.http.view_store import iso
from webapi.schemas.fields import Text, Timestamp
from webapi.schemas.house_rules import filter_pattern
from webapi.schemas.views import Freshness, WaitQuery, text

MAX_NIGHT = 1_000_000
RULE_PATTERN = filter_pattern()
"""What a ``house_rule`` filter looks like in the document: one of either game's keys, ``=``, and
a value its rule takes; a rule with a validator of its own says the rest in its description."""


class Period(Schema):
    since = Timestamp(metadata={"description": "Recorded at or after (ISO-8601)."})
    until = Timestamp(metadata={"description": "Recorded before (ISO-8601)."})
    include_undone = fields.Boolean(
        load_default=False, metadata={"description": "Count what a rollback undid too."}
    )


class GameDates(Schema):
    """The game's dates: Quest Calendar page dates and Calendar Board nights, inclusive."""

    from_date = fields.Date(
        metadata={"description": "Quest Calendar rows of pages dated on or after (YYYY-MM-DD)."}
    )
    to_date = fields.Date(
        metadata={"description": "Quest Calendar rows of pages dated on or before (YYYY-MM-DD)."}
    )
    from_night = fields.Integer(
        validate=validate.Range(min=0, max=MAX_NIGHT),
        metadata={"description": "Calendar Board rows of this night or later."},
    )
    to_night = fields.Integer(
        validate=validate.Range(min=0, max=MAX_NIGHT),
        metadata={"description": "Calendar Board rows of this night or earlier."},
    )

    @validates_schema
    def ordered(self, data: dict[str, Any], **_: Any) -> None:
        """A range that ends before it starts is a mistake, not an empty answer."""
        for low, high in (("from_date", "to_date"), ("from_night", "to_night")):
            if data.get(low) is not None and data.get(high) is not None and data[high] < data[low]:
                raise ValidationError(f"must not be before {low}", high)


class HouseRuleFilter(fields.Field[tuple[str, Any]]):
    """``key=value``: a house rule and the value in force (JSON, or plain text for a string)."""

    text = Text(validate=validate.Length(3, 400))

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> tuple[str, Any]:
        text: str = self.text.deserialize(value)
        key, equals, raw = text.partition("=")
        if not equals or not key:
            raise ValidationError("must be key=value, e.g. cb.weather.nightGap=previous")
        rule = next((b.rules[key] for b in map(book, GAMES) if key in b.rules), None)
        if rule is None:
            raise ValidationError(f"unknown house rule {key!r}")
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw
        if rule.problems(parsed, key) and not rule.problems(raw, key):
            parsed = raw  # "3" of a text rule: the text, not the number
        problems = rule.problems(parsed, key)
        if problems:
            raise ValidationError("; ".join(m for ms in problems.values() for m in ms))
        return key, parsed


class AnalyticsQuery(WaitQuery, Period, GameDates):
    """What the analytics count: by campaign, game, house rule, the game's dates and time."""

    campaign = fields.UUID(metadata={"description": "Only this campaign."})
    game = fields.String(
        validate=validate.OneOf(GAMES), metadata={"description": "Only this game."}
    )
    house_rule = fields.List(
        HouseRuleFilter(
            metadata={"type": "string", "pattern": RULE_PATTERN, "minLength": 3, "maxLength": 400}
        ),
        validate=validate.Length(max=20),
        metadata={
            "description": "Only campaigns with this house rule value in force now, as "
            "key=value (JSON, or plain text for a string); repeat for several, all must hold."
        },
    )


class CampaignDiceQuery(WaitQuery, Period, GameDates):
    """Which of one campaign's rolls to count: by source, purpose, the game's dates and time."""

    source = fields.String(validate=validate.OneOf(["server", "reported"]))
    purpose = text("Only rolls made for this purpose.", free_text=True)
    alpha = fields.Float(
        load_default=ALPHA,
        validate=validate.Range(min=0, max=1, min_inclusive=False),
        # OpenAPI 3.0 says "above 0" so: apispec writes the minimum only
        metadata={
            "description": "Flag dice whose p-value is below this (default 0.001).",
            "exclusiveMinimum": True,
        },
    )


class DiceQuery(AnalyticsQuery):
    source = fields.String(validate=validate.OneOf(["server", "reported"]))
    purpose = text("Only rolls made for this purpose.", free_text=True)
    by_campaign = fields.Boolean(
        load_default=False, metadata={"description": "Count and test each campaign apart."}
    )
    alpha = fields.Float(
        load_default=ALPHA,
        validate=validate.Range(min=0, max=1, min_inclusive=False),
        # OpenAPI 3.0 says "above 0" so: apispec writes the minimum only
        metadata={
            "description": "Flag dice whose p-value is below this (default 0.001).",
            "exclusiveMinimum": True,
        },
    )


class CampaignFiguresQuery(AnalyticsQuery):
    pass


def analytics_filter(query: dict[str, Any], campaign: str | None = None) -> Filter:
    """The filter a query asks for (``campaign``: the campaign of the route's path)."""
    owner = campaign if campaign is not None else query.get("campaign")
    dates = {k: query.get(k) for k in ("from_date", "to_date")}
    return Filter(
        campaign_id=None if owner is None else str(owner),
        game=query.get("game"),
        house_rules=tuple(query.get("house_rule") or ()),
        from_date=None if dates["from_date"] is None else dates["from_date"].isoformat(),
        to_date=None if dates["to_date"] is None else dates["to_date"].isoformat(),
        from_night=query.get("from_night"),
        to_night=query.get("to_night"),
        since=iso(query.get("since")),
        until=iso(query.get("until")),
        include_undone=query["include_undone"],
    )


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
