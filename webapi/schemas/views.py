"""Query and response schemas of the view and analytics routes (they also make the OpenAPI
document)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.facade import COMPARTMENTS, GAMES, WEATHERS
from projections.charts import DEFAULT_POINTS, MAX_POINTS, MIN_POINTS
from webapi.schemas.fields import MAX_POSITION, Text, Timestamp

MAX_WAIT = 10.0


CURSOR = validate.Regexp(
    r"^[0-9]{1,18}-[0-9]{1,9}$", error="a cursor from a page's next, such as 12-0"
)


def text(description: str, *, free_text: bool = False) -> Text:
    """An optional filter string (``free_text``: a purpose, with tabs and line breaks allowed)."""
    return Text(
        free_text=free_text, validate=validate.Length(1, 200), metadata={"description": description}
    )


class WaitQuery(Schema):
    wait_for = fields.Integer(
        validate=validate.Range(min=0, max=MAX_POSITION),
        metadata={"description": "Wait until the view has applied this notification id."},
    )
    timeout = fields.Float(
        load_default=5.0,
        validate=validate.Range(min=0, max=MAX_WAIT),
        metadata={"description": "Seconds to wait at most (0 to 10, default 5)."},
    )


class CampaignWaitQuery(WaitQuery):
    wait_for_version = fields.Integer(
        validate=validate.Range(min=1, max=MAX_POSITION),
        metadata={"description": "Wait until the view has applied this campaign's version V."},
    )


class PageQuery(Schema):
    after = fields.String(validate=CURSOR, metadata={"description": "The previous page's next."})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class UndoneQuery(PageQuery):
    include_undone = fields.Boolean(
        load_default=True, metadata={"description": "Include rows a rollback undid (flagged)."}
    )


class ExhaustionQuery(CampaignWaitQuery, UndoneQuery):
    party = text("Only this party (player id).")
    night = fields.Integer(validate=validate.Range(min=0, max=MAX_POSITION))


class LedgerQuery(CampaignWaitQuery, UndoneQuery):
    hero_id = text("Only this hero.")
    cause = text("Only this cause (purchase, payment, debtPenalty, lottery, theft...).")
    entry = fields.String(
        validate=validate.OneOf(["movement", "opening", "reversal", "reinstatement", "adjustment"])
    )


class SpansQuery(CampaignWaitQuery):
    hero_id = text("Only this hero.")


class TimelineQuery(CampaignWaitQuery, UndoneQuery):
    stat = fields.String(validate=validate.OneOf(["hp", "virtue"]))
    hero_id = text("Only this hero.")


class LivesQuery(CampaignWaitQuery, UndoneQuery):
    hero_id = text("Only this hero.")


class RollFilters(Schema):
    source = fields.String(validate=validate.OneOf(["server", "reported"]))
    purpose = text("Only rolls made for this purpose.", free_text=True)
    verified = fields.Boolean(metadata={"description": "Only rolls re-derived (or not)."})
    since = Timestamp(metadata={"description": "Recorded at or after (ISO-8601)."})
    until = Timestamp(metadata={"description": "Recorded before (ISO-8601)."})


class CampaignRollsQuery(CampaignWaitQuery, UndoneQuery, RollFilters):
    pass


class RollsQuery(WaitQuery, UndoneQuery, RollFilters):
    campaign = fields.UUID(metadata={"description": "Only this campaign."})
    game = fields.String(validate=validate.OneOf(GAMES))


class WeatherQuery(CampaignWaitQuery, UndoneQuery):
    weather = fields.String(validate=validate.OneOf(WEATHERS))


class ShipQuery(CampaignWaitQuery, UndoneQuery):
    compartment = fields.String(validate=validate.OneOf(sorted(COMPARTMENTS)))


class LossesQuery(CampaignWaitQuery, UndoneQuery):
    kind = fields.String(validate=validate.OneOf(["crew", "upgrade"]))


class CampaignsQuery(WaitQuery, PageQuery):
    game = fields.String(validate=validate.OneOf(GAMES))


class Freshness(Schema):
    position = fields.Integer(metadata={"description": "The last notification id the view had."})
    head = fields.Integer(metadata={"description": "The log's last notification id."})
    lag = fields.Integer(metadata={"description": "head - position: events not yet applied."})
    caught_up = fields.Boolean(
        metadata={"description": "False when a wait_for timed out: the view is not there yet."}
    )


class ViewPage(Freshness):
    """One page of a read model's rows."""

    items = fields.List(fields.Dict())
    next = fields.String(allow_none=True, metadata={"description": "Cursor for ?after=."})


class SpanList(Freshness):
    """A read model's spans."""

    items = fields.List(fields.Dict())


class Summary(Freshness):
    """A read model's summary of a campaign."""

    summary = fields.Dict(allow_none=True, metadata={"description": "Null until the view saw it."})


class ChartsQuery(CampaignWaitQuery):
    points = fields.Integer(
        load_default=DEFAULT_POINTS,
        validate=validate.Range(min=MIN_POINTS, max=MAX_POINTS),
        metadata={
            "description": f"At most this many points per series ({MIN_POINTS} to {MAX_POINTS})."
        },
    )


class ChartSeries(Schema):
    """One line of a chart."""

    name = fields.String()
    cls = fields.String(metadata={"description": "The page's CSS class of the line."})
    points = fields.List(
        fields.List(fields.Float(), validate=validate.Length(equal=2)),
        metadata={
            "description": "[x, y] pairs in order of x: every point, or the first, the "
            "last, and the lowest and highest of each run between them."
        },
    )
    of = fields.Integer(metadata={"description": "How many points the whole series has."})


class Chart(Schema):
    """One chart of the table page: its title, what its x counts, its lines."""

    title = fields.String()
    x_label = fields.String(metadata={"description": "page, change or night."})
    series = fields.List(fields.Nested(ChartSeries))


class Charts(Freshness):
    """The table page's charts of a campaign's game, drawn from its views."""

    game = fields.String()
    charts = fields.List(fields.Nested(Chart))


class HorizonHolder(Schema):
    """The append that holds the log's horizon back, for an operator to find and end."""

    transaction = fields.String(metadata={"description": "Its PostgreSQL transaction id."})
    pid = fields.Integer(metadata={"description": "The server process of its session."})
    application_name = fields.String(allow_none=True)
    state = fields.String(allow_none=True, metadata={"description": "As pg_stat_activity says."})


class Horizon(Schema):
    """What the views and live pages wait for on PostgreSQL: Questlog's oldest open append."""

    age_seconds = fields.Float(
        metadata={"description": "How long that append's transaction has been open; 0 if none."}
    )
    held_by = fields.Nested(HorizonHolder, allow_none=True)


class ProjectionStatus(Schema):
    """How far each read model has caught up with the event store."""

    head = fields.Integer()
    horizon = fields.Nested(
        Horizon,
        allow_none=True,
        metadata={"description": "PostgreSQL only (null on SQLite, which has no horizon)."},
    )
    views = fields.List(
        fields.Dict(),
        metadata={"description": "name, position, lag, applied, rebuilding, lease (who runs it)"},
    )
    worker = fields.Dict(allow_none=True, metadata={"description": "The embedded runner, if any."})
