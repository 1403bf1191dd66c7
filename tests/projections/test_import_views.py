"""An imported campaign reaches the views like any other: its events come through the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain.service.questlog import Questlog
from projections.store import ViewStore
from projections.views.campaigns import CampaignSummary
from projections.views.roll_log import RollLog
from tests.application.moving import exported, played
from tests.conftest import StoreFactory
from tests.projections.conftest import dump, sync


@pytest.fixture
def source(stores: StoreFactory) -> Iterator[Questlog]:
    """The instance the campaign comes from."""
    app = Questlog(stores.new())
    yield app
    app.close()


def test_the_roll_log_and_the_campaign_list_show_an_imported_campaign(
    app: Questlog, views: ViewStore, source: Questlog
) -> None:
    """Every roll of the bundle and the one played after the import are in the roll log, with
    the verdicts the audit gives; the campaign summary counts every event, the import's too."""
    cid = played(source)
    app.bundles.load(exported(source, cid))
    app.dice.roll(cid, notation="d12", purpose="after the move")
    app.dice.rotate_seed(cid)

    sync(app, views, [RollLog, CampaignSummary])

    tables = dump(views, [RollLog, CampaignSummary])
    rolls = [row for row in tables["rolls"] if row["campaign_id"] == str(cid)]
    audit = app.reading.audit(cid)
    assert len(rolls) == audit.rolls["server"] + audit.rolls["reported"] == 5
    assert sum(row["verified"] == 1 for row in rolls) == audit.rolls["verified"] == 2
    [summary] = [row for row in tables["campaigns"] if row["campaign_id"] == str(cid)]
    head = app.campaign(cid).version
    assert (summary["name"], summary["version"], summary["events"]) == ("Moving house", head, head)
