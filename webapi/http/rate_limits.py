"""Per-token rate limits on appends: in memory for one process, in the store's rows when
several processes share it (PostgreSQL)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from domain import settings

if TYPE_CHECKING:
    from domain.facade import Questlog


def rate_setting(rate: float | None) -> float:
    """Appends per second per token: the argument, else QUESTLOG_RATE_LIMIT, else the default."""
    if rate is not None:
        return rate
    return settings.read().rate_limit


def exempt_setting(exempt: Iterable[str] | None) -> frozenset[str]:
    """Token ids the rate limit does not count: the argument, else QUESTLOG_RATE_LIMIT_EXEMPT
    (ids separated by commas), else none. The benchmark exempts the one token it creates."""
    if exempt is None:
        return settings.read().rate_limit_exempt
    return settings.token_ids(exempt)


@dataclass
class Bucket:
    """A token bucket: ``tokens`` left, refilled at the rate since ``stamp``."""

    tokens: float
    stamp: float


class RateLimiter:
    """In-memory per-token buckets (one process; a restart forgets them)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.burst = max(1.0, rate)
        self.buckets: dict[str, Bucket] = {}
        self.lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take one append; 0 if allowed, else the seconds until one is allowed."""
        now = time.monotonic()
        with self.lock:
            bucket = self.buckets.setdefault(key, Bucket(self.burst, now))
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.rate


class StoreRateLimiter:
    """Per-token buckets kept in the store (PostgreSQL), shared by every API process on it: N
    workers together allow the configured rate, not N times it."""

    def __init__(self, rate: float, app: Questlog) -> None:
        self.rate = rate
        self.burst = max(1.0, rate)
        self.app = app

    def take(self, key: str) -> float:
        """Take one append; 0 if allowed, else the seconds until one is allowed."""
        return self.app.take_rate_token(key, self.rate, self.burst)


def rate_limiter(rate: float, app: Questlog) -> RateLimiter | StoreRateLimiter | None:
    """The append limiter: none at rate 0; the store's buckets when the store shares them
    between processes (PostgreSQL); else this process's own (SQLite: one process)."""
    if rate <= 0:
        return None
    if app.shares_rate_buckets():
        return StoreRateLimiter(rate, app)
    return RateLimiter(rate)
