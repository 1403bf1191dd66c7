"""Live streams against the roll route: does an open table slow the commands down?

``python -m bench.serving.streams`` starts the benchmark's server (``bench/common/server.py``:
exactly what ``questlog serve`` serves, with its 8 request threads plus one per allowed stream) on a
fresh SQLite store, with this run's own admin token, the one token the rate limit does not count. It
loads the roll route of one campaign with keep-alive clients (``bench/common/load.py``), then opens
50 streams on that same campaign (every roll is then sent to 50 readers) and loads it again, in
alternating rounds, and prints throughput and latency with and without the streams, and whether
every stream received every roll. ``--quick`` is a short run for a smoke test.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import shutil
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.common.load import HOST, LoadResult, auth_headers, merge, request_json, run_load
from bench.common.server import create_bench_token
from bench.write.http_bench import ROLL_BODY, BenchError, ServerProcess, create_campaign
from domain.storage.store import StoreConfig

STREAMS = 50
MESSAGE_START = b"\nid: "
"""How each event message starts (after the blank line that ends the one before)."""
CLIENTS = 8


@dataclass
class StreamReader:
    """One open stream in a thread: counts the event messages it receives (cheaply: the
    readers share the machine with the server and the load's clients)."""

    port: int
    path: str
    token: str
    received: int = 0
    opened: threading.Event = field(default_factory=threading.Event)
    status: int | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
        self.sock: socket.socket | None = None
        self.thread = threading.Thread(target=self.read, daemon=True)

    def start(self) -> None:
        """Open the stream and read it in the background."""
        self.thread.start()

    def read(self) -> None:
        """Count the ``id:`` lines until the connection is closed."""
        try:
            self.conn.request("GET", self.path, headers=auth_headers(self.token))
            self.sock = self.conn.sock  # the response takes it over when the stream may close
            response = self.conn.getresponse()
            self.status = response.status
            self.opened.set()
            carry = b""
            while True:
                chunk = response.read1(1 << 16)
                if not chunk:
                    return
                text = carry + chunk
                self.received += text.count(MESSAGE_START)
                carry = text[-(len(MESSAGE_START) - 1) :]
        except Exception as error:  # a closed connection ends the reader
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.opened.set()

    def close(self) -> None:
        """Close the connection (the server notices at its next write). ``shutdown`` first: a
        plain ``close`` while the reader's thread waits in ``recv`` would send nothing."""
        sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()


@dataclass
class StreamsResult:
    """The roll route without and with open streams, and what the streams received."""

    without: LoadResult
    with_streams: LoadResult
    streams: int
    head: int
    received_min: int
    received_max: int
    refused: list[str]

    def lines(self) -> list[str]:
        """The figures, one per line."""
        rows = [
            f"{'roll route':<22}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'ok':>8}"
            f"{'server CPU/req':>16}",
            *(
                f"{name:<22}{run.throughput:>9.1f}{run.percentile_ms(50):>9.1f}"
                f"{run.percentile_ms(99):>9.1f}{run.success:>8.1%}"
                f"{cpu_text(run.server_cpu_ms):>16}"
                for name, run in (
                    ("without streams", self.without),
                    (f"with {self.streams} streams", self.with_streams),
                )
            ),
            f"each stream received {self.received_min}..{self.received_max} of the "
            f"{self.head} events appended while it was open (last round)",
        ]
        if self.refused:
            rows.append(f"streams not opened: {self.refused[:3]}")
        return rows

    @property
    def ok(self) -> bool:
        """Every load delivered, every stream open and sent every event."""
        return (
            self.without.delivered
            and self.with_streams.delivered
            and not self.refused
            and self.received_min == self.head
        )


def cpu_text(ms: float | None) -> str:
    """Milliseconds of server CPU per request, or a dash where it could not be measured."""
    return "-" if ms is None else f"{ms:.2f} ms"


def campaign_version(port: int, cid: str, token: str) -> int:
    """The campaign's version now."""
    status, body = request_json(port, "GET", f"/campaigns/{cid}", token=token)
    if status != 200:
        raise BenchError(f"GET /campaigns/{cid} answered {status}: {body}")
    return int(body["version"])


def measure(workdir: Path, *, seconds: float, rounds: int, streams: int) -> StreamsResult:
    """Start the server, load the roll route without and with streams, stop the server."""
    token_id, token = create_bench_token(StoreConfig(sqlite_path=workdir / "questlog.db"))
    server = ServerProcess(workdir, 8, token_id)
    readers: list[StreamReader] = []
    try:
        server.wait_ready()
        cid = create_campaign(server.port, "bench: streams", token)
        paths = [f"/campaigns/{cid}/rolls"] * CLIENTS

        def load(name: str) -> LoadResult:
            return run_load(
                name=name,
                port=server.port,
                paths=paths,
                body=ROLL_BODY,
                seconds=seconds / rounds,
                server_pid=server.pid,
                token=token,
            )

        load("warm-up")
        without: list[LoadResult] = []
        with_streams: list[LoadResult] = []
        for _ in range(rounds):
            without.append(load("without streams"))
            # each stream starts at the head: the figures are about live events, not a backlog
            start = campaign_version(server.port, cid, token)
            readers = [
                StreamReader(server.port, f"/campaigns/{cid}/stream?after={start}", token)
                for _ in range(streams)
            ]
            for reader in readers:
                reader.start()
            for reader in readers:
                reader.opened.wait(30)
            time.sleep(0.5)
            with_streams.append(load("with streams"))
            head = campaign_version(server.port, cid, token) - start
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(r.received < head for r in readers):
                time.sleep(0.1)
            received = [r.received for r in readers]
            refused = [f"{r.status} {r.error}" for r in readers if r.status != 200]
            for reader in readers:
                reader.close()
            for reader in readers:
                reader.thread.join(10)
            readers = []
            # the server notices a closed stream when it next writes to it: one roll makes
            # every stream write, and so give its slot back before the next round opens 50 more
            request_json(server.port, "POST", f"/campaigns/{cid}/rolls", ROLL_BODY, token=token)
            time.sleep(1.0)
        return StreamsResult(
            merge("without streams", without),
            merge("with streams", with_streams),
            streams,
            head,
            min(received),
            max(received),
            refused,
        )
    finally:
        for reader in readers:
            reader.close()
        server.stop()


def main(argv: list[str] | None = None) -> int:
    """Run the streams benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short smoke run (2 s, 1 round)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per case")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds")
    parser.add_argument("--streams", type=int, default=STREAMS, help="streams to open")
    args = parser.parse_args(argv)
    seconds, rounds = (2.0, 1) if args.quick else (args.seconds, args.rounds)
    workdir = Path(tempfile.mkdtemp(prefix="questlog-streams-"))
    try:
        print(
            f"roll route, {CLIENTS} keep-alive clients, {seconds:g} s per case in {rounds} "
            f"round(s); then the same with {args.streams} streams open on the campaign"
        )
        result = measure(workdir, seconds=seconds, rounds=rounds, streams=args.streams)
    except BenchError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for line in result.lines():
        print(line)
    print("OK" if result.ok else "FAILED")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
