"""Moving a campaign between hosts: ``POST /campaigns/import`` loads another instance's bundle."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import INCLUDE, Schema, fields

from domain.service.commands_service import CommandResult
from webapi import bundle
from webapi.http import access
from webapi.http.plumbing import Rendered, questlog, reply
from webapi.schemas.api import Text

blp = Blueprint(
    "imports", __name__, description="Moving a campaign between hosts: import a bundle (admin)."
)
ENDPOINT = "imports.CampaignImport"
"""The import route's endpoint: it takes bodies up to ``bundle.MAX_BUNDLE_BYTES``."""


class BundleBody(Schema):
    """A campaign bundle, as ``GET /campaigns/{id}/bundle`` downloads it (docs/table-page.md)."""

    class Meta:
        unknown = INCLUDE

    format = Text(required=True, metadata={"description": "questlog-bundle/1"})
    campaign_id = Text(required=True)
    exported_at = Text(allow_none=True)
    genesis_hash = Text()
    head = fields.Dict(required=True, metadata={"description": "The bundle's version and hash."})
    revealed_seeds = fields.Dict(required=True)
    events = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "Every event from version 1, each as GET /events shows it."},
    )


class ImportQuery(Schema):
    public = fields.Boolean(
        load_default=False,
        metadata={"description": "A campaign new here is readable by every token (default: not)."},
    )


class BundleHead(Schema):
    """The head (version and hash) of the bundle an import loaded."""

    version = fields.Integer()
    hash = fields.String()


class ImportedCampaign(Schema):
    """What an import stored: the campaign, its new head and the commitment it plays on under."""

    id = fields.UUID()
    game = fields.String()
    name = fields.String()
    version = fields.Integer(metadata={"description": "The version of the import event."})
    head_hash = fields.String()
    extended = fields.Boolean(
        metadata={"description": "True if the campaign was here and the bundle extended it."}
    )
    imported_events = fields.Integer(
        metadata={"description": "How many of the bundle's events were stored (all, if new)."}
    )
    bundle_head = fields.Nested(BundleHead)
    commitment = fields.String(metadata={"description": "The new server seed's commitment."})
    client_seed = fields.String()
    unrevealed_commitment = fields.String(
        allow_none=True,
        metadata={
            "description": "The source's commitment; its rolls stay awaiting reveal here (null "
            "if this host holds its seed and revealed it)."
        },
    )
    revealed_commitments = fields.List(
        fields.String(),
        metadata={
            "description": "The commitments whose seeds this host held and the import event "
            "revealed (a campaign that comes back: its own last one)."
        },
    )
    awaiting_reveal = fields.Integer(
        metadata={
            "description": "Server rolls of the bundle whose seed it does not reveal: only the "
            "source can reveal it (rotate there before exporting, and there are none)."
        }
    )


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
    @blp.arguments(BundleBody)
    @blp.arguments(ImportQuery, location="query")
    @blp.response(201, ImportedCampaign)
    @access.requires("admin", appends=True)
    def post(self, body: dict[str, Any], query: dict[str, Any]) -> Any:
        """Import a campaign bundle from another instance (admin): verified whole, then stored
        unchanged with one CampaignImported event that commits to a new server seed."""
        outcome = bundle.load(questlog(), body, public=query["public"])
        return reply(outcome, render_imported)
