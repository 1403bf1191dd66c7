"""The publisher: a thread of ``questlog serve`` that integrates the new events and, when the
tree grew, signs a checkpoint and submits it to the witnesses, every
``QUESTLOG_CHECKPOINT_SECONDS``. A failure is logged and tried again at the next tick: the
publisher never stops the server, and the server never waits for it."""

from __future__ import annotations

import logging
import threading

from domain.service.transparency.log import Transparency

log = logging.getLogger("questlog.tlog")


class Publisher:
    """Publishes the host's log every ``seconds`` in a daemon thread, until stopped."""

    def __init__(self, transparency: Transparency, seconds: float | None = None) -> None:
        self.transparency = transparency
        self.seconds = transparency.checkpoint_seconds if seconds is None else seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="questlog-publisher", daemon=True)

    def start(self) -> Publisher:
        """Start publishing; returns the publisher."""
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                self.transparency.publish(when_grown=True)
            except Exception:  # (the next tick tries again)
                log.exception("publishing the log's checkpoint failed")

    def stop(self) -> None:
        """Stop after the publication under way, if any."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
