"""What the table page downloads for its Quest Calendar charts, against the campaign's length:
``python -m bench.page.chart_bytes [EVENTS ...]`` (default 200 and 30,000).

Each campaign is played in-process on a fresh SQLite store by the simulation's Quest Calendar
table (``bench/simulation/sim_play.py``: pages of checks, combats, shops and credits, server dice)
until it holds ``EVENTS`` events; the views are brought up to date; then, through the API (a Flask
test client), it counts the bytes of the charts' answer the page reads now (``GET
/campaigns/{id}/views/charts``) and of the rows the page read before it (``/views/hp-virtue`` and
``/views/debt-ledger``, a thousand rows a page, up to three pages each).
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from flask.testing import FlaskClient

from bench.simulation.sim_play import QuestCalendarTable, Tally
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.rebuild import catch_up_views
from webapi.app import create_app
from webapi.http.view_store import close_views, views_store

EARLIER_PAGES = 3
"""How many pages of a thousand rows of each view the page read before the charts route."""


def rows_bytes(client: FlaskClient, path: str) -> int:
    """The bytes of a view's rows as the page read them before: pages of 1,000, at most 3."""
    total, after = 0, None
    for _ in range(EARLIER_PAGES):
        answer = client.get(f"{path}?limit=1000" + (f"&after={after}" if after else ""))
        total += len(answer.data)
        after = answer.get_json()["next"]
        if not after:
            break
    return total


def measure(events: int, directory: Path) -> tuple[int, int, int]:
    """(events, bytes of the charts' answer, bytes of the rows read before) for one campaign."""
    app = Questlog(StoreConfig(sqlite_path=directory / f"charts-{events}.db"))
    try:
        table = QuestCalendarTable(app, random.Random(3), Tally())
        while app.campaign(table.id).version < events:
            table.play_one()
        flask_app = create_app(app, auth=False, rate_limit=0, TESTING=True)
        try:
            with flask_app.app_context():
                catch_up_views(app, views_store(), batch_size=1000)
            client = flask_app.test_client()
            base = f"/campaigns/{table.id}/views"
            charts = len(client.get(f"{base}/charts").data)
            before = rows_bytes(client, f"{base}/hp-virtue") + rows_bytes(
                client, f"{base}/debt-ledger"
            )
        finally:
            close_views(flask_app)
        return app.campaign(table.id).version, charts, before
    finally:
        app.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("events", nargs="*", type=int, default=[200, 30_000])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        for events in args.events:
            played, charts, before = measure(events, Path(directory))
            print(
                f"{played:,} events: the charts' answer {charts:,} bytes; "
                f"the rows the page read before {before:,} bytes"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
