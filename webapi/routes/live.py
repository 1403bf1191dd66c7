"""The live stream route: ``GET /campaigns/{id}/stream`` (Server-Sent Events); the streams
themselves are ``webapi.http.live``'s."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from webapi.http.declared import requires
from webapi.http.live import LIVE_KEY, Live, resume_point, stream
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.live import StreamQuery
from webapi.schemas.openapi import STREAM_DOC

blp = Blueprint("live", __name__, description="The live stream of a campaign's events.")


@blp.route("/campaigns/<campaign>/stream")
class Stream(MethodView):
    @blp.doc(operationId="streamCampaignEvents")
    @blp.arguments(StreamQuery, location="query")
    @blp.doc(
        responses=STREAM_DOC,
        parameters=[{"in": "header", "name": "Last-Event-ID", "schema": {"type": "integer"}}],
    )
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Response:
        """A live stream of the campaign's events (text/event-stream); 503 if too many are open."""
        app = questlog()
        cid = campaign_id(campaign)
        after = resume_point(query)
        app.campaign(cid)  # 404 before a slot is taken
        live: Live = current_app.extensions[LIVE_KEY]
        done = live.take()
        events = stream(live, cid, after, current_app.json.dumps, done)
        response = Response(events, mimetype="text/event-stream")
        response.call_on_close(done)
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Accel-Buffering"] = "no"
        return response
