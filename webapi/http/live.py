"""The live stream of a campaign's events (Server-Sent Events), for the table page.

One poller thread per process watches the store's log (one indexed query a tick, in the log's order:
``domain.storage.log_order``, so an event that commits late is never passed) and wakes the streams
whose campaign changed, through one ``Condition``: events appended by this process or by another one
on the same store reach an open stream within a tick. A stream then reads its campaign's events by
version, all of them committed. A stream holds a server thread while it is open, so the number of
open streams is capped (``QUESTLOG_MAX_STREAMS``) and ``questlog serve`` adds that many threads to
its pool: the streams can never take the threads that serve commands.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypedDict
from uuid import UUID

from flask import Flask, request

from domain import settings
from domain.facade import (
    START,
    InvalidInput,
    LogPosition,
    Questlog,
    TracebackThrottle,
    ascii_number,
)
from webapi.http.errors import TooManyStreams
from webapi.http.plumbing import event_items, summarised

KEEP_ALIVE = 15.0
"""Seconds between two ``: keep-alive`` comments on a quiet stream."""
POLL_INTERVAL = 0.25
"""Seconds between two looks at the store's notification log."""
BATCH = 500
"""Events a stream reads from the store at a time."""
LIVE_KEY = "questlog_live"
WAITRESS_CONNECTIONS = 100
"""waitress's default connection limit, raised by the stream cap."""
log = logging.getLogger("questlog.live")


def max_streams_setting(value: int | None) -> int:
    """Streams open at once: the argument, else QUESTLOG_MAX_STREAMS, else the default."""
    if value is None:
        return settings.read().max_streams
    if value < 1:
        raise ValueError("max_streams must be 1 or more")
    return value


class WaitressOptions(TypedDict):
    """waitress's own settings (``waitress.serve``'s keyword arguments)."""

    threads: int
    connection_limit: int


def waitress_options(threads: int, streams: int) -> WaitressOptions:
    """waitress's thread pool and connection limit for ``threads`` request threads and up to
    ``streams`` open streams: each stream holds a thread of its own while it is open, so with
    every slot taken the request threads are still all free for commands and reads."""
    return WaitressOptions(
        threads=threads + streams, connection_limit=WAITRESS_CONNECTIONS + streams
    )


class LogWatcher:
    """The process's one poller of the log, and the streams waiting on it.

    Each poll that finds new events counts one more ``tick``; ``changed`` maps each aggregate id
    seen since the poller started to the tick that last found it changed. A stream that has
    read everything its campaign had at tick ``seen`` waits until its campaign's entry passes
    ``seen``. The thread runs only while streams are open.
    """

    def __init__(self, app: Questlog, interval: float = POLL_INTERVAL) -> None:
        self.app = app
        self.interval = interval
        self.condition = threading.Condition()
        self.position: LogPosition | None = None
        self.tick = 0
        self.changed: dict[str, int] = {}
        self.listeners = 0
        self.thread: threading.Thread | None = None
        self.throttle = TracebackThrottle(60.0)
        self.stopping = False

    def register(self) -> int:
        """Count one more open stream; the tick it has seen (the one now)."""
        with self.condition:
            if self.position is None:
                self.position = self.app.readable_head()
            self.listeners += 1
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="questlog-live", daemon=True)
                self.thread.start()
            return self.tick

    def unregister(self) -> None:
        """Count one stream fewer."""
        with self.condition:
            self.listeners -= 1

    def wait(self, campaign: str, seen: int, timeout: float) -> int:
        """Wait until the campaign changed after tick ``seen`` (or the timeout); the last tick
        that found it changed."""
        with self.condition:
            self.condition.wait_for(
                lambda: self.stopping or self.changed.get(campaign, 0) > seen, timeout
            )
            return self.changed.get(campaign, 0)

    def stop(self) -> None:
        """Wake every waiting stream for good: the server is shutting down."""
        with self.condition:
            self.stopping = True
            self.condition.notify_all()

    def run(self) -> None:
        """Poll while streams are open; wake them when their campaign changes."""
        while True:
            time.sleep(self.interval)
            with self.condition:
                if self.listeners <= 0:
                    self.thread = None
                    return
            try:
                self.poll()
            except Exception as error:  # the store may be briefly away: try again next tick
                if self.listeners > 0:  # else the last stream closed, perhaps with the store
                    log.warning(
                        "live stream poll failed: %s", error, exc_info=self.throttle.allows(error)
                    )

    def poll(self) -> None:
        """Read the log after the last event seen; wake the streams of the campaigns it moved."""
        position = self.position or START
        changed: set[str] = set()
        while True:
            page = self.app.log_after(position, BATCH)
            changed.update(str(campaign) for _, campaign in page)
            if page:
                position = page[-1][0]
            if len(page) < BATCH:
                break
        if not changed:
            return
        with self.condition:
            self.tick += 1
            self.changed.update(dict.fromkeys(changed, self.tick))
            self.position = position
            self.condition.notify_all()


class Live:
    """A process's streams: the watcher, the cap and how many are open."""

    def __init__(self, app: Questlog, cap: int, keep_alive: float = KEEP_ALIVE) -> None:
        self.app = app
        self.watcher = LogWatcher(app)
        self.cap = cap
        self.keep_alive = keep_alive
        self.open = 0
        self.lock = threading.Lock()
        self.reading: dict[str, threading.Lock] = {}
        self.latest: dict[str, tuple[tuple[int, int], list[tuple[int, str]]]] = {}

    def messages(self, cid: UUID, after: int, mark: int, encode: Encode) -> list[tuple[int, str]]:
        """The SSE messages of the campaign's events after version ``after`` (at most BATCH),
        read at the watcher's tick ``mark`` or later, once for every stream at the same version
        and mark: the streams of one campaign open with the same backlog and wake together, and one
        of them reads for all."""
        campaign = str(cid)
        with self.lock:
            reading = self.reading.setdefault(campaign, threading.Lock())
        with reading:
            cached = self.latest.get(campaign)
            if cached is not None and cached[0] == (after, mark):
                return cached[1]
            _, items = event_items(self.app, cid, after=after, limit=BATCH)
            # Only what the views and every reader of the log can see already: an event committed
            # while an older transaction still writes waits for it, and the watcher wakes the
            # stream again once it can be read (``domain.storage.log_order``).
            readable = self.app.readable_version(cid)
            if readable is not None:
                items = [item for item in items if item["version"] <= readable]
            messages = [(item["version"], sse(encode, summarised(item))) for item in items]
            self.latest[campaign] = ((after, mark), messages)
            return messages

    def take(self) -> Callable[[], None]:
        """Take a stream slot (or refuse with 503); the function that gives it back (once,
        however often it is called)."""
        with self.lock:
            if self.open >= self.cap:
                raise TooManyStreams(self.cap)
            self.open += 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            with self.lock:
                if not given_back:
                    given_back = True
                    self.open -= 1

        return give_back


def install(app: Flask, questlog_app: Questlog, max_streams: int | None = None) -> None:
    """Set up the live streams of this app (capped at ``max_streams``)."""
    app.extensions[LIVE_KEY] = Live(questlog_app, max_streams_setting(max_streams))


Encode = Callable[[Any], str]


def sse(encode: Encode, item: dict[str, Any]) -> str:
    """One event as an SSE message: its version as the id, its item as one line of data."""
    return f"id: {item['version']}\nevent: event\ndata: {encode(item)}\n\n"


def stream(
    live: Live, cid: UUID, after: int, encode: Encode, done: Callable[[], None]
) -> Iterator[str]:
    """Every event after ``after``, then each new one as it is committed, with keep-alives."""
    campaign = str(cid)
    last = after
    registered = False
    try:
        seen = mark = live.watcher.register()
        registered = True
        yield ": stream open\n\n"
        while True:
            messages = live.messages(cid, last, mark, encode)
            if messages:
                # one write for all the events of a wake: one send, not one per event
                yield "".join(message for _, message in messages)
                last = messages[-1][0]
            if len(messages) == BATCH:
                continue
            deadline = time.monotonic() + live.keep_alive
            while True:
                moved = live.watcher.wait(campaign, seen, max(0.0, deadline - time.monotonic()))
                if live.watcher.stopping:
                    return  # the server stops: end the stream so its thread is free to exit
                if moved > seen:
                    seen = mark = moved
                    break
                if time.monotonic() >= deadline:
                    yield ": keep-alive\n\n"
                    deadline = time.monotonic() + live.keep_alive
    finally:
        if registered:
            live.watcher.unregister()
        done()


def resume_point(query: dict[str, Any]) -> int:
    """The version to resume after: ``Last-Event-ID``, else ``?after=``, else 0."""
    header = request.headers.get("Last-Event-ID")
    if header is not None and header.strip():
        version = ascii_number(header.strip())
        if version is None:
            raise InvalidInput.field("Last-Event-ID", "must be an event's version (0 or more)")
        return version
    after: int = query.get("after", 0)
    return after
