"""Two applications on one store, as two API workers are: what one process
keeps for itself must never make it answer differently from the store.

Each test runs on SQLite and on PostgreSQL; the end-to-end proof with two real workers is
tests/api/test_workers.py.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from domain.model.access import Membership
from domain.model.campaign import Campaign
from domain.model.errors import InvalidInput
from domain.service.commands_service import Decided, Decision
from domain.service.questlog import Questlog


def test_a_command_that_appends_nothing_answers_from_the_store_not_a_stale_cached_copy(
    make_app: Callable[[], Questlog],
) -> None:
    first, second = make_app(), make_app()
    cid = first.campaigns.create_campaign(game="quest-calendar", name="Cached").campaign_id
    first.dice.roll(cid, notation="d20", purpose="cached in the first process")
    moved = second.dice.roll(cid, notation="d20", purpose="written by the second")

    # The first process's cache still holds the campaign before the second's roll; a decision
    # that triggers no event is never refused by the version key, so it must see the store.
    outcome = first.execute(cid, ReadVersion(), None, None)

    assert outcome.value == moved.version


def test_a_token_name_taken_by_another_process_meanwhile_is_a_422_on_name(
    make_app: Callable[[], Questlog], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = make_app(), make_app()
    # The second process checked the name before the first stored it: the check saw nothing.
    monkeypatch.setattr(type(second.side_tables), "find_token", lambda _self, _name: None)
    first.access.create_token("dana")

    with pytest.raises(InvalidInput) as refused:
        second.access.create_token("dana")

    assert "name" in refused.value.errors


def test_two_processes_giving_one_token_a_role_both_succeed_and_the_last_one_holds(
    make_app: Callable[[], Questlog],
) -> None:
    first, second = make_app(), make_app()
    cid = first.campaigns.create_campaign(game="quest-calendar", name="Roles").campaign_id
    token, _ = first.access.create_token("erin")

    roles = [Membership(str(cid), token.id, "viewer"), Membership(str(cid), token.id, "auditor")]

    def give(n: int) -> None:
        (first, second)[n % 2].side_tables.set_member(roles[n % 2])

    # Racing each other, neither fails on the key (a delete-then-insert would).
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(give, range(60)))
    second.side_tables.set_member(Membership(str(cid), token.id, "player", seat="A"))

    held = first.side_tables.membership(str(cid), token.id)
    assert held is not None and (held.role, held.seat) == ("player", "A")
    assert [m.token_id for m in second.side_tables.members(str(cid))].count(token.id) == 1


class ReadVersion(Decision):
    """A decision that triggers no event: it answers the version it decided on."""

    def decide(self, campaign: Campaign) -> Decided:
        return Decided(campaign.version)
