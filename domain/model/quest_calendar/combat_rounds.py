"""Combat rounds: their rolls, the abilities applied to them, and how they close.

The commands that drive them are in combat.py (QC-20..QC-30, QC-33..QC-37, QC-40).
"""

from __future__ import annotations

from typing import Any

from domain.model import decisions
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import death, fight_events, hero_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.checks import trait_roll
from domain.model.quest_calendar.combat_rules import (
    CONDITION_TRAITS,
    KINDS_AT,
    afflicted,
    attack_details,
    attempt_of,
    attempt_pairs,
    damage_details,
    damage_taken,
    judge,
    label,
    new_attempt,
    new_damage,
    new_round,
    round_options,
    spec_of,
    uses_left,
    verdict_of,
)
from domain.model.quest_calendar.state_types import Ability, Hero
from domain.model.rules_engine import Context

rules = RULES[QUEST_CALENDAR]
rules.declare(
    fight_events.ConditionCheckRolled,
    fight_events.ExtraAttackResolved,
    fight_events.CombatRoundResolved,
    fight_events.CombatEnded,
)

ROUND_DECISION = "combat_round_abilities"
ASSIGN_DECISION = "combat_assign_abilities"
BOOST_DECISIONS = {"attack": "combat_boost_attack", "damage": "combat_boost_damage"}

# -- the combat and its rolls ----------------------------------------------------------------


def current_combat(ctx: Context) -> dict[str, Any]:
    """The combat in progress on the open page, or a refusal (QC-20)."""
    qc.hero(ctx)
    combat = qc.page(ctx).get("combat")
    if not combat or combat["status"] != "in_progress":
        ctx.refuse("QC-20", "no combat is in progress on this page; start one first")
    result: dict[str, Any] = combat
    return result


def begin_round(ctx: Context, combat: dict[str, Any]) -> dict[str, Any]:
    """Open the next round and roll its condition check first (QC-33)."""
    index = combat["round"] + len(combat["open"])
    work = new_round(index + 1)
    combat["open"].append(work)
    condition = combat["rounds"][index]["condition"]
    if condition is not None:
        name, target = condition["name"], condition["target"]
        trait = CONDITION_TRAITS[name]
        roll = trait_roll(ctx, trait, f"round {index + 1}: {name} check")
        afflicted = roll["total"] < target
        work["condition"] = {
            "name": name,
            "trait": trait,
            "target": target,
            "total": roll["total"],
            "afflicted": afflicted,
        }
        ctx.emit(
            fight_events.ConditionCheckRolled(
                round=index + 1, condition=name, target=target, afflicted=afflicted, **roll
            )
        )
    return work


def _attack_faces(ctx: Context, purpose: str, frightened: bool) -> list[int]:
    """d20 for the attack; Frightened rolls again and keeps the lower, both recorded (QC-34)."""
    faces = [int(ctx.roll("1d20", f"{purpose}: attack")["total"])]
    if frightened:
        again = ctx.roll("1d20", f"{purpose}: attack again (Frightened: keep the lower)")
        faces.append(int(again["total"]))
    return faces


def _add_damage_roll(ctx: Context, take: dict[str, Any], purpose: str) -> None:
    """One roll of the hero's damage dice onto a take; its flat part is added at the end."""
    record = ctx.roll(qc.hero(ctx)["damage_dice"], purpose)
    take["faces"].append([die["face"] for die in record["dice"]])
    take["sum"] += record["total"] - record["modifier"]


def _damage_takes(ctx: Context, purpose: str, *, confused: bool, doubled: bool) -> list[Any]:
    """The damage dice, twice when doubled (QC-25); Confused does it all twice (QC-37, G-QC-09)."""
    takes = []
    for number in range(2 if confused else 1):
        again = " again (Confused: keep the lower)" if number else ""
        take: dict[str, Any] = {"faces": [], "sum": 0}
        for part in range(2 if doubled else 1):
            twice = ", doubled: second roll" if part else ""
            _add_damage_roll(ctx, take, f"{purpose}: damage{again}{twice}")
        takes.append(take)
    return takes


def roll_attack(ctx: Context, combat: Any, work: Any, attempt: str) -> dict[str, Any]:
    """Attack = d20 + ATK (QC-20), none while Restrained (QC-35); AttackRolled details."""
    restrained = afflicted(ctx.house, work, "restrained", attempt)
    frightened = not restrained and afflicted(ctx.house, work, "frightened", attempt)
    faces = [] if restrained else _attack_faces(ctx, label(work, attempt), frightened)
    entry = new_attempt(qc.hero(ctx), attempt, faces, restrained=restrained, frightened=frightened)
    work["attempts"].append(entry)
    spec = spec_of(combat, work)
    judge(ctx.house, spec, entry)
    return attack_details(work, entry, spec["hit_target"])


def roll_damage(ctx: Context, combat: Any, work: Any, attempt: str) -> dict[str, Any]:
    """Damage = the dice (QC-20), Confused keeps the lower take (QC-37); DamageRolled details."""
    entry = attempt_of(work, attempt)
    assert entry is not None
    rolled = bool(entry["attack"]["rolled"])
    confused = rolled and afflicted(ctx.house, work, "confused", attempt)
    purpose = label(work, attempt)
    takes = _damage_takes(ctx, purpose, confused=confused, doubled=False) if rolled else []
    entry["damage"] = new_damage(qc.hero(ctx), takes, confused=confused)
    judge(ctx.house, spec_of(combat, work), entry)
    entry["seen"] = {"hit": entry["attack"]["hit"], "damage": entry["damage"]["total"]}
    return damage_details(work, entry)


# -- abilities on a round (QC-14, QC-25, QC-28..QC-30, QC-40) ----------------------------------


def ability_options(
    ctx: Context, work: Any, attempt: str, stage: str | None
) -> list[dict[str, Any]]:
    """The hero's abilities that could still change this roll or round."""
    return round_options(qc.hero(ctx), ctx.house, work, attempt, stage)


def round_preview(ctx: Context, combat: Any, work: Any) -> dict[str, Any]:
    """What the round looks like now, for the player deciding on abilities."""
    verdict = verdict_of(combat, work, ctx.house, first=False)
    return {"round": work["round"], "condition": work["condition"], **verdict}


def ask_decision(
    ctx: Context, decision: str, rule: str, command: str, options: Any, context: Any
) -> None:
    """Stop for the player's choice of abilities (the engine never decides silently)."""
    decisions.ask(
        ctx,
        decision=decision,
        who=qc.PLAYER,
        rule=rule,
        commands=[command],
        options=options,
        context=context,
        announce=(*qc.ANNOUNCED, "context"),
    )


def _bonus(ctx: Context, effect: dict[str, Any], use: dict[str, Any], purpose: str) -> int:
    """An attack or damage bonus: its flat amount plus its dice, rolled now."""
    amount = effect.get("amount") or 0
    if effect.get("dice") is not None:
        amount += int(ctx.roll(str(effect["dice"]), purpose)["total"])
    return int(amount)


def _reroll(
    ctx: Context, entry: Any, use: dict[str, Any], effect: dict[str, Any], which: str, purpose: str
) -> dict[str, Any]:
    """Roll the attack or damage again the same way; keep the new or the better result."""
    keep = effect.get("keep") or "new"
    if which == "attack":
        attack = entry["attack"]
        faces = _attack_faces(ctx, f"{purpose} ({use['id']})", attack["frightened"])
        kept = "new" if keep == "new" or min(faces) >= attack["d20"] else "old"
        change = {"roll": "attack", "before": attack["faces"], "after": faces, "kept": kept}
        if kept == "new":
            attack.update(faces=faces, d20=min(faces))
        return change
    damage = entry["damage"]
    takes = _damage_takes(
        ctx, f"{purpose} ({use['id']})", confused=damage["confused"], doubled=damage["doubled"]
    )
    new_total = min(take["sum"] for take in takes)
    kept = "new" if keep == "new" or new_total >= damage["dice_total"] else "old"
    if kept == "new":
        damage["takes"] = takes
    return {"roll": "damage", "before": damage["dice_total"], "after": new_total, "kept": kept}


def _change(
    ctx: Context, entry: Any, use: dict[str, Any], kind: str, stage: str | None, purpose: str
) -> dict[str, Any]:
    """Apply one attack or damage effect to an attack already rolled."""
    hero = qc.hero(ctx)
    effect = hero["abilities"][use["id"]]["effect"]
    if kind == "attack_bonus":
        value = _bonus(ctx, effect, use, f"{purpose}: {use['id']} attack bonus")
        entry["attack"]["bonus"] += value
        return {"bonus": value}
    if kind == "damage_bonus":
        value = _bonus(ctx, effect, use, f"{purpose}: {use['id']} damage bonus")
        entry["damage"]["bonus"] += value
        return {"bonus": value}
    if kind == "double_damage":
        if entry["damage"]["doubled"]:
            ctx.refuse("QC-25", "this damage is already doubled")
        for take in entry["damage"]["takes"]:
            _add_damage_roll(ctx, take, f"{purpose}: damage doubled ({use['id']}): second roll")
        entry["damage"]["doubled"] = True
        return {"doubled": True}
    which = use["roll"] or effect.get("roll") or stage
    if which not in ("attack", "damage"):
        raise NotHeld(f"{use['where']}.roll", "say which roll to reroll: attack or damage")
    if stage is not None and which != stage:
        raise NotHeld(f"{use['where']}.roll", f"only the {stage} roll is open (QC-30)")
    return _reroll(ctx, entry, use, effect, which, purpose)


def apply_ability(
    ctx: Context,
    combat: dict[str, Any],
    work: dict[str, Any],
    use: dict[str, Any],
    *,
    stage: str | None,
    attempt: str,
) -> str:
    """Spend and apply one ability on an open round; returns its effect kind.

    ``stage`` is the hard-mode decision ("attack" or "damage"); None in standard and easy mode,
    where an extra attack is rolled at once and later abilities may aim at it.
    """
    hero = qc.hero(ctx)
    ability, kind, target, entry = _usable(ctx, hero, work, use, stage=stage, attempt=attempt)
    qc.spend_ability(ctx, use["id"], "combat")
    change: dict[str, Any] = {}
    if kind == "extra_attack":
        if work["extra"] or target == "extra":
            ctx.refuse("QC-40", "one extra attack and damage pair per round")
        if afflicted(ctx.house, work, "restrained", "extra"):
            ctx.refuse("QC-35", "Restrained: no attack or damage roll can be made this round")
        work["extra"] = True
    elif entry is None or not entry["attack"]["rolled"]:
        ctx.refuse("QC-35", "Restrained: this attack made no roll for an ability to change")
    else:
        change = _change(ctx, entry, use, kind, stage, label(work, target))
        judge(ctx.house, spec_of(combat, work), entry)
        change.update(hit=entry["attack"]["hit"])
        if entry["damage"] is not None:
            change.update(damage_total=entry["damage"]["total"])
    work["abilities"].append(use["id"])
    qc.record_surge(ctx, use["id"], ability)
    ctx.emit(
        hero_events.AbilityUsed(
            ability_id=use["id"],
            usage=ability["usage"],
            context="combat",
            effect=kind,
            round=work["round"],
            attempt=target,
            uses_left=uses_left(ability, hero["pool"]),
            **change,
        )
    )
    if kind == "extra_attack" and stage is None:
        ctx.emit(fight_events.AttackRolled(**roll_attack(ctx, combat, work, "extra")))
        ctx.emit(fight_events.DamageRolled(**roll_damage(ctx, combat, work, "extra")))
    return kind


def _usable(
    ctx: Context,
    hero: Hero,
    work: dict[str, Any],
    use: dict[str, Any],
    *,
    stage: str | None,
    attempt: str,
) -> tuple[Ability, str, str, dict[str, Any] | None]:
    """The ability ``use`` names, its effect kind, the attack it aims at and that attack's entry,
    or a refusal naming the field when it cannot change this round here (QC-15, QC-40)."""
    ability = hero["abilities"].get(use["id"])
    if ability is None:
        raise NotHeld(use["where"], f"the hero has no ability {use['id']!r}")
    # QC-15 first: a dogfight or outside ability is refused whatever its effect is.
    qc.require_context(ctx, ability, "combat")
    kind = (ability.get("effect") or {}).get("kind")
    if kind not in KINDS_AT[stage]:
        allowed = ", ".join(KINDS_AT[stage])
        raise NotHeld(
            use["where"], f"{use['id']} ({kind}) cannot change this round here; usable: {allowed}"
        )
    if stage is not None and use["attempt"] not in (None, attempt):
        raise NotHeld(f"{use['where']}.attempt", f"only the {attempt} attack is open")
    target = use["attempt"] or attempt
    entry = attempt_of(work, target)
    if entry is None and kind != "extra_attack":
        raise NotHeld(use["where"], "no extra attack yet: use an extra_attack first")
    return ability, str(kind), target, entry


# -- closing rounds and the combat (QC-21, QC-22, QC-36, QC-40, G-QC-12) -----------------------


def close_round(ctx: Context, combat: dict[str, Any], work: dict[str, Any]) -> bool:
    """Judge the round, record it, apply the damage taken; False once the combat is over."""
    spec = spec_of(combat, work)
    on_first_rolls = combat["mode"] == "standard" and not bool(
        ctx.house["qc.combat.standard.reevaluateAfterAbility"]
    )
    pairs = attempt_pairs(work, first=on_first_rolls)
    verdict = verdict_of(combat, work, ctx.house, first=on_first_rolls)
    if len(pairs) > 1:
        ctx.emit(
            fight_events.ExtraAttackResolved(
                round=work["round"],
                first_hit=pairs[0][0],
                first_damage=pairs[0][1],
                extra_hit=pairs[1][0],
                extra_damage=pairs[1][1],
                combined_damage=verdict["damage_dealt"],
            )
        )
    weakened = afflicted(ctx.house, work, "weakened")
    cost: dict[str, Any]
    if verdict["won"]:
        cost = {"incoming": 0, "defense_tier": None, "weakened": weakened, "damage_taken": 0}
    else:
        cost = damage_taken(qc.hero(ctx)["def"], spec, weakened=weakened, house=ctx.house)
    result = {
        "round": work["round"],
        "enemy": spec["enemy"],
        "condition": work["condition"],
        **verdict,
        "damage_needed": spec["damage_needed"],
        "judged_on": "first_rolls" if on_first_rolls else "final_rolls",
        "abilities": work["abilities"],
        **cost,
    }
    combat["open"] = [w for w in combat["open"] if w["round"] != work["round"]]
    combat["results"].append(result)
    combat["round"] += 1
    ctx.emit(fight_events.CombatRoundResolved(**result))
    if cost["damage_taken"] > 0:
        taken = death.damage(ctx, cost["damage_taken"], "combat")
        if taken["hp_after"] == 0:
            # death.die has already ended the encounter unresolved (G-QC-12).
            page = ctx.state.get("page") or {}
            _end(ctx, page.get("combat") or combat, "death")
            return False
    if combat["round"] >= len(combat["rounds"]):
        _end(ctx, combat, "all_rounds_played")
        return False
    return True


def _end(ctx: Context, combat: dict[str, Any], reason: str) -> None:
    """The combat is over: after its last round or the hero's death (QC-20, G-QC-05, G-QC-12)."""
    combat["status"] = "finished"
    combat["ended_by"] = reason
    combat["open"] = []
    results = combat["results"]
    killed = sum(1 for r in results if r["enemy_outcome"] == "killed")
    remaining = len(combat["rounds"]) - killed if combat["kind"] == "several_enemies" else 1
    ctx.emit(
        fight_events.CombatEnded(
            page_date=_page_date(ctx),
            ended_by=reason,
            rounds_played=len(results),
            rounds_won=sum(1 for r in results if r["won"]),
            rounds_unplayed=len(combat["rounds"]) - len(results),
            enemies_remaining=remaining,
        )
    )


def _page_date(ctx: Context) -> str:
    """The date of the page a combat is on (a combat always is: none is a programming error)."""
    page = ctx.state.get("page")
    if page is None:
        raise RuntimeError("a combat ended with no page open")
    return str(page["date"])
