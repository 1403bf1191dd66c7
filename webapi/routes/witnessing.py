"""A campaign's head in the host's log: its tlog-proof, where the witnesses stand, and a QR of
its signed checkpoint to compare at the table."""

from __future__ import annotations

import io
from typing import Any

import segno
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog

blp = Blueprint(
    "witnessing",
    __name__,
    description="A campaign's head in the host's Merkle log: its tlog-proof, the witnesses' "
    "cosignatures, a QR of its checkpoint.",
)
WITNESS_STATES = ("cosigned", "waiting", "down", "conflict", "refused")


class WitnessStanding(Schema):
    """Where one witness of the host's policy stands."""

    name = fields.String(metadata={"description": "The witness's name in the policy."})
    url = fields.String(allow_none=True, metadata={"description": "Where it is asked."})
    cosigned_size = fields.Integer(
        metadata={"description": "The tree size it last cosigned (0: none yet)."}
    )
    state = fields.String(
        metadata={
            "description": "One of " + ", ".join(WITNESS_STATES) + ".",
            "enum": list(WITNESS_STATES),
        }
    )
    error = fields.String(allow_none=True, metadata={"description": "Why it is not cosigned."})
    last_attempt = fields.String(
        allow_none=True, metadata={"description": "When it was last asked (UTC)."}
    )
    waiting_since = fields.String(
        allow_none=True,
        metadata={
            "description": "When the log first signed a checkpoint this witness has not "
            "cosigned (UTC); null when it cosigned the latest."
        },
    )


class Witnessing(Schema):
    """A campaign's head and the host's log: what is proved and witnessed so far."""

    head_version = fields.Integer(metadata={"description": "The campaign's version now."})
    witnessed_version = fields.Integer(
        allow_none=True,
        metadata={"description": "The version a checkpoint meeting the policy's quorum holds."},
    )
    pending = fields.Boolean(
        metadata={"description": "The head is not yet in a signed checkpoint."}
    )
    proof = fields.String(
        allow_none=True,
        metadata={"description": "The tlog-proof of the campaign's last event in the checkpoint."},
    )
    checkpoint_size = fields.Integer(
        allow_none=True, metadata={"description": "The size of the latest checkpoint."}
    )
    witnesses = fields.List(fields.Nested(WitnessStanding))


@blp.route("/campaigns/<campaign>/tlog-proof")
class CampaignTlogProof(MethodView):
    @blp.doc(operationId="getTlogProof")
    @blp.doc(
        responses={
            "200": {
                "description": "A C2SP tlog-proof (`.tlog-proof`).",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        }
    )
    @requires("read")
    def get(self, campaign: str) -> Response:
        """The tlog-proof of the campaign's last event in the latest checkpoint, with the
        cosignatures collected so far; 409 (``not-logged-yet``, with ``Retry-After``) before a
        checkpoint holds one."""
        text = questlog().transparency.tlog_proof(campaign_id(campaign))
        return Response(text, content_type="text/plain; charset=utf-8")


@blp.route("/campaigns/<campaign>/witnessing")
class CampaignWitnessing(MethodView):
    @blp.doc(operationId="getWitnessing")
    @blp.response(200, Witnessing)
    @requires("read")
    def get(self, campaign: str) -> Any:
        """Where the campaign's head stands: in a checkpoint yet, its proof, each witness."""
        return questlog().transparency.witnessing(campaign_id(campaign))


@blp.route("/campaigns/<campaign>/checkpoint/qr")
class CampaignCheckpointQr(MethodView):
    @blp.doc(operationId="getCheckpointQr")
    @blp.doc(
        responses={
            "200": {
                "description": "An SVG QR code of the signed checkpoint's text.",
                "content": {"image/svg+xml": {"schema": {"type": "string", "format": "binary"}}},
            }
        }
    )
    @requires("read")
    def get(self, campaign: str) -> Response:
        """A QR code of the signed checkpoint of the campaign's head, for two players to
        compare at the table without any witness."""
        found, note = questlog().reading.head_checkpoint(campaign_id(campaign))
        buffer = io.BytesIO()
        segno.make(note, error="m").save(buffer, kind="svg", scale=4, border=2)
        headers = {"ETag": f'"{found.version}"', "Cache-Control": "private, no-cache"}
        return Response(buffer.getvalue(), content_type="image/svg+xml", headers=headers)
