"""How soon the log submits again to a witness that refused its checkpoint.

A witness that answered 422 (or another refusal), or a 409 the log cannot prove from (a size
above its tree's, or a second 409), gives the same answer to the same tree: submitting again on
every tick only fills the witness's record of failures. Such a witness is tried again after one
tick, then two, four, ... up to ``MAX_DELAY``; any other outcome (cosigned, waiting, down: a
witness that did not answer may answer next time) clears the delay. The delay lives in the
process that submits: a restart tries every witness at once, then backs off again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from domain.storage.tlog_tables import WitnessState

MAX_DELAY = 3600.0
"""The longest wait, in seconds, between two submissions to a witness that keeps refusing."""
HELD_BACK = ("refused", "conflict")
"""The states whose witness is tried again only after the delay."""


class RetryBackoff:
    """Per witness, when it may be submitted to again: the delay doubles from ``first``
    seconds (one tick) on each refusal in a row, up to ``most``."""

    def __init__(
        self,
        first: float = 5.0,
        *,
        most: float = MAX_DELAY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first = max(first, 0.001)
        self.most = most
        self.clock = clock
        self._guard = threading.Lock()
        self._refusals: dict[str, int] = {}
        self._not_before: dict[str, float] = {}

    def due(self, name: str) -> bool:
        """Whether the witness may be submitted to now."""
        with self._guard:
            return self.clock() >= self._not_before.get(name, float("-inf"))

    def delay(self, name: str) -> float:
        """The seconds the witness waits after its latest refusal (0 when it is not held)."""
        with self._guard:
            refusals = self._refusals.get(name, 0)
        return 0.0 if refusals == 0 else min(self.first * 2 ** (refusals - 1), self.most)

    def record(self, state: WitnessState) -> None:
        """Count the outcome of a submission: a refusal pushes the next one back, anything
        else clears the delay."""
        name = state.witness
        with self._guard:
            if state.state not in HELD_BACK:
                self._refusals.pop(name, None)
                self._not_before.pop(name, None)
                return
            refusals = min(self._refusals.get(name, 0) + 1, 64)
            self._refusals[name] = refusals
            wait = min(self.first * 2 ** (refusals - 1), self.most)
            self._not_before[name] = self.clock() + wait
