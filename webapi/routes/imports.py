"""Moving a campaign between hosts: ``POST /campaigns/import`` loads another instance's bundle."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import CommandResult
from webapi.http.declared import requires
from webapi.http.plumbing import Rendered, questlog, reply
from webapi.schemas.imports import BundleBody, ImportedCampaign, ImportQuery

blp = Blueprint(
    "imports", __name__, description="Moving a campaign between hosts: import a bundle (admin)."
)
ENDPOINT = "imports.CampaignImport"
"""The import route's endpoint: it takes bodies up to ``bundles.MAX_BUNDLE_BYTES``."""


def render_imported(result: CommandResult) -> Rendered:
    """An import's response: 201 with the campaign's location."""
    body: dict[str, Any] = ImportedCampaign().dump(
        {
            "id": result.campaign_id,
            "version": result.version,
            "head_hash": result.head_hash,
            **result.value,
        }
    )
    headers = {"Location": f"/campaigns/{result.campaign_id}", "ETag": f'"{result.version}"'}
    return 201, body, headers


@blp.route("/campaigns/import")
class CampaignImport(MethodView):
    @blp.doc(operationId="importCampaign")
    @blp.arguments(BundleBody)
    @blp.arguments(ImportQuery, location="query")
    @blp.response(201, ImportedCampaign)
    @requires("admin", appends=True)
    def post(self, body: dict[str, Any], query: dict[str, Any]) -> Any:
        """Import a campaign bundle from another instance (admin): verified whole, then stored
        unchanged with one CampaignImported event that commits to a new server seed."""
        outcome = questlog().bundles.load(body, public=query["public"])
        return reply(outcome, render_imported)
