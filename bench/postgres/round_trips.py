"""What one roll costs on PostgreSQL, counted: round trips, statements, pool checkouts, pings.

In one process, on a fresh schema of the PostgreSQL at ``QUESTLOG_BENCH_DATABASE_URL``, the
Flask app (access control on, an admin token) takes ``--rolls`` server rolls on one campaign
after 50 to warm up, while psycopg is watched: every statement sent, every time the client
waits for the server (a round trip: a statement outside a pipeline, or a pipeline's sync), every
pool checkout, and every check the pool sent before a checkout (a ping). It prints each per
roll, the statements of one roll in order, and the CPU per roll of this process and of the
schema's PostgreSQL backends::

    python -m bench.postgres.round_trips                 # 500 rolls, then the statement cost: ~10 s
    python -m bench.postgres.round_trips --rolls 2000

It also times what one more unprepared statement in a pipeline costs the client and the server.
The table "What a roll costs on PostgreSQL" in docs/performance-results.md is this script's output.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
from rich.console import Console
from rich.table import Table

from bench.postgres.cpu_split import backends, cpu_seconds
from bench.postgres.scale import URL, fresh_schema
from bench.write.http_bench import ROLL_BODY
from domain.service.questlog import Questlog
from domain.storage import es_compat
from domain.storage.store import StoreConfig
from webapi.app import create_app


class Watch:
    """Counts what psycopg sends while ``watching`` is on."""

    def __init__(self) -> None:
        self.on = False
        self.counts: Counter[str] = Counter()
        self.statements: list[str] = []

    def note(self, kind: str, statement: Any = None) -> None:
        if not self.on:
            return
        self.counts[kind] += 1
        if statement is not None:
            text = statement if isinstance(statement, str) else repr(statement)
            self.statements.append(" ".join(text.split())[:90])


@contextmanager
def watching(watch: Watch, pool: Any) -> Iterator[None]:
    """Wrap psycopg's cursor, connection, pipeline and the pool with counters."""
    cursor_execute = psycopg.Cursor.execute
    connection_execute = psycopg.Connection.execute
    pipeline = psycopg.Connection.pipeline
    spoken = es_compat.server_has_spoken
    getconn = pool.getconn

    def on_cursor(self: Any, query: Any, params: Any = None, **kwargs: Any) -> Any:
        text = query.as_string(self.connection) if hasattr(query, "as_string") else query
        watch.note("statements", text)
        if self.connection._pipeline is None:
            watch.note("round trips")
        return cursor_execute(self, query, params, **kwargs)

    def on_connection(self: Any, query: Any, params: Any = None, **kwargs: Any) -> Any:
        if query == "":
            watch.note("pings before a checkout")
            watch.note("round trips")
            return connection_execute(self, query, params, **kwargs)
        return connection_execute(self, query, params, **kwargs)  # counted by the cursor

    @contextmanager
    def on_pipeline(self: Any) -> Iterator[Any]:
        with pipeline(self) as opened:
            yield opened
        watch.note("round trips")  # leaving the pipeline: one sync, every result read back

    def on_spoken(connection: Any) -> bool:
        watch.note("checks before a checkout")
        return spoken(connection)

    def on_getconn(*args: Any, **kwargs: Any) -> Any:
        watch.note("pool checkouts")
        return getconn(*args, **kwargs)

    psycopg.Cursor.execute = on_cursor  # type: ignore[method-assign]
    psycopg.Connection.execute = on_connection  # type: ignore[method-assign]
    psycopg.Connection.pipeline = on_pipeline  # type: ignore[assignment,method-assign]
    es_compat.server_has_spoken = on_spoken
    pool.getconn = on_getconn
    try:
        yield
    finally:
        psycopg.Cursor.execute = cursor_execute  # type: ignore[method-assign]
        psycopg.Connection.execute = connection_execute  # type: ignore[method-assign]
        psycopg.Connection.pipeline = pipeline  # type: ignore[method-assign]
        es_compat.server_has_spoken = spoken
        del pool.getconn


def measure(rolls: int, url: str) -> tuple[Watch, dict[str, float]]:
    """Counted rolls, then as many uncounted for the CPU figures."""
    with ExitStack() as stack:
        schema = stack.enter_context(fresh_schema(url))
        app = Questlog(StoreConfig(database_url=url, postgres_schema=schema))
        stack.callback(app.close)
        _, secret = app.access.create_token("bench", admin=True)
        client = create_app(app, auth=True, rate_limit=0, TESTING=True).test_client()
        headers = {"Authorization": f"Bearer {secret}"}
        body = {"game": "quest-calendar", "name": "round trips"}
        campaign = client.post("/campaigns", json=body, headers=headers).get_json()["id"]
        path = f"/campaigns/{campaign}/rolls"

        def roll() -> None:
            answer = client.post(path, json=ROLL_BODY, headers=headers)
            if answer.status_code != 201:
                raise SystemExit(f"a roll was answered {answer.status_code}: {answer.get_json()}")

        for _ in range(50):
            roll()
        watch = Watch()
        pool: Any = app.recorder.datastore.pool  # type: ignore[attr-defined]
        with watching(watch, pool):
            watch.on = True
            for n in range(rolls):
                if n == 1:
                    first, watch.statements = watch.statements, []
                roll()
            watch.on = False
        watch.statements = first
        pids = backends(url, schema)
        before_db = sum(cpu_seconds(pid) for pid in pids)
        before, started = time.process_time(), time.perf_counter()
        for _ in range(rolls):
            roll()
        cpu = {
            "this process (Flask app, psycopg)": (time.process_time() - before) * 1000 / rolls,
            "PostgreSQL backends": (sum(cpu_seconds(p) for p in pids) - before_db) * 1000 / rolls,
            "wall": (time.perf_counter() - started) * 1000 / rolls,
        }
        return watch, cpu


def statement_cost(url: str, pipelines: int = 3000, extra: int = 4) -> tuple[float, float]:
    """What one more unprepared statement in a pipeline costs: client and server CPU in µs.

    Pipelines of ``BEGIN``, ``extra`` times ``SELECT set_config(...)`` and ``COMMIT`` are timed
    against pipelines of ``BEGIN`` and ``COMMIT`` alone, alternately, twice each.
    """
    with psycopg.connect(url, autocommit=True) as connection:
        connection.prepare_threshold = None
        backend = connection.info.backend_pid

        def run(statements: int) -> tuple[float, float]:
            client, server = time.process_time(), cpu_seconds(backend)
            for _ in range(pipelines):
                with connection.pipeline():
                    cursor = connection.cursor()
                    cursor.execute("BEGIN", prepare=False)
                    for _ in range(statements):
                        cursor.execute(
                            "SELECT set_config('lock_timeout', %s, true)", ("10s",), prepare=False
                        )
                    cursor.execute("COMMIT", prepare=False)
            return time.process_time() - client, cpu_seconds(backend) - server

        samples = [run(n) for n in (0, extra, 0, extra)]
        bare = [samples[0], samples[2]]
        more = [samples[1], samples[3]]
        per = extra * pipelines / 1e6
        client = (sum(m[0] for m in more) - sum(b[0] for b in bare)) / 2 / per
        server = (sum(m[1] for m in more) - sum(b[1] for b in bare)) / 2 / per
        return client, server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.postgres.round_trips", description=__doc__
    )
    parser.add_argument("--rolls", type=int, default=500)
    args = parser.parse_args(argv)
    watch, cpu = measure(args.rolls, URL)
    console = Console()
    console.print(f"load average {os.getloadavg()[0]:.2f}; {args.rolls} rolls on PostgreSQL")
    table = Table(title="per roll")
    table.add_column("what")
    table.add_column("per roll", justify="right")
    for kind in (
        "round trips",
        "statements",
        "pool checkouts",
        "checks before a checkout",
        "pings before a checkout",
    ):
        table.add_row(kind, f"{watch.counts[kind] / args.rolls:.2f}")
    for name, ms in cpu.items():
        table.add_row(f"{name}, ms", f"{ms:.3f}")
    console.print(table)
    client, server = statement_cost(URL)
    console.print(
        f"one more unprepared statement in a pipeline: {client:.0f} µs of this process's CPU, "
        f"{server:.0f} µs of its backend's",
        soft_wrap=True,
    )
    console.print("the statements of one roll, in order:")
    for statement in watch.statements:
        console.print(f"  {statement}", markup=False, soft_wrap=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
