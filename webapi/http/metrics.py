"""Prometheus metrics of the API: requests by route and status, latency by route, commands and
events appended, conflicts retried, each view's lag and the age of the log's horizon (computed
when scraped).

Labels are bounded: a request is counted under its URL rule (``/campaigns/<campaign>/rolls``),
never its path, so a million campaigns make one series, not a million.

Every series a documented PromQL expression reads a failure, a latency or a game from exists at
0 from the app's start (``Metrics.prime``): the 500, 503 and 507 answers and the latency of every
route, the 429 answers of every route the rate limit counts, and the commands, conflicts and
events of each game. Prometheus' ``rate()`` and ``increase()`` see a counter's increments only
after its first sample, so a series created at its first increment would hide the first burst of
429s, the first 503 after a start, the first slow request and the first conflict of a game. The
primed series are the ones a server has anyway once each route has been used.

One process keeps its metrics in a registry of its own app. Several processes (``questlog serve
--workers N`` sets ``PROMETHEUS_MULTIPROC_DIR``) each write theirs to files in that directory, and
a scrape, answered by any one of them, reads and sums every process's files
(``prometheus_client.multiprocess``). The view lag is read from the store at scrape time by the
process that answers, so it needs no summing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from flask import Flask, Response, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from domain import settings
from domain.facade import RULES, Campaign, CommandCounters
from webapi.http.declared import declared_access
from webapi.http.observability import elapsed_seconds

METRICS_KEY = "questlog_metrics"
MULTIPROC_VARIABLE = settings.VARIABLES["prometheus_multiproc_dir"].name
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The method labels; any other method a client sends is counted as ``OTHER_METHOD``, so that
nobody can add series (memory, and files under --workers) by inventing methods."""
OTHER_METHOD = "other"
UNMATCHED = "unmatched"
"""The route label of a request no URL rule matched (a 404 or 405): one series for all of them."""
LATENCY_BUCKETS = (
    *(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    *(20.0, 30.0, 45.0, 60.0, 120.0),
)
"""Seconds; dense below 100 ms where the roll route lives, and on past the store's longest waits:
a SQLite lock is waited for 30 s (``SQLITE_LOCK_TIMEOUT``), a PostgreSQL one 10 s after the
campaign lock's 2 s, so a request held by a stalled store lands in a bucket of its own (above
30 s: between 30 and 45) instead of reading as the last bucket's bound."""
FAILURE_STATUSES = ("500", "503", "507")
"""Statuses counted from the start on every route: an error, the store unavailable, the disk
full (the answers the documented error expressions read)."""
THROTTLED_STATUS = "429"
"""Counted from the start on every route the rate limit counts (those that append)."""
UNCOUNTED_METHODS = frozenset({"HEAD", "OPTIONS"})
"""Methods Flask adds to every rule on its own; their answers are counted, not primed."""
log = logging.getLogger("questlog.metrics")

Status = Callable[[], dict[str, Any]]
"""Reads the views' status: ``{"head": N, "views": [{"name", "position", "lag"}, ...],
"horizon": {"age_seconds": S, ...} or None}``."""


def multiprocess_dir() -> str | None:
    """The directory the processes share their metrics in, or None for one process."""
    directory = settings.read().prometheus_multiproc_dir
    return None if directory is None else str(directory)


class ViewLagCollector(Collector):
    """The log's head and each view's position and lag, read from the store when scraped.

    A gauge set in the background would be stale (and per process); read at scrape time, it is
    what the store says now. If the store does not answer, ``questlog_store_up`` is 0.
    """

    def __init__(self, status: Status) -> None:
        self.status = status

    def collect(self) -> Iterator[Metric]:
        """The gauges, from one reading of the views' status."""
        up = GaugeMetricFamily("questlog_store_up", "1 if the store answered this scrape, else 0")
        try:
            report = self.status()
        except Exception as error:  # the scrape must answer whatever the store does
            log.warning("metrics: the views' status could not be read: %s", error)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        head = GaugeMetricFamily("questlog_log_head", "The log's last notification id")
        head.add_metric([], report["head"])
        yield head
        lag = GaugeMetricFamily(
            "questlog_view_lag_events",
            "Events in the log the view has not processed (counted up to 100,000)",
            labels=["view"],
        )
        position = GaugeMetricFamily(
            "questlog_view_position",
            "The last notification id the view processed",
            labels=["view"],
        )
        for view in report["views"]:
            lag.add_metric([view["name"]], view["lag"])
            position.add_metric([view["name"]], view["position"])
        yield lag
        yield position
        horizon = GaugeMetricFamily(
            "questlog_log_horizon_age_seconds",
            "How long the oldest append still writing has been open (PostgreSQL; 0 if none, "
            "and always on SQLite): the views and live pages read nothing past it",
        )
        horizon.add_metric([], (report.get("horizon") or {}).get("age_seconds", 0.0))
        yield horizon


class Metrics:
    """The metrics of one app, and how to answer a scrape of them."""

    def __init__(self, status: Status) -> None:
        self.directory = multiprocess_dir()
        if (self.directory is None) != (values.ValueClass is values.MutexValue):
            # prometheus_client picks in-memory or file-backed values when it is first imported;
            # the variable may have been set after that (by `serve --workers`, before forking),
            # or unset since (an earlier app of this process was one of several).
            values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry()
        self.status = status
        self.requests = Counter(
            "questlog_http_requests",
            "HTTP requests answered, by method, route (the URL rule) and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "questlog_http_request_duration_seconds",
            "Time to answer a request, by method and route (a stream: until its first byte)",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.in_progress = Gauge(
            "questlog_http_requests_in_progress",
            "Requests being handled now",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.commands = Counter(
            "questlog_commands",
            "Commands stored (a new campaign counts as one), by game",
            ["game"],
            registry=self.registry,
        )
        self.events = Counter(
            "questlog_events_appended",
            "Events appended to the log, by game and event type",
            ["game", "event"],
            registry=self.registry,
        )
        self.conflicts = Counter(
            "questlog_command_conflicts_retried",
            "Commands decided again because another writer took the campaign's version first",
            ["game"],
            registry=self.registry,
        )
        if self.directory is None:
            self.registry.register(ViewLagCollector(status))

    def prime(self, app: Flask) -> None:
        """Create at 0 every series the documented expressions read a failure, a latency or a
        game from.

        In multiprocess mode each worker writes its zeros to its own file, and a scrape sums
        them: still 0. The labels are the same bounded sets the requests and commands use.
        """
        for rule in app.url_map.iter_rules():
            if rule.endpoint == "static":
                continue  # Flask's files: no store behind them
            for method in sorted((rule.methods or set()) - UNCOUNTED_METHODS):
                self.latency.labels(method, rule.rule)
                statuses = list(FAILURE_STATUSES)
                declared = declared_access(rule.endpoint, method, app)
                if declared is not None and declared.appends and declared.action != "public":
                    statuses.append(THROTTLED_STATUS)
                for status in statuses:
                    self.requests.labels(method, rule.rule, status)
        for game, rules in RULES.items():
            self.commands.labels(game)
            self.conflicts.labels(game)
            for event in event_names(rules.event_types):
                self.events.labels(game, event)

    def command_stored(self, game: str, events: Sequence[str]) -> None:
        """Count a stored command and its events (the domain's ``CommandCounters`` hook)."""
        self.commands.labels(game).inc()
        for event in events:
            self.events.labels(game, event).inc()

    def conflict_retried(self, game: str) -> None:
        """Count a command decided again after a conflict (the domain's hook)."""
        self.conflicts.labels(game).inc()

    def started(self) -> None:
        """A request began."""
        self.in_progress.inc()

    def answered(self, response: Response) -> Response:
        """Count an answered request under its route and status, with its latency."""
        rule = request.url_rule
        route = rule.rule if rule is not None else UNMATCHED
        method = request.method if request.method in METHODS else OTHER_METHOD
        self.requests.labels(method, route, str(response.status_code)).inc()
        self.latency.labels(method, route).observe(elapsed_seconds())
        self.in_progress.dec()
        return response

    def exposition(self) -> Response:
        """The scrape's answer in the Prometheus text format: this process's metrics, or every
        process's summed, and the views' lag read now."""
        registry = self.registry
        if self.directory is not None:
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=self.directory)  # type: ignore[no-untyped-call]
            registry.register(ViewLagCollector(self.status))
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def event_names(game_events: Iterable[str]) -> list[str]:
    """The event labels a game's campaigns can store: the campaign's own events (``Created``,
    ``DiceRolled``, ...) and the game's declared events, by class name as they are counted."""
    return sorted({*(event.__name__ for event in Campaign.EVENT_TYPES), *game_events})


def install(app: Flask, counters: CommandCounters, status: Status) -> Metrics:
    """Measure the app's requests and the domain's commands (``counters``: the Questlog's
    ``counters``); install after ``observability.install``, whose clock it reads, and after
    every blueprint, whose routes it primes."""
    metrics = app.extensions[METRICS_KEY] = Metrics(status)
    metrics.prime(app)
    counters.on_stored.append(metrics.command_stored)
    counters.on_conflict.append(metrics.conflict_retried)
    app.before_request(metrics.started)
    app.after_request(metrics.answered)
    return metrics
