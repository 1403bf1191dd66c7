"""The campaign's own event payloads: what each campaign event records (docs/events.md).

The event classes of ``domain.model.campaign.Campaign`` carry these fields; each declares its
payload from one of these classes, which the reference documents and the tests hold to the
fields the event stores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.events.payload import Payload, event, fact


@event
class CampaignCreated(Payload):
    """A campaign starts (POST /campaigns) or is forked from another."""

    originator_topic: str = fact("the aggregate's topic, questlog.Campaign")
    game: str = fact("quest-calendar or calendar-board")
    name: str = fact("the campaign's name")
    house_rules: Mapping[str, Any] = fact("every house rule in force, defaults included")
    commitment: str = fact("SHA-256 commitment to the first server seed")
    client_seed: str = fact("the client seed mixed into server rolls")
    origin: Mapping[str, Any] | None = fact(
        "the fork point (campaign_id, version, head_hash), or null"
    )
    state: Mapping[str, Any] = fact(
        "the game state it starts with (the setup, or the fork point's)"
    )


@event
class ClientSeedChanged(Payload):
    """The owner set a client seed (POST /dice/client-seed)."""

    client_seed: str = fact("the client seed for the server rolls that follow")


@event
class SeedRotated(Payload):
    """The server seed was revealed and replaced; the nonce restarts at 0."""

    revealed_commitment: str = fact("the commitment of the seed now revealed")
    revealed_seed: str = fact("that seed, so its rolls can be re-derived")
    commitment: str = fact("the commitment to the new server seed")


@event
class HouseRuleConfigured(Payload):
    """A house rule was changed after creation (POST /house-rules, QC-01)."""

    key: str = fact("the house rule's key")
    old_value: Any = fact("its value before")
    new_value: Any = fact("its value from now on")
    gap: str | None = fact("the gap it settles (G-QC-xx or G-CB-xx, docs/rules.md)")


@event
class DiceRolled(Payload):
    """Dice were rolled for a stated purpose (POST /rolls)."""

    purpose: str = fact("what the roll was for")
    rolls: Sequence[Any] = fact("one roll record (faces, total, source, proof)")
    next_nonce: int = fact("the dice stream's nonce after the event")
    roll_count: int = fact("the campaign's number of rolls after the event")


@event
class RolledBack(Payload):
    """The state at an earlier version was restored (POST /rollback, or a proposal's last approval);
    the events after it stay, undone, and the dice stream is not restored."""

    to_version: int = fact("the version whose state is restored")
    reason: str = fact("why, as given")
    actor: str | None = fact("who asked for it")
    restored_state: Mapping[str, Any] = fact("the game state at to_version, which it assigns")
    restored_house_rules: Mapping[str, Any] = fact(
        "the house rules at to_version, which it assigns"
    )
    undone_versions: Sequence[Any] = fact("to_version + 1 up to the previous head")
    undone_rolls: Sequence[Any] = fact("the ids of the active rolls it undid")
    server_rolls_undone: int = fact("how many of those were server rolls")
    policy: str = fact("the rollback_over_server_rolls house rule in force")
    flagged: bool = fact("whether it undid server rolls under the flag policy")
    proposal_id: str | None = fact("the proposal it carried out (null if direct)")


@event
class RollbackProposed(Payload):
    """A rollback was proposed to every player (POST /rollback/proposals)."""

    proposal_id: str = fact("the proposal's id")
    to_version: int = fact("the version it would restore")
    reason: str = fact("why, as given")
    proposer: str = fact("who proposed it")
    players: Sequence[Any] = fact("whose agreement it needs")


@event
class RollbackApproved(Payload):
    """A player agreed to a proposed rollback (the proposer, if a player, on proposing)."""

    proposal_id: str = fact("the proposal agreed to")
    player: str = fact("who agreed")


@event
class CampaignImported(Payload):
    """The campaign was imported from a bundle (questlog import, POST /campaigns/import); the events
    before it are the bundle's, unchanged."""

    bundle_head: Mapping[str, Any] = fact(
        "the bundle's head (version and hash), the event before it"
    )
    bundle_exported_at: str | None = fact("when the source made the bundle, as it says")
    checkpoint: str | None = fact(
        "the bundle's last signed checkpoint, verified before the import (null if it carried none)"
    )
    source: Mapping[str, Any] = fact(
        "the source as its bundle names it: log_name, verifier_keys (the keys that check its "
        "checkpoints) and checkpoint_keys (given: checked with keys the importer named; bundle: "
        "with the bundle's own; null: none)"
    )
    unrevealed_commitment: str | None = fact(
        "the source's commitment this instance cannot reveal (its rolls stay awaiting reveal here "
        "unless the source reveals the seed); null if this instance holds its seed and reveals it "
        "here"
    )
    revealed_seeds: Mapping[str, Any] = fact(
        "the seeds this instance held for commitments of the log not yet revealed (its own, after "
        "a campaign comes back), by commitment: they are revealed here, so every roll made under "
        "them can be checked"
    )
    commitment: str = fact("the commitment to the new server seed this instance holds")
