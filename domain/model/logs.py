"""Logging helpers shared by the service's parts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TracebackThrottle:
    """Whether an unexpected error's traceback may be logged now: once per type per interval,
    so that a storm of failures logs a line each, not a traceback each."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self.logged: dict[type[BaseException], float] = {}
        self.lock = threading.Lock()

    def allows(self, error: BaseException) -> bool:
        """True (and the interval starts again) if no traceback of this type was logged lately."""
        now = self.clock()
        with self.lock:
            last = self.logged.get(type(error))
            if last is not None and now - last < self.interval:
                return False
            self.logged[type(error)] = now
            return True
