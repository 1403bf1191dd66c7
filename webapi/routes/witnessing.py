"""A campaign's head in the host's log: its tlog-proof and where the witnesses stand (the QR of
its signed checkpoint, an image for the table page, is ``checkpoint_qr.py``)."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog

blp = Blueprint(
    "witnessing",
    __name__,
    description="A campaign's head in the host's Merkle log: its tlog-proof and the witnesses' "
    "cosignatures.",
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
