"""A view whose rows a release changes (a new column, a fixed figure) is built again from the
log's start when a view store an earlier release built is opened: its figures are never half
old. The other views carry on where they were."""

from __future__ import annotations

from domain.service.questlog import Questlog
from projections.store import ViewStore
from projections.views import ALL_VIEWS
from projections.views.stats import campaign_figures
from projections.views.weather import WeatherHistory
from tests.projections.conftest import sync
from tests.projections.scenarios import calendar_board_match


def test_a_view_built_at_an_earlier_revision_starts_again(app: Questlog, views: ViewStore) -> None:
    calendar_board_match(app)
    sync(app, views)
    head = views.positions()["stats"]["position"]
    assert campaign_figures(views)["weather"]["in_force"] == {"normal": 1, "rain": 1}
    # What an earlier release left: no revision recorded, and no day_weather in the rows.
    with views.write() as cursor:
        cursor.execute(views.sql("DELETE FROM {view_revisions} WHERE view = ?"), ("weather",))
        cursor.execute(views.sql("UPDATE {weather} SET day_weather = NULL"))
    assert campaign_figures(views)["weather"]["in_force"] == {"none": 2}

    views.ensure(ALL_VIEWS)
    positions = views.positions()
    assert positions[WeatherHistory.name]["position"] == 0  # starts again
    assert positions["stats"]["position"] == head  # carries on
    sync(app, views)
    assert campaign_figures(views)["weather"]["in_force"] == {"normal": 1, "rain": 1}

    views.ensure(ALL_VIEWS)  # at its revision now: nothing starts again
    assert views.positions()[WeatherHistory.name]["position"] == head
