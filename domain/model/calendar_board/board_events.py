"""The Calendar Board events of the night, the calendar, weather and fate (docs/events.md).

Each class is one event type: its name is the stored type, its docstring what happened,
its facts the details stored (``domain.model.events.payload``). The modules that emit an event
declare it to the game (``rules.declare``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.events.payload import ABSENT, Absent, Payload, event, fact


@event
class CalendarRolled(Payload):
    """The god token holder rolled the calendar d4."""

    d4: int = fact("the d4's face")
    holder: str = fact("the god token holder, who rolled")


@event
class GodPieceMoved(Payload):
    """The god piece moved along the calendar."""

    from_space: int = fact("the space it started on")
    passed_spaces: Sequence[Any] = fact("the spaces passed on the way")
    pips_lost: int = fact("pips lost at the end of the calendar")
    pips_rolled: int = fact("the pips rolled")
    pips_used: int = fact("the pips moved")
    to_space: int = fact("the space it ended on")


@event
class SupplySpaceTriggered(Payload):
    """A supply space fired."""

    how: str = fact("how it fired")
    merged_spaces: Sequence[Any] = fact("the spaces merged into this one")
    space_index: int = fact("the calendar space's number")


@event
class AmmoRegenerated(Payload):
    """A weapon regained ammo on a supply space."""

    after: int = fact("ammo after")
    before: int = fact("ammo before")
    chosen_by: str = fact("who chose")
    max: int = fact("the weapon's ammo maximum")
    player: str = fact("the player concerned")
    regen: int = fact("the weapon's ammo regeneration")
    space_index: int = fact("the calendar space's number")
    wasted: int = fact("ammo over the maximum, wasted")
    weapon_id: str = fact("the weapon's id")


@event
class AmmoRegenerationSkipped(Payload):
    """A supply space regenerated no ammo for a player."""

    player: str = fact("the player concerned")
    reason: str = fact("why")
    space_index: int = fact("the calendar space's number")


@event
class CalendarLapCompleted(Payload):
    """The god piece completed a lap of the calendar."""

    lap_number: int = fact("the lap completed")


@event
class GodPieceReset(Payload):
    """The god piece went back to the start of the calendar."""

    from_space: int = fact("the space it started on")
    timing: str = fact("when it happened")
    to_space: int = fact("the space it ended on")


@event
class CeasefireAdvanced(Payload):
    """The ceasefire counter advanced."""

    capped: bool = fact("whether the counter was already at its cap")
    from_: int = fact("the ceasefire counter before", stored_as="from")
    to: int = fact("the ceasefire counter after")


@event
class DecisionRequested(Payload):
    """The game waits for a player's decision."""

    context: Mapping[str, Any] = fact("what the decision is about")
    decision: str = fact("the decision asked for")
    options: Sequence[Any] = fact("the options offered")
    rule: str = fact("the rule that asks for it")
    who: str = fact("the player who decides")


@event
class FateRerollDeclined(Payload):
    """A player declined a fate reroll."""

    player: str = fact("the player concerned")
    roll: str = fact("which kind of roll")
    roll_id: str = fact("the roll kept")


@event
class FateRerollsRestored(Payload):
    """A night phase started and fate rerolls came back (house rule cb.fateReroll.refresh)."""

    night_number: int = fact("the night's number")
    players: Mapping[str, Any] = fact(
        "each player whose count came back, with the number they have now"
    )


@event
class TurnEnded(Payload):
    """A player's turn ended."""

    player: str = fact("the player concerned")
    round: int = fact("the round's number")


@event
class TurnStarted(Payload):
    """A player's turn started."""

    player: str = fact("the player concerned")
    round: int = fact("the round's number")


@event
class NightPhaseStarted(Payload):
    """The night phase started."""

    god_token_holder: str = fact("who holds the god token")
    night_number: int = fact("the night's number")
    round: int = fact("the round's number")
    starting_token_holder: str = fact("who holds the starting token")


@event
class NightPhaseEnded(Payload):
    """The night phase ended."""

    night_number: int = fact("the night's number")
    weather_pending: str | None = fact("a weather waiting to come into force (null if none)")
    wind: Mapping[str, Any] = fact("the wind at the end of the night")


@event
class GodTokenPassed(Payload):
    """The god token passed to another player."""

    from_: str = fact("the player who held it", stored_as="from")
    night_number: int = fact("the night's number")
    timing: str = fact("when it happened")
    to: str = fact("the player who holds it now")


@event
class WeatherSet(Payload):
    """A weather was set from the calendar."""

    hail_save: bool = fact("whether it calls for a hail save")
    in_force_tonight: str = fact("the weather in force tonight")
    pending: bool = fact("whether it waits until later to come into force")
    source: str = fact("what set it")
    space_index: int = fact("the calendar space's number")
    space_type: str = fact("the calendar space's type")
    weather: str = fact("the new weather")
    event_id: str | Absent = fact("the calendar event that set it", default=ABSENT)


@event
class WeatherEnded(Payload):
    """A weather ended."""

    reason: str = fact("what ended it")
    weather: str = fact("the weather")


@event
class WeatherActivated(Payload):
    """A weather came into force."""

    at_turn_of: str | None = fact("whose turn it came in at (null at night)")
    round: int = fact("the round's number")
    weather: str = fact("the weather")


@event
class ConditionApplied(Payload):
    """A piece gained a condition."""

    condition: str = fact("the condition's name")
    duration: str = fact("how long it lasts")
    game: str = fact("the game's code, CB")
    player: str = fact("the piece's player")
    source: str = fact("what applied it")
    subject_id: str = fact("the piece's id")


@event
class ConditionCleared(Payload):
    """A piece lost a condition."""

    cause: str = fact("what caused it")
    condition: str = fact("the condition's name")
    game: str = fact("the game's code, CB")
    player: str = fact("the piece's player")
    subject_id: str = fact("the piece's id")


@event
class HailSaveRolled(Payload):
    """A player rolled a save against hail."""

    automatic: bool = fact("whether the save succeeded without a roll")
    die_value: int | None = fact("the d20's value (null if automatic)")
    goal: int = fact("the number to reach")
    luck_mod: int = fact("the luck modifier")
    player: str = fact("the player concerned")
    success: bool = fact("whether it succeeded")
    total: int | None = fact("the save's total (null if automatic)")
    fate_reroll_of: str | Absent = fact(
        "the roll this one replaced by a fate reroll", default=ABSENT
    )


@event
class HailDamageTaken(Payload):
    """A piece took hail damage."""

    chosen_by: str = fact("who chose")
    d4: int = fact("the d4's face")
    damage_type: str = fact("the kind of damage")
    piece_id: str = fact("the piece's id")
    player: str = fact("the player concerned")


@event
class WindRolled(Payload):
    """The wind d20 was rolled."""

    d20: int = fact("the d20's face")
    holder: str = fact("the god token holder, who rolled")


@event
class WindSet(Payload):
    """The wind was set."""

    direction: str | None = fact("the wind's direction (null when calm)")
    previous: Mapping[str, Any] = fact("the wind before")
    speed: str = fact("the wind's speed")
