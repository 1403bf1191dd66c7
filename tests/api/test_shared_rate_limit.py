"""The append rate limit on PostgreSQL is one bucket per token in the store, shared by every API
process: N workers allow the configured rate, not N times it.

Two ``Questlog`` applications on one schema stand for two processes: each has its own pool and
its own limiter, and only the store is shared. Bounds are computed from the measured elapsed
time, never asserted as speeds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from domain.service.questlog import Questlog
from webapi.app import create_app
from webapi.http.rate_limits import RateLimiter, StoreRateLimiter, rate_limiter

from .conftest import client_as

pytestmark = pytest.mark.postgres
ON_POSTGRES = pytest.mark.parametrize("store_config", ["postgres"], indirect=True)


def most_allowed(rate: float, burst: float, elapsed: float) -> int:
    """The appends one shared bucket can allow in ``elapsed`` seconds."""
    return int(burst + math.floor(rate * elapsed))


@ON_POSTGRES
def test_the_store_keeps_the_buckets_on_postgres_and_the_process_on_sqlite(
    make_app: Callable[[], Questlog],
) -> None:
    app = make_app()
    assert isinstance(rate_limiter(5, app), StoreRateLimiter)
    assert rate_limiter(0, app) is None


def test_sqlite_keeps_its_buckets_in_the_process(questlog: Questlog) -> None:
    assert isinstance(rate_limiter(5, questlog), RateLimiter)


@ON_POSTGRES
def test_two_processes_together_get_one_burst_then_a_wait(
    make_app: Callable[[], Questlog],
) -> None:
    first = StoreRateLimiter(1, make_app().side_tables)
    second = StoreRateLimiter(1, make_app().side_tables)
    started = time.monotonic()
    waits = [limiter.take("token-a") for limiter in (first, second) * 5]
    elapsed = time.monotonic() - started
    allowed = sum(1 for wait in waits if wait == 0)
    assert waits[0] == 0
    assert 1 <= allowed <= most_allowed(1, 1, elapsed)
    refused = [wait for wait in waits if wait > 0]
    assert refused and all(0 < wait <= 1.0 for wait in refused)
    # Another token has a bucket of its own.
    assert second.take("token-b") == 0


@ON_POSTGRES
def test_concurrent_takes_from_two_processes_never_exceed_the_rate(
    make_app: Callable[[], Questlog],
) -> None:
    rate = 2.0
    limiters = [StoreRateLimiter(rate, make_app().side_tables) for _ in range(2)]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        waits = list(pool.map(lambda n: limiters[n % 2].take("shared"), range(60)))
    elapsed = time.monotonic() - started
    allowed = sum(1 for wait in waits if wait == 0)
    assert 2 <= allowed <= most_allowed(rate, rate, elapsed), (allowed, elapsed)


@ON_POSTGRES
def test_the_bucket_refills_at_the_rate(make_app: Callable[[], Questlog]) -> None:
    limiter = StoreRateLimiter(5, make_app().side_tables)
    while limiter.take("refill") == 0:
        pass
    wait = limiter.take("refill")
    assert 0 < wait <= 0.2
    time.sleep(0.5)  # at least two tokens back, whatever the machine's speed
    assert limiter.take("refill") == 0
    assert limiter.take("refill") == 0


@ON_POSTGRES
def test_an_append_over_the_shared_limit_on_the_other_process_is_a_429_with_retry_after(
    make_app: Callable[[], Questlog],
) -> None:
    apps = [make_app(), make_app()]
    _, secret = apps[0].access.create_token("player", admin=True)
    clients = [client_as(create_app(app, auth=True, rate_limit=0.01), secret) for app in apps]
    created = apps[0].campaigns.create_campaign(game="quest-calendar", name="Shared")
    rolls = f"/campaigns/{created.campaign_id}/rolls"
    assert clients[0].post(rolls, json={"dice": "d20"}).status_code == 201
    refused = clients[1].post(rolls, json={"dice": "d20"})
    assert refused.status_code == 429
    assert refused.content_type == "application/problem+json"
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.json["status"] == 429
