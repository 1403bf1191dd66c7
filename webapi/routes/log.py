"""The host's transparency log (C2SP tlog-tiles): its checkpoint, hash tiles, entry bundles and
witness policy, public so that anyone can monitor it; and signing a checkpoint now."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from webapi.http.declared import requires
from webapi.http.plumbing import questlog

blp = Blueprint(
    "log",
    __name__,
    description="The host's Merkle log of every event (C2SP tlog-tiles), for monitors and "
    "witnesses: its signed checkpoint, its tiles and entry bundles, its witness policy.",
)
TEXT = "text/plain; charset=utf-8"
CHECKPOINT_CACHE = "public, max-age=2"
"""tlog-tiles: the checkpoint is mutable, "its headers SHOULD prevent caching beyond a few
seconds"."""
IMMUTABLE = "public, max-age=31536000, immutable"
"""tlog-tiles: tiles and entry bundles never change once they exist."""


def text_doc(description: str, media: str = "text/plain") -> dict[str, Any]:
    """An OpenAPI 200 response of one non-JSON media type."""
    schema = (
        {"type": "string"} if media.startswith("text/") else {"type": "string", "format": "binary"}
    )
    return {
        "responses": {"200": {"description": description, "content": {media: {"schema": schema}}}}
    }


@blp.route("/log/checkpoint")
class LogCheckpoint(MethodView):
    @blp.doc(operationId="getLogCheckpoint")
    @blp.doc(**text_doc("The latest signed checkpoint (C2SP tlog-checkpoint), cosigned."))
    @blp.doc(security=[])
    @requires("public")
    def get(self) -> Response:
        """The host log's latest signed checkpoint with the witnesses' cosignatures (no token);
        404 before the first is signed."""
        note = questlog().transparency.latest_checkpoint()
        return Response(note, content_type=TEXT, headers={"Cache-Control": CHECKPOINT_CACHE})

    @blp.doc(operationId="signLogCheckpoint")
    @blp.doc(**text_doc("The checkpoint of the tree now (C2SP tlog-checkpoint)."))
    @requires("any")
    def post(self) -> Response:
        """Add the new events to the host's log and sign its checkpoint now (the witnesses are
        asked in the background); the checkpoint, with the cosignatures it has so far."""
        transparency = questlog().transparency
        signed = transparency.publish()
        note = transparency.latest_checkpoint() if signed is not None else ""
        return Response(note, content_type=TEXT, headers={"Cache-Control": "no-store"})


TILE_DOC = text_doc(
    "A hash tile or an entry bundle (C2SP tlog-tiles): the path's parts after /log/tile/ are "
    "`<L>/<N>[.p/<W>]` (a hash tile) or `entries/<N>[.p/<W>]` (an entry bundle), `<N>` in "
    "groups of three digits, all but the last behind an `x` (1234067: `x001/x234/067`).",
    "application/octet-stream",
)
TILE_PARTS = ("level", "part1", "part2", "part3", "part4")
"""A tile path's parts after ``/log/tile/``: its level (or ``entries``) and up to four more (the
index's groups and the ``.p/<W>`` of a partial tile), one route per count: an OpenAPI path
parameter never holds a ``/``."""


LEVEL_PARAMETER = {
    "in": "path",
    "name": "level",
    "description": "The tile's level, 0 to 63 (no leading zeros), or `entries` for a bundle.",
    "schema": {"type": "string", "pattern": "^(entries|[0-9]|[1-5][0-9]|6[0-3])$"},
}
FIRST_GROUP = "x00[1-9]|x0[1-9][0-9]|x[1-9][0-9]{2}"
GROUP = "x[0-9]{3}"
LAST_GROUP = "[0-9]{3}"
PARTIAL_GROUP = r"[0-9]{3}\.p"
WIDTH = "[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5]"
PART_PATTERNS = {
    1: [LAST_GROUP],
    2: [f"{FIRST_GROUP}|{PARTIAL_GROUP}", f"{LAST_GROUP}|{WIDTH}"],
    3: [FIRST_GROUP, f"{GROUP}|{PARTIAL_GROUP}", f"{LAST_GROUP}|{WIDTH}"],
    4: [FIRST_GROUP, GROUP, PARTIAL_GROUP, WIDTH],
}
"""What each part after the level may be, by the number of parts (tlog-tiles): an index's groups
(all but the last behind an ``x``, the first not ``x000``), the last one ending in ``.p`` for a
partial tile, then its width (1..255)."""


def tile_parameters(count: int) -> list[dict[str, Any]]:
    """The documented path parameters of the tile route with ``count`` parts after the level."""
    parts = [
        {
            "in": "path",
            "name": f"part{n}",
            "description": "A part of the tile's index (`x001`, `234`, `067.p`) or its width.",
            "schema": {"type": "string", "pattern": f"^({pattern})$"},
        }
        for n, pattern in enumerate(PART_PATTERNS[count], start=1)
    ]
    return [LEVEL_PARAMETER, *parts]


def tile_response(parts: dict[str, str]) -> Response:
    """The tile a route's parts name, immutable (``IMMUTABLE``)."""
    path = "/".join(parts[name] for name in TILE_PARTS if name in parts)
    data = questlog().transparency.tile(f"tile/{path}")
    headers = {"Cache-Control": IMMUTABLE}
    return Response(data, content_type="application/octet-stream", headers=headers)


@blp.route("/log/tile/<level>/<part1>", parameters=tile_parameters(1))
class LogTile(MethodView):
    @blp.doc(operationId="getLogTile")
    @blp.doc(**TILE_DOC)
    @blp.doc(security=[])
    @requires("public")
    def get(self, **parts: str) -> Response:
        """A hash tile or entry bundle of the host's log whose index is one group (no token):
        immutable; 404 beyond the integrated tree, 400 naming the part of the path that is
        wrong."""
        return tile_response(parts)


@blp.route("/log/tile/<level>/<part1>/<part2>", parameters=tile_parameters(2))
class LogTileOf2Parts(MethodView):
    @blp.doc(operationId="getLogTileOfTwoParts")
    @blp.doc(**TILE_DOC)
    @blp.doc(security=[])
    @requires("public")
    def get(self, **parts: str) -> Response:
        """A tile or bundle whose path has two parts after the level (an index of two groups,
        or a partial tile's index of one group and its width)."""
        return tile_response(parts)


@blp.route("/log/tile/<level>/<part1>/<part2>/<part3>", parameters=tile_parameters(3))
class LogTileOf3Parts(MethodView):
    @blp.doc(operationId="getLogTileOfThreeParts")
    @blp.doc(**TILE_DOC)
    @blp.doc(security=[])
    @requires("public")
    def get(self, **parts: str) -> Response:
        """A tile or bundle whose path has three parts after the level."""
        return tile_response(parts)


@blp.route("/log/tile/<level>/<part1>/<part2>/<part3>/<part4>", parameters=tile_parameters(4))
class LogTileOf4Parts(MethodView):
    @blp.doc(operationId="getLogTileOfFourParts")
    @blp.doc(**TILE_DOC)
    @blp.doc(security=[])
    @requires("public")
    def get(self, **parts: str) -> Response:
        """A tile or bundle whose path has four parts after the level."""
        return tile_response(parts)


@blp.route("/log/policy")
class LogPolicy(MethodView):
    @blp.doc(operationId="getLogPolicy")
    @blp.doc(**text_doc("The host's witness policy (C2SP tlog-policy)."))
    @blp.doc(security=[])
    @requires("public")
    def get(self) -> Response:
        """The witness policy this host submits its checkpoints by (no token); 404 if none."""
        return Response(questlog().transparency.policy(), content_type=TEXT)
