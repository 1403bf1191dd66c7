"""A campaign's dice stream: the client seed, the server seed's rotation, free rolls, and the
fresh commitment an imported campaign plays on under.

``DiceStreamMixin`` is mixed into ``domain.model.campaign.Campaign``: its methods decide (roll
through dice held to the campaign's dice house rules and commitment, ``CheckedDice``) and then
record through the campaign's own events (``ClientSeedChanged``, ``SeedRotated``, ``DiceRolled``,
``Imported``), which only assign. ``DiceHost`` is what they use of the campaign
(docs/dice-verification.md).
"""

from __future__ import annotations

from typing import Any, Protocol

from domain.model.dice.checked import CheckedDice
from domain.model.dice.draw import DiceSource
from domain.model.dice.notation import DiceExpression
from domain.model.rules_engine import Context


class DiceHost(Protocol):
    """What the dice stream reads of a campaign, and how it records (``Campaign`` provides it)."""

    house_rules: dict[str, Any]
    dice: dict[str, Any]
    head_hash: str

    @property
    def version(self) -> int: ...

    @property
    def ClientSeedChanged(self) -> type[Any]: ...

    @property
    def SeedRotated(self) -> type[Any]: ...

    @property
    def DiceRolled(self) -> type[Any]: ...

    @property
    def Imported(self) -> type[Any]: ...

    def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None: ...


class DiceStreamMixin:
    """The dice stream of a campaign (mixed into ``Campaign``)."""

    def set_client_seed(self: DiceHost, client_seed: str) -> None:
        """Use a new client seed for the server rolls that follow."""
        self.trigger_event(self.ClientSeedChanged, client_seed=client_seed)

    def rotate_seed(self: DiceHost, *, revealed_seed: str, new_commitment: str) -> None:
        """Reveal the current server seed and commit to the next one."""
        self.trigger_event(
            self.SeedRotated,
            revealed_commitment=self.dice["commitment"],
            revealed_seed=revealed_seed,
            commitment=new_commitment,
        )

    def record_import(
        self: DiceHost,
        *,
        exported_at: str | None,
        checkpoint: str | None,
        source: dict[str, Any],
        new_commitment: str,
        revealed_seeds: dict[str, str],
    ) -> None:
        """Record that the log up to here came from a bundle, reveal the seeds this instance
        held for its commitments (``revealed_seeds``), and commit to a new server seed."""
        current = self.dice["commitment"]
        self.trigger_event(
            self.Imported,
            bundle_head={"version": self.version, "hash": self.head_hash},
            bundle_exported_at=exported_at,
            checkpoint=checkpoint,
            source=dict(source),
            unrevealed_commitment=None if current in revealed_seeds else current,
            revealed_seeds=dict(revealed_seeds),
            commitment=new_commitment,
        )

    def roll(
        self: DiceHost, expression: DiceExpression, purpose: str, dice: DiceSource
    ) -> dict[str, Any]:
        """Roll dice for a purpose and record faces, total and proof; returns the roll record."""
        context = Context({}, self.house_rules, CheckedDice(self, dice))
        context.roll(expression, purpose)
        rolls = stamp(self.version + 1, context.close_rolls())
        counted = counters(self.dice, rolls)
        self.trigger_event(self.DiceRolled, purpose=purpose, rolls=rolls, **counted)
        return rolls[0]

    def checked_dice(self: DiceHost, dice: DiceSource) -> DiceSource:
        """The dice source, held to the campaign's dice mode and current commitment."""
        return CheckedDice(self, dice)


def stamp(version: int, rolls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The roll records of the event at ``version``, each with its roll id (``<version>-<n>``)."""
    return [
        {"roll_id": f"{version}-{n}", "version": version, **record}
        for n, record in enumerate(rolls, start=1)
    ]


def counters(dice: dict[str, Any], rolls: list[dict[str, Any]]) -> dict[str, int]:
    """The dice stream's nonce and roll count after an event that made ``rolls``."""
    nonces = [r["proof"]["nonce"] for r in rolls if "proof" in r]
    return {
        "next_nonce": max(nonces) + 1 if nonces else dice["nonce"],
        "roll_count": dice["rolls"] + len(rolls),
    }
