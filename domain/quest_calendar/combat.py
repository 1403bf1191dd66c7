"""Combat pages in standard, easy and hard mode (QC-20..QC-30, QC-33..QC-37, QC-40).

``start_combat`` takes the page's rounds as printed (hit target, damage needed, enemy attack,
damage when reduced and in full, and an optional Frightened/Restrained/Weakened/Confused check) and
opens ``page["combat"]`` with ``status == "in_progress"`` (items.py reads that key to refuse a Med
Kit between rounds, QC-23). ``combat_round`` then plays the next step for the mode:

- standard (QC-28): one round's condition check, attack and damage, then the decision
  ``combat_round_abilities`` answered by ``resolve_round``; the round closes there;
- easy (QC-29): every remaining round is rolled first, then ``combat_assign_abilities`` answered by
  ``resolve_rounds`` resolves the rounds in order (death stops the rest);
- hard (QC-30): the attack, then ``combat_boost_attack`` (``boost_attack``), and only then the
  damage dice, then ``combat_boost_damage`` (``boost_damage``). An extra attack granted there is
  played the same way before the round closes.

A decision is asked only when the hero has an ability that could apply; otherwise the round closes
at once. Between rounds no decision is open, so items and healing abilities can be used.

An ability is named by id, or as ``{"id", "attempt": "first" | "extra", "roll": "attack" |
"damage"}``: ``attempt`` aims it at the extra attack (standard and easy mode, after the
``extra_attack`` ability in the same list) and ``roll`` says which roll a ``reroll`` replaces when
its effect does not (``effect.roll``). A reroll repeats the roll the same way (Frightened and
Confused still keep the lower, doubled damage stays doubled) and keeps the new result, or the better
one when ``effect.keep == "better"``. Bonus dice from abilities are added after the lower damage is
kept; flat modifiers (damage_mod and any number in the damage dice) are added once, last (QC-26).

Conditions (QC-33) are rolled with ``checks.trait_roll`` (so Malfunction applies) at the start of
their round and live only in that round's record, never in ``hero["conditions"]``. Standard mode
with ``qc.combat.standard.reevaluateAfterAbility`` off judges each attack on its rolls as first
made: abilities are still spent and recorded but do not change the verdict (G-QC-08).
"""

from __future__ import annotations

from typing import Any

from domain.engine import Args, Context
from domain.errors import InvalidInput
from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR
from domain.quest_calendar import state as qc
from domain.quest_calendar.checks import trait_roll
from domain.quest_calendar.combat_rules import (
    CONDITION_TRAITS,
    KINDS,
    KINDS_AT,
    MODES,
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
    read_rounds,
    read_uses,
    round_options,
    spec_of,
    uses_left,
    verdict_of,
)

rules = RULES[QUEST_CALENDAR]
rules.declare(
    "CombatStarted",
    "ConditionCheckRolled",
    "AttackRolled",
    "DamageRolled",
    "AbilityUsed",
    "SurgeSpent",
    "ExtraAttackResolved",
    "CombatRoundResolved",
    "CombatEnded",
    "DecisionRequested",
)

ROUND_DECISION = "combat_round_abilities"
ASSIGN_DECISION = "combat_assign_abilities"
BOOST_DECISIONS = {"attack": "combat_boost_attack", "damage": "combat_boost_damage"}
ROUND_EXAMPLE = [
    {
        "enemy": "Scrap drone",
        "hit_target": 13,
        "damage_needed": 6,
        "enemy_attack": 12,
        "damage_reduced": 4,
        "damage_full": 7,
    },
    {
        "enemy": "Void hound",
        "hit_target": 14,
        "damage_needed": 7,
        "enemy_attack": 13,
        "damage_reduced": 3,
        "damage_full": 6,
        "condition": {"name": "frightened", "target": 12},
    },
]


# -- the combat and its rolls ----------------------------------------------------------------


def _combat(ctx: Context) -> dict[str, Any]:
    """The combat in progress on the open page, or a refusal (QC-20)."""
    qc.hero(ctx)
    combat = qc.page(ctx).get("combat")
    if not combat or combat["status"] != "in_progress":
        ctx.refuse("QC-20", "no combat is in progress on this page; start one first")
    result: dict[str, Any] = combat
    return result


def _begin_round(ctx: Context, combat: dict[str, Any]) -> dict[str, Any]:
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
            "ConditionCheckRolled",
            round=index + 1,
            condition=name,
            target=target,
            afflicted=afflicted,
            **roll,
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


def _roll_attack(ctx: Context, combat: Any, work: Any, attempt: str) -> dict[str, Any]:
    """Attack = d20 + ATK (QC-20), none while Restrained (QC-35); AttackRolled details."""
    restrained = afflicted(ctx.house, work, "restrained", attempt)
    frightened = not restrained and afflicted(ctx.house, work, "frightened", attempt)
    faces = [] if restrained else _attack_faces(ctx, label(work, attempt), frightened)
    entry = new_attempt(qc.hero(ctx), attempt, faces, restrained=restrained, frightened=frightened)
    work["attempts"].append(entry)
    spec = spec_of(combat, work)
    judge(ctx.house, spec, entry)
    return attack_details(work, entry, spec["hit_target"])


def _roll_damage(ctx: Context, combat: Any, work: Any, attempt: str) -> dict[str, Any]:
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


def _options(ctx: Context, work: Any, attempt: str, stage: str | None) -> list[dict[str, Any]]:
    return round_options(qc.hero(ctx), ctx.house, work, attempt, stage)


def _preview(ctx: Context, combat: Any, work: Any) -> dict[str, Any]:
    """What the round looks like now, for the player deciding on abilities."""
    verdict = verdict_of(combat, work, ctx.house, first=False)
    return {"round": work["round"], "condition": work["condition"], **verdict}


def _ask(ctx: Context, decision: str, rule: str, command: str, options: Any, context: Any) -> None:
    """Stop for the player's choice of abilities (the engine never decides silently)."""
    qc.set_pending(
        ctx, decision=decision, rule=rule, commands=[command], options=options, context=context
    )
    ctx.emit("DecisionRequested", decision=decision, rule=rule, options=options, context=context)


def _bonus(ctx: Context, effect: dict[str, Any], use: dict[str, Any], purpose: str) -> int:
    """An attack or damage bonus: its flat amount plus its dice, rolled now."""
    amount = effect.get("amount", 0)
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidInput.field(use["where"], f"{use['id']}: effect amount must be an integer")
    if effect.get("dice") is not None:
        amount += int(ctx.roll(str(effect["dice"]), purpose)["total"])
    return int(amount)


def _reroll(
    ctx: Context, entry: Any, use: dict[str, Any], effect: dict[str, Any], which: str, purpose: str
) -> dict[str, Any]:
    """Roll the attack or damage again the same way; keep the new or the better result."""
    keep = effect.get("keep", "new")
    if keep not in ("new", "better"):
        raise InvalidInput.field(use["where"], f"{use['id']}: effect keep must be new or better")
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
        raise InvalidInput.field(
            f"{use['where']}.roll", "say which roll to reroll: attack or damage"
        )
    if stage is not None and which != stage:
        raise InvalidInput.field(f"{use['where']}.roll", f"only the {stage} roll is open (QC-30)")
    return _reroll(ctx, entry, use, effect, which, purpose)


def _use(
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
    ability = hero["abilities"].get(use["id"])
    if ability is None:
        raise InvalidInput.field(use["where"], f"the hero has no ability {use['id']!r}")
    kind = (ability.get("effect") or {}).get("kind")
    if kind not in KINDS_AT[stage]:
        allowed = ", ".join(KINDS_AT[stage])
        raise InvalidInput.field(
            use["where"], f"{use['id']} ({kind}) cannot change this round here; usable: {allowed}"
        )
    if stage is not None and use["attempt"] not in (None, attempt):
        raise InvalidInput.field(f"{use['where']}.attempt", f"only the {attempt} attack is open")
    target = use["attempt"] or attempt
    entry = attempt_of(work, target)
    if entry is None and kind != "extra_attack":
        raise InvalidInput.field(use["where"], "no extra attack yet: use an extra_attack first")
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
    if ability["usage"] == "surge":
        pool = hero["pool"]
        ctx.emit(
            "SurgeSpent",
            ability_id=use["id"],
            cost=ability["cost"],
            remaining=pool["max"] - pool["spent"],
            pool_max=pool["max"],
        )
    ctx.emit(
        "AbilityUsed",
        ability_id=use["id"],
        usage=ability["usage"],
        context="combat",
        effect=kind,
        round=work["round"],
        attempt=target,
        uses_left=uses_left(ability, hero["pool"]),
        **change,
    )
    if kind == "extra_attack" and stage is None:
        ctx.emit("AttackRolled", **_roll_attack(ctx, combat, work, "extra"))
        ctx.emit("DamageRolled", **_roll_damage(ctx, combat, work, "extra"))
    return str(kind)


# -- closing rounds and the combat (QC-21, QC-22, QC-36, QC-40, G-QC-12) -----------------------


def _close_round(ctx: Context, combat: dict[str, Any], work: dict[str, Any]) -> bool:
    """Judge the round, record it, apply the damage taken; False once the combat is over."""
    spec = spec_of(combat, work)
    on_first_rolls = combat["mode"] == "standard" and not bool(
        ctx.house["qc.combat.standard.reevaluateAfterAbility"]
    )
    pairs = attempt_pairs(work, first=on_first_rolls)
    verdict = verdict_of(combat, work, ctx.house, first=on_first_rolls)
    if len(pairs) > 1:
        ctx.emit(
            "ExtraAttackResolved",
            round=work["round"],
            first_hit=pairs[0][0],
            first_damage=pairs[0][1],
            extra_hit=pairs[1][0],
            extra_damage=pairs[1][1],
            combined_damage=verdict["damage_dealt"],
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
    ctx.emit("CombatRoundResolved", **result)
    if cost["damage_taken"] > 0:
        taken = qc.damage(ctx, cost["damage_taken"], "combat")
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
        "CombatEnded",
        page_date=(ctx.state.get("page") or {}).get("date"),
        ended_by=reason,
        rounds_played=len(results),
        rounds_won=sum(1 for r in results if r["won"]),
        rounds_unplayed=len(combat["rounds"]) - len(results),
        enemies_remaining=remaining,
    )


# -- commands --------------------------------------------------------------------------------


@rules.command(
    "start_combat",
    summary="Start a combat page: its rounds as printed (hit target, damage needed, enemy attack, "
    "damage reduced and full, an optional condition check) and the difficulty mode.",
    example={"type": "start_combat", "kind": "several_enemies", "rounds": ROUND_EXAMPLE},
    rules=("QC-20", "QC-22", "QC-27", "QC-33"),
)
def start_combat(ctx: Context, args: Args) -> None:
    """QC-20: a combat lasts the rounds the page gives; the mode defaults to the house rule."""
    mode = args.text("mode", None, choices=MODES) or ctx.house["qc.combat.mode"]
    kind = args.text("kind", choices=KINDS)
    rounds = read_rounds(args.items("rounds", max_items=50))
    qc.hero(ctx)
    page = qc.page(ctx)
    current = page.get("combat")
    if current and current["status"] == "in_progress":
        ctx.refuse("QC-20", "a combat is already in progress on this page")
    page["combat"] = {
        "status": "in_progress",
        "mode": mode,
        "kind": kind,
        "rounds": rounds,
        "round": 0,
        "open": [],
        "results": [],
        "ended_by": None,
    }
    ctx.emit(
        "CombatStarted",
        page_date=page["date"],
        mode=mode,
        kind=kind,
        rounds=len(rounds),
        enemies=rounds,
    )


@rules.command(
    "combat_round",
    summary="Play on: standard rolls the next round, easy rolls every round left, hard rolls the "
    "next attack; each then asks which abilities to use.",
    example={"type": "combat_round"},
    rules=("QC-20", "QC-28", "QC-29", "QC-30", "QC-33", "QC-34", "QC-35", "QC-37"),
)
def combat_round(ctx: Context, args: Args) -> None:
    """QC-28..QC-30: how many rolls the player sees before committing abilities."""
    combat = _combat(ctx)
    qc.page(ctx)["first_roll_made"] = True
    if combat["mode"] == "easy":
        _roll_every_round(ctx, combat)
        return
    work = _begin_round(ctx, combat)
    if combat["mode"] == "hard":
        _hard_attack(ctx, combat, work, "first")
        return
    ctx.emit("AttackRolled", **_roll_attack(ctx, combat, work, "first"))
    ctx.emit("DamageRolled", **_roll_damage(ctx, combat, work, "first"))
    options = _options(ctx, work, "first", None)
    if not options:
        _close_round(ctx, combat, work)
        return
    context = _preview(ctx, combat, work)
    _ask(ctx, ROUND_DECISION, "QC-28", "resolve_round", options, context)


def _roll_every_round(ctx: Context, combat: dict[str, Any]) -> None:
    """QC-29: attack and damage for every round first, then one decision for all of them."""
    works = []
    while combat["round"] + len(combat["open"]) < len(combat["rounds"]):
        work = _begin_round(ctx, combat)
        ctx.emit("AttackRolled", **_roll_attack(ctx, combat, work, "first"))
        ctx.emit("DamageRolled", **_roll_damage(ctx, combat, work, "first"))
        works.append(work)
    # Any rolled round may take an ability: offer each one that fits some round, once.
    offered = {o["id"]: o for work in works for o in _options(ctx, work, "first", None)}
    options = list(offered.values())
    if options:
        context = {"rounds": [_preview(ctx, combat, work) for work in works]}
        _ask(ctx, ASSIGN_DECISION, "QC-29", "resolve_rounds", options, context)
        return
    for work in works:
        if not _close_round(ctx, combat, work):
            return


def _hard_attack(ctx: Context, combat: dict[str, Any], work: dict[str, Any], attempt: str) -> None:
    """QC-30: roll the attack, then ask "boost attack?" before any damage die is rolled."""
    ctx.emit("AttackRolled", **_roll_attack(ctx, combat, work, attempt))
    options = _options(ctx, work, attempt, "attack")
    if options:
        context = {**_preview(ctx, combat, work), "attempt": attempt}
        _ask(ctx, BOOST_DECISIONS["attack"], "QC-30", "boost_attack", options, context)
        return
    _hard_damage(ctx, combat, work, attempt)


def _hard_damage(ctx: Context, combat: dict[str, Any], work: dict[str, Any], attempt: str) -> None:
    """QC-30: roll the damage, then ask "boost damage?" before the round closes."""
    ctx.emit("DamageRolled", **_roll_damage(ctx, combat, work, attempt))
    options = _options(ctx, work, attempt, "damage")
    if options:
        context = {**_preview(ctx, combat, work), "attempt": attempt}
        _ask(ctx, BOOST_DECISIONS["damage"], "QC-30", "boost_damage", options, context)
        return
    _close_round(ctx, combat, work)


ABILITIES_EXAMPLE = ["smite", {"id": "lucky", "roll": "attack"}]


@rules.command(
    "resolve_round",
    summary="Standard mode: apply the chosen abilities (possibly none) to the round just rolled "
    "and close it.",
    example={"type": "resolve_round", "abilities": ABILITIES_EXAMPLE},
    rules=("QC-14", "QC-21", "QC-22", "QC-25", "QC-26", "QC-28", "QC-36", "QC-40"),
    resolves=(ROUND_DECISION,),
)
def resolve_round(ctx: Context, args: Args) -> None:
    """QC-28 / G-QC-08: abilities on this round only; an extra attack is resolved in it."""
    uses = read_uses(args.items("abilities", [], max_items=20), "abilities")
    qc.clear_pending(ctx)
    combat = _combat(ctx)
    work = combat["open"][0]
    for use in uses:
        _use(ctx, combat, work, use, stage=None, attempt="first")
    _close_round(ctx, combat, work)


@rules.command(
    "resolve_rounds",
    summary="Easy mode: assign abilities to the rolled rounds (round number -> abilities) and "
    "resolve every round in order.",
    example={"type": "resolve_rounds", "assignments": {"2": ["smite"]}},
    rules=("QC-14", "QC-21", "QC-22", "QC-25", "QC-26", "QC-29", "QC-36", "QC-40"),
    resolves=(ASSIGN_DECISION,),
)
def resolve_rounds(ctx: Context, args: Args) -> None:
    """QC-29: the rounds resolve in order; a death ends the combat and the rest are not played."""
    assignments = args.mapping("assignments", {})
    combat = _combat(ctx)
    rolled = [str(work["round"]) for work in combat["open"]]
    plan = {}
    for key, value in assignments.items():
        where = f"assignments.{key}"
        if key not in rolled:
            raise InvalidInput.field(where, f"not a rolled round; rounds: {', '.join(rolled)}")
        if not isinstance(value, list):
            raise InvalidInput.field(where, "must be a list of abilities")
        plan[key] = read_uses(value, where)
    qc.clear_pending(ctx)
    for work in list(combat["open"]):
        for use in plan.get(str(work["round"]), []):
            _use(ctx, combat, work, use, stage=None, attempt="first")
        if not _close_round(ctx, combat, work):
            return


@rules.command(
    "boost_attack",
    summary="Hard mode: boost the attack just rolled (or not) before the damage is rolled.",
    example={"type": "boost_attack", "abilities": ["battle-focus"]},
    rules=("QC-14", "QC-30"),
    resolves=(BOOST_DECISIONS["attack"],),
)
def boost_attack(ctx: Context, args: Args) -> None:
    """QC-30: an attack boost is final before the damage roll is made."""
    uses = read_uses(args.items("abilities", [], max_items=20), "abilities")
    attempt = qc.clear_pending(ctx)["context"]["attempt"]
    combat = _combat(ctx)
    work = combat["open"][0]
    for use in uses:
        _use(ctx, combat, work, use, stage="attack", attempt=attempt)
    _hard_damage(ctx, combat, work, attempt)


@rules.command(
    "boost_damage",
    summary="Hard mode: boost the damage just rolled (or not), possibly with an extra attack, "
    "then the round closes.",
    example={"type": "boost_damage", "abilities": ["smite"]},
    rules=("QC-14", "QC-21", "QC-25", "QC-30", "QC-40"),
    resolves=(BOOST_DECISIONS["damage"],),
)
def boost_damage(ctx: Context, args: Args) -> None:
    """QC-30: a damage boost is final; an extra attack is then played roll by roll (QC-40)."""
    uses = read_uses(args.items("abilities", [], max_items=20), "abilities")
    attempt = qc.clear_pending(ctx)["context"]["attempt"]
    combat = _combat(ctx)
    work = combat["open"][0]
    kinds = [_use(ctx, combat, work, use, stage="damage", attempt=attempt) for use in uses]
    if "extra_attack" in kinds:
        _hard_attack(ctx, combat, work, "extra")
        return
    _close_round(ctx, combat, work)
