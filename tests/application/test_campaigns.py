"""Creating, listing and loading campaigns, on SQLite and on PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput, NotFound
from domain.model.house_rules import GAMES, book
from domain.service.questlog import Questlog
from tests.conftest import SETUPS

HEX64 = re.compile(r"[0-9a-f]{64}")


def stored_mark(app: Questlog) -> int:
    """The id of the last stored event: unchanged means nothing was stored."""
    return app.recorder.max_notification_id() or 0


def defaults(game: str) -> dict[str, Any]:
    """Every house rule of a game at its documented default."""
    return {key: rule.default for key, rule in book(game).rules.items()}


@pytest.mark.parametrize("game", GAMES)
def test_create_campaign_records_game_name_rules_and_commitment_in_one_event(
    app: Questlog, game: str
) -> None:
    outcome = app.campaigns.create_campaign(
        game=game,
        name="Winter of the Owl",
        setup=SETUPS[game],
    )

    assert outcome.replayed is False
    assert outcome.version == 1
    campaign_id = outcome.campaign_id
    [created] = app.campaign_events(campaign_id)
    assert isinstance(created, Campaign.Created)
    assert created.game == game
    assert created.name == "Winter of the Owl"
    assert created.house_rules == defaults(game)
    assert HEX64.fullmatch(created.commitment)
    assert re.fullmatch(r"[0-9a-f]{16}", created.client_seed)
    campaign = app.campaign(campaign_id)
    assert (campaign.game, campaign.name, campaign.version) == (game, "Winter of the Owl", 1)
    assert campaign.house_rules == created.house_rules
    assert campaign.dice["commitment"] == created.commitment
    assert campaign.dice["nonce"] == 0
    assert campaign.head_hash == created.hash


@pytest.mark.parametrize("game", GAMES)
def test_house_rule_overrides_are_resolved_against_the_defaults_and_stored(
    app: Questlog,
    new_campaign: Callable[..., UUID],
    game: str,
) -> None:
    campaign_id = new_campaign(game=game, house_rules={"dice_mode": "server"})

    [created] = app.campaign_events(campaign_id)
    assert created.house_rules == {**defaults(game), "dice_mode": "server"}
    assert app.campaign(campaign_id).house_rules["dice_mode"] == "server"


def test_a_chosen_client_seed_is_recorded_at_creation(app: Questlog) -> None:
    outcome = app.campaigns.create_campaign(
        game="quest-calendar",
        name="Seeded",
        client_seed="my lucky seed",
    )

    [created] = app.campaign_events(outcome.campaign_id)
    assert created.client_seed == "my lucky seed"


HUGE_VERSIONS = pytest.mark.parametrize("huge", [2**63, 10**30], ids=["2**63", "10**30"])
STORES_SQLITE_OVERFLOWS = pytest.mark.parametrize(
    "store_config",
    [
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ],
    indirect=True,
)


@pytest.mark.parametrize(
    ("game", "house_rules", "field"),
    [
        pytest.param("chess", None, "game", id="unknown-game"),
        pytest.param("", None, "game", id="empty-game"),
        pytest.param(
            "quest-calendar", {"no_such_rule": True}, "house_rules.no_such_rule", id="key"
        ),
        pytest.param("quest-calendar", {"dice_mode": 3}, "house_rules.dice_mode", id="int"),
        pytest.param("calendar-board", {"dice_mode": "dice"}, "house_rules.dice_mode", id="choice"),
        pytest.param("calendar-board", {"dice_mode": None}, "house_rules.dice_mode", id="null"),
    ],
)
def test_bad_creation_input_is_refused_and_stores_nothing(
    app: Questlog, game: str, house_rules: dict[str, Any] | None, field: str
) -> None:
    before = stored_mark(app)

    with pytest.raises(InvalidInput) as refused:
        app.campaigns.create_campaign(game=game, name="Refused", house_rules=house_rules)

    assert field in refused.value.errors
    assert stored_mark(app) == before
    assert app.reading.list_campaigns() == ([], None)


@pytest.mark.parametrize("name", ["", "   ", "x" * 201])
def test_a_blank_or_overlong_name_is_refused_and_stores_nothing(app: Questlog, name: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        app.campaigns.create_campaign(game="quest-calendar", name=name)

    assert "name" in refused.value.errors
    assert stored_mark(app) == 0


def test_list_campaigns_pages_in_creation_order(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    ids = [new_campaign(name=f"Campaign {n}") for n in range(3)]
    app.dice.roll(ids[0], notation="d20", purpose="not a campaign, must not be listed")

    first, cursor = app.reading.list_campaigns(limit=2)
    assert cursor is not None
    second, end = app.reading.list_campaigns(after=cursor, limit=2)

    assert end is None
    listed = [event for _, event in first + second]
    assert [event.originator_id for event in listed] == ids
    assert [event.name for event in listed] == ["Campaign 0", "Campaign 1", "Campaign 2"]


@pytest.mark.parametrize("limit", [0, -1])
def test_a_page_limit_below_one_is_invalid_input(
    app: Questlog, new_campaign: Callable[..., UUID], limit: int
) -> None:
    new_campaign()

    with pytest.raises(InvalidInput):
        app.reading.list_campaigns(limit=limit)


@STORES_SQLITE_OVERFLOWS
@pytest.mark.parametrize("after", [2**63 - 1, 2**63], ids=["2**63-1", "2**63"])
def test_a_cursor_beyond_every_campaign_gives_an_empty_last_page(
    app: Questlog, new_campaign: Callable[..., UUID], after: int
) -> None:
    new_campaign()

    assert app.reading.list_campaigns(after=after) == ([], None)


def test_state_at_a_version_is_the_state_as_it_was_then(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = new_campaign()
    for _ in range(3):
        app.dice.roll(campaign_id, notation="d20", purpose="")

    at_two = app.campaign(campaign_id, version=2)
    now = app.campaign(campaign_id)

    assert at_two.version == 2
    assert at_two.dice["nonce"] == 1
    assert at_two.view()["rolls"]["count"] == 1
    assert now.version == 4
    assert now.view()["rolls"]["count"] == 3
    assert app.campaign(campaign_id, version=4).view() == now.view()
    assert app.campaign(campaign_id, version=1).dice["nonce"] == 0


def test_a_version_beyond_the_head_is_not_found(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = new_campaign()
    app.dice.roll(campaign_id, notation="d6", purpose="")

    with pytest.raises(NotFound):
        app.campaign(campaign_id, version=3)


@HUGE_VERSIONS
def test_a_version_too_large_for_any_campaign_is_refused_cleanly(
    app: Questlog, new_campaign: Callable[..., UUID], huge: int
) -> None:
    campaign_id = new_campaign()

    with pytest.raises((NotFound, InvalidInput)):
        app.campaign(campaign_id, version=huge)


@STORES_SQLITE_OVERFLOWS
@HUGE_VERSIONS
def test_events_after_a_version_too_large_for_the_store_are_none(
    app: Questlog, new_campaign: Callable[..., UUID], huge: int
) -> None:
    campaign_id = new_campaign()

    assert app.stored_events(campaign_id, after=huge) == []


@pytest.mark.parametrize("version", [0, -1])
def test_a_version_below_one_is_invalid_input(
    app: Questlog, new_campaign: Callable[..., UUID], version: int
) -> None:
    campaign_id = new_campaign()

    with pytest.raises(InvalidInput) as refused:
        app.campaign(campaign_id, version=version)

    assert "version" in refused.value.errors


def test_an_unknown_campaign_is_not_found(app: Questlog, new_campaign: Callable[..., UUID]) -> None:
    new_campaign()
    unknown = uuid4()

    with pytest.raises(NotFound):
        app.campaign(unknown)
    with pytest.raises(NotFound):
        app.campaign(unknown, version=1)


def test_commands_on_an_unknown_campaign_are_not_found_and_store_nothing(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    new_campaign()
    before = stored_mark(app)
    unknown = uuid4()

    with pytest.raises(NotFound):
        app.dice.roll(unknown, notation="d20", purpose="")
    with pytest.raises(NotFound):
        app.dice.set_client_seed(unknown, "abc")
    with pytest.raises(NotFound):
        app.dice.rotate_seed(unknown)

    assert stored_mark(app) == before


def test_a_campaign_survives_reopening_the_store(
    app: Questlog, make_app: Callable[[], Questlog], new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = new_campaign(house_rules={"dice_mode": "reported"})
    app.dice.roll(campaign_id, notation="2d6", purpose="", faces=[3, 4])
    app.close()

    reopened = make_app().campaign(campaign_id)

    assert reopened.version == 2
    assert reopened.house_rules["dice_mode"] == "reported"
    assert reopened.view()["rolls"]["count"] == 1


def test_campaign_events_are_the_decoded_events_in_version_order(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = new_campaign()
    for _ in range(3):
        app.dice.roll(campaign_id, notation="d20", purpose="")

    events = app.campaign_events(campaign_id)

    assert [e.originator_version for e in events] == [1, 2, 3, 4]
    assert isinstance(events[0], Campaign.Created)
    assert all(isinstance(e, Campaign.DiceRolled) for e in events[1:])
    page = app.campaign_events(campaign_id, after=1, limit=2)
    assert [e.originator_version for e in page] == [2, 3]
