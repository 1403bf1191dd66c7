"""Abilities, conditions and choices.

Rules QC-11, QC-13..QC-19, QC-24 (healing abilities between rounds), QC-31 and QC-32 (applying
and curing conditions) and QC-50 (abilities that remove an injury). Items live in ``items.py``.

Using an ability after seeing a roll (QC-14): ``use_ability`` takes ``on_roll``, the 0-based
index of a trait check in ``page["checks"]``, the list of the current page's checks in the order
they were rolled (each entry holds the ``CheckRolled`` details: trait, d20, faces, trait_mod,
booster, bonus, total, target, success). The first check of a page is ``"on_roll": 0``. Roll ids
are given only when an event is stored, so a handler cannot name a roll by id; the index is
stable within the page and the ``AbilityUsed`` event records it as ``target_check``.

Ability effects applied here: ``check_bonus`` (dice and/or amount, optionally only for
``traits``) and ``reroll`` on a check; ``heal``, ``cure`` and ``remove_injury``; and no effect
(``{}``), which only spends a use. Attack and damage abilities are spent by the combat commands,
Aim and Evasion abilities by ``resolve_dogfight_round`` (dogfight_rounds.py). The context is checked
first, so an ability of another context is refused by QC-15 whatever its effect.
Reminders are advisory (QC-13): nothing here reads them; only the context and uses decide.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError, fields

from domain.model.command_schema import Document, Values, takes
from domain.model.errors import InvalidInput, NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import hero_events, items
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import NO_PAGE, State, needs
from domain.model.quest_calendar.checks import trait_roll
from domain.model.quest_calendar.command_fields import CHECK_DICE, CONDITIONS, hero_ability
from domain.model.quest_calendar.state_types import Hero, Page
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import integer, text
from domain.model.schema_fields import items as many

rules = RULES[QUEST_CALENDAR]
rules.declare(
    hero_events.AbilityUsed,
    hero_events.ConditionApplied,
    hero_events.ConditionNotStacked,
    hero_events.ChoiceMade,
)

CHECK_EFFECTS = ("check_bonus", "reroll")
ABILITY_EFFECTS = ("heal", "cure", "remove_injury", *CHECK_EFFECTS)
_SEGMENT = re.compile(r"[0-9]+|[A-Za-z]+")


# -- abilities (QC-13..QC-19) ------------------------------------------------------------------


def uses_left(hero: Hero, ability: Mapping[str, Any]) -> int | None:
    """What is left after a use: per-rest uses, this page's use, or unspent surges."""
    usage = ability["usage"]
    if usage == "per_rest":
        return int(ability["uses"] - ability["used"])
    if usage == "per_page":
        return 0 if ability["used_this_page"] else 1
    pool = hero["pool"]
    if usage == "surge" and pool is not None:
        return pool["max"] - pool["spent"]
    return None


def _target_check(
    ctx: Context, page: Page, index: int, ability: Mapping[str, Any]
) -> dict[str, Any]:
    """The page's check ``index`` (QC-14), if this ability may change it."""
    checks = page.get("checks", [])
    if index >= len(checks):
        ctx.refuse("QC-14", f"there is no check #{index} on this page ({len(checks)} rolled)")
    check: dict[str, Any] = checks[index]
    traits = ability["effect"].get("traits")
    if traits is not None and check.get("trait") not in traits:
        raise NotHeld("on_roll", f"{ability['id']} applies only to {', '.join(traits)} checks")
    return check


def _settle(check: dict[str, Any]) -> None:
    """Recompute a check's total and success after an ability changed it (QC-10)."""
    check["total"] = (
        check["d20"]
        + check["trait_mod"]
        + check["booster"]
        + check["bonus"]
        + check.get("ability_bonus", 0)
    )
    if check.get("target") is not None:
        check["success"] = check["total"] >= check["target"]


def _change_check(
    ctx: Context, kind: str, ability: Mapping[str, Any], check: dict[str, Any]
) -> dict[str, Any]:
    """Add to or reroll a check already seen (QC-14); returns what changed, for AbilityUsed."""
    before = check["total"]
    change: dict[str, Any] = {}
    if kind == "check_bonus":
        bonus = items.effect_amount(ctx, ability["effect"], f"{ability['id']}: check bonus")
        check["ability_bonus"] = check.get("ability_bonus", 0) + bonus
        change["bonus"] = bonus
    else:
        again = trait_roll(ctx, check["trait"], f"{ability['id']}: reroll", check["bonus"])
        change["previous_faces"] = check["faces"]
        change["faces"] = again["faces"]
        check.update(d20=again["d20"], faces=again["faces"], booster=again["booster"])
    _settle(check)
    check.setdefault("abilities", []).append({"ability_id": ability["id"], "kind": kind, **change})
    return {
        **change,
        "total_before": before,
        "total": check["total"],
        "success": check.get("success"),
    }


def _ability_refusal(page: Mapping[str, Any], hero: Mapping[str, Any], ability: Any) -> Any:
    """Why this ability may not be used now (use_ability's guards, in its order)."""
    context = items.context_now(dict(page))
    if context not in qc.CONTEXT_ALLOWS[ability["context"]]:
        return ("QC-15", f"{ability['id']} is a {ability['context']} ability, not usable {context}")
    kind = ability["effect"].get("kind")
    if kind in CHECK_EFFECTS and not page.get("checks"):
        return ("QC-14", "no check has been rolled on this page for it to change")
    refusal = items.effect_refusal(hero, kind, ability["effect"])
    if refusal is not None:
        return refusal
    usage, pool = ability["usage"], hero.get("pool")
    if usage == "surge" and (pool is None or pool["max"] - pool["spent"] < ability["cost"]):
        return ("QC-19", f"{ability['id']} needs {ability['cost']} unspent surge(s)")
    if usage == "per_rest" and ability["used"] >= ability["uses"]:
        return ("QC-16", f"{ability['id']} has no uses left until the next Rest")
    if usage == "per_page" and ability["used_this_page"]:
        return ("QC-17", f"{ability['id']} was already used on this page")
    return None


def an_ability_to_use(state: State) -> Refusal | None:
    """QC-14..QC-19: an ability the hero may use now (one whose effect use_ability applies)."""
    hero, page = state["hero"], state["page"]
    applied = [
        ability
        for ability in hero["abilities"].values()
        if ability["effect"].get("kind") in (None, *ABILITY_EFFECTS)
    ]
    refusals = [_ability_refusal(page, hero, ability) for ability in applied]
    if not refusals:
        return ("QC-15", "the hero has no ability that use_ability applies")
    if None in refusals:
        return None
    refusal: Refusal = refusals[0]
    return refusal


@rules.command(
    "use_ability",
    summary="Use an ability where its context allows it, optionally on a check already rolled "
    "on this page.",
    example={"type": "use_ability", "ability": "keen-mind", "on_roll": 0},
    schema=takes(
        "The ability's effect dice if it has any (a heal, a check bonus); a reroll ability rolls "
        "the check again: " + CHECK_DICE,
        ability=hero_ability("The id of one of the hero's abilities."),
        on_roll=integer(
            "The check this ability changes: its 0-based index among this page's checks.",
            minimum=0,
            maximum=10_000,
        ),
        stat=text("The injured stat an ability restores.", choices=qc.INJURY_STATS),
    ),
    available=needs(an_ability_to_use),
    rules=("QC-13", "QC-14", "QC-15", "QC-16", "QC-17", "QC-19", "QC-24", "QC-50"),
)
def use_ability(ctx: Context, args: Values) -> None:
    """Spend one use (QC-15..QC-19) and apply the ability's effect; healing is fine mid-combat."""
    ability_id = args["ability"]
    on_roll = args["on_roll"]
    stat = args["stat"]
    hero = qc.hero(ctx)
    page = qc.page(ctx)
    ability = hero["abilities"].get(ability_id)
    if ability is None:
        raise NotHeld("ability", f"the hero has no ability {ability_id!r}")
    context = items.context_now(page)
    # QC-15 first: an ability of another context is refused whatever its effect is.
    qc.require_context(ctx, ability, context)
    kind = items.check_effect(ability["effect"], ABILITY_EFFECTS, "ability.effect")
    if kind in CHECK_EFFECTS and on_roll is None:
        raise NotHeld("on_roll", f"name the check on this page that {kind} applies to")
    if kind not in CHECK_EFFECTS and on_roll is not None:
        raise NotHeld("on_roll", f"{ability_id} does not change a check")
    check = _target_check(ctx, page, on_roll, ability) if on_roll is not None else None
    items.can_apply(ctx, kind, ability["effect"], stat)
    qc.spend_ability(ctx, ability_id, context)
    qc.record_surge(ctx, ability_id, ability)
    details: dict[str, Any] = {
        "ability_id": ability_id,
        "usage": ability["usage"],
        "context": context,
        "effect": kind,
        "uses_left": uses_left(hero, ability),
        "target_check": on_roll,
    }
    if kind in CHECK_EFFECTS and check is not None:
        details.update(_change_check(ctx, kind, ability, check))
    ctx.emit(hero_events.AbilityUsed(**details))
    if kind not in CHECK_EFFECTS:
        items.apply_effect(
            ctx, kind, ability["effect"], cause="ability", source=ability_id, stat=stat
        )


# -- conditions (QC-31, QC-32) -----------------------------------------------------------------


@rules.command(
    "apply_condition",
    summary="The page infects the hero or makes them malfunction; a condition does not stack.",
    example={"type": "apply_condition", "condition": "infected", "source": "rat bite"},
    schema=takes(
        None,
        condition=text("The condition the page gives.", required=True, choices=CONDITIONS),
        source=text("What caused it.", default="page"),
    ),
    available=needs(),
    rules=("QC-31", "QC-32"),
)
def apply_condition(ctx: Context, args: Values) -> None:
    """QC-31/QC-32: lasts until cured; a second one while already affected changes nothing."""
    condition = args["condition"]
    source = args["source"]
    hero = qc.hero(ctx)
    qc.page(ctx)
    if condition in hero["conditions"]:
        ctx.emit(
            hero_events.ConditionNotStacked(
                subject_id=hero["id"], condition=condition, source=source, reason="already present"
            )
        )
        return
    hero["conditions"].append(condition)
    ctx.emit(
        hero_events.ConditionApplied(
            subject_id=hero["id"], condition=condition, duration="until_cured", source=source
        )
    )


# -- choices (QC-11) ---------------------------------------------------------------------------

Label = tuple[str, ...]
LABEL = r"^([0-9]+|[A-Za-z]+)(-([0-9]+|[A-Za-z]+))*$"
"""An option label as the document states it: numbers or letters, joined by hyphens."""
LABELS_ONCE: Document = {
    "properties": {
        "options": {"minItems": 1, "uniqueItems": True},
        "selected": {"uniqueItems": True},
    }
}
"""A choice lists at least one option, and each label once."""


def _label(raw: Any, field: str) -> Label:
    """ "2-A" -> ("2", "A"): numbers and letters, joined by hyphens."""
    if not raw:  # a string of at most 40 characters, as the schema checked
        raise InvalidInput.field(field, "each option is a label such as A, 2 or 2-B")
    segments = raw.upper().split("-")
    if not all(_SEGMENT.fullmatch(segment) for segment in segments):
        raise InvalidInput.field(field, f"{raw!r}: use numbers or letters joined by '-', like 2-B")
    return tuple(segments)


def read_choice(
    raw_options: list[Any], raw_selected: list[Any]
) -> tuple[list[Label], list[Label], dict[str, Any]]:
    """The printed options, the ones taken and the option tree, or ``InvalidInput`` naming
    ``options`` or ``selected`` (the command's schema checks a body with it, QC-11)."""
    options = [_label(raw, "options") for raw in raw_options]
    selected = [_label(raw, "selected") for raw in raw_selected]
    if not options:
        raise InvalidInput.field("options", "list the options the page prints")
    if len(set(options)) != len(options):
        raise InvalidInput.field("options", "an option is listed twice")
    unknown = [label for label in selected if label not in options]
    if unknown:
        raise InvalidInput.field("selected", f"not an option: {'-'.join(unknown[0])}")
    if len(set(selected)) != len(selected):
        raise InvalidInput.field("selected", "an option is selected twice")
    return options, selected, _build_tree(options)


def _order(segment: str) -> tuple[int, str]:
    return (int(segment), "") if segment.isdigit() else (0, segment)


def _build_tree(options: list[Label]) -> dict[str, Any]:
    """Nested option groups: each key a segment, each leaf None."""
    tree: dict[str, Any] = {}
    for label in options:
        node = tree
        for depth, segment in enumerate(label):
            if depth == len(label) - 1 and segment not in node:
                node[segment] = None
                break
            child = node.setdefault(segment, {})
            if child is None or depth == len(label) - 1:
                raise InvalidInput.field(
                    "options", f"{'-'.join(label[: depth + 1])} is both an option and a group"
                )
            node = child
    _check_groups(tree)
    return tree


def _check_groups(tree: dict[str, Any]) -> None:
    if len({key.isdigit() for key in tree}) > 1:
        raise InvalidInput.field("options", "one group mixes numbered and lettered options")
    for child in tree.values():
        if child is not None:
            _check_groups(child)


def _required(ctx: Context, tree: dict[str, Any], prefix: Label, chosen: set[Label]) -> list[Label]:
    """The options that must be done, in order: all numbers, exactly one letter per group."""
    keys = sorted(tree, key=_order)
    if not keys[0].isdigit():
        picked = [k for k in keys if any(c[: len(prefix) + 1] == (*prefix, k) for c in chosen)]
        if len(picked) != 1:
            names = ", ".join("-".join((*prefix, k)) for k in keys)
            ctx.refuse("QC-11", f"lettered options are alternatives: pick exactly one of {names}")
        keys = picked
    steps: list[Label] = []
    for key in keys:
        label = (*prefix, key)
        if tree[key] is not None:
            steps += _required(ctx, tree[key], label, chosen)
        elif label in chosen:
            steps.append(label)
        else:
            ctx.refuse("QC-11", f"numbered options must all be done; {'-'.join(label)} is missing")
    return steps


def option_label() -> fields.Field[Any]:
    """A printed option's label, such as 2-B."""
    return text("An option label such as 2-B.", required=True, max_length=40, pattern=LABEL)


def choice_labels(data: dict[str, Any]) -> None:
    """QC-11: labels such as 1, 2-A, 2-B, each once; the ones taken among them."""
    try:
        read_choice(data["options"], data["selected"])
    except InvalidInput as error:
        raise ValidationError(error.errors) from None


def can_make_choice(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-11: a printed choice is made on the open page."""
    return NO_PAGE if state.get("page") is None else None


@rules.command(
    "make_choice",
    summary="Make a printed choice: exactly one lettered option, every numbered one in order.",
    example={
        "type": "make_choice",
        "choice": "cantina-door",
        "options": ["1", "2-A", "2-B"],
        "selected": ["1", "2-B"],
    },
    schema=takes(
        None,
        choice=text("The id of the printed choice.", required=True, max_length=80),
        options=many(
            "The printed option labels (numbers, lettered as '2-A'), each once: together one "
            "tree of options, in which a label is an option or a group of options, never both, "
            "and a group's options are all numbered or all lettered.",
            required=True,
            max_items=50,
            item=option_label(),
        ),
        selected=many(
            "The labels of the options taken, each once and each one of the options.",
            required=True,
            max_items=50,
            item=option_label(),
        ),
        checks=[choice_labels],
        document=[LABELS_ONCE],
    ),
    available=can_make_choice,
    rules=("QC-11",),
)
def make_choice(ctx: Context, args: Values) -> None:
    """QC-11: "1, 2-A, 2-B" means do 1, then exactly one of 2-A or 2-B."""
    choice_id = args["choice"]
    options, selected, tree = read_choice(args["options"], args["selected"])
    page = qc.page(ctx)
    made = page.setdefault("choices", {})
    if choice_id in made:
        ctx.refuse("QC-11", f"choice {choice_id} was already made on this page")
    steps = _required(ctx, tree, (), set(selected))
    if steps != selected:
        order = ", ".join("-".join(step) for step in steps)
        ctx.refuse("QC-11", f"numbered options are done in numeric order: {order}")
    chosen = ["-".join(label) for label in selected]
    made[choice_id] = chosen
    ctx.emit(
        hero_events.ChoiceMade(
            page_date=page["date"],
            choice_id=choice_id,
            options=["-".join(label) for label in options],
            selected_options=chosen,
        )
    )
