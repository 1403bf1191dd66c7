"""Pending decisions: where a game stops for a player's choice, and the event that says so.

Both games stop the same way: ``state["pending"]`` names the decision, whose it is, the rule that
asks for it, the commands accepted until it is made (``GameRules.run`` refuses the others), the
options and what the answer needs to know; then a ``DecisionRequested`` event records the
question. Which fields that event carries differs by game and by question, and the stored events
must not change, so each caller says which ones (``announce``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.rules_engine import Context

REQUESTED = "DecisionRequested"
EVERY_FIELD = ("decision", "who", "rule", "options", "context")
"""The fields of a ``DecisionRequested`` event that names whose decision it is (Calendar Board)."""


def ask(
    ctx: Context,
    *,
    decision: str,
    who: str,
    rule: str,
    commands: list[str],
    options: Any,
    context: Mapping[str, Any] | None = None,
    announce: Sequence[str] = EVERY_FIELD,
    **extra: Any,
) -> None:
    """Wait for ``who``'s decision: set ``state["pending"]``, then emit ``DecisionRequested``.

    The event carries the ``announce`` fields (none: no event, the caller emits its own), built
    as the game's own ``DecisionRequested`` payload class. ``extra`` fields follow the usual ones
    in the pending decision.
    """
    ctx.state["pending"] = {
        "decision": decision,
        "who": who,
        "rule": rule,
        "commands": commands,
        "options": options,
        "context": dict(context or {}),
        **extra,
    }
    if announce:
        asked = {"decision": decision, "who": who, "rule": rule, "options": options}
        asked["context"] = context
        ctx.emit(ctx.payload(REQUESTED, **{field: asked[field] for field in announce}))
