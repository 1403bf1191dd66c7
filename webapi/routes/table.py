"""The table page's campaign routes: share links and the bundle download."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.table import ShareCreate, ShareCreated

blp = Blueprint("table", __name__, description="The table page: share links and bundles.")


@blp.route("/campaigns/<campaign>/share")
class Share(MethodView):
    @blp.doc(operationId="createShareLink")
    @blp.arguments(ShareCreate, example={"name": "for the players"})
    @blp.response(201, ShareCreated)
    @requires("manage")
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Make a read-only share link: a viewer token on this campaign only (owner)."""
        app = questlog()
        cid = campaign_id(campaign)
        app.campaign(cid)
        token, secret = app.access.share_campaign(cid, body.get("name"))
        return {
            "token": secret,
            "token_id": token.id,
            "role": "viewer",
            "campaign_id": str(cid),
            "url": f"/app/campaigns/{cid}#token={secret}",
        }


BUNDLE_DOC = {
    "200": {
        "description": "The bundle (format questlog-bundle/1), as an attachment.",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}


@blp.route("/campaigns/<campaign>/bundle")
class Bundle(MethodView):
    @blp.doc(operationId="downloadBundle")
    @blp.doc(responses=BUNDLE_DOC)
    @requires("read")
    def get(self, campaign: str) -> Response:
        """Download everything needed to verify the campaign offline (questlog-<id>.json)."""
        cid = campaign_id(campaign)
        body = questlog().bundles.build(cid)
        response = Response(current_app.json.dumps(body), mimetype="application/json")
        response.headers["Content-Disposition"] = f'attachment; filename="questlog-{cid}.json"'
        return response
