"""The evening export: ``GET /campaigns/{id}/evening``, what was played in a range as a file the
table keeps (Markdown or HTML), each roll with its dice and each undo in words."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from projections.evening import evening
from projections.evening_text import FORMATS, filename, render
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.evening import EveningQuery

blp = Blueprint(
    "evening", __name__, description="An evening the table can keep: a range as Markdown or HTML."
)

EVENING_DOC = {
    "200": {
        "description": "The range as an attachment: Markdown or one self-contained HTML page.",
        "content": {
            "text/markdown": {"schema": {"type": "string"}},
            "text/html": {"schema": {"type": "string"}},
        },
    }
}


@blp.route("/campaigns/<campaign>/evening")
class Evening(MethodView):
    @blp.doc(operationId="exportEvening")
    @blp.arguments(EveningQuery, location="query")
    @blp.doc(responses=EVENING_DOC)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Response:
        """Export what was played in a range (?date=, ?night= or ?from_version=&to_version=) as
        Markdown or HTML: every command in words, each roll with its dice, the verification."""
        fmt = query["format"]
        found = evening(questlog(), campaign_id(campaign), query)
        text = render(found, fmt, request.host_url.rstrip("/"))
        response = Response(text, content_type=FORMATS[fmt][0])
        response.headers["Content-Disposition"] = f'attachment; filename="{filename(found, fmt)}"'
        return response
