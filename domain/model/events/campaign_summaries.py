"""The campaign's own events in words (``domain.model.events.summaries``): each summary reads the
event's payload (``campaign_payloads``), decoded."""

from __future__ import annotations

from collections.abc import Mapping

from domain.model.events import campaign_payloads as events
from domain.model.events.summaries import (
    Facts,
    actor,
    counted,
    first_up,
    key_words,
    listed,
    roll_words,
    summary,
    text,
    value,
)


@summary(events.CampaignCreated)
def _created(p: events.CampaignCreated, f: Facts) -> str:
    game = text(p.game)
    if isinstance(p.origin, Mapping):
        return (
            f"{game} campaign “{text(p.name)}” forked from "
            f"{text(p.origin.get('campaign_id'))} at version {p.origin.get('version')}"
        )
    return f"{game} campaign “{text(p.name)}” started, committed to its first dice seed"


@summary(events.ClientSeedChanged)
def _client_seed(p: events.ClientSeedChanged, f: Facts) -> str:
    return f"Client seed set to “{text(p.client_seed, 40)}” for the rolls that follow"


@summary(events.SeedRotated)
def _rotated(p: events.SeedRotated, f: Facts) -> str:
    return (
        f"Server seed {text(p.revealed_commitment)[:12]}… revealed; "
        f"new seed committed ({text(p.commitment)[:12]}…), nonce back to 0"
    )


@summary(events.HouseRuleConfigured)
def _house_rule(p: events.HouseRuleConfigured, f: Facts) -> str:
    # the gap the setting settles stays in the event's data, not in the sentence
    return f"House rule {key_words(p.key)}: {value(p.old_value)} → {value(p.new_value)}"


@summary(events.DiceRolled)
def _rolled(p: events.DiceRolled, f: Facts) -> str:
    rolls = f.rolls
    if not rolls:
        raise ValueError("a roll event without a roll")
    return "; ".join(roll_words(roll) for roll in rolls)


@summary(events.RolledBack)
def _rolled_back(p: events.RolledBack, f: Facts) -> str:
    by = f" by {actor(p.actor)}" if p.actor else ""
    proposal = " (as proposed and agreed)" if p.proposal_id else ""
    flagged = ", flagged" if p.flagged else ""
    return (
        f"Rolled back to version {p.to_version}{by}{proposal}: "
        f"“{text(p.reason)}”; undid {counted(len(p.undone_versions), 'event')} and "
        f"{counted(len(p.undone_rolls), 'roll')}{flagged}"
    )


@summary(events.RollbackProposed)
def _proposed(p: events.RollbackProposed, f: Facts) -> str:
    return (
        f"{first_up(actor(p.proposer))} proposed rolling back to version "
        f"{p.to_version}: “{text(p.reason)}”; needs {listed(p.players)}"
    )


@summary(events.RollbackApproved)
def _approved(p: events.RollbackApproved, f: Facts) -> str:
    return f"{first_up(actor(p.player))} agreed to the rollback proposal"


@summary(events.CampaignImported)
def _imported(p: events.CampaignImported, f: Facts) -> str:
    source = p.source or {}
    name = source.get("log_name") if isinstance(source, Mapping) else None
    checked = "checkpoint verified" if p.checkpoint else "no checkpoint"
    origin = f" from {text(name, 60)}" if name else ""
    return (
        f"Imported{origin} at its version {p.bundle_head.get('version')} ({checked}); "
        "plays on here under a new dice seed"
    )
