"""The fields several Calendar Board commands share: the acting player and one of their pieces.

A field that one command alone takes is declared with that command, beside its handler
(``@rules.command(schema=takes(...))``).
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from domain.model.schema_fields import picks, text

PLAYER = "The id of the player who acts."
PIECE = "The id of one of the player's pieces."
OWN_PIECES = "/parties/{player}/pieces"


def player_id(description: str = PLAYER) -> fields.Field[Any]:
    """A player of the match, picked from its players."""
    return picks(text(description, required=True, max_length=80), "/players")


def own_piece(description: str = PIECE) -> fields.Field[Any]:
    """One of the acting player's pieces, picked from their party."""
    return picks(text(description, required=True, max_length=80), OWN_PIECES)
