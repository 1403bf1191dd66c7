"""The HTTP face of a witness (``questlog witness serve``): C2SP tlog-witness ``add-checkpoint``
and the monitoring ``GET /<origin hash>/checkpoint``, in a small Flask app of its own.

The submission and monitoring prefixes are both the server's root. A refusal answers with the
spec's status and its reason as text; a 409 answers with the size last cosigned as
``text/x.tlog.size``; a 200 with the witness's cosignature line.
"""

from __future__ import annotations

import re

from flask import Flask, Response, request

from domain.facade import SIZE_CONTENT_TYPE, StaleSize, Witness, WitnessRefusal, size_body

MAX_REQUEST_BYTES = 64 * 1024
"""An add-checkpoint body: 64 lines of proof and a checkpoint with its signatures fit easily."""
TEXT = "text/plain; charset=utf-8"
_ORIGIN_HASH = re.compile(r"[0-9a-f]{64}")


def create_witness_app(witness: Witness) -> Flask:
    """The witness's Flask app."""
    app = Flask("questlog.witness")
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES

    @app.post("/add-checkpoint")
    def add_checkpoint() -> Response:
        """Cosign a checkpoint that extends the last one cosigned for its log."""
        try:
            line = witness.add_checkpoint(request.get_data(cache=False))
        except StaleSize as stale:
            return Response(size_body(stale.cosigned_size), 409, content_type=SIZE_CONTENT_TYPE)
        except WitnessRefusal as refusal:
            return Response(refusal.message + "\n", refusal.status, content_type=TEXT)
        return Response(line, 200, content_type=TEXT)

    @app.get("/<hashed>/checkpoint")
    def checkpoint(hashed: str) -> Response:
        """The latest checkpoint cosigned for the log whose origin's SHA-256 is ``hashed``."""
        note = witness.latest(hashed) if _ORIGIN_HASH.fullmatch(hashed) else None
        if note is None:
            return Response(
                "the witness has cosigned no checkpoint of that log\n", 404, content_type=TEXT
            )
        return Response(note, 200, content_type=TEXT, headers={"Cache-Control": "no-cache"})

    return app
