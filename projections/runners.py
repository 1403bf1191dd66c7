"""Running the views: ``run_views`` picks the runner for the store; ``ViewsWorker`` embeds it.

- ``LogPoller`` reads the log after the views' lowest position, in the log's order
  (``domain.storage.log_order``), applies it in batches (one transaction each) and sleeps
  ``poll_interval`` after each pass. On SQLite it reads with the service's own application;
  on PostgreSQL ``PostgresRunner`` opens one for it, and fences every batch with the leases.

Appends take no table lock on PostgreSQL, so notification ids no longer commit in
order: a reader by notification id, as the library's ``ProjectionRunner`` is, could pass an event
that commits late. The log's order never lets one appear behind a reader. A wake-up by ``NOTIFY``
would not do either: an event becomes readable when the oldest of Questlog's appends still open
ends, and that one may abort (no notification) or be another process's; appends
send none (at commit it takes a lock shared by the whole server). Every pass is followed by
``poll_interval``, so under load the next pass takes a whole interval's events in one batch.

The runners are exactly-once (see ``projections.batches``), so one can be stopped, killed or run
twice at once without skipping or repeating an event. They run under leases
(``projections.leases``): of several processes, one at a time runs each view.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from domain.facade import Questlog, StoreConfig, TracebackThrottle
from projections.batches import BatchCallback, PassCallback, Target, catch_up
from projections.leases import Fence, LeasesCallback, lease_retry, open_leases, run_leased
from projections.store import ViewStore, open_view_store
from projections.view import View
from projections.views import resolve

log = logging.getLogger(__name__)
DEFAULT_BATCH_SIZE = 2000
POLL_INTERVAL = 0.05
"""Seconds between two passes over the log."""
TRACEBACK_INTERVAL = 10.0
"""Seconds between two logged tracebacks of one kind of runner failure."""


class LogPoller:
    """Polls an event store and applies its new events to the views in batches."""

    def __init__(
        self,
        app: Questlog,
        store: ViewStore,
        views: Iterable[type[View]],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        poll_interval: float = POLL_INTERVAL,
        on_batch: BatchCallback | None = None,
        on_pass: PassCallback | None = None,
        fence: Fence | None = None,
    ) -> None:
        self.app = app
        self.store = store
        self.targets = [Target(view) for view in views]
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.on_batch = on_batch
        self.on_pass = on_pass
        self.fence = fence

    def catch_up(self, stop: threading.Event | None = None) -> int:
        """Apply everything recorded so far; returns the number of events read."""
        return catch_up(
            self.app.recorder,
            self.app.mapper,
            self.store,
            self.targets,
            batch_size=self.batch_size,
            stop=stop,
            on_batch=self.on_batch,
            fence=self.fence,
        )

    def run(self, stop: threading.Event) -> None:
        """Catch up, then keep polling until ``stop`` is set; each catch-up is a pass.

        Every pass is followed by ``poll_interval``, also one that found events: under load the
        next pass then takes every event of the interval in one batch (one transaction per view
        store) instead of one or two per pass, each with its fixed cost of about 2 ms
        (docs/performance-results.md, "What the embedded views cost"); the lag stays within the
        interval plus a pass.
        """
        while not stop.is_set():
            self.catch_up(stop)
            if self.on_pass is not None and not stop.is_set():
                self.on_pass()
            stop.wait(self.poll_interval)


class PostgresRunner:
    """Runs the views from a PostgreSQL log until a stop event is set."""

    def __init__(
        self,
        config: StoreConfig,
        views: Sequence[type[View]],
        *,
        batch_size: int = 1000,
        poll_interval: float = POLL_INTERVAL,
        on_batch: BatchCallback | None = None,
        on_pass: PassCallback | None = None,
        fence: Fence | None = None,
    ) -> None:
        self.config = config
        self.fence = fence
        self.views = tuple(views)
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.on_batch = on_batch
        self.on_pass = on_pass

    def run(self, stop: threading.Event) -> None:
        """Apply the log until ``stop`` is set, a pass at a time (each pass, once caught up, is
        reported to ``on_pass``); a failure of a batch is raised, with nothing of it applied."""
        self._passes(stop, forever=True)

    def catch_up(self, stop: threading.Event) -> None:
        """Apply every event readable now, in fenced batches, and return."""
        self._passes(stop, forever=False)

    def _passes(self, stop: threading.Event, *, forever: bool) -> None:
        app = Questlog(self.config)
        try:
            store = open_view_store(self.config)
            try:
                store.ensure(self.views)
                poller = LogPoller(
                    app,
                    store,
                    self.views,
                    batch_size=self.batch_size,
                    poll_interval=self.poll_interval,
                    on_batch=self.on_batch,
                    on_pass=self.on_pass,
                    fence=self.fence,
                )
                if forever:
                    poller.run(stop)
                else:
                    poller.catch_up(stop)
            finally:
                store.close()
        finally:
            app.close()


def run_views(
    app_config: StoreConfig,
    views: Iterable[type[View] | str] | None = None,
    stop_event: threading.Event | None = None,
    *,
    views_path: Path | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    poll_interval: float = POLL_INTERVAL,
    on_batch: BatchCallback | None = None,
    on_pass: PassCallback | None = None,
    app: Questlog | None = None,
    retry: float | None = None,
    on_leases: LeasesCallback | None = None,
) -> None:
    """Keep the views up to date with the log until ``stop_event`` is set (every view if None).

    Creates the views' tables on first use. Blocks; run it in a thread (``ViewsWorker``) to embed
    it in a service, or in its own process (``python -m projections run``). Only the views whose
    lease this process holds are run (``projections.leases``); the others are tried again every
    ``retry`` seconds (``QUESTLOG_VIEWS_LEASE_RETRY``, default 1). On SQLite an open ``app`` may
    be given to read the log with; the PostgreSQL runner always opens its own. ``on_pass`` is
    called each time the views have caught up with the log without a failure, and on each try
    that finds every lease held elsewhere (a standby is healthy); ``on_leases`` with the names
    of the views this process runs, each time they change.
    """
    selected = resolve(views)
    stop = stop_event or threading.Event()
    every = lease_retry() if retry is None else retry
    store = open_view_store(app_config, views_path)
    reader: Questlog | None = None
    try:
        store.ensure(selected)
        leases = open_leases(app_config, store)
        passes = {
            "batch_size": batch_size,
            "poll_interval": poll_interval,
            "on_batch": on_batch,
            "on_pass": on_pass,
        }
        if app_config.kind == "postgres":
            store.close()
            run = _postgres_runs(app_config, leases.fence, passes)
        else:
            reader = app or Questlog(app_config)
            run = _sqlite_runs(reader, store, passes)
        run_leased(selected, stop, leases, run, retry=every, on_idle=on_pass, on_leases=on_leases)
    finally:
        store.close()
        if reader is not None and app is None:
            reader.close()


RunViews = Callable[[tuple[type[View], ...], threading.Event], None]


def _postgres_runs(app_config: StoreConfig, fence: Fence, passes: dict[str, Any]) -> RunViews:
    """Run the chosen views from a PostgreSQL log until told to stop."""

    def run(chosen: tuple[type[View], ...], until: threading.Event) -> None:
        PostgresRunner(app_config, chosen, fence=fence, **passes).run(until)

    return run


def _sqlite_runs(reader: Questlog, store: ViewStore, passes: dict[str, Any]) -> RunViews:
    """Run the chosen views by polling a SQLite log until told to stop."""

    def run(chosen: tuple[type[View], ...], until: threading.Event) -> None:
        LogPoller(reader, store, chosen, **passes).run(until)

    return run


class ViewsWorker:
    """The views kept up to date by a background thread of this process (the embedded mode).

    A failure (a locked database, a lost connection) is logged and the runner starts again after
    ``retry_after`` seconds; exactly-once makes restarting safe. ``app``: see ``run_views``.
    ``current_error`` is the failure it has not yet recovered from: cleared by the next pass that
    catches up with the log (what ``GET /projections`` shows); ``last_error`` keeps the last one.
    ``held`` names the views whose lease this worker holds, the ones it runs.
    """

    def __init__(
        self,
        app_config: StoreConfig,
        views: Iterable[type[View] | str] | None = None,
        *,
        views_path: Path | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        retry_after: float = 1.0,
        app: Questlog | None = None,
    ) -> None:
        self.app_config = app_config
        self.app = app
        self.views = resolve(views)
        self.views_path = views_path
        self.batch_size = batch_size
        self.retry_after = retry_after
        self.stop_event = threading.Event()
        self.last_error: BaseException | None = None
        self.current_error: BaseException | None = None
        self.held: frozenset[str] = frozenset()
        self.tracebacks = TracebackThrottle(TRACEBACK_INTERVAL)
        self.thread = threading.Thread(target=self._run, name="questlog-views", daemon=True)

    def start(self) -> ViewsWorker:
        """Start the background thread; returns the worker."""
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self.stop_event.is_set():
            try:
                run_views(
                    self.app_config,
                    self.views,
                    self.stop_event,
                    views_path=self.views_path,
                    batch_size=self.batch_size,
                    on_pass=self._healthy,
                    app=self.app,
                    on_leases=self._leased,
                )
            except Exception as error:
                self.last_error = self.current_error = error
                # A line per failure; a traceback per kind of failure at most every
                # TRACEBACK_INTERVAL seconds (a database that stays away fails every second).
                log.error(
                    "the views runner failed (%s: %.300s); starting it again",
                    type(error).__name__,
                    error,
                    exc_info=self.tracebacks.allows(error),
                )
                self.stop_event.wait(self.retry_after)

    def _healthy(self) -> None:
        self.current_error = None

    def _leased(self, held: frozenset[str]) -> None:
        self.held = held

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the runner to stop and wait for its thread."""
        self.stop_event.set()
        self.thread.join(timeout)
