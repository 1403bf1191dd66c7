"""Schemas of ``GET /analytics/sql``: one read-only SELECT over the dataset's tables, and its
answer (columns with their types, rows, whether cut at the limit, the views' positions read)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.facade import GAMES
from projections.sql import MAX_QUERY, MAX_ROWS, TIMEOUT
from webapi.schemas.fields import Text


class SqlQuery(Schema):
    """The query and its limits; ``campaign`` or ``game`` narrow every table to those rows."""

    q = Text(
        required=True,
        free_text=True,
        validate=validate.Length(1, MAX_QUERY),
        metadata={
            "description": "One SELECT (or WITH ... SELECT) over the tables of the dataset, "
            "e.g. SELECT source, count(*) FROM rolls GROUP BY source."
        },
    )
    limit = fields.Integer(
        load_default=MAX_ROWS,
        validate=validate.Range(min=1, max=MAX_ROWS),
        metadata={"description": f"The most rows answered (1 to {MAX_ROWS}, the default)."},
    )
    timeout = fields.Float(
        load_default=TIMEOUT,
        validate=validate.Range(min=0.1, max=TIMEOUT),
        metadata={"description": f"Seconds the query may run (at most {TIMEOUT:g}, the default)."},
    )
    campaign = fields.UUID(metadata={"description": "Only this campaign's rows, in every table."})
    game = fields.String(
        validate=validate.OneOf(GAMES),
        metadata={"description": "Only the rows of this game's campaigns, in every table."},
    )


class SqlColumn(Schema):
    """A column of the answer: its name and its SQL type."""

    name = fields.String()
    type = fields.String(metadata={"example": "BIGINT"})


class SqlAnswer(Schema):
    """A query's answer."""

    columns = fields.List(fields.Nested(SqlColumn))
    rows = fields.List(
        fields.List(fields.Raw()),
        metadata={"description": "The rows, each a list in the columns' order."},
    )
    truncated = fields.Boolean(
        metadata={"description": "Whether the query had more rows than the limit."}
    )
    positions = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={"description": "Each view's position read (the last notification id applied)."},
    )
    tables = fields.List(fields.String(), metadata={"description": "The tables the query read."})
