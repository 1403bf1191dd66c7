"""Schemas of the bundle import route."""

from __future__ import annotations

from marshmallow import INCLUDE, Schema, fields

from webapi.schemas.fields import Text, checkpoint_field


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
    checkpoint = checkpoint_field()
