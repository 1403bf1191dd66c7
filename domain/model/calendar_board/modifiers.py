"""Weather and wind modifier queries (CB-20..CB-27, CB-32): values in, answers out, no events.

The main rules of the game (tackles, attacks, movement, spells, fortifying) are outside this
chapter (G-CB-01); these functions tell them what the weather in effect and the wind change.
The weather in effect is ``state["weather"]["current"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.errors import NotHeld

SLIPPERY = frozenset({"rain", "snow", "hail"})  # CB-22, CB-23
SIGHT_ACTIONS = ("sight_spell", "fortify")  # CB-27
_COMPASS = {"north": "N", "east": "E", "south": "S", "west": "W"}
_OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}


def weather_penalty(adaptability: int, house: Mapping[str, Any]) -> int:
    """-4 + adaptability, never above ``cb.weather.penaltyCap`` when it is set (G-CB-16)."""
    penalty = -4 + adaptability
    cap = house["cb.weather.penaltyCap"]
    return penalty if cap is None else min(penalty, cap)


def bonus_roll_on_six(weather: str) -> bool:
    """CB-23: a movement 6 earns a bonus roll except under Rain, Snow or Hail."""
    return weather not in SLIPPERY


def action_allowed(weather: str, action: str) -> bool:
    """CB-27: Fog forbids sight spells and fortifying."""
    return not (weather == "fog" and action in SIGHT_ACTIONS)


def sight_range(weather: str, base_range: int, house: Mapping[str, Any]) -> int:
    """CB-25: Snow shortens a sight spell's range by 1, not below the floor (G-CB-18)."""
    if weather != "snow":
        return base_range
    floor: int = house["cb.weather.snowSightRangeFloor"]
    return max(base_range - 1, min(base_range, floor))


def weather_modifiers(
    weather: str,
    adaptability: int,
    house: Mapping[str, Any],
    *,
    structure: bool = False,
    base_range: int | None = None,
) -> dict[str, Any]:
    """CB-20..CB-27: what the weather changes for one piece (or structure) of this adaptability."""
    penalty = weather_penalty(adaptability, house)
    fog = weather == "fog" and (not structure or house["cb.weather.fogAppliesToStructures"])
    offender = {"modifier": 0, "disadvantage": False}
    defender = 0
    if weather == "snow":  # CB-24: both sides, structures included (G-CB-17)
        offender["modifier"] = penalty
        defender = penalty
    elif fog:  # CB-26: offender at disadvantage (G-CB-19), defender -4 + adaptability
        offender["disadvantage"] = True
        defender = penalty
    return {
        "weather": weather,
        "adaptability": adaptability,
        "tackle": penalty if weather in SLIPPERY else 0,
        "attack_offender": offender,
        "attack_defender": defender,
        "movement_six_bonus_roll": bonus_roll_on_six(weather),
        "sight_spells_allowed": action_allowed(weather, "sight_spell"),
        "fortify_allowed": action_allowed(weather, "fortify"),
        "sight_range": None if base_range is None else sight_range(weather, base_range, house),
    }


def piece_modifiers(
    state: Mapping[str, Any],
    house: Mapping[str, Any],
    player: str,
    piece_id: str,
    *,
    base_range: int | None = None,
) -> dict[str, Any]:
    """The weather modifiers of a player's piece, by its own adaptability (CB-20..CB-27)."""
    parties: Mapping[str, Any] = state["parties"]
    if player not in parties:
        raise NotHeld("player", f"no player {player!r} in this match")
    pieces: Mapping[str, Any] = parties[player]["pieces"]
    if piece_id not in pieces:
        raise NotHeld("piece", f"player {player} has no piece {piece_id!r}")
    result = weather_modifiers(
        state["weather"]["current"],
        pieces[piece_id]["adaptability"],
        house,
        base_range=base_range,
    )
    return {"player": player, "piece_id": piece_id, **result}


def structure_modifiers(
    state: Mapping[str, Any], house: Mapping[str, Any], *, base_range: int | None = None
) -> dict[str, Any]:
    """The weather modifiers of a structure, at ``cb.structures.adaptability`` (G-CB-17)."""
    return weather_modifiers(
        state["weather"]["current"],
        house["cb.structures.adaptability"],
        house,
        structure=True,
        base_range=base_range,
    )


def relation(facing: str, blows_towards: str | None) -> str:
    """CB-32: facing the way the wind blows is away, the opposite way towards, else sideways."""
    if blows_towards is None:
        return "none"
    if facing == blows_towards:
        return "away"
    if facing == _OPPOSITE[blows_towards]:
        return "towards"
    return "sideways"


def wind_relation(
    state: Mapping[str, Any], house: Mapping[str, Any], facing: str
) -> dict[str, Any]:
    """CB-32, G-CB-23/24: the acting member's relation to the wind and the damage modifier."""
    wind: Mapping[str, Any] = state["wind"]
    speed, direction = wind["speed"], wind["direction"]
    blows_towards = None
    if speed != "none" and direction is not None:
        blows_towards = _COMPASS[direction]
        if house["cb.wind.directionMeans"] == "from":
            blows_towards = _OPPOSITE[blows_towards]
    kind = relation(facing, blows_towards)
    modifier = 0 if kind == "none" else house["cb.wind.effects"].get(kind, {}).get(speed, 0)
    return {
        "facing": facing,
        "wind": {"speed": speed, "direction": direction},
        "blows_towards": blows_towards,
        "relation": kind,
        "modifier": modifier,
    }
