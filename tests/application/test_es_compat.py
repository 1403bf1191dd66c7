"""The application's use of eventsourcing's save steps and aggregate cache
(``domain.storage.es_compat``).

The cached campaign is shared: commands decide on a copy, and a copy shares the cached campaign's
``state`` dict (``Campaign.__deepcopy__``). That is safe only while every event replaces the state
instead of changing it in place; these tests fail if that stops being so.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError

from domain.model.campaign import Campaign
from domain.model.games import rules_for
from domain.service.questlog import Questlog
from tests.application.qc_week_data import HERO

SELECT_HERO = {"type": "select_hero", "phase": "main", "hero": HERO}


def _campaign(app: Questlog) -> UUID:
    outcome = app.campaigns.create_campaign(
        game="quest-calendar",
        name="compat",
        setup={"prologue_complete": True},
    )
    return outcome.campaign_id


def test_a_save_puts_the_saved_campaign_in_the_cache(app: Questlog) -> None:
    campaign_id = _campaign(app)

    app.campaigns.command(campaign_id, dict(SELECT_HERO))

    cached = app.cached_aggregate(campaign_id)
    assert isinstance(cached, Campaign)
    assert cached.version == app.campaign(campaign_id).version == 2


def test_a_save_stores_its_side_rows_with_the_events(app: Questlog) -> None:
    campaign_id = _campaign(app)
    campaign = app.campaign(campaign_id)
    campaign.set_client_seed("side rows")

    recordings = app.save(campaign, attempt="compat-attempt")

    assert [r.domain_event.originator_version for r in recordings] == [2]
    assert app.side_tables.attempt_stored("compat-attempt")


def test_a_version_conflict_stores_none_of_its_side_rows(app: Questlog) -> None:
    campaign_id = _campaign(app)
    first, second = app.campaign(campaign_id), app.campaign(campaign_id)
    first.set_client_seed("first")
    second.set_client_seed("second")

    app.save(first, attempt="compat-first")
    with pytest.raises(IntegrityError):
        app.save(second, attempt="compat-second")

    assert app.side_tables.attempt_stored("compat-first")
    assert not app.side_tables.attempt_stored("compat-second")
    assert app.side_tables.actors(str(campaign_id)).keys() == {1, 2}


def test_the_working_copy_is_a_copy_of_the_cached_campaign(app: Questlog) -> None:
    campaign_id = _campaign(app)
    cached = app.cached_aggregate(campaign_id)

    copy, from_cache = app._working_copy(campaign_id, optimistic=True)

    assert isinstance(cached, Campaign)
    assert from_cache is True
    assert copy is not cached
    assert copy.version == cached.version
    assert copy.dice is not cached.dice
    assert copy.collect_events() == []


def test_deciding_on_a_copy_leaves_the_cached_campaigns_state_untouched(app: Questlog) -> None:
    campaign_id = _campaign(app)
    cached = app.cached_aggregate(campaign_id)
    assert isinstance(cached, Campaign)
    before = json.dumps(cached.state, sort_keys=True)
    copy, _ = app._working_copy(campaign_id, optimistic=True)

    copy.run_command(rules_for(copy.game), dict(SELECT_HERO), app.dice.server_dice(copy))

    assert copy.state is not cached.state
    assert json.dumps(cached.state, sort_keys=True) == before
    assert cached.version == copy.version - 1


def test_applying_a_game_event_to_a_copy_never_changes_the_original_state(app: Questlog) -> None:
    campaign_id = _campaign(app)
    app.campaigns.command(campaign_id, dict(SELECT_HERO))
    event: Any = app.campaign_events(campaign_id, after=1)[0]
    original = app.campaign(campaign_id, version=1)
    before = json.dumps(original.state, sort_keys=True)

    applied = event.mutate(original.__deepcopy__({}))

    assert applied.version == 2
    assert json.dumps(original.state, sort_keys=True) == before
    assert applied.state != original.state
