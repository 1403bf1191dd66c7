"""The schema of every calendar-board command, and the dice each may draw."""

from __future__ import annotations

from domain.calendar_board import actions, modifiers, steps
from domain.calendar_board import state as cb
from domain.command_schema import Command, command, integer, items, text

GAME = "calendar-board"
PLAYER = "The id of the player who acts."
PIECE = "The id of one of the player's pieces."

COMMANDS: list[Command] = [
    command(
        GAME,
        "end_turn",
        "None until the last player ends the turn; then the night phase runs and its dice "
        "depend on the state: d4 (calendar), d20 (hail save per exposed piece), d4 (hail damage), "
        "d20 (wind), 2d20 (basketball), d20 (annustaria breaker), in the order the night's steps "
        "reach them.",
        player=text(PLAYER, required=True, max_length=80),
    ),
    command(
        GAME, "decline_fate_reroll", "None.", player=text(PLAYER, required=True, max_length=80)
    ),
    command(
        GAME,
        "night_action",
        "rizz rolls d20; ambush rolls d6; sleep rolls none.",
        player=text(PLAYER, required=True, max_length=80),
        action=text("The night action.", required=True, choices=actions.NIGHT_ACTIONS),
        partner=text("The partner wanted if the rizz succeeds.", choices=cb.PARTNERS),
    ),
    command(
        GAME,
        "choose_ambush",
        "None.",
        player=text(PLAYER, required=True, max_length=80),
        piece=text("The id of the player's piece that moves.", required=True, max_length=80),
        target=text("The id of the enemy piece it ambushes.", required=True, max_length=80),
        form=text("The ambush form of the main rules.", required=True),
    ),
    command(GAME, "start_acting", "None.", player=text(PLAYER, required=True, max_length=80)),
    command(GAME, "day_sleep", "None.", player=text(PLAYER, required=True, max_length=80)),
    command(
        GAME,
        "assign_hail_damage",
        "None (the d4 was rolled with the hail save).",
        player=text(PLAYER, required=True, max_length=80),
        piece=text("The counted piece that takes the damage.", required=True, max_length=80),
    ),
    command(
        GAME,
        "choose_supply_weapon",
        "None.",
        player=text(PLAYER, required=True, max_length=80),
        weapon=text(
            "The id of the weapon the supply space refills (null declines, if allowed).",
            max_length=80,
        ),
    ),
    command(
        GAME,
        "order_creatures",
        "None.",
        player=text("The god-token holder.", required=True, max_length=80),
        order=items(
            "The creature ids of one type, each once, in the order they act.", required=True
        ),
    ),
    command(
        GAME,
        "raise_annustar",
        "None.",
        amount=integer(
            "The change in Annustar damage.", required=True, minimum=-1000, maximum=1000
        ),
        cause=text("The main-rules effect that changes it.", required=True),
    ),
    command(
        GAME,
        "fate_reroll",
        "The rerolled roll's dice again (d4 calendar, d20 hail, d20 wind, d20 rizz, d6 ambush, "
        "d6 movement, ...).",
        player=text(PLAYER, required=True, max_length=80),
        roll=text("The kind of roll rerolled.", required=True, choices=steps.ROLL_KINDS),
    ),
    command(
        GAME,
        "declare_action",
        "None.",
        player=text(PLAYER, required=True, max_length=80),
        action=text(
            "Cast a spell that requires sight, or fortify.",
            required=True,
            choices=modifiers.SIGHT_ACTIONS,
        ),
    ),
    command(
        GAME,
        "roll_movement",
        "d6.",
        player=text(PLAYER, required=True, max_length=80),
        piece=text(PIECE, required=True, max_length=80),
    ),
]
