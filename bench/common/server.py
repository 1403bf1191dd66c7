"""The benchmark's server: the production stack (waitress + ``create_app``) plus a bare route.

Run as ``python -m bench.common.server --db DIR/questlog.db --bare-db DIR/bare.db --port N
--rate-limit-exempt TOKEN_ID``. It serves exactly what ``questlog serve`` serves (waitress with
8 request threads plus one per live stream it allows, ``create_app(Questlog(...))``, access
control on, the rate limit at its setting) on a SQLite file, with one extra plain Flask route
registered on that same app. The benchmark's own admin token (``create_bench_token``) is the one
token the rate limit does not count: its load is meant to be delivered, not refused with 429.

``POST /bench/bare`` parses the JSON body, inserts one row into a SQLite table (its own WAL-mode
file, one short transaction per request, one connection per worker thread) and answers a small
JSON 201. That is the floor: the same HTTP server, the same Flask app and the same kind of durable
SQLite write, without the event-sourced domain.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Any

from flask import Flask, Response, request

from domain.storage.store import StoreConfig

BARE_PATH = "/bench/bare"
READY_PATH = "/openapi.json"


class BareStore:
    """One WAL-mode SQLite connection per worker thread, one short transaction per insert.

    Writers take a process-wide lock first, as eventsourcing's SQLite pool does for its writer:
    without it, two threads racing for SQLite's write lock make the loser sleep in SQLite's busy
    handler (1 ms, then 2, 5, 10 ms...), which would make the floor slower than the real route.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.local = threading.local()
        self.write_lock = threading.Lock()
        with self.connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS bare_rows ("
                "id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)"
            )

    def connect(self) -> sqlite3.Connection:
        """A new autocommit connection (transactions are explicit)."""
        return sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)

    def insert(self, body: str) -> int:
        """Insert one row in its own transaction; returns its id."""
        conn: sqlite3.Connection | None = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = self.connect()
        with self.write_lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                cursor = conn.execute("INSERT INTO bare_rows (body) VALUES (?)", (body,))
                row_id = cursor.lastrowid
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return int(row_id or 0)


def add_bare_route(app: Flask, store: BareStore) -> None:
    """Register ``POST /bench/bare`` on an existing app (before it serves its first request).

    It declares ``any`` token, so with access control on it pays the same token check as the
    roll route.
    """
    from webapi.http.declared import requires

    @requires("any")
    def bare() -> Response:
        payload: Any = request.get_json()
        row_id = store.insert(json.dumps(payload))
        return Response(json.dumps({"id": row_id}), status=201, mimetype="application/json")

    app.add_url_rule(BARE_PATH, "bench_bare", bare, methods=["POST"])


def create_bench_token(config: StoreConfig) -> tuple[str, str]:
    """A new admin token for this run on the store (before its server starts): (id, secret)."""
    from domain.service.questlog import Questlog

    app = Questlog(config)
    try:
        token, secret = app.access.create_token(f"bench-{secrets.token_hex(4)}", admin=True)
    finally:
        app.close()
    return token.id, secret


def build_app(db: Path, bare_db: Path, exempt: list[str], max_streams: int | None = None) -> Flask:
    """The production app on a SQLite store (access control on), plus the bare route."""
    from domain.service.questlog import Questlog
    from webapi.app import create_app

    questlog = Questlog(StoreConfig(sqlite_path=db))
    app = create_app(questlog, auth=True, rate_limit_exempt=exempt, max_streams=max_streams)
    add_bare_route(app, BareStore(bare_db))
    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the app with waitress, exactly as ``questlog serve`` does."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--bare-db", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--max-streams", type=int, default=None, help="as `questlog serve`")
    parser.add_argument(
        "--rate-limit-exempt",
        action="append",
        default=[],
        metavar="TOKEN_ID",
        help="a token id the rate limit does not count (the benchmark's own)",
    )
    args = parser.parse_args(argv)

    from waitress import serve

    from webapi.http.live import max_streams_setting, waitress_options

    streams = max_streams_setting(args.max_streams)
    app = build_app(args.db, args.bare_db, args.rate_limit_exempt, streams)
    options = waitress_options(args.threads, streams)
    serve(app, host="127.0.0.1", port=args.port, ident="questlog", **options)


if __name__ == "__main__":
    main()
