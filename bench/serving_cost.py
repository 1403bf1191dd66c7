"""What serving costs a roll: ``python -m bench.serving_cost``.

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
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from bench.http_bench import ROLL_BODY
from bench.server import create_bench_token
from bench.versus_naive import measure_versus
from domain.storage.store import StoreConfig

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
    started = time.process_time()
    for _ in range(requests):
        call(app, path, headers)
    return (time.process_time() - started) / requests * 1e3


def naive_app_ms(workdir: Path, requests: int) -> float:
    """The naive app alone."""
    from bench.naive_app import build_app

    return cpu_ms_per_call(build_app(workdir / "naive-alone.db").wsgi_app, "/rolls", {}, requests)


def questlog_app_ms(workdir: Path, requests: int) -> float:
    """Questlog's app alone: access control on, the run's token exempt from the rate limit."""
    from domain.facade import Questlog
    from webapi.app import create_app

    config = StoreConfig(sqlite_path=workdir / "questlog-alone.db")
    token_id, token = create_bench_token(config)
    questlog = Questlog(config)
    try:
        app = create_app(questlog, auth=True, rate_limit_exempt=[token_id])
        headers = {"Authorization": f"Bearer {token}"}
        created = app.test_client().post(
            "/campaigns",
            json={"game": "quest-calendar", "name": "alone", "house_rules": {}},
            headers=headers,
        )
        path = f"/campaigns/{created.get_json()['id']}/rolls"
        return cpu_ms_per_call(app.wsgi_app, path, headers, requests)
    finally:
        questlog.close()


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
    for label in ("app alone (ms)", "served (ms)", "serving (ms)", "share", "served rolls/s"):
        table.add_column(label, justify="right")
    for split in splits:
        table.add_row(
            split.name,
            f"{split.alone_ms:.3f}",
            f"{split.served_ms:.3f}",
            f"{split.serving_ms:.3f}",
            f"{split.serving_ms / split.served_ms:.0%}",
            f"{split.served_rate:,.0f}",
        )
    return table


def measure(workdir: Path, requests: int, seconds: float, rounds: int) -> list[Split]:
    """Both apps alone, then both served in alternating rounds (part (g) without the others)."""
    alone = {"naive": naive_app_ms(workdir, requests), "roll": questlog_app_ms(workdir, requests)}
    served = measure_versus(
        workdir / "served",
        clients=4,
        threads=8,
        warmup=3.0,
        seconds=seconds,
        rounds=rounds,
        postgres=False,
        command=False,
        note=lambda _text: None,
    )
    names = {"naive": "the naive app", "roll": "questlog serve, the roll route"}
    splits = []
    for key, label in names.items():
        run = served.runs[key]
        if run.server_cpu_ms is None:
            raise RuntimeError(f"{label}: the server's CPU could not be read")
        splits.append(Split(label, alone[key], run.server_cpu_ms, run.throughput))
    return splits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="rolls per app alone")
    parser.add_argument("--seconds", type=float, default=16.0, help="served seconds per app")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    with tempfile.TemporaryDirectory(prefix="questlog-serving-") as folder:
        splits = measure(Path(folder), args.requests, args.seconds, args.rounds)
    console.print(split_table(splits))


if __name__ == "__main__":
    main()
