"""Calendar Board queries: weather and wind modifiers for a piece (CB-20..CB-27, CB-32)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import RuleViolation, modifiers
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.boards import ModifierQuery, Modifiers

blp = Blueprint("boards", __name__, description="Calendar Board modifier queries.")


@blp.route("/campaigns/<campaign>/modifiers")
class PieceModifiers(MethodView):
    @blp.doc(operationId="getBoardModifiers")
    @blp.arguments(ModifierQuery, location="query")
    @blp.response(200, Modifiers)
    @requires("read")
    def get(self, query: dict[str, Any], campaign: str) -> Any:
        """Weather and wind modifiers for a piece (or a structure) as the match stands now."""
        match = questlog().campaign(campaign_id(campaign))
        if match.game != "calendar-board":
            raise RuleViolation("CB-20", "modifier queries are for calendar-board matches")
        state, house = match.state, match.house_rules
        base_range = query.get("range")
        if query["structure"]:
            weather = modifiers.structure_modifiers(state, house, base_range=base_range)
            facing = query.get("facing", "N")
        else:
            piece = query.get("piece") or ""
            weather = modifiers.piece_modifiers(
                state, house, query["player"], piece, base_range=base_range
            )
            facing = (
                query.get("facing") or state["parties"][query["player"]]["pieces"][piece]["facing"]
            )
        return {
            "weather": weather,
            "wind": modifiers.wind_relation(state, house, facing),
            "version": match.version,
        }
