"""The small figures the docs quote, each measured and printed with the doc it backs.

``python -m bench.small.figures`` (about two minutes; ``--quick`` for a smoke run of a few seconds)
measures, on this machine and this commit:

1. Reading the log (docs/performance-results.md, the views catching up): a roll log of
   ``--events`` events built through the domain (as part (d) of ``bench.run`` builds it) on
   SQLite, then the ``SELECT`` of its notifications alone, in pages of 2,000, and the same with
   each event's JSON decoded, as the views' poller decodes it.
2. The debt ledger alone catching up on that log, batches of 2,000 (docs/projections.md, Speed):
   on a log of rolls it skips every event, so it costs little more than reading and decoding.
3. On PostgreSQL (``QUESTLOG_BENCH_DATABASE_URL``, a fresh schema dropped at the end): every view
   catching up with the batch code, and through ``PostgresRunner`` (the poller, start-up
   included, timed until it has caught up with the head) (docs/projections.md, Speed); and the
   lease fence the runner runs in each batch's transaction (docs/projections.md, Leases).
4. The CPU of one request in-process, the WSGI app called directly (docs/performance-results.md,
   why a roll costs what it does): ``POST /campaigns/{id}/rolls`` and the bare route of
   ``bench.common.server``, access control on; then the same requests, one keep-alive client after
   the other, through ``python -m bench.common.server`` (waitress), whose process CPU is read from
   ``/proc``.
5. eventsourcing's ``isinstance(event, CanMutateProtocol)`` on a stored roll event, against a plain
   ``isinstance`` (docs/performance-results.md, fix 2).
6. ``?at=<time>`` on a campaign of ``--campaign-events`` events: ``TimeTravel.version_at`` for
   moments spread over the campaign (docs/time-travel.md).
7. A roll's CPU in one process: ``Questlog.dice.roll`` (a server d20) ``--rolls`` times in a loop on
   one campaign, on SQLite and on PostgreSQL (docs/performance-results.md, the lazy campaign lock).
8. An ``fsync`` of a 4 KiB write in the scratch directory (docs/performance.md, The machine).

Each figure is the median of ``--repeat`` runs after one untimed warm-up, with the fastest and
the slowest beside it. The header names the commit, the machine and its load average, since the
2 cores of the development machine are often shared. Figures 1 to 3 and 7 are measured in
``bench/small/figures_log.py``, the others here.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common.load import HOST, auth_headers, process_cpu_seconds
from bench.common.server import BARE_PATH, BareStore, add_bare_route, build_app, create_bench_token
from bench.run import machine
from bench.small.figures_log import Figure, Say, log_figures, postgres_figures, repeated
from bench.write.http_bench import ROLL_BODY, ServerProcess, create_campaign
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig

# -- 4: a request in-process and through waitress ------------------------------------------------


def _environ(path: str, body: dict[str, Any], token: str) -> dict[str, Any]:
    from werkzeug.test import EnvironBuilder

    headers = auth_headers(token)
    return EnvironBuilder(path=path, method="POST", json=body, headers=headers).get_environ()


def in_process_cpu_ms(
    workdir: Path, requests: int, repeat: int, *, auth: bool
) -> dict[str, list[float]]:
    """CPU ms per request of the roll and the bare route, the WSGI app called directly (the app
    of ``bench.common.server``; access control on or off)."""
    from webapi.app import create_app

    folder = workdir / f"inproc-{'auth' if auth else 'open'}"
    folder.mkdir(parents=True)
    db = folder / "questlog.db"
    token_id, token = create_bench_token(StoreConfig(sqlite_path=db))
    if auth:
        flask_app = build_app(db, folder / "bare.db", [token_id])
    else:
        flask_app = create_app(Questlog(StoreConfig(sqlite_path=db)), auth=False, rate_limit=0)
        add_bare_route(flask_app, BareStore(folder / "bare.db"))
    statuses: list[str] = []

    def start_response(status: str, _headers: Any, _exc: Any = None) -> Callable[[bytes], None]:
        statuses.append(status)
        return lambda _data: None

    def call(environ: dict[str, Any]) -> bytes:
        return b"".join(flask_app.wsgi_app(environ, start_response))

    created = json.loads(
        call(_environ("/campaigns", {"game": "quest-calendar", "name": "f"}, token))
    )
    paths = {"roll": f"/campaigns/{created['id']}/rolls", "bare": BARE_PATH}

    def per_request(path: str) -> float:
        environs = [_environ(path, ROLL_BODY, token) for _ in range(requests)]
        statuses.clear()
        began = time.process_time()
        for environ in environs:
            call(environ)
        spent = time.process_time() - began
        if any(not status.startswith("201") for status in statuses):
            raise RuntimeError(f"{path}: not every request answered 201: {set(statuses)}")
        return spent / requests * 1e3

    try:
        return {
            name: repeated(lambda p=path: per_request(p), repeat) for name, path in paths.items()
        }
    finally:
        flask_app.extensions["questlog"].close()


def waitress_cpu_ms(workdir: Path, requests: int, repeat: int) -> dict[str, list[float]]:
    """Server CPU ms per request through ``python -m bench.common.server`` (waitress), one
    keep-alive client sending the requests one after the other."""
    serverdir = workdir / "waitress"
    serverdir.mkdir(parents=True)
    token_id, token = create_bench_token(StoreConfig(sqlite_path=serverdir / "questlog.db"))
    server = ServerProcess(serverdir, threads=8, exempt=token_id)
    try:
        server.wait_ready()
        campaign = create_campaign(server.port, "figures", token)
        paths = {"roll": f"/campaigns/{campaign}/rolls", "bare": BARE_PATH}
        body = json.dumps(ROLL_BODY).encode()
        headers = {**auth_headers(token), "Content-Type": "application/json"}

        def per_request(path: str) -> float:
            connection = http.client.HTTPConnection(HOST, server.port, timeout=30)
            try:
                before = process_cpu_seconds(server.pid) or 0.0
                for _ in range(requests):
                    connection.request("POST", path, body=body, headers=headers)
                    response = connection.getresponse()
                    response.read()
                    if response.status != 201:
                        raise RuntimeError(f"{path} answered {response.status}")
                after = process_cpu_seconds(server.pid) or 0.0
            finally:
                connection.close()
            return (after - before) / requests * 1e3

        return {
            name: repeated(lambda p=path: per_request(p), repeat) for name, path in paths.items()
        }
    finally:
        server.stop()


def request_figures(workdir: Path, requests: int, repeat: int, say: Say) -> list[Figure]:
    """Figure 4."""
    say(f"in-process: {requests:,} requests per route and sample")
    inside = in_process_cpu_ms(workdir, requests, repeat, auth=True)
    open_ = in_process_cpu_ms(workdir, requests, repeat, auth=False)
    say(f"waitress: {requests:,} requests per route and sample")
    served = waitress_cpu_ms(workdir, requests, repeat)
    doc = "docs/performance-results.md, Why a roll costs what it does"
    figures = [
        Figure(doc, f"in-process, access control {state}: {name}, CPU per request", run[name], "ms")
        for state, run in (("off", open_), ("on", inside))
        for name in ("roll", "bare")
    ]
    figures += [
        Figure(
            doc, "through waitress, one client: roll, server CPU per request", served["roll"], "ms"
        ),
        Figure(
            doc, "through waitress, one client: bare, server CPU per request", served["bare"], "ms"
        ),
    ]
    for name in ("roll", "bare"):
        added = [s - i for s, i in zip(served[name], inside[name], strict=True)]
        figures.append(Figure(doc, f"waitress adds to a {name} request (CPU)", added, "ms"))
    return figures


# -- 5 and 6: the protocol check and ?at= -------------------------------------------------------


def fsync_figure(workdir: Path, repeat: int) -> Figure:
    """Figure 8: ms per ``fsync`` of a 4 KiB write in the scratch directory (the machine's disk)."""
    path = workdir / "fsync.bin"
    block = os.urandom(4096)

    def sample() -> float:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            spent = []
            for _ in range(50):
                os.write(fd, block)
                began = time.perf_counter()
                os.fsync(fd)
                spent.append(time.perf_counter() - began)
        finally:
            os.close(fd)
        return statistics.median(spent) * 1e3

    return Figure(
        "docs/performance.md, The machine",
        f"fsync of a 4 KiB write in {tempfile.gettempdir()} (median of 50 calls)",
        repeated(sample, repeat),
        "ms",
    )


def protocol_figure(workdir: Path, repeat: int) -> Figure:
    """Figure 5: µs per ``isinstance(event, CanMutateProtocol)`` on a stored roll event."""
    from eventsourcing.domain import CanMutateProtocol

    app = Questlog(StoreConfig(sqlite_path=workdir / "protocol.db"))
    try:
        created = app.campaigns.create_campaign(game="quest-calendar", name="figures")
        app.dice.roll(created.campaign_id, notation="d20", purpose="figures")
        stored = app.recorder.select_events(created.campaign_id, gt=1, limit=1)
        event = app.mapper.to_domain_event(stored[0])
    finally:
        app.close()
    number = 20_000

    def sample() -> float:
        check = timeit.timeit(lambda: isinstance(event, CanMutateProtocol), number=number)
        plain = timeit.timeit(lambda: isinstance(event, object), number=number)
        return (check - plain) / number * 1e6

    return Figure(
        "docs/performance-results.md, Why a roll costs what it does, fix 2",
        f"isinstance(event, CanMutateProtocol) on a roll event, Python {sys.version.split()[0]}",
        repeated(sample, repeat),
        "µs",
    )


def at_figure(workdir: Path, events: int, repeat: int, say: Say) -> Figure:
    """Figure 6: ms for ``?at=`` to find its version on a campaign of ``events`` events."""
    from bench.reads.domain_bench import build_campaign

    config = StoreConfig(sqlite_path=workdir / "at" / "questlog.db")
    builder = Questlog(config)
    try:
        say(f"?at=: building a campaign of {events:,} events")
        campaign_id = build_campaign(builder, events)
    finally:
        builder.close()
    app = Questlog(config)
    try:
        stored = app.recorder.select_events(campaign_id)
        stamps = [app.mapper.to_domain_event(item).timestamp for item in stored]
        moments = [stamps[(k * 997) % len(stamps)] for k in range(1, 11)]
        travel = app.time_travel

        def sample() -> float:
            began = time.perf_counter()
            for moment in moments:
                travel.version_at(campaign_id, moment)
            return (time.perf_counter() - began) / len(moments) * 1e3

        samples = repeated(sample, repeat)
    finally:
        app.close()
    return Figure(
        "docs/time-travel.md, The state at a point",
        f"?at=: finding the version on a campaign of {events:,} events (SQLite)",
        samples,
        "ms",
    )


# -- the run --------------------------------------------------------------------------------------


def commit() -> str:
    """The short commit of the work tree, with ``+dirty`` when it has changes."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


def header() -> str:
    """What these figures were measured on."""
    box = machine()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = datetime.now(UTC).strftime("%d %B %Y, %H:%M UTC")
    return (
        f"commit {commit()}; {box['nproc']} cores, {box['cpu']}; Python {box['python']}; "
        f"eventsourcing {box['eventsourcing']}; {when}; load average {load}"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options; ``--quick`` makes every size small."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.small.figures", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--events", type=int, help="events in the log read (20,000; quick 1,000)")
    parser.add_argument(
        "--campaign-events", type=int, help="events of the ?at= campaign (10,000; quick 300)"
    )
    parser.add_argument(
        "--requests", type=int, help="requests per route and sample (1,000; quick 30)"
    )
    parser.add_argument(
        "--rolls", type=int, help="rolls per sample in one process (2,000; quick 30)"
    )
    parser.add_argument("--repeat", type=int, help="samples after the warm-up (5; quick 1)")
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL figures")
    args = parser.parse_args(argv)
    defaults = {"events": 20_000, "campaign_events": 10_000, "requests": 1_000, "rolls": 2_000}
    if args.quick:
        defaults = {"events": 1_000, "campaign_events": 300, "requests": 30, "rolls": 30}
    defaults["repeat"] = 1 if args.quick else 5
    for name, default in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    for name in defaults:
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


@contextmanager
def workdir() -> Iterator[Path]:
    """A scratch directory, removed at the end."""
    with tempfile.TemporaryDirectory(prefix="questlog-figures-") as path:
        yield Path(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every figure and print it with the doc it backs."""
    args = parse_args(argv)

    def say(text: str) -> None:
        print(f"  … {text}", file=sys.stderr, flush=True)

    print(f"python -m bench.small.figures{' --quick' if args.quick else ''}: {header()}")
    figures: list[Figure] = []
    with workdir() as scratch:
        figures += log_figures(scratch, args.events, args.rolls, args.repeat, say)
        if not args.no_postgres:
            figures += postgres_figures(args.events, args.rolls, args.repeat, say)
        figures += request_figures(scratch, args.requests, args.repeat, say)
        figures.append(protocol_figure(scratch, args.repeat))
        figures.append(fsync_figure(scratch, args.repeat))
        figures.append(at_figure(scratch, args.campaign_events, args.repeat, say))
    out = io.StringIO()
    docs = list(dict.fromkeys(figure.doc for figure in figures))
    figures.sort(key=lambda figure: docs.index(figure.doc))  # stable: each doc's figures together
    doc = None
    for figure in figures:
        if figure.doc != doc:
            doc = figure.doc
            print(f"\n{doc}", file=out)
        print(f"  {figure.what}: {figure.text()}", file=out)
    print(out.getvalue(), end="")
    print(
        f"\nmedian of {args.repeat} after a warm-up (fastest … slowest); load average now "
        + ", ".join(f"{x:.1f}" for x in os.getloadavg())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
