"""The JSON Schema the OpenAPI document states for what Quest Calendar's command checks refuse
beyond each field's own type: a page's date, option labels, the keys of a mapping, and the shapes
a body must not have (``domain.model.command_schema.Document``)."""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from domain.model.command_schema import Document, given
from domain.model.quest_calendar.command_fields import ROUND_NUMBERS
from domain.model.schema_fields import text

DATE = r"^([0-9]{4}-)?(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
"""A page's date as the document states it: months 01-12 and days 01-31 (the calendar says which
days a month has)."""
LABEL = r"^([0-9]+|[A-Za-z]+)(-([0-9]+|[A-Za-z]+))*$"
"""An option label: numbers or letters, joined by hyphens (QC-11)."""
LABELS_ONCE: Document = {
    "properties": {
        "options": {"minItems": 1, "uniqueItems": True},
        "selected": {"uniqueItems": True},
    }
}
"""A choice lists at least one option, and each label once."""
ROUND_KEYS = sorted(ROUND_NUMBERS, key=int)
UPGRADE_ONLY: Document = {
    "not": {
        "required": ["upgrade"],
        "properties": {
            "upgrade": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"not": {"enum": ["upgrade"]}}},
            }
        },
    }
}
"""An upgrade defined in the command is an item of kind upgrade."""


HERO_WITH_REPLACE: Document = {
    "not": {
        "anyOf": [
            {"properties": {"replace": {"enum": [True]}}, "not": given("hero", "object")},
            {
                "required": ["hero"],
                "properties": {"replace": {"enum": [False]}, "hero": {"type": "object"}},
            },
        ]
    }
}
"""QC-48: a new hero comes with replace: true, and only then."""


def option_label() -> fields.Field[Any]:
    """A printed option's label, such as 2-B."""
    return text("An option label such as 2-B.", required=True, max_length=40, pattern=LABEL)
