"""Trait rolls and trait checks (QC-10), with Malfunction (QC-32) and trait boosters (QC-18)."""

from __future__ import annotations

from typing import Any

from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import page_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import needs
from domain.model.quest_calendar.command_fields import CHECK_DICE
from domain.model.rules_engine import Context
from domain.model.schema_fields import integer, text

rules = RULES[QUEST_CALENDAR]
rules.declare(
    page_events.CheckRolled,
)


def trait_roll(ctx: Context, trait: str, purpose: str, bonus: int = 0) -> dict[str, Any]:
    """d20 + trait + active boosters + bonus; twice keeping the lower d20 while malfunctioning.

    Returns ``{"trait", "d20", "faces", "trait_mod", "booster", "bonus", "total", "malfunction"}``.
    The roll record(s) go into the next emitted event.
    """
    hero = qc.hero(ctx)
    malfunction = "malfunction" in hero["conditions"]
    faces = [ctx.roll("1d20", purpose)["total"]]
    if malfunction:
        faces.append(
            ctx.roll("1d20", f"{purpose} (Malfunction: roll again, keep the lower)")["total"]
        )
    page = ctx.state.get("page") or {}
    booster = int(page.get("boosters", {}).get(trait, 0))
    # G-QC-04 with qc.boosters.rollOncePerPage false: each booster's die is rolled on every roll.
    for dice in page.get("booster_dice", {}).get(trait, []):
        booster += ctx.roll(dice, f"{purpose} ({trait} booster)")["total"]
    kept = min(faces)
    total = kept + hero["traits"][trait] + booster + bonus
    return {
        "trait": trait,
        "d20": kept,
        "faces": faces,
        "trait_mod": hero["traits"][trait],
        "booster": booster,
        "bonus": bonus,
        "total": total,
        "malfunction": malfunction,
    }


@rules.command(
    "trait_check",
    summary="Roll d20 + a trait (plus boosters and a chosen bonus); with a target, say whether "
    "it succeeds.",
    example={"type": "trait_check", "trait": "INT", "purpose": "decode the panel", "target": 12},
    schema=takes(
        CHECK_DICE,
        trait=text("The trait checked.", required=True, choices=qc.TRAITS),
        purpose=text(
            "What the check is for (default: the trait and 'check', as 'INT check').",
            max_length=500,
            free_text=True,
        ),
        target=integer(
            "The total to reach; without it the check only reports the total.",
            minimum=-1000,
            maximum=1000,
        ),
        bonus=integer(
            "A bonus the page grants, added to the total.", default=0, minimum=-100, maximum=100
        ),
    ),
    available=needs(),
    rules=("QC-10", "QC-18", "QC-32"),
)
def trait_check(ctx: Context, args: Values) -> None:
    """QC-10: the page's resolution decides what the total achieves; a target is optional."""
    trait = args["trait"]
    purpose = args["purpose"] if args["purpose"] is not None else f"{trait} check"
    target = args["target"]
    bonus = args["bonus"]
    qc.hero(ctx)
    page = qc.page(ctx)
    result = trait_roll(ctx, trait, purpose, bonus)
    page["first_roll_made"] = True
    success = None if target is None else result["total"] >= target
    # QC-14: an ability may still be applied to this check later on the page (use_ability on_roll).
    page.setdefault("checks", []).append(
        {"purpose": purpose, "target": target, "success": success, **result}
    )
    ctx.emit(
        page_events.CheckRolled(
            purpose=purpose, target=target, success=success, check=len(page["checks"]) - 1, **result
        )
    )
