"""The PostgreSQL runner: the library's ``ProjectionRunner`` following the log by LISTEN/NOTIFY.

Before it subscribes, the runner applies the log's backlog with the engine's ``catch_up`` (stored
rows read in batches, fenced like its own batches): the subscription then starts near the head.

``ProjectionRunner`` opens the application, subscribes from the position its tracking recorder
reports, and calls ``process_event`` once per event in its own thread. It has no batching, so
``ViewsProjection`` batches itself: events are buffered and written by ``engine.apply_in`` in one
transaction when ``batch_size`` are waiting, when no new event has come for ``linger`` seconds,
or when the oldest has waited ``max_delay`` seconds under a steady stream (a small flusher thread
does the last two, because the subscription blocks silently when the log is idle).

Exactly-once does not depend on the buffer: a batch's rows and positions commit together, and
the runner resumes after the lowest committed position. Buffered events that were never written
(the process died) are simply read again. After a failed write nothing more is written, so no
event after it can be applied before it; the error stops the runner.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from eventsourcing.persistence import Tracking
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.projection import Projection, ProjectionRunner

from domain.facade import Questlog, StoreConfig, configure_pool
from projections.engine import BatchCallback, PassCallback, Target, apply_in, catch_up
from projections.events import Recorded, from_domain_event
from projections.leases import Fence
from projections.store import PostgresViewStore, open_view_store
from projections.view import View

PROJECTION_NAME = "QuestlogViews"
VIEWS_CONNECTION_NAME = "questlog-views"
"""PostgreSQL ``application_name`` prefix of the views runner's connections."""


class PostgresViewsRecorder(PostgresTrackingRecorder):
    """The runner's tracking recorder: the views' tables and their positions.

    Its ``max_tracking_id`` is the lowest position of the views, so the runner's subscription
    starts where the furthest-behind view needs it.
    """

    views: ClassVar[tuple[type[View], ...]] = ()
    opened: ClassVar[list[PostgresViewsRecorder]]

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        configure_pool(datastore, VIEWS_CONNECTION_NAME, unprepared=False)
        super().__init__(datastore, **kwargs)
        self.opened.append(self)

    @property
    def store(self) -> PostgresViewStore:
        """The view store on this recorder's pool."""
        return PostgresViewStore(self.datastore, owns=False)

    def create_table(self) -> None:
        """Create the views' tables and positions (instead of the library's tracking table)."""
        self.store.ensure(self.views)

    def max_tracking_id(self, application_name: str) -> int | None:
        """The lowest position among the views (None when one has applied nothing)."""
        positions = self.store.positions()
        lowest = min(int(positions.get(v.name, {}).get("position", 0)) for v in self.views)
        return lowest or None


class ViewsProjection(Projection[PostgresViewsRecorder]):
    """Buffers the runner's events and writes them to the views in batches."""

    name = PROJECTION_NAME
    views: ClassVar[tuple[type[View], ...]] = ()
    batch_size: ClassVar[int] = 1000
    linger: ClassVar[float] = 0.02
    max_delay: ClassVar[float] = 0.1
    on_batch: ClassVar[BatchCallback | None] = None
    fence: ClassVar[Fence | None] = None

    def __init__(self, view: PostgresViewsRecorder) -> None:
        super().__init__(view)
        self.store = view.store
        self.targets = [Target(v) for v in self.views]
        self.error: BaseException | None = None
        self._buffer: list[Recorded] = []
        self._oldest = 0.0
        self._lock = threading.Lock()
        self._arrived = threading.Event()
        self._closing = threading.Event()
        self._flusher = threading.Thread(target=self._flush_when_idle, daemon=True)
        self._flusher.start()

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Buffer one event; write the buffer when it is full."""
        if self.error is not None:
            raise self.error
        with self._lock:
            if not self._buffer:
                self._oldest = time.monotonic()
            self._buffer.append(from_domain_event(domain_event, tracking.notification_id))
            if len(self._buffer) >= self.batch_size:
                self._write()
        self._arrived.set()

    def _flush_when_idle(self) -> None:
        while not self._closing.is_set():
            if not self._arrived.wait(timeout=0.5):
                continue
            self._arrived.clear()
            time.sleep(self.linger)
            with self._lock:
                quiet = not self._arrived.is_set()
                overdue = time.monotonic() - self._oldest >= self.max_delay
                if quiet or overdue:
                    self._write()

    def _write(self) -> None:
        """Write the buffer as one batch (the lock is held); remember a failure for good."""
        if not self._buffer or self.error is not None:
            return
        batch, self._buffer = self._buffer, []
        fence = type(self).fence
        try:
            with self.store.write() as cursor:
                if fence is not None:
                    # In the batch's transaction: a process that lost a lease writes nothing.
                    fence(cursor, [view.name for view in self.views])
                apply_in(self.store, cursor, self.targets, batch)
        except BaseException as error:
            self.error = error
            return
        callback = type(self).on_batch
        if callback is not None:
            callback(batch[-1].id, len(batch))

    def close(self) -> None:
        """Stop the flusher and write what is still buffered."""
        self._closing.set()
        self._flusher.join()
        with self._lock:
            self._write()


class _FollowedQuestlog(Questlog):
    """The application the runner opens, on a given store (the runner passes only an env)."""

    name = "Questlog"
    store_config: ClassVar[StoreConfig]
    opened: ClassVar[list[Questlog]]

    def __init__(self, env: Any = None) -> None:
        super().__init__(self.store_config)
        self.opened.append(self)


class PostgresRunner:
    """Runs the views with ``ProjectionRunner`` until a stop event is set."""

    def __init__(
        self,
        config: StoreConfig,
        views: Sequence[type[View]],
        *,
        batch_size: int = 1000,
        linger: float = 0.02,
        on_batch: BatchCallback | None = None,
        on_pass: PassCallback | None = None,
        fence: Fence | None = None,
    ) -> None:
        self.config = config
        self.fence = fence
        self.views = tuple(views)
        self.batch_size = batch_size
        self.linger = linger
        self.on_batch = on_batch
        self.on_pass = on_pass

    def _env(self) -> dict[str, str]:
        env = self.config.application_env(PROJECTION_NAME.upper())
        prefix = PROJECTION_NAME.upper()
        env[f"{prefix}_POSTGRES_POOL_SIZE"] = "1"
        env[f"{prefix}_POSTGRES_MAX_OVERFLOW"] = "2"
        env[f"{prefix}_POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT"] = "60"
        return env

    def catch_up(self, stop: threading.Event) -> None:
        """Apply the log's backlog with the engine's batches, before following it (issue 29).

        The library's subscription hands the runner one event at a time, decoded by the mapper:
        it caught up at 24,000 events/s where the engine's batches of stored rows reach 50,000
        (docs/performance.md). Each batch is fenced like the runner's own.
        """
        app = Questlog(self.config)
        try:
            store = open_view_store(self.config)
            try:
                store.ensure(self.views)
                targets = [Target(view) for view in self.views]
                catch_up(
                    app.recorder,
                    app.mapper,
                    store,
                    targets,
                    batch_size=self.batch_size,
                    stop=stop,
                    on_batch=self.on_batch,
                    fence=self.fence,
                )
            finally:
                store.close()
        finally:
            app.close()

    def _start(self) -> ProjectionRunner[Any, Any]:
        """The library's runner on this runner's views, subscribed; nothing left open if not."""
        # Each subclass must name itself "Questlog" again, or it would read "<Subclass>_events".
        apps: list[Questlog] = []
        recorders: list[PostgresViewsRecorder] = []
        application = type(
            "FollowedQuestlog",
            (_FollowedQuestlog,),
            {"name": Questlog.name, "store_config": self.config, "opened": apps},
        )
        recorder = type(
            "ViewsRecorder", (PostgresViewsRecorder,), {"views": self.views, "opened": recorders}
        )
        projection = type(
            "ViewsProjection",
            (ViewsProjection,),
            {
                "name": PROJECTION_NAME,
                "views": self.views,
                "batch_size": self.batch_size,
                "linger": self.linger,
                "on_batch": staticmethod(self.on_batch) if self.on_batch else None,
                "fence": staticmethod(self.fence) if self.fence else None,
            },
        )
        try:
            return ProjectionRunner(
                application_class=application,
                projection_class=projection,
                view_class=recorder,
                env=self._env(),
            )
        except BaseException:
            # The runner opens the views' pool, then the application's, then subscribes: a
            # failure part way (the database went away) must not leave those pools open, or
            # every restart of the worker would keep a few more connections.
            for app in apps:
                app.close()
            for opened in recorders:
                opened.datastore.close()
            raise

    def run(self, stop: threading.Event) -> None:
        """Catch up, then follow the log until ``stop`` is set; re-raise a failure of the runner
        or a batch."""
        self.catch_up(stop)
        if stop.is_set():
            return
        runner = self._start()
        views_projection: ViewsProjection = runner.projection  # type: ignore[assignment]
        try:
            with runner:
                # A pass: the views have caught up with the log as it stood at the start.
                head = runner.app.recorder.max_notification_id()
                passed = False
                while not stop.is_set() and views_projection.error is None:
                    runner.run_forever(timeout=0.1)
                    if runner.is_interrupted.is_set():
                        break
                    if not passed and views_projection.view.has_tracking_id(PROJECTION_NAME, head):
                        passed = views_projection.error is None
                        if passed and self.on_pass is not None:
                            self.on_pass()
        finally:
            views_projection.close()
            views_projection.store.datastore.close()
        if views_projection.error is not None:
            raise views_projection.error
