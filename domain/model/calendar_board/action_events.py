"""The Calendar Board events of night actions, day sleep and exhaustion steps (docs/events.md).

Each class is one event type: its name is the stored type, its docstring what happened,
its facts the details stored (``domain.model.events.payload``). The modules that emit an event
declare it to the game (``rules.declare``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.model.events.payload import ABSENT, Absent, Payload, event, fact


def _fate_reroll_used_v1_v2(details: dict[str, Any]) -> None:
    """A FateRerollUsed of version 1 was recorded while fate rerolls were not counted."""
    details.setdefault("left", None)


@event
class NightActionTaken(Payload):
    """A party took its night action."""

    action: str = fact("the action's name")
    order_index: int = fact("its place in the order")
    party: str = fact("the party (player) concerned")
    player: str = fact("the player concerned")


@event
class AmbushRolled(Payload):
    """The ambush die was rolled."""

    candidate_piece_ids: Sequence[Any] = fact("the pieces the ambush could strike")
    d6: int = fact("the d6's face")
    player: str = fact("the player concerned")
    fate_reroll_of: str | Absent = fact(
        "the roll this one replaced by a fate reroll", default=ABSENT
    )


@event
class AmbushMissed(Payload):
    """An ambush found no piece to strike."""

    d6: int = fact("the d6's face")
    player: str = fact("the player concerned")


@event
class AmbushPerformed(Payload):
    """A piece ambushed another piece."""

    form: str = fact("the ambush's form")
    from_space: int = fact("the space it started on")
    piece_id: str = fact("the piece's id")
    player: str = fact("the player concerned")
    target_piece_id: str = fact("the piece struck")
    to_space: int = fact("the space it ended on")


@event
class RizzAttempted(Payload):
    """A party tried to win a partner."""

    chosen_partner_type: str | None = fact("the partner won (null on failure)")
    defender_value: int = fact("the defender's value")
    die_value: int = fact("the die's value")
    exhaustion_before: int = fact("the party's exhaustion before")
    int_mod: int = fact("the party's INT modifier")
    party: str = fact("the party (player) concerned")
    player: str = fact("the player concerned")
    success: bool = fact("whether it succeeded")
    total: int = fact("the attempt's total")
    fate_reroll_of: str | Absent = fact(
        "the roll this one replaced by a fate reroll", default=ABSENT
    )


@event
class PartnerGained(Payload):
    """A party gained a partner."""

    partner_type: str = fact("the partner's type")
    party: str = fact("the party (player) concerned")
    relationship: int = fact("the relationship value")


@event
class RelationshipChanged(Payload):
    """A party's relationship with a partner changed."""

    cause: str = fact("what caused it")
    from_: int | None = fact("the relationship before (null for a new partner)", stored_as="from")
    partner_type: str = fact("the partner's type")
    party: str = fact("the party (player) concerned")
    to: int = fact("the relationship after")


@event
class ExhaustionChanged(Payload):
    """A party's exhaustion changed."""

    cause: str = fact("what caused it")
    from_: int = fact("exhaustion before", stored_as="from")
    party: str = fact("the party (player) concerned")
    to: int = fact("exhaustion after")


@event
class PieceEliminated(Payload):
    """A piece was eliminated."""

    cause: str = fact("what caused it")
    party: str = fact("the party (player) concerned")
    piece_id: str = fact("the piece's id")
    space: int = fact("the space's number")


@event
class TurnActionsStarted(Payload):
    """A player's turn actions began."""

    player: str = fact("the player concerned")
    round: int = fact("the round's number")


@event
class SleptDuringDay(Payload):
    """A party slept through the day."""

    exhaustion_before: int = fact("the party's exhaustion before")
    party: str = fact("the party (player) concerned")
    round: int = fact("the round's number")


@event
class RestrictionApplied(Payload):
    """A party's actions were restricted."""

    locks: Sequence[Any] = fact("the actions locked")
    party: str = fact("the party (player) concerned")
    until: int = fact("the night it lasts until")


@event
class TurnSkipped(Payload):
    """A player's turn was skipped."""

    player: str = fact("the player concerned")
    reason: str = fact("why")
    round: int = fact("the round's number")


@event
class RestrictionLifted(Payload):
    """A party's restriction was lifted."""

    locks: Sequence[Any] = fact("the actions locked")
    party: str = fact("the party (player) concerned")


@event
class CreatureOrderChosen(Payload):
    """A player chose the order in which creatures act."""

    creature_type: str = fact("the creature's type")
    order: Sequence[Any] = fact("the order chosen")
    player: str = fact("the player concerned")


@event
class NightCreatureActed(Payload):
    """A night creature acted."""

    creature_id: str = fact("the creature's id")
    creature_type: str = fact("the creature's type")
    order_index: int = fact("its place in the order")
    chosen_by: str | Absent = fact("who chose its target", default=ABSENT)


@event
class PartnerLost(Payload):
    """A party lost a partner."""

    partner_type: str = fact("the partner's type")
    party: str = fact("the party (player) concerned")
    reason: str = fact("why")


@event
class BasketballShotRolled(Payload):
    """The basketball shot was rolled."""

    d20a: int = fact("the first d20's face")
    d20b: int = fact("the second d20's face")
    holder: str = fact("the player who rolled")
    made: bool = fact("whether the shot went in")
    threshold: int = fact("the number to reach")
    total: int = fact("the two dice's total")


@event
class AnnustarDamageValueChanged(Payload):
    """Annustar's damage value changed."""

    cause: str = fact("nightlyDecrement or external")
    from_: int = fact("the damage value before", stored_as="from")
    to: int = fact("the damage value after")
    amount: int | Absent = fact("the change an external effect asked for", default=ABSENT)
    effect: str | Absent = fact("the external effect", default=ABSENT)


@event
class AnnustariaBreakerChecked(Payload):
    """The Annustaria breaker check was rolled."""

    check: int = fact("the check's number")
    checks: int = fact("how many checks there are")
    die_value: int = fact("the die's value")
    holder: str = fact("the player who rolled")
    passed: bool = fact("whether the check passed")
    target: int = fact("the number to reach")
    value: int = fact("Annustar's damage value")


@event
class FateRerollUsed(Payload):
    """A player spent a fate reroll."""

    VERSION = 2
    UPCASTERS = (_fate_reroll_used_v1_v2,)

    at: str | Absent = fact("night, when used on a night roll", default=ABSENT)
    player: str = fact("the player concerned")
    roll: str = fact("which kind of roll")
    roll_id: str | Absent = fact("the roll it replaces (day rolls have none)", default=ABSENT)
    left: int | None = fact(
        "the fate rerolls the player has left after this one (null: not counted, unlimited; "
        "null in version 1, recorded before they were counted)"
    )


@event
class ActionDeclared(Payload):
    """A player declared their day action."""

    action: str = fact("the action's name")
    player: str = fact("the player concerned")
    weather: str = fact("the weather in force")


@event
class PieceMoved(Payload):
    """A piece on the pathway moved forward the spaces its movement roll gave it."""

    from_space: int = fact("the space it started on")
    piece_id: str = fact("the piece's id")
    player: str = fact("the player concerned")
    spaces: int = fact("how many spaces it moved (the movement die's value)")
    to_space: int = fact("the space it ended on")


@event
class MovementRolled(Payload):
    """A piece's movement was rolled."""

    bonus_roll_earned: bool = fact("whether a six earned a bonus roll")
    bonus_roll_suppressed: bool = fact("whether the weather took that bonus roll away")
    piece_id: str = fact("the piece's id")
    player: str = fact("the player concerned")
    value: int = fact("the movement die's value")
    weather: str = fact("the weather in force")
