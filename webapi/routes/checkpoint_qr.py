"""A QR code of a campaign's signed checkpoint, for two players to compare at the table without
any witness (docs/trust.md, "Comparing heads aloud").

An image for the table page, like the page's own files, so it is a plain Flask route and not part
of the API's OpenAPI document: API client generators take JSON and text, not SVG. It needs read
access to the campaign, as ``GET /campaigns/{id}/checkpoint`` does, whose ``checkpoint`` note it
draws.
"""

from __future__ import annotations

import io

import segno
from flask import Blueprint, Response

from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog

blp = Blueprint("checkpoint_qr", __name__)


@blp.route("/campaigns/<campaign>/checkpoint/qr")
@requires("read")
def checkpoint_qr(campaign: str) -> Response:
    """The SVG QR code of the signed checkpoint of the campaign's head."""
    found, note = questlog().reading.head_checkpoint(campaign_id(campaign))
    buffer = io.BytesIO()
    segno.make(note, error="m").save(buffer, kind="svg", scale=4, border=2)
    headers = {"ETag": f'"{found.version}"', "Cache-Control": "private, no-cache"}
    return Response(buffer.getvalue(), content_type="image/svg+xml", headers=headers)
