"""gunicorn's ``gthread`` worker, accepting its fair share of connections.

Every worker of ``questlog serve --workers N`` waits on the one listening socket, and the kernel
wakes them all when a client connects: the first to call ``accept`` gets it. Clients that keep
their connection alive (browsers, the benchmark's clients, a proxy's upstream pool) stay on the
worker that accepted them, and when several connect at once one worker can take most of them and
be one core's worth of work while the others idle (seen: 6 of 8 clients on one of two workers).

So each worker publishes how many connections it holds in a table the arbiter shares with every
worker (shared memory made before the fork), and takes new ones only while it holds no more than
the least loaded live worker. The others are then the first to accept, and the counts stay within
one of each other when they accept (connections that close later are not moved). A worker that
holds more looks again every ``RECHECK`` seconds. A worker that has died or hangs holds the others
back for at most ``STALE`` seconds: a slot counts only while its pid is alive and it has looked
within ``STALE`` seconds (an idle worker looks at least once a second).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from ctypes import c_long
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

RECHECK = 0.05
"""Seconds a worker holding more than its share waits before it looks again (the others, which
accept meanwhile, are the ones new clients go to)."""
STALE = 3.0
"""Seconds after its last look that a worker no longer counts (it hangs)."""
FIELDS = 3
"""Per slot: the pid, the open connections, the last look (``time.monotonic`` in ms)."""


class Shares:
    """Each worker's pid, open connections and last look, in memory shared across the fork."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._table: Any = multiprocessing.RawArray(c_long, FIELDS * slots)
        self._lock = multiprocessing.Lock()

    def claim(self, pid: int) -> int:
        """A slot for ``pid``: a free one, or one whose worker is gone."""
        with self._lock:
            for slot in range(self.slots):
                holder = self._table[FIELDS * slot]
                if holder == 0 or not _alive(holder):
                    self._table[FIELDS * slot : FIELDS * slot + FIELDS] = [pid, 0, _now()]
                    return slot
        return -1  # more workers than slots (never with --workers): it accepts freely

    def release(self, pid: int) -> None:
        """Free ``pid``'s slot (its worker has stopped, or is gone)."""
        for slot in range(self.slots):
            if self._table[FIELDS * slot] == pid:
                self._table[FIELDS * slot] = 0

    def publish(self, slot: int, connections: int) -> None:
        """Say how many connections ``slot``'s worker holds, and that it is looking now."""
        self._table[FIELDS * slot + 1] = connections
        self._table[FIELDS * slot + 2] = _now()

    def fewest_elsewhere(self, slot: int) -> int | None:
        """The fewest connections a live worker other than ``slot``'s holds (None: no other)."""
        oldest = _now() - int(STALE * 1000)
        counts = [
            self._table[FIELDS * other + 1]
            for other in range(self.slots)
            if other != slot
            and self._table[FIELDS * other]
            and self._table[FIELDS * other + 2] >= oldest
            and _alive(self._table[FIELDS * other])
        ]
        return min(counts) if counts else None


def _now() -> int:
    return int(time.monotonic() * 1000)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


SHARES: Shares | None = None
"""Set in the arbiter before it forks (``prepare``); each worker inherits it."""


def prepare(workers: int) -> None:
    """Make the shared table for ``workers`` workers (in the arbiter, before the fork)."""
    global SHARES
    SHARES = Shares(max(workers * 2, 2))


class FairThreadWorker(ThreadWorker):
    """``gthread``, taking a new connection only while no live worker holds fewer.

    The worker takes its slot once its app is built (``run``, after ``init_process`` has loaded
    it), so a worker still booting never makes the others wait, and gives it up when its loop
    ends; the arbiter also frees a dead worker's slot (``release``, from ``child_exit``). Once
    the worker is stopping (``alive`` false) it never takes a new connection again.
    """

    slot = -1

    def run(self) -> None:
        if SHARES is not None:
            self.slot = SHARES.claim(os.getpid())
        try:
            super().run()
        finally:
            if SHARES is not None and self.slot >= 0:
                SHARES.release(os.getpid())
                self.slot = -1

    def fair(self) -> bool:
        """Whether no live worker holds fewer connections than this one."""
        if SHARES is None or self.slot < 0:
            return True
        fewest = SHARES.fewest_elsewhere(self.slot)
        return fewest is None or self.nr_conns <= fewest

    def set_accept_enabled(self, enabled: bool | None) -> None:
        """gunicorn's switch (on below ``worker_connections``, off when stopping), and off too
        while another live worker holds fewer connections."""
        super().set_accept_enabled(enabled and self.alive and self.fair())

    def wait_for_and_dispatch_events(self, timeout: float | None) -> None:
        if SHARES is None or self.slot < 0 or not self.alive:
            super().wait_for_and_dispatch_events(timeout)
            return
        SHARES.publish(self.slot, self.nr_conns)
        fair = self.fair()
        self.set_accept_enabled(self.nr_conns < self.worker_connections)
        recheck = RECHECK if timeout is None else min(timeout, RECHECK)
        super().wait_for_and_dispatch_events(timeout if fair else recheck)
        SHARES.publish(self.slot, self.nr_conns)
