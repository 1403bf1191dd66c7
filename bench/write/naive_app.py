"""The baseline a user would otherwise write: a naive Flask + eventsourcing dice app.

``python -m bench.write.naive_app --db FILE --port N [--threads 8]`` serves ``POST /rolls`` with
waitress (8 threads): it parses the JSON body, rolls its dice with the operating system's random
numbers, creates one new ``Roll`` aggregate whose one event records the faces, saves it with
eventsourcing's own SQLite recorder (the library's defaults: WAL, one transaction per save) and
answers a small JSON 201. No access control, no idempotency, no hash chain, no verifiable dice,
no views: the floor part (g) of the benchmark holds ``questlog serve`` against
(``bench/write/versus_naive.py``). ``GET /ready`` answers 200 once it serves.
"""

from __future__ import annotations

import argparse
import json
import secrets
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from flask import Flask, Response, request


class Roll(Aggregate):
    """One roll of some dice: its own aggregate, created by its one event."""

    @event("Rolled")
    def __init__(self, dice: str, purpose: str, faces: list[int], total: int) -> None:
        self.dice = dice
        self.purpose = purpose
        self.faces = faces
        self.total = total


class Rolls(Application):
    """Saves each roll as a new aggregate."""

    def roll(self, dice: str, purpose: str) -> Roll:
        count, _, sides = dice.partition("d")
        faces = [1 + secrets.randbelow(int(sides)) for _ in range(int(count or 1))]
        roll = Roll(dice=dice, purpose=purpose, faces=faces, total=sum(faces))
        self.save(roll)
        return roll


def build_app(db: Path) -> Flask:
    """The Flask app on an eventsourcing SQLite store at ``db``."""
    rolls = Rolls(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db)})
    app = Flask("naive")

    @app.post("/rolls")
    def roll() -> Response:
        body: Any = request.get_json()
        made = rolls.roll(str(body.get("dice", "d20")), str(body.get("purpose", "")))
        answer = {"id": str(made.id), "faces": made.faces, "total": made.total}
        return Response(json.dumps(answer), status=201, mimetype="application/json")

    @app.get("/ready")
    def ready() -> Response:
        return Response("{}", status=200, mimetype="application/json")

    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the naive app with waitress."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)

    from waitress import serve

    serve(build_app(args.db), host="127.0.0.1", port=args.port, threads=args.threads)


if __name__ == "__main__":
    main()
