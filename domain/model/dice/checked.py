"""Dice held to a campaign's dice house rules and to its current commitment."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from domain.model.dice.draw import DiceSource, Draw
from domain.model.errors import RuleViolation


class DiceHolder(Protocol):
    """What the check reads of a campaign: its house rules and its dice stream."""

    house_rules: dict[str, Any]
    dice: dict[str, Any]


class CheckedDice:
    """A dice source held to the campaign's ``dice_mode`` and ``player_entropy`` house rules and
    its current commitment."""

    def __init__(self, campaign: DiceHolder, dice: DiceSource) -> None:
        self.campaign = campaign
        self.dice = dice

    def draw(self, sides: Sequence[int]) -> Draw:
        """Draw, refusing dice the campaign does not accept."""
        draw = self.dice.draw(sides)
        mode = self.campaign.house_rules.get("dice_mode", "either")
        if mode != "either" and draw.source != mode:
            raise RuleViolation(
                "house_rules.dice_mode",
                f"this campaign takes only {mode} dice, not {draw.source} dice",
            )
        if draw.proof is not None and draw.proof["commitment"] != self.campaign.dice["commitment"]:
            raise ValueError("dice source is not on the campaign's current commitment")
        required = self.campaign.house_rules.get("player_entropy") == "required"
        if required and draw.source == "server" and (draw.proof or {}).get("entropy") is None:
            raise RuleViolation(
                "house_rules.player_entropy",
                "this campaign's house rule player_entropy is 'required': a command that rolls "
                "server dice must carry the player's entropy in its field 'entropy' (1 to 64 "
                "characters of A-Z, a-z, 0-9, '_' and '-')",
            )
        return draw
