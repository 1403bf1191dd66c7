"""The evening export's query: the format and one range (pages, nights or versions)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from webapi.schemas.fields import MAX_POSITION

FORMAT_NAMES = ("markdown", "html")


def _number(description: str) -> fields.Integer:
    return fields.Integer(
        validate=validate.Range(min=1, max=MAX_POSITION), metadata={"description": description}
    )


def _date(description: str) -> fields.Date:
    return fields.Date(format="iso", metadata={"description": description})


class EveningQuery(Schema):
    """What to export: one kind of range, and the format."""

    format = fields.String(
        load_default="markdown",
        validate=validate.OneOf(FORMAT_NAMES),
        metadata={"description": "markdown (text/markdown) or html (one self-contained page)."},
    )
    date = _date("Quest Calendar: the events played on the page of this date (YYYY-MM-DD).")
    from_date = _date("Quest Calendar: the first page's date; with to_date.")
    to_date = _date("Quest Calendar: the last page's date; with from_date.")
    night = _number(
        "Calendar Board: day and night N, the turns of a round and the night that follows it."
    )
    from_night = _number("Calendar Board: the first day and night; with to_night.")
    to_night = _number("Calendar Board: the last day and night; with from_night.")
    from_version = _number("The first version (default 1).")
    to_version = _number("The last version (default the head).")
