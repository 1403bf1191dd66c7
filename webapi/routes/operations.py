"""The routes an operator's tools call: ``/healthz`` (the process is alive), ``/readyz`` (the
store answers and the views are within the lag bound) and ``/metrics`` (Prometheus, admin only).

``/healthz`` and ``/readyz`` need no token: a load balancer or an orchestrator calls them, and
they say nothing secret (a view's name and lag, or that the store failed).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from flask import Flask, Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from domain import settings
from projections.rebuild import view_status
from webapi.http.declared import requires
from webapi.http.errors import problem
from webapi.http.metrics import METRICS_KEY, Metrics
from webapi.http.plumbing import questlog
from webapi.http.view_store import views_store
from webapi.schemas.operations import Health, Readiness

log = logging.getLogger("questlog.operations")
READY_LAG_KEY = "questlog_ready_max_lag"
READY_PROBE_KEY = "questlog_ready_probe"
READY_TIMEOUT_SECONDS = 2.0
"""How long ``/readyz`` waits for the store: a probe must answer well within its own timeout."""

blp = Blueprint(
    "operations",
    __name__,
    description="Health, readiness and metrics, for load balancers and monitoring.",
)


def ready_max_lag_setting(value: int | None) -> int:
    """The lag bound: the argument, else QUESTLOG_READY_MAX_LAG, else 1000; a count of events."""
    if value is None:
        return settings.read().ready_max_lag
    if value < 0:
        raise ValueError(f"QUESTLOG_READY_MAX_LAG must be 0 or more, not {value}")
    return value


def install(app: Flask, ready_max_lag: int | None) -> None:
    """Set the readiness bound and the probe that asks the store."""
    app.config[READY_LAG_KEY] = ready_max_lag_setting(ready_max_lag)
    app.extensions[READY_PROBE_KEY] = StoreProbe()


class StoreProbe:
    """Asks the store for the views' status in a thread of its own, so that a hung store makes
    ``/readyz`` answer 503 on time instead of hanging the probe.

    At most one question is in flight: probes that come while the store is still thinking wait
    for the same answer, so a hung store costs one thread, not one per probe. The thread is a
    daemon: a hung query never holds up the process's exit.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pending: Future[dict[str, Any]] | None = None

    def ask(self, app: Flask, timeout: float) -> dict[str, Any]:
        """The views' status; raises the store's error, or ``TimeoutError`` after ``timeout`` s."""
        with self.lock:
            if self.pending is None or self.pending.done():
                self.pending = Future()
                threading.Thread(
                    target=self.answer, args=(app, self.pending), name="readyz", daemon=True
                ).start()
            pending = self.pending
        return pending.result(timeout=timeout)

    @staticmethod
    def answer(app: Flask, future: Future[dict[str, Any]]) -> None:
        """Run the query in the app's context and hand over its result or its error."""
        try:
            with app.app_context():
                future.set_result(views_report())
        except BaseException as error:  # any: a future left unresolved would fail every probe
            future.set_exception(error)


def views_report() -> dict[str, Any]:
    """The log's head and each view's position and lag (an index count each, up to 100,000),
    and the events found rewritten under the host's Merkle log."""
    app = questlog()
    report = view_status(views_store(), app)
    report["log_conflicts"] = [
        {"campaign_id": found.campaign_id, "version": found.version}
        for found in app.transparency.conflicts()
    ]
    return report


@blp.route("/healthz")
class Healthz(MethodView):
    @blp.doc(operationId="checkHealth")
    @blp.response(200, Health)
    @blp.doc(security=[])
    @requires("public")
    def get(self) -> Any:
        """The process is alive (no token; touches no store)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Readyz(MethodView):
    @blp.doc(operationId="checkReadiness")
    @blp.response(200, Readiness)
    @blp.alt_response(503, description="Not ready: the store's error, or the lagging views.")
    @blp.doc(security=[])
    @requires("public")
    def get(self) -> Any:
        """Ready to serve (no token): the store answers and every view is within the lag bound."""
        app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
        bound: int = app.config[READY_LAG_KEY]
        probe: StoreProbe = app.extensions[READY_PROBE_KEY]
        try:
            report = probe.ask(app, READY_TIMEOUT_SECONDS)
        except FutureTimeout:
            return not_ready(f"The store did not answer within {READY_TIMEOUT_SECONDS:g} s.")
        except Exception as error:  # whatever the store raised, the probe answers
            # The error's text can name the database's host, port and user: it goes to the log
            # (with this request's id), and the answer, which needs no token, names only its kind.
            log.warning("readiness: the store failed: %s: %s", type(error).__name__, error)
            return not_ready(
                f"The store failed ({type(error).__name__}); the server's log has the detail "
                f"under this answer's X-Request-Id."
            )
        views = [{"name": v["name"], "lag": v["lag"]} for v in report["views"]]
        lagging = [view for view in views if view["lag"] > bound]
        if lagging:
            names = ", ".join(f"{view['name']} ({view['lag']})" for view in lagging)
            return not_ready(
                f"Views behind the log by more than {bound} events: {names}.",
                lagging=lagging,
                max_lag=bound,
            )
        conflicts = report["log_conflicts"]
        return {
            "status": "ready",
            "head": report["head"],
            "max_lag": bound,
            "views": views,
            "log_conflicts": conflicts,
        }


def not_ready(detail: str, **extra: Any) -> Response:
    """503 problem+json naming what is not ready; a probe retries on its own schedule."""
    return problem(503, "Not ready", detail, slug="not-ready", **extra)


@blp.route("/metrics")
class MetricsRoute(MethodView):
    @blp.doc(operationId="getMetrics")
    @blp.doc(
        responses={
            "200": {
                "description": "The metrics in the Prometheus text format.",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        }
    )
    @requires("admin")
    def get(self) -> Response:
        """Prometheus metrics (admin): requests, latency, commands, conflicts, view lag."""
        metrics: Metrics = current_app.extensions[METRICS_KEY]
        return metrics.exposition()
