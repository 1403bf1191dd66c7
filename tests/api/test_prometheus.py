"""A real Prometheus (Debian's ``prometheus`` package) scrapes a real
``questlog serve --workers 2`` every second, and every PromQL expression of docs/operations.md,
read from the doc itself, shows what happened: nothing at first, then a first burst of 429s and a
first 503 after the start, then a first conflict.

Without the ``prometheus`` binary the test skips with the reason, except under ``CI=true``, where
that is a failure (.ci/run installs it).
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
import yaml

from domain.service.questlog import Questlog
from domain.storage.advisory_locks import campaign_lock_keys
from domain.storage.recorders import CAMPAIGN_LOCK_TIMEOUT
from domain.storage.store import StoreConfig
from tests.api.test_operations_processes import stop
from tests.conftest import StoreFactory
from tests.docs.examples import DOCS, checked_block
from tests.live_server import QUESTLOG, free_port, made_admin
from tests.machine import tool

DOC = "operations.md"
ROLLS = "/campaigns/<campaign>/rolls"
RATE_LIMIT = 1
"""Appends per second per token the rate limit counts; the burst goes well past it."""
BURST = 30
OLD_TOP_BUCKET = 10.0
"""The largest finite latency bucket of an earlier release: a slower request read as this."""
CAMPAIGN_LOCK_HELD = 1.5
"""How long the campaign's lock is held before the insert's 10 s wait for the table (which the
test holds locked) starts: PostgreSQL times a lock wait by the wall clock, which this machine's
clock corrections can shorten by tens of milliseconds, so a roll that waited the table alone
could read just under 10 s."""
# held past the store's campaign lock timeout, the roll would stop waiting for it
assert float(CAMPAIGN_LOCK_TIMEOUT.removesuffix("s")) > CAMPAIGN_LOCK_HELD

Sample = dict[str, Any]


# -- the expressions, read from the doc -----------------------------------------------------------


def documented_expressions() -> dict[str, list[str]]:
    """The doc's "What to watch" list: each bullet's title and the PromQL expressions in it (the
    code spans that name a ``questlog_`` metric), in page order."""
    text = (DOCS / DOC).read_text(encoding="utf-8")
    section = text.split("What to watch (PromQL):", 1)[1].split("\nThe tests:", 1)[0]
    found: dict[str, list[str]] = {}
    for bullet in re.split(r"^- ", section, flags=re.M)[1:]:
        title = re.match(r"\*\*(.+?):\*\*", bullet)
        assert title, f"a bullet without a bold title: {bullet[:60]!r}"
        spans = re.findall(r"`([^`]+)`", bullet.replace("\n", " "))
        found[title.group(1)] = [" ".join(s.split()) for s in spans if "questlog_" in s]
    return found


COMPARISON = re.compile(r"\s(==|!=|>=|<=|>|<)\s")


def as_bool(expression: str) -> str:
    """An alert condition (``X > 1000``) as its ``bool`` form: 0 or 1 instead of nothing or X, so
    that "nothing happened" reads 0 rather than an empty answer that a missing series gives too."""
    rewritten, count = COMPARISON.subn(r" \1 bool ", expression)
    assert count == 1, f"not one comparison in {expression!r}"
    return rewritten


# -- what each expression must show ---------------------------------------------------------------


@contextmanager
def held_campaign_lock(database_url: str, campaign_id: UUID, seconds: float) -> Iterator[None]:
    """Hold a campaign's advisory lock (as another process deciding a command would) for
    ``seconds`` from entry, on a connection of its own; a roll's insert waits for it first."""
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with psycopg.connect(database_url, autocommit=True) as connection:
            keys = campaign_lock_keys(campaign_id)
            connection.execute("SELECT pg_advisory_lock(%s, %s)", keys)
            taken.set()
            done.wait(seconds)
            connection.execute("SELECT pg_advisory_unlock(%s, %s)", keys)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert taken.wait(10), "the campaign's lock was not taken"
    try:
        yield
    finally:
        done.set()
        holder.join(10)


def values(result: list[Sample]) -> list[float]:
    """The values of an instant vector, refusing an empty one (a series that does not exist)."""
    assert result, "empty: no series behind the expression"
    return [float(sample["value"][1]) for sample in result]


def zero(result: list[Sample]) -> None:
    assert values(result) == [0.0] * len(result), result


def undefined(result: list[Sample]) -> None:
    """Present, but 0/0: nothing to measure yet (no request on the route, no command)."""
    assert all(math.isnan(v) for v in values(result)), result


def positive(result: list[Sample]) -> None:
    assert all(v > 0 for v in values(result)), result


def above_old_top_bucket(result: list[Sample]) -> None:
    """The slowest roll (the 503 that waited out the store's lock) reads as more than 10 s."""
    (value,) = values(result)
    assert OLD_TOP_BUCKET < value < 120, result


def by(label: str, expected: dict[str, Callable[[float], bool]]) -> Callable[[list[Sample]], None]:
    """Each series' value, keyed by one of its labels, passes its own check; none is missing."""

    def check(result: list[Sample]) -> None:
        seen = {sample["metric"].get(label): float(sample["value"][1]) for sample in result}
        assert set(seen) == set(expected), (seen, result)
        for key, passes in expected.items():
            assert passes(seen[key]), (key, seen[key], result)

    return check


def only_the_rolls_route_throttled(result: list[Sample]) -> None:
    routes = {sample["metric"]["route"]: float(sample["value"][1]) for sample in result}
    assert routes.get(ROLLS, 0) > 0, result
    assert {r for r, v in routes.items() if v} == {ROLLS}, routes
    assert len(routes) > 1, "the routes nobody was throttled on are absent, not 0"


GAMES = ("quest-calendar", "calendar-board")


def is_zero(value: float) -> bool:
    return value == 0


def is_positive(value: float) -> bool:
    return value > 0


def is_nan(value: float) -> bool:
    return math.isnan(value)


@dataclass(frozen=True)
class Shown:
    """What one documented expression must show in each phase of the run (None: not checked)."""

    quiet: Callable[[list[Sample]], None]
    failures: Callable[[list[Sample]], None]
    conflict: Callable[[list[Sample]], None] | None = None
    alert: bool = False
    """An alert condition: evaluated as written (no answer: no alert) and in its bool form."""


EXPECTED: dict[str, list[Shown]] = {
    "The store": [
        Shown(quiet=zero, failures=zero, alert=True),  # the store answered every scrape
        Shown(quiet=zero, failures=positive),
    ],
    "Errors": [Shown(quiet=zero, failures=positive)],
    "Latency of the roll route": [Shown(quiet=undefined, failures=above_old_top_bucket)],
    "Views falling behind": [Shown(quiet=zero, failures=zero, alert=True)],
    # The roll held by the table lock waits before its first row: it holds no transaction id.
    "An append holding the views back": [Shown(quiet=zero, failures=zero, alert=True)],
    "Contention": [
        Shown(
            quiet=by("game", dict.fromkeys(GAMES, is_nan)),
            failures=by("game", dict.fromkeys(GAMES, is_zero)),
            conflict=by("game", {"quest-calendar": is_positive, "calendar-board": is_zero}),
        )
    ],
    "Throttled clients": [Shown(quiet=zero, failures=only_the_rolls_route_throttled)],
    "Throughput": [Shown(quiet=zero, failures=positive)],
}
"""Keyed by the doc's bullet titles, one entry per expression of the bullet."""


def test_every_documented_expression_has_what_it_must_show() -> None:
    """The doc and this test cannot drift: a new, removed or changed bullet fails here, with or
    without Prometheus."""
    documented = documented_expressions()
    assert set(documented) == set(EXPECTED)
    for title, expressions in documented.items():
        assert len(expressions) == len(EXPECTED[title]), (title, expressions)
        for expression, shown in zip(expressions, EXPECTED[title], strict=True):
            assert bool(COMPARISON.search(expression)) == shown.alert, expression


# -- Prometheus and questlog serve ----------------------------------------------------------------


@pytest.fixture(scope="session")
def prometheus_binary() -> str:
    """The ``prometheus`` binary; a skip (under CI a failure) without it."""
    return tool("prometheus", "apt-get install prometheus")


class Prometheus:
    """A Prometheus server of the test's own: temp config and data, loopback, stopped by pid."""

    def __init__(self, binary: str, directory: Path, job: dict[str, Any]) -> None:
        self.port = free_port()
        config = directory / "prometheus.yml"
        config.write_text(
            yaml.safe_dump(
                {
                    "global": {
                        "scrape_interval": "1s",
                        "scrape_timeout": "1s",
                        "evaluation_interval": "1s",
                    },
                    "scrape_configs": [job],
                }
            ),
            encoding="utf-8",
        )
        self.log = (directory / "prometheus.log").open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [
                binary,
                f"--config.file={config}",
                f"--storage.tsdb.path={directory / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self.log.close()

    def query(self, expression: str) -> list[Sample]:
        """An instant query through the HTTP API: the vector it answers."""
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(
            {"query": expression}
        )
        with urllib.request.urlopen(url, timeout=10) as answer:
            body = json.load(answer)
        assert body["status"] == "success", body
        assert body["data"]["resultType"] == "vector", (expression, body)
        result: list[Sample] = body["data"]["result"]
        return result

    def scalar(self, expression: str) -> float | None:
        """The one value of an expression, or None while it has none."""
        result = self.query(expression)
        return float(result[0]["value"][1]) if result else None

    def wait_for(self, expression: str, wanted: Callable[[float], bool], what: str) -> float:
        """Wait (generously: the machine is shared) until the expression's value passes."""
        deadline = time.monotonic() + 60
        value: float | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"prometheus exited with {self.process.returncode}")
            try:
                value = self.scalar(expression)
            except (urllib.error.URLError, OSError):
                value = None  # not listening yet, or too busy to answer in time (a loaded machine)
            if value is not None and wanted(value):
                return value
            time.sleep(0.5)
        pytest.fail(f"Prometheus never saw {what}: {expression} = {value}")


class Served:
    """``questlog serve --workers 2`` on a PostgreSQL schema of its own, and one keep-alive
    connection to it: the test's writes all go to the worker that accepted it, so that none
    finds its cached campaign behind the other worker's writes (a conflict of its own)."""

    def __init__(self, port: int, ops: str, player: str, config: StoreConfig) -> None:
        self.port = port
        self.ops = ops
        """The admin token Prometheus scrapes with (exempt from the rate limit)."""
        self.player = player
        """An admin token the rate limit counts."""
        self.config = config
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def healthy(self) -> bool:
        """Whether ``GET /healthz`` answers 200 (on a connection of its own)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as ok:
                return bool(ok.status == 200)
        except (urllib.error.URLError, OSError):  # refused, reset or timed out: not yet
            return False

    def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        """One request on the kept connection: its status and JSON body."""
        data = json.dumps(body) if body is not None else None
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        try:
            self.connection.request(method, path, body=data, headers=headers)
            answer = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed the connection while it was idle (keep-alive ran out), before
            # reading this request: send it again on a new one.
            self.connection.close()
            self.connection.request(method, path, body=data, headers=headers)
            answer = self.connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")

    def campaign(self, game: str, setup: dict[str, Any]) -> str:
        status, body = self.call(
            "POST", "/campaigns", self.ops, {"game": game, "name": game, "setup": setup}
        )
        assert status == 201, body
        return str(body["id"])

    def roll(self, campaign: str, token: str) -> int:
        return self.call("POST", f"/campaigns/{campaign}/rolls", token, {"dice": "d6"})[0]


@pytest.fixture
def served(tmp_path: Path, postgres_url: str) -> Iterator[Served]:
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    env = {
        **os.environ,
        "QUESTLOG_DATABASE_URL": postgres_url,
        "QUESTLOG_PG_SCHEMA": str(config.postgres_schema),
        "QUESTLOG_RATE_LIMIT": str(RATE_LIMIT),
    }
    for variable in ("QUESTLOG_DB", "QUESTLOG_AUTH", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(variable, None)
    ops_id, ops = made_admin(env, "ops")
    _, player = made_admin(env, "player")
    env["QUESTLOG_RATE_LIMIT_EXEMPT"] = ops_id
    port = free_port()
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--workers", "2", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        server = Served(port, ops, player, config)
        deadline = time.monotonic() + 120
        # /healthz, not /readyz: a 503 "not ready yet" would count as a failure.
        while not server.healthy():
            if process.poll() is not None:
                pytest.fail(f"questlog serve exited with {process.returncode}")
            if time.monotonic() > deadline:
                pytest.fail("questlog serve never became ready")
            time.sleep(0.5)
        yield server
        server.connection.close()
    finally:
        stop(process)
        factory.remove_all()


@pytest.fixture
def prometheus(prometheus_binary: str, served: Served, tmp_path: Path) -> Iterator[Prometheus]:
    """Prometheus scraping the server with the doc's own job: only its target and token file
    are this test's."""
    job = yaml.safe_load(
        checked_block(DOC, "tests/docs/test_operations_doc_blocks.py", "scrape_configs")
    )["scrape_configs"][0]
    token_file = tmp_path / "questlog.token"
    token_file.write_text(served.ops, encoding="utf-8")
    token_file.chmod(0o600)
    job["authorization"]["credentials_file"] = str(token_file)
    job["static_configs"][0]["targets"] = [f"127.0.0.1:{served.port}"]
    directory = tmp_path / "prometheus"
    directory.mkdir()
    server = Prometheus(prometheus_binary, directory, job)
    try:
        yield server
    finally:
        server.stop()


# -- the run --------------------------------------------------------------------------------------


ATTEMPTS = 3
"""Evaluations of an expression before its check fails: a scrape that timed out on the busy
machine leaves the instant selectors stale (empty) for a moment; the value itself is steady."""


def check_every_expression(prometheus: Prometheus, phase: str) -> None:
    """Evaluate every documented expression; each must show what its phase expects."""
    for title, expressions in documented_expressions().items():
        for expression, shown in zip(expressions, EXPECTED[title], strict=True):
            check = getattr(shown, phase)
            if check is None:
                continue
            if shown.alert:
                assert prometheus.query(expression) == [], f"{title}: {expression} alerts"
                expression = as_bool(expression)
            for attempt in range(ATTEMPTS):
                try:
                    check(prometheus.query(expression))
                    break
                except AssertionError as failed:
                    if attempt == ATTEMPTS - 1:
                        raise AssertionError(
                            f"{phase}, {title}: {expression} -> {failed}"
                        ) from None
                    time.sleep(1)


@pytest.mark.postgres
def test_prometheus_sees_the_first_429s_the_first_503_and_the_first_conflict(
    prometheus: Prometheus, served: Served
) -> None:
    job = 'job="questlog"'
    # Quiet: a few scrapes of nothing but zeros (and the scrapes themselves).
    prometheus.wait_for(f"sum(count_over_time(up{{{job}}}[5m]))", lambda n: n >= 5, "5 scrapes")
    prometheus.wait_for(f"min(up{{{job}}})", lambda up: up == 1, "the target up")
    check_every_expression(prometheus, "quiet")

    # The first failures after the start: a burst of 429s and one 503, among commands that
    # meet no conflict (one connection: one worker).
    qc = served.campaign("quest-calendar", {})
    served.campaign("calendar-board", {"players": [{"id": "A"}, {"id": "B"}]})
    assert [served.roll(qc, served.ops) for _ in range(5)] == [201] * 5
    statuses = [served.roll(qc, served.player) for _ in range(BURST)]
    throttled = statuses.count(429)
    assert throttled >= BURST // 2 and set(statuses) == {201, 429}, statuses
    other = Questlog(served.config)  # another process on the store: it locks, later it writes
    try:
        assert served.config.database_url is not None
        table = f'"{served.config.postgres_schema}"."{other.recorder.events_table_name}"'
        with (
            psycopg.connect(served.config.database_url) as holder,
            held_campaign_lock(served.config.database_url, UUID(qc), CAMPAIGN_LOCK_HELD),
        ):
            holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
            started = time.monotonic()
            status, body = served.call("POST", f"/campaigns/{qc}/rolls", served.ops, {"dice": "d6"})
            waited = time.monotonic() - started
        assert status == 503, body
        assert waited > OLD_TOP_BUCKET, f"the 503 came after {waited:.1f} s"
        sent = 'questlog_http_requests_total{status="%s"}'
        prometheus.wait_for(f"sum({sent % 429})", lambda n: n == throttled, f"{throttled} 429s")
        prometheus.wait_for(f"sum({sent % 503})", lambda n: n == 1, "the 503")
        check_every_expression(prometheus, "failures")
        # The counts are the real ones, not only non-zero (Prometheus extrapolates up, never
        # down, from a series that starts at 0).
        seen = prometheus.scalar(f"sum(increase({sent % 429}[5m]))")
        assert seen is not None and throttled <= seen < throttled * 1.2, (seen, throttled)
        seen = prometheus.scalar(f"sum(increase({sent % 503}[5m]))")
        assert seen is not None and 1 <= seen < 1.2, seen

        # The first conflict: the other process writes the campaign, and the worker's cached
        # copy is behind it at its next command.
        conflicts = "sum(questlog_command_conflicts_retried_total)"
        for _ in range(10):  # once is enough, unless the connection moved to the other worker
            other.dice.roll(UUID(qc), notation="d6", purpose="another process")
            assert served.roll(qc, served.ops) == 201
            time.sleep(2)  # a scrape or two
            if (prometheus.scalar(conflicts) or 0) >= 1:
                break
    finally:
        other.close()
    prometheus.wait_for(conflicts, lambda n: n >= 1, "a conflict")
    check_every_expression(prometheus, "conflict")
