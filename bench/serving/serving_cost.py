"""What serving costs a roll: ``python -m bench.serving.serving_cost``.

Part (g) compares the server CPU a roll costs the naive app and ``questlog serve``. This splits
each figure in two:

- **the app alone**: the Flask app called as WSGI in this process, one request after another on
  one thread, with no server, no socket and no other thread (``time.process_time`` around
  ``--requests`` calls). Questlog's app has access control on and the views off: the views run
  in a thread of the server, and are counted in the served figure only;
- **served**: the same app behind its real server, as part (g) serves it (waitress, 4 keep-alive
  clients each on its own campaign, server CPU from ``/proc``);

and the difference, **what serving costs**: waitress's sockets and HTTP parsing, the hand-off of
each request between its threads, and the threads' contention for the GIL (for Questlog, also
the embedded views). The naive app's figure is the floor a Python server on this stack pays per
request, whatever the app does.

Where granian (a Rust HTTP server, in the ``bench`` extra) is installed, the same Questlog app is
also served by it, as a trial of another server only (``questlog serve`` uses waitress): with 8
request threads, as many as waitress has for commands, and with one. Every server is loaded in
alternating rounds, 4 keep-alive clients each on its own campaign, and every 201 is read back::

    python -m bench.serving.serving_cost                      # 16 s per server in 4 rounds
    python -m bench.serving.serving_cost --seconds 8 --rounds 2 --no-granian
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
from flask import Flask
from rich.console import Console
from rich.table import Table

from bench.common.load import LoadResult, free_port, merge
from bench.common.server import create_bench_token
from bench.postgres.cpu_split import children
from bench.postgres.scale import acknowledged, store_environ, stored_after
from bench.write.http_bench import ROLL_BODY, LoggedServer, create_campaign
from bench.write.versus_naive import Contender, NaiveServer, _questlog
from domain.storage.store import StoreConfig

ROOT = Path(__file__).resolve().parents[2]

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def environ(path: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """A WSGI environ for a JSON POST, as a server would pass it."""
    data = orjson.dumps(body)
    env: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in headers.items():
        env["HTTP_" + name.upper().replace("-", "_")] = value
    return env


def call(app: WSGIApp, path: str, headers: dict[str, str]) -> str:
    """One roll through the app; its status line."""
    statuses: list[str] = []
    answer = app(environ(path, ROLL_BODY, headers), lambda status, *_: statuses.append(status))
    b"".join(answer)
    close = getattr(answer, "close", None)
    if close is not None:
        close()
    return statuses[0]


def cpu_ms_per_call(app: WSGIApp, path: str, headers: dict[str, str], requests: int) -> float:
    """CPU milliseconds per roll, after a warm-up; every roll must answer 201."""
    for _ in range(max(50, requests // 10)):
        status = call(app, path, headers)
        if not status.startswith("201"):
            raise RuntimeError(f"{path} answered {status}")
    statuses = []
    started = time.process_time()
    for _ in range(requests):
        statuses.append(call(app, path, headers))
    spent = time.process_time() - started
    refused = [status for status in statuses if not status.startswith("201")]
    if refused:
        raise RuntimeError(f"{path} answered {refused[0]} ({len(refused)} of {requests})")
    return spent / requests * 1e3


@dataclass
class Alone:
    """An app called as WSGI in this process, timed once a round."""

    app: WSGIApp
    path: str
    headers: dict[str, str]
    close: Callable[[], None] = lambda: None
    rounds: list[float] = field(default_factory=list)

    def time(self, requests: int) -> float:
        self.rounds.append(cpu_ms_per_call(self.app, self.path, self.headers, requests))
        return self.rounds[-1]

    @property
    def ms(self) -> float:
        return sum(self.rounds) / len(self.rounds)


def naive_alone(workdir: Path) -> Alone:
    """The naive app alone."""
    from bench.write.naive_app import build_app

    return Alone(build_app(workdir / "naive-alone.db").wsgi_app, "/rolls", {})


def log_like_questlog_serve(stream: IO[str] | None = None) -> None:
    """The logging ``questlog serve`` sets up (an access line per request, at INFO)."""
    from webapi.http.observability import configure_logging

    configure_logging(None, stream)


def questlog_alone(workdir: Path) -> Alone:
    """Questlog's app alone: access control on, the run's token exempt from the rate limit,
    each request's access line written as ``questlog serve`` writes it (to nowhere)."""
    from domain.facade import Questlog
    from webapi.app import create_app

    log_like_questlog_serve(open(os.devnull, "w"))  # noqa: SIM115 - for the process's life
    config = StoreConfig(sqlite_path=workdir / "questlog-alone.db")
    token_id, token = create_bench_token(config)
    questlog = Questlog(config)
    app = create_app(questlog, auth=True, rate_limit_exempt=[token_id])
    headers = {"Authorization": f"Bearer {token}"}
    created = app.test_client().post(
        "/campaigns",
        json={"game": "quest-calendar", "name": "alone", "house_rules": {}},
        headers=headers,
    )
    path = f"/campaigns/{created.get_json()['id']}/rolls"
    return Alone(app.wsgi_app, path, headers, questlog.close)


def naive_app_ms(workdir: Path, requests: int) -> float:
    """The naive app alone, timed once."""
    return naive_alone(workdir).time(requests)


def questlog_app_ms(workdir: Path, requests: int) -> float:
    """Questlog's app alone, timed once."""
    alone = questlog_alone(workdir)
    try:
        return alone.time(requests)
    finally:
        alone.close()


@dataclass
class Split:
    """One app's CPU per roll, alone and served, and the served rate."""

    name: str
    alone_ms: float
    served_ms: float
    served_rate: float

    @property
    def serving_ms(self) -> float:
        return self.served_ms - self.alone_ms


def split_table(splits: list[Split]) -> Table:
    table = Table(title="CPU per roll: the app alone, served, and what serving costs")
    table.add_column("")
    labels = ("app alone (ms)", "served (ms)", "serving (ms)", "share", "rolls/s", "x naive")
    for label in labels:
        table.add_column(label, justify="right")
    naive_rate = splits[0].served_rate
    for split in splits:
        table.add_row(
            split.name,
            f"{split.alone_ms:.3f}",
            f"{split.served_ms:.3f}",
            f"{split.serving_ms:.3f}",
            f"{split.serving_ms / split.served_ms:.0%}",
            f"{split.served_rate:,.0f}",
            f"{split.served_rate / naive_rate:.2f}",
        )
    return table


def granian_app() -> Flask:
    """Questlog's app as ``questlog serve`` builds it (access control on, views embedded), for
    granian's ``--factory``; the store and the exempt token come from the environment."""
    from webapi.cli.server import build_app

    log_like_questlog_serve()
    return build_app(auth=True, streams=4, views=True)


class GranianServer(LoggedServer):
    """Questlog's app served by granian (WSGI) with ``threads`` request threads, in a subprocess.

    granian runs the app in a worker process of its own: ``pid`` is that worker's."""

    label = "granian"

    def __init__(self, workdir: Path, config: StoreConfig, threads: int, token_id: str) -> None:
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.open_log(workdir / f"granian-{threads}.log")
        command = [
            granian_command() or "granian",
            "--interface",
            "wsgi",
            "--factory",
            "--host",
            "127.0.0.1",
        ]
        command += ["--port", str(self.port), "--blocking-threads", str(threads)]
        env = {**os.environ, **store_environ(config), "PYTHONPATH": str(ROOT)}
        env["QUESTLOG_RATE_LIMIT_EXEMPT"] = token_id
        self.process = subprocess.Popen(
            [*command, "bench.serving.serving_cost:granian_app"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        """granian's one worker process (its CPU is the server's: the main process waits)."""
        found = children(self.process.pid)
        if len(found) != 2:
            raise RuntimeError(f"granian runs {len(found) - 1} worker processes, not 1")
        return found[1]


def granian_side(name: str, workdir: Path, threads: int, stack: ExitStack) -> Contender:
    """A fresh store served by granian, its token and 4 campaigns."""
    config = StoreConfig(sqlite_path=workdir / f"{name}.db")
    token_id, token = create_bench_token(config)
    server = GranianServer(workdir, config, threads, token_id)
    stack.callback(server.stop)
    server.wait_ready(timeout=90.0)
    campaigns = [create_campaign(server.port, f"{name} {i}", token) for i in range(4)]
    paths = [f"/campaigns/{c}/rolls" for c in campaigns]
    return Contender(name, server, paths, ROLL_BODY, token, campaigns)


def granian_command() -> str | None:
    """granian's command beside this Python, else on the PATH; None where it is not installed."""
    beside = Path(sys.executable).with_name("granian")
    return str(beside) if beside.exists() else shutil.which("granian")


def served_rounds(
    workdir: Path,
    seconds: float,
    rounds: int,
    granian: bool,
    alone: dict[str, Alone],
    requests: int,
) -> list[Contender]:
    """Every server loaded in alternating rounds, the apps alone timed in each round too; every
    201 read back."""
    with ExitStack() as stack:
        naive = NaiveServer(workdir / "naive", 8)
        stack.callback(naive.stop)
        naive.wait_ready()
        sides = [Contender("naive", naive, ["/rolls"] * 4, ROLL_BODY)]
        config = StoreConfig(sqlite_path=workdir / "roll.db")
        sides.append(_questlog("roll", config, workdir, 4, stack, command=False))
        if granian:
            for threads in (8, 1):
                sides.append(granian_side(f"granian-{threads}", workdir, threads, stack))
        for side in sides:
            side.warmup = side.load(3.0, "warm-up")
        for number in range(rounds):
            for each in alone.values():
                each.time(max(1, requests // rounds))
            for side in sides:
                side.rounds.append(side.load(seconds / rounds, f"round {number + 1}"))
        for side in sides[1:]:
            stored = stored_after(side.server.port, side.token, side.campaigns, 1)
            if stored != acknowledged(side.rounds, side.warmup):
                raise RuntimeError(f"{side.name}: {stored} rolls stored, not every 201")
        return sides


LABELS = {
    "naive": "naive app, waitress 8 threads",
    "roll": "questlog serve, waitress 8+64",
    "granian-8": "Questlog, granian 8 threads",
    "granian-1": "Questlog, granian 1 thread",
}


def measure(
    workdir: Path, requests: int, seconds: float, rounds: int, granian: bool
) -> list[Split]:
    """Every server in alternating rounds, each round also timing both apps alone."""
    alone = {"naive": naive_alone(workdir), "roll": questlog_alone(workdir)}
    try:
        sides = served_rounds(workdir / "served", seconds, rounds, granian, alone, requests)
    finally:
        for each in alone.values():
            each.close()
    splits = []
    for side in sides:
        run: LoadResult = merge(side.name, side.rounds)
        if run.server_cpu_ms is None:
            raise RuntimeError(f"{side.name}: the server's CPU could not be read")
        app_ms = alone["naive" if side.name == "naive" else "roll"].ms
        splits.append(Split(LABELS[side.name], app_ms, run.server_cpu_ms, run.throughput))
    return splits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="rolls per app alone, in all")
    parser.add_argument("--seconds", type=float, default=16.0, help="served seconds per app")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--no-granian", action="store_true", help="skip the granian trials")
    args = parser.parse_args(argv)
    console = Console(highlight=False, width=max(Console().width, 120))
    granian = not args.no_granian and granian_command() is not None
    if not granian and not args.no_granian:
        console.print("granian is not installed (pip install -e '.[bench]'): its trials skipped")
    with tempfile.TemporaryDirectory(prefix="questlog-serving-") as folder:
        splits = measure(Path(folder), args.requests, args.seconds, args.rounds, granian)
    console.print(split_table(splits))


if __name__ == "__main__":
    main()
