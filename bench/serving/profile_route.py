"""Where a request's time goes: ``python -m bench.serving.profile_route`` (py-spy on a loaded
server).

py-spy comes with the project's ``bench`` extra: ``pip install -e '.[bench]'``.

``questlog serve`` runs as the README starts it (SQLite, access control on, views embedded, the
run's admin token exempt from the rate limit). Four keep-alive clients load one route, each on
its own campaign, while ``py-spy record --gil`` samples the server: each sample is the Python
stack of the thread holding the GIL, so the samples show where the interpreter spends the
server's CPU. Each sample goes to the first category (``CATEGORIES``, most specific first) that
one of its frames belongs to. The table gives each category's share and its milliseconds per
request; the line under it splits the server's CPU per request (from ``/proc``) into the time
Python held the GIL and the rest: SQLite's C code, the fsync of each commit and the sockets'
system calls, which run without the GIL.

Routes: ``roll`` (``POST /campaigns/{id}/rolls``, a server d20) and ``command`` (a Quest
Calendar ``trait_check`` on server dice, on a campaign with a hero and an open page).
``--store postgres`` serves them from a fresh schema of the PostgreSQL at
``QUESTLOG_BENCH_DATABASE_URL`` (one process, as part (g) serves it); time psycopg spends waiting
for the server is outside the GIL, so it shows in the line under the table, not in it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.common.load import LoadResult
from bench.postgres.scale import URL, fresh_schema
from bench.write.versus_naive import Contender, _questlog
from domain.storage.store import StoreConfig

SAMPLE_RATE = 250
Frame = tuple[str, str]
"""(function, file) of one frame."""


def _in(*parts: str) -> Callable[[Frame], bool]:
    return lambda frame: any(part in frame[1] for part in parts)


CATEGORIES: list[tuple[str, Callable[[Frame], bool]]] = [
    ("views (embedded projections)", _in("projections/")),
    ("checkpoint signature (Ed25519)", _in("signed_note.py", "storage/keys.py")),
    ("access: token lookup", _in("http/access.py", "service/tokens.py")),
    ("game state: copy, diff, patch", _in("model/patch.py")),
    (
        "append: transaction, SQL, side rows",
        _in("eventsourcing/", "domain/storage/", "sqlite3", "psycopg"),
    ),
    ("dice: draw and proof", _in("model/dice", "model/dice/checked.py")),
    ("game rules and events", _in("domain/model/")),
    ("command service (load, decide, save)", _in("domain/service/")),
    ("response: JSON and headers", _in("http/plumbing.py", "json/")),
    ("metrics and logs", _in("observability.py", "metrics.py", "logging/", "prometheus_client")),
    (
        "Flask, routing, parsing (webargs, marshmallow)",
        _in("flask/", "werkzeug/", "webargs/", "marshmallow/", "flask_smorest/", "webapi/"),
    ),
    ("waitress: sockets and HTTP parsing", _in("waitress/")),
]
OTHER = "other"


def category(stack: list[Frame]) -> str:
    """The first category that a frame of the stack belongs to."""
    for label, belongs in CATEGORIES:
        if any(belongs(frame) for frame in stack):
            return label
    return OTHER


def parse_raw(text: str) -> Counter[str]:
    """py-spy's raw (collapsed) output: one stack per line, ``frame;frame;... count``."""
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        stack_text, _, count = line.rpartition(" ")
        if not stack_text:
            continue
        stack = []
        for frame in stack_text.split(";"):
            function, _, rest = frame.partition(" (")
            stack.append((function, rest.rsplit(":", 1)[0]))
        counts[category(stack)] += int(count)
    return counts


@dataclass
class Profile:
    """One route's profile: samples per category, and the load it was taken under."""

    route: str
    samples: Counter[str]
    seconds: float
    load: LoadResult

    @property
    def gil_ms_per_request(self) -> float:
        """Milliseconds of held GIL per request (samples over rate, per request)."""
        total = sum(self.samples.values()) / SAMPLE_RATE
        return total / max(1, self.load.requests) * 1e3 * (self.load.seconds / self.seconds)


def profile(route: str, workdir: Path, seconds: float, clients: int, store: str) -> Profile:
    """Load one route on a fresh server (``store``: sqlite or postgres) and sample it."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    with ExitStack() as stack:
        if store == "postgres":
            schema = stack.enter_context(fresh_schema(URL))
            config = StoreConfig(database_url=URL, postgres_schema=schema)
        else:
            config = StoreConfig(sqlite_path=workdir / f"{route}.db")
        side: Contender = _questlog(
            route, config, workdir, clients, stack, command=route == "command"
        )
        side.load(2.0, "warm-up")
        out = workdir / f"{route}.txt"
        command = [spy, "record", "--pid", str(side.server.pid), "--duration", str(int(seconds))]
        command += ["--rate", str(SAMPLE_RATE), "--format", "raw", "--gil", "--nonblocking"]
        recorder = subprocess.Popen(
            [*command, "--output", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        load = side.load(seconds + 0.5, "profiled")
        recorder.wait(timeout=60)
        samples = parse_raw(out.read_text(encoding="utf-8"))
        return Profile(f"{route} ({store})", samples, seconds, load)


def profile_table(result: Profile) -> Table:
    """Each category's share of the GIL samples and its milliseconds per request."""
    load = result.load
    table = Table(
        title=f"{result.route}: {load.throughput:,.0f} requests/s, server CPU "
        f"{load.server_cpu_ms or float('nan'):.2f} ms per request, of which Python held the GIL "
        f"{result.gil_ms_per_request:.2f} ms",
        title_justify="left",
    )
    table.add_column("where")
    table.add_column("share of GIL samples", justify="right")
    table.add_column("ms per request", justify="right")
    total = sum(result.samples.values()) or 1
    for label, count in result.samples.most_common():
        share = count / total
        table.add_row(label, f"{share:.1%}", f"{share * result.gil_ms_per_request:.3f}")
    return table


def main(argv: list[str] | None = None) -> None:
    """Profile each route and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--route", choices=["roll", "command"], action="append")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    with tempfile.TemporaryDirectory(prefix="questlog-profile-") as folder:
        for route in args.route or ["roll", "command"]:
            result = profile(route, Path(folder), args.seconds, args.clients, args.store)
            console.print(profile_table(result))
            cpu = result.load.server_cpu_ms
            if cpu is not None:
                outside = cpu - result.gil_ms_per_request
                console.print(
                    f"  [dim]outside the GIL (SQLite's C code, fsync, socket calls, waits for "
                    f"the GIL or for PostgreSQL): {outside:.2f} ms per request[/dim]"
                )


if __name__ == "__main__":
    main()
