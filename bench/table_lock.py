"""What the events table's lock costs, and what an advisory lock in its place would gain.

eventsourcing's PostgreSQL recorder takes ``LOCK TABLE <events> IN EXCLUSIVE MODE`` in every
insert, so that notification ids are issued and committed in one order: a follower that has read
id *n* never later sees a smaller id commit. Questlog keeps that lock (``es_compat``). This script
serves part (f)'s load (``questlog serve --workers 2`` on PostgreSQL, views embedded, access
control on, keep-alive clients rolling a server d20, client i on campaign i) from one server per
variant of that one statement, each on its own fresh schema, in alternating rounds:

- ``table``: ``LOCK TABLE ... IN EXCLUSIVE MODE``, what the code does;
- ``advisory``: ``pg_advisory_xact_lock`` on one key per schema. As safe among Questlog's own
  writers (every insert takes it, so ids still commit in order), but not against anything else
  that writes the table, such as the library used directly; that is why the code does not use it;
- ``none``: no lock at all. Unsafe (ids can become visible out of order, so a view could skip an
  event for good), measured only to show the whole cost of the lock.

The variants exist only in the server processes this script starts (``serve_with`` patches the
statement before ``questlog serve`` runs); nothing in the service can select them::

    python -m bench.table_lock                        # 3 variants, 30 s each in 6 rounds
    python -m bench.table_lock --seconds 6 --rounds 2 --warmup 1     # a smoke run

It prints, per variant, throughput, p50, p99, max and every status, each variant's throughput
against ``table``, and whether every acknowledged roll was stored.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from zlib import crc32

from rich.console import Console
from rich.table import Table

from bench.load import LoadResult, merge, statuses_text
from bench.scale import URL, Side, Target, alternate, fresh_schema, start_side
from domain.storage.store import StoreConfig

VARIANTS = ("table", "advisory", "none")
VARIANT_ENV = "QUESTLOG_BENCH_TABLE_LOCK"
LOCK_SPACE = 0x51_54  # "QT": first key of the advisory variant's lock (one per schema)
PROGRAM = "from bench.table_lock import serve_with; serve_with()"


def lock_statement(variant: str, schema: str, default: object) -> object:
    """The statement an insert runs in place of the table lock, for ``variant``."""
    if variant == "table":
        return default
    if variant == "advisory":
        key = crc32(schema.encode()) & 0x7FFF_FFFF
        return f"SELECT pg_advisory_xact_lock({LOCK_SPACE}, {key})"
    if variant == "none":
        return "SELECT 1"
    raise SystemExit(f"{VARIANT_ENV} must be one of {', '.join(VARIANTS)}, not {variant!r}")


def patch_lock(variant: str) -> Callable[[], None]:
    """Replace the insert's lock statement with ``variant``'s in this process; returns the undo."""
    from domain.storage.es_compat import PostgresRecorderHooks

    library_lock = PostgresRecorderHooks.table_lock_statement
    lock_statement(variant, "", None)  # refuse an unknown variant before anything runs

    def patched(self: PostgresRecorderHooks) -> object:
        return lock_statement(variant, self.datastore.schema, library_lock(self))

    PostgresRecorderHooks.table_lock_statement = patched  # type: ignore[method-assign]

    def undo() -> None:
        PostgresRecorderHooks.table_lock_statement = library_lock  # type: ignore[method-assign]

    return undo


def serve_with() -> None:
    """``questlog`` with the insert's lock statement replaced as ``QUESTLOG_BENCH_TABLE_LOCK``
    says (the server processes of this script only; gunicorn's workers inherit the patch)."""
    from webapi.cli.main import main

    patch_lock(os.environ.get(VARIANT_ENV, "table"))
    main()


def measure(
    workdir: Path,
    *,
    url: str,
    variants: list[str],
    workers: int,
    clients: int,
    warmup: float,
    seconds: float,
    rounds: int,
    say: Callable[[str], None],
) -> tuple[dict[str, LoadResult], dict[str, tuple[int, int]]]:
    """Serve each variant on its own schema, load them in alternating rounds, read back the
    rolls stored; each variant's merged load and (stored, acknowledged)."""
    with ExitStack() as stack:
        sides: list[Side] = []
        for variant in variants:
            schema = stack.enter_context(fresh_schema(url))
            target = Target(
                variant,
                StoreConfig(database_url=url, postgres_schema=schema),
                workers,
                program=PROGRAM,
                environ=((VARIANT_ENV, variant),),
            )
            sides.append(start_side(target, workdir, clients, stack))
        say(
            f"{clients} clients over {clients} campaigns per variant, {workers} workers each, "
            f"views embedded, access control on; {warmup:g} s warm-up, then {seconds:g} s per "
            f"variant in {rounds} alternating round(s)"
        )
        alternate(sides, warmup=warmup, seconds=seconds, rounds=rounds, note=say)
        merged = {side.target.name: merge(side.target.name, side.rounds) for side in sides}
        counts = {side.target.name: (side.stored_rolls(), side.acknowledged()) for side in sides}
    return merged, counts


def result_table(merged: dict[str, LoadResult], workers: int, clients: int) -> Table:
    """One column per variant; throughput against ``table`` where it was measured."""
    table = Table(
        title=f"the insert's lock: POST /campaigns/{{id}}/rolls, PostgreSQL with {workers} "
        f"workers, {clients} clients",
        title_justify="left",
    )
    table.add_column("")
    for name in merged:
        table.add_column(name, justify="right")
    base = merged.get("table")
    rows = [
        ("requests/s", lambda r: f"{r.throughput:,.0f}"),
        (
            "against table",
            lambda r: f"{r.throughput / base.throughput:.2f}" if base and base.throughput else "-",
        ),
        ("p50 latency", lambda r: f"{r.percentile_ms(50):.2f} ms"),
        ("p99 latency", lambda r: f"{r.percentile_ms(99):.2f} ms"),
        ("max latency", lambda r: f"{r.percentile_ms(100):.2f} ms"),
        ("every status", lambda r: statuses_text(r.statuses, len(r.errors))),
    ]
    for label, cell in rows:
        table.add_row(label, *(cell(run) for run in merged.values()))
    return table


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.table_lock",
        description="Part (f)'s load on PostgreSQL with the events table's lock, an advisory "
        "lock in its place, and no lock (unsafe, for reference), in alternating rounds.",
    )
    parser.add_argument(
        "--variant",
        dest="variants",
        action="append",
        choices=VARIANTS,
        help="a variant to measure (repeatable; default: all three)",
    )
    parser.add_argument("--workers", type=int, default=2, help="API workers per server")
    parser.add_argument("--clients", type=int, default=8, help="clients (and campaigns) each")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per variant")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds each")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds")
    args = parser.parse_args(argv)
    for name in ("workers", "clients", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.seconds <= 0 or args.warmup < 0:
        parser.error("--seconds must be above 0 and --warmup at least 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(soft_wrap=True)
    variants = list(dict.fromkeys(args.variants or VARIANTS))
    console.print(
        f"python -m bench.table_lock: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
        f"load average {os.getloadavg()[0]:.2f}; PostgreSQL at {URL}"
    )
    with tempfile.TemporaryDirectory(prefix="questlog-table-lock-") as workdir:
        merged, counts = measure(
            Path(workdir),
            url=URL,
            variants=variants,
            workers=args.workers,
            clients=args.clients,
            warmup=args.warmup,
            seconds=args.seconds,
            rounds=args.rounds,
            say=lambda text: console.print(f"  {text}"),
        )
    console.print(result_table(merged, args.workers, args.clients))
    lost = False
    for name, (stored, acked) in counts.items():
        console.print(f"  {name}: {stored} rolls stored, {acked} acknowledged")
        lost = lost or stored != acked
    undelivered = [name for name, run in merged.items() if not run.delivered]
    if lost or undelivered:
        console.print(f"[red]not a measurement: lost rolls or undelivered load {undelivered}[/red]")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
