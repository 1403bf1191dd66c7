"""The campaign aggregate: given / when / then on the events it records, with scripted dice."""

from __future__ import annotations

from uuid import uuid4

import pytest

from domain.model import chain
from domain.model.campaign import Campaign
from domain.model.dice.draw import ScriptedDice, ServerDice, commitment_of, new_server_seed
from domain.model.dice.notation import parse
from domain.model.errors import RuleViolation
from domain.model.house_rules import book


def new_campaign(dice_mode: str = "either", seed: str | None = None) -> Campaign:
    seed = seed or new_server_seed()
    return Campaign.start(
        campaign_id=uuid4(),
        game="quest-calendar",
        name="unit",
        house_rules=book("quest-calendar").resolve({"dice_mode": dice_mode}),
        commitment=commitment_of(seed),
        client_seed="client",
    )


def test_creation_event_chains_from_genesis_and_fixes_house_rules() -> None:
    campaign = new_campaign("server")
    (created,) = campaign.collect_events()
    assert isinstance(created, Campaign.Created)
    assert created.prev_hash == chain.GENESIS_HASH
    assert created.house_rules["dice_mode"] == "server"
    assert campaign.head_hash == created.hash
    assert campaign.dice["nonce"] == 0


def test_each_event_links_to_the_previous_hash() -> None:
    seed = new_server_seed()
    campaign = new_campaign(seed=seed)
    dice = ServerDice(seed, "client", 0)
    campaign.roll(parse("d20"), "first", dice)
    campaign.roll(parse("d20"), "second", dice)
    events = campaign.collect_events()
    assert [e.prev_hash for e in events[1:]] == [e.hash for e in events[:-1]]
    assert len({e.hash for e in events}) == 3


def test_hash_covers_the_data() -> None:
    campaign = new_campaign()
    campaign.roll(parse("d6"), "x", ScriptedDice([4], commitment=campaign.dice["commitment"]))
    _, rolled = campaign.collect_events()
    fields = dict(rolled.__dict__)
    recomputed = chain.event_hash(
        campaign_id=campaign.id,
        version=rolled.originator_version,
        event_type=rolled.TOPIC,
        timestamp=rolled.timestamp,
        data=chain.split_event_fields(fields),
        prev_hash=rolled.prev_hash,
        actor="system",
    )
    assert recomputed == rolled.hash
    fields["rolls"] = [{**fields["rolls"][0], "total": 6}]
    tampered = chain.event_hash(
        campaign_id=campaign.id,
        version=rolled.originator_version,
        event_type=rolled.TOPIC,
        timestamp=rolled.timestamp,
        data=chain.split_event_fields(fields),
        prev_hash=rolled.prev_hash,
        actor="system",
    )
    assert tampered != rolled.hash


def test_roll_records_faces_total_and_moves_the_nonce() -> None:
    seed = new_server_seed()
    campaign = new_campaign(seed=seed)
    dice = ServerDice(seed, "client", 0)
    record = campaign.roll(parse("2d20kl1+2"), "sneak", dice)
    assert record["roll_id"] == "2-1"
    assert record["source"] == "server"
    assert record["proof"]["nonce"] == 0
    assert record["total"] == min(d["face"] for d in record["dice"]) + 2
    assert campaign.dice["nonce"] == 1
    assert campaign.dice["rolls"] == 1


def test_reported_roll_does_not_move_the_nonce() -> None:
    campaign = new_campaign()
    record = campaign.roll(parse("d20"), "by hand", ScriptedDice([7], source="reported"))
    assert record["source"] == "reported"
    assert "proof" not in record
    assert campaign.dice["nonce"] == 0


@pytest.mark.parametrize(("mode", "source"), [("server", "reported"), ("reported", "server")])
def test_dice_mode_house_rule_refuses_the_other_source(mode: str, source: str) -> None:
    campaign = new_campaign(mode)
    with pytest.raises(RuleViolation) as refused:
        campaign.roll(
            parse("d20"),
            "x",
            ScriptedDice([5], source=source, commitment=campaign.dice["commitment"]),
        )
    assert refused.value.rule_id == "house_rules.dice_mode"
    assert len(campaign.collect_events()) == 1


def test_rotation_reveals_the_seed_and_restarts_the_nonce() -> None:
    seed = new_server_seed()
    campaign = new_campaign(seed=seed)
    campaign.roll(parse("d4"), "x", ServerDice(seed, "client", 0))
    next_seed = new_server_seed()
    campaign.rotate_seed(revealed_seed=seed, new_commitment=commitment_of(next_seed))
    rotated = campaign.collect_events()[-1]
    assert isinstance(rotated, Campaign.SeedRotated)
    assert rotated.revealed_commitment == commitment_of(seed)
    assert campaign.dice["nonce"] == 0
    assert campaign.dice["revealed"] == {commitment_of(seed): seed}
    assert campaign.dice["commitment"] == commitment_of(next_seed)


def test_dice_from_another_commitment_are_refused() -> None:
    campaign = new_campaign()
    with pytest.raises(ValueError, match="commitment"):
        campaign.roll(parse("d20"), "x", ServerDice(new_server_seed(), "client", 0))


def test_replaying_the_events_rebuilds_the_same_state() -> None:
    seed = new_server_seed()
    campaign = new_campaign(seed=seed)
    dice = ServerDice(seed, "client", 0)
    for n in range(5):
        campaign.roll(parse("d12+1"), f"r{n}", dice)
    campaign.set_client_seed("new")
    events = campaign.collect_events()
    rebuilt = None
    for event in events:
        rebuilt = event.mutate(rebuilt)
    assert isinstance(rebuilt, Campaign)
    assert rebuilt.view() == campaign.view()
    assert rebuilt.head_hash == campaign.head_hash
    assert rebuilt.version == campaign.version
