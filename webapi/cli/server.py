"""Several API processes on one port: ``questlog serve --workers N`` (N > 1) on PostgreSQL.

gunicorn's arbiter forks N workers of the ``gthread`` class and restarts any that dies. Each
worker builds its own application (``create_app``) *after* the fork, so no database connection,
pool or thread crosses a fork; each embeds the views runner unless they run elsewhere. Everything
a worker shares with the others lives in the PostgreSQL store (docs/architecture.md, "Several
API processes").
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger

from webapi.cli import fair_worker
from webapi.http.metrics import MULTIPROC_VARIABLE as MULTIPROC_ENV
from webapi.http.metrics import multiprocess_dir

"""Where prometheus_client's multiprocess mode keeps each worker's samples."""
GRACEFUL_TIMEOUT = 10
"""Seconds a stopping worker gives its open requests (a live stream never ends by itself)."""
KEEPALIVE = 15
"""Seconds an idle keep-alive connection stays open (gunicorn's default is 2 s: a client pausing
between commands would reconnect, and land on whichever worker accepts first)."""


def gunicorn_options(
    host: str, port: int, workers: int, threads: int, streams: int
) -> dict[str, Any]:
    """gunicorn's settings for ``workers`` processes of ``threads`` request threads each, plus one
    thread per live stream a worker may open (a stream holds its thread while it is open, the
    same reason as ``webapi.http.live.waitress_options``)."""
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "worker_class": "webapi.cli.fair_worker.FairThreadWorker",
        "threads": threads + streams,
        "graceful_timeout": GRACEFUL_TIMEOUT,
        "keepalive": KEEPALIVE,
        "preload_app": False,
        "proc_name": "questlog",
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "info",
        "logger_class": RootLogger,
    }


class RootLogger(Logger):
    """gunicorn's own log (a worker booted, exited, timed out) through the root logger, so it
    takes the handler ``questlog serve`` installed: text lines, or one JSON object per line with
    ``--log-format json``, like every other record. gunicorn's access log stays off (Questlog
    writes its own, ``questlog.access``)."""

    def setup(self, cfg: Any) -> None:
        """gunicorn's setup, then its own handlers removed and its error log propagated."""
        super().setup(cfg)
        for handler in list(self.error_log.handlers):
            if getattr(handler, "_gunicorn", False):
                self.error_log.removeHandler(handler)
        self.error_log.propagate = True


class QuestlogServer(BaseApplication):
    """gunicorn embedded: ``build`` makes one worker's Flask app, called in each worker after the
    fork; ``release`` undoes it when the worker exits (stops its views runner, closes its store)."""

    def __init__(
        self,
        options: dict[str, Any],
        build: Callable[[], Flask],
        release: Callable[[Flask], None],
    ) -> None:
        self.options = options
        self.build = build
        self.release = release
        super().__init__()

    def load_config(self) -> None:
        """Apply the options and the hooks to gunicorn's configuration."""
        for key, value in self.options.items():
            self.cfg.set(key, value)
        fair_worker.prepare(int(self.options.get("workers", 1)))
        if "control_socket_disable" in self.cfg.settings:
            # gunicorn 24+ opens a control socket at one path per user: two servers on one
            # machine would share it, and nothing here uses it.
            self.cfg.set("control_socket_disable", True)
        self.cfg.set("worker_exit", self._worker_exit)
        self.cfg.set("child_exit", _child_exit)

    # Flask's WSGI __call__ takes a dict environ where gunicorn's stubs say MutableMapping
    def load(self) -> Flask:  # type: ignore[override]
        """Build this worker's app: runs in the worker, after the fork (``preload_app`` is off)."""
        return self.build()

    def _worker_exit(self, _server: Any, worker: Any) -> None:
        """In the exiting worker: release what its app holds."""
        app = getattr(worker, "wsgi", None)
        if isinstance(app, Flask):
            self.release(app)


PUBLISHER_KEY = "questlog_publisher"
"""Where a worker's app keeps its publisher of the host's log (``Publisher``)."""


def build_app(*, auth: bool, streams: int, views: bool) -> Flask:
    """One process's app on the store named by the environment, with its own views runner."""
    from domain.facade import Publisher, Questlog, StoreConfig
    from projections.runners import ViewsWorker
    from webapi.app import create_app
    from webapi.http.view_store import WORKER_KEY

    questlog = Questlog(StoreConfig.from_environ())
    app = create_app(questlog, auth=auth, max_streams=streams)
    app.extensions[PUBLISHER_KEY] = Publisher(questlog.transparency).start()
    app.extensions[WORKER_KEY] = (
        ViewsWorker(questlog.config, app=questlog).start() if views else None
    )
    return app


def release_app(app: Flask) -> None:
    """Stop the app's views runner, close its view store and its store."""
    from webapi.http.view_store import WORKER_KEY, close_views

    publisher = app.extensions.get(PUBLISHER_KEY)
    if publisher is not None:
        publisher.stop()
    worker = app.extensions.get(WORKER_KEY)
    if worker is not None:
        worker.stop()
    close_views(app)
    app.extensions["questlog"].close()


def _child_exit(_server: Any, worker: Any) -> None:
    """In the arbiter, once a worker is gone (exited or killed): free its slot in the fair
    worker's table, and drop its live metrics files, as prometheus_client's multiprocess mode
    asks."""
    if fair_worker.SHARES is not None:
        fair_worker.SHARES.release(worker.pid)
    if multiprocess_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def clear_metric_files(directory: Path) -> None:
    """Remove the metric files an earlier server left in the operator's directory (a server
    killed before its workers said they were gone would leave its in-progress gauges counted for
    ever); prometheus_client asks for the directory to be wiped between runs. Only its ``*.db``
    files go: the directory and anything else in it stay."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink(missing_ok=True)


@contextmanager
def metrics_directory() -> Iterator[str]:
    """``PROMETHEUS_MULTIPROC_DIR`` for the workers: the operator's if set (kept), else a fresh
    temporary directory, set in the environment the workers inherit and removed at exit.

    A forked worker leaves through this same ``with`` (its ``SystemExit`` unwinds the stack it
    inherited), so only the process that made the directory removes it."""
    chosen = multiprocess_dir()
    if chosen:
        clear_metric_files(Path(chosen))
        yield chosen
        return
    made = tempfile.mkdtemp(prefix="questlog-metrics-")
    owner = os.getpid()
    os.environ[MULTIPROC_ENV] = made
    try:
        yield made
    finally:
        if os.getpid() == owner:
            os.environ.pop(MULTIPROC_ENV, None)
            shutil.rmtree(made, ignore_errors=True)
