"""What the request id, the metrics and the access log cost per request.

``python -m bench.serving.observability [--requests N] [--rounds R]``. Builds small Flask apps with
one route shaped like the roll route (``/campaigns/<campaign>/rolls``) and answers ``--requests``
requests through the test client, in one thread, on four set-ups: no hooks; the request id and
the metrics (the access log switched off); everything with the access log as JSON; everything
with it as text (each into memory, so no disk is measured). CPU time of this process per request
(``time.process_time``), the least and the median of ``--rounds`` rounds taken in turn, so that
a machine shared with other work still gives comparable figures. The difference to the first
line is what ``webapi.http.observability`` and ``webapi.http.metrics`` add to every request;
compare it with the server CPU per roll that ``python -m bench.run`` prints.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable

from flask import Flask

from domain.service.command_results import CommandCounters
from webapi.http import metrics, observability

ROUTE = "/campaigns/<campaign>/rolls"


def app_with(hooks: bool) -> Flask:
    """An app with the one route, with or without the request id, metrics and access log."""
    app = Flask("bench-observability")
    if hooks:
        observability.install(app)
        metrics.install(app, CommandCounters(), lambda: {"head": 0, "views": []})
    app.add_url_rule(ROUTE, "roll", lambda campaign: "ok")
    return app


def cpu_per_request(app: Flask, requests: int) -> float:
    """Microseconds of CPU per request, after a short warm-up; a new path each time."""
    client = app.test_client()
    for _ in range(200):
        client.get("/campaigns/warm-up/rolls")
    started = time.process_time()
    for n in range(requests):
        client.get(f"/campaigns/{n}/rolls")
    return (time.process_time() - started) / requests * 1e6


def set_up(log_format: str | None, access_log: bool) -> Callable[[], Flask]:
    """A set-up: the log format to configure (None: none) and whether the access log writes."""

    def build() -> Flask:
        if log_format is not None:
            observability.configure_logging(log_format, io.StringIO())
        observability.ACCESS_LOG.disabled = not access_log
        return app_with(log_format is not None)

    return build


SET_UPS: dict[str, Callable[[], Flask]] = {
    "no hooks": set_up(None, access_log=False),
    "request id + metrics": set_up("json", access_log=False),
    "+ access log as JSON": set_up("json", access_log=True),
    "+ access log as text": set_up("text", access_log=True),
}


def main() -> None:
    """Measure each set-up in turn, ``--rounds`` times, and print the least and the median."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4000, help="requests per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every set-up")
    args = parser.parse_args()
    figures: dict[str, list[float]] = {name: [] for name in SET_UPS}
    for _ in range(args.rounds):
        for name, build in SET_UPS.items():
            figures[name].append(cpu_per_request(build(), args.requests))
    print(f"CPU per request, {args.requests} requests x {args.rounds} rounds (microseconds):")
    print(f"{'set-up':24} {'least':>7} {'median':>7}")
    for name, values in figures.items():
        print(f"{name:24} {min(values):7.0f} {statistics.median(values):7.0f}")


if __name__ == "__main__":
    main()
