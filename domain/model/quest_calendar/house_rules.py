"""Quest Calendar house rules: the defaults that settle the gaps (G-QC-xx), as data (QC-01)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.house_rules import BOOKS, QUEST_CALENDAR, HouseRule

DIE_NAMES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d%": 100, "d100": 100, "d12": 12, "d20": 20}


def dice_set(house: Mapping[str, Any]) -> tuple[str, set[int]]:
    """QC-07 / G-QC-02: the die sizes the campaign's ``qc.dice.set`` allows."""
    return "QC-07", {DIE_NAMES[name] for name in house["qc.dice.set"]}


QC_HOUSE_RULES = (
    HouseRule(
        "qc.dice.set",
        ["d4", "d6", "d8", "d10", "d%", "d12", "d20"],
        "The seven dice.",
        kind="list",
        choices=tuple(DIE_NAMES),
        gap="G-QC-02",
    ),
    HouseRule(
        "qc.calendar.year",
        2027,
        "The campaign year; weekdays are computed from dates.",
        kind="int",
        minimum=1900,
        maximum=2200,
        gap="G-QC-03",
    ),
    HouseRule(
        "qc.calendar.weekdaySource",
        "computed",
        "'computed' from the date, or 'page' (a weekday given by the page wins).",
        choices=("computed", "page"),
        gap="G-QC-03",
    ),
    HouseRule(
        "qc.prologue.endPage",
        None,
        "Date (YYYY-MM-DD) of the page that ends the prologue; null: a page says so.",
        kind="str",
        nullable=True,
        gap="G-QC-03",
    ),
    HouseRule(
        "qc.boosters.rollOncePerPage",
        True,
        "A booster's die is rolled once and counts for every roll of the trait that page.",
        kind="bool",
        gap="G-QC-04",
    ),
    HouseRule(
        "qc.boosters.stack", True, "Boosters for the same trait add up.", kind="bool", gap="G-QC-04"
    ),
    HouseRule(
        "qc.combat.hitIf",
        "total>=target",
        "When an attack hits.",
        choices=("total>=target", "total>target"),
        gap="G-QC-05",
    ),
    HouseRule(
        "qc.combat.enoughIf",
        "damage>=needed",
        "When damage is enough.",
        choices=("damage>=needed", "damage>needed"),
        gap="G-QC-05",
    ),
    HouseRule(
        "qc.combat.defenseModel",
        "twoTier",
        "'twoTier': DEF >= enemy attack takes the reduced damage, else the full; "
        "'subtract': max(0, full damage - DEF).",
        choices=("twoTier", "subtract"),
        gap="G-QC-06",
    ),
    HouseRule(
        "qc.combat.defenseTie",
        "reduced",
        "DEF equal to the enemy attack takes...",
        choices=("reduced", "full"),
        gap="G-QC-06",
    ),
    HouseRule(
        "qc.combat.mode",
        "standard",
        "Combat difficulty mode (QC-27).",
        choices=("standard", "easy", "hard"),
        gap="G-QC-08",
    ),
    HouseRule(
        "qc.combat.standard.reevaluateAfterAbility",
        True,
        "Standard mode: an ability on a round re-evaluates hit and damage.",
        kind="bool",
        gap="G-QC-08",
    ),
    HouseRule(
        "qc.conditions.weakenedAfterDefense",
        True,
        "Weakened doubles the damage after Defense.",
        kind="bool",
        gap="G-QC-09",
    ),
    HouseRule(
        "qc.conditions.applyToExtraAttack",
        True,
        "Round conditions apply to extra attacks too.",
        kind="bool",
        gap="G-QC-09",
    ),
    HouseRule(
        "qc.damage.floor",
        0,
        "The lowest a damage total can be; null: no floor.",
        kind="int",
        nullable=True,
        gap="G-QC-10",
    ),
    HouseRule(
        "qc.pickpocket.smugglerBonus",
        1,
        "Credits the Smuggler's ability adds.",
        kind="int",
        minimum=0,
        maximum=100,
        gap="G-QC-11",
    ),
    HouseRule(
        "qc.pickpocket.oncePerIcon",
        True,
        "Each pickpocket icon is used once.",
        kind="bool",
        gap="G-QC-11",
    ),
    HouseRule(
        "qc.death.resume",
        "nextEncounter",
        "Where play resumes after a death.",
        choices=("nextEncounter",),
        gap="G-QC-12",
    ),
    HouseRule(
        "qc.death.hpRecalcAfterCost",
        True,
        "Clone HP is half of the max after the cost roll.",
        kind="bool",
        gap="G-QC-13",
    ),
    HouseRule(
        "qc.death.creditsNoneIf",
        "<=0",
        "Clone result 1 rerolls when credits are...",
        choices=("<=0", "==0"),
        gap="G-QC-14",
    ),
    HouseRule(
        "qc.death.lootScope",
        "ownedEquipment",
        "Clone result 3 takes from...",
        choices=("ownedEquipment", "equipped"),
        gap="G-QC-15",
    ),
    HouseRule(
        "qc.death.lootChooser",
        "player",
        "Who picks the item clone result 3 takes.",
        choices=("player",),
        gap="G-QC-15",
    ),
    HouseRule(
        "qc.death.result4DrainsSurges",
        False,
        "Clone result 4 also empties the pool.",
        kind="bool",
        gap="G-QC-16",
    ),
    HouseRule(
        "qc.death.replaceHeroOnFour",
        False,
        "Harder variant (QC-48): on clone result 4 the player may switch hero.",
        kind="bool",
        gap="G-QC-16",
    ),
    HouseRule(
        "qc.death.replacementCarries",
        ["credits", "virtue", "consumables", "ship"],
        "What a replacement hero keeps.",
        kind="list",
        choices=("credits", "virtue", "consumables", "ship"),
        gap="G-QC-16",
    ),
    HouseRule(
        "qc.rest.injuryRemoval",
        "perStat",
        "A Rest removes every injury on one stat ('perStat') or one injury ('single').",
        choices=("perStat", "single"),
        gap="G-QC-17",
    ),
    HouseRule(
        "qc.rest.order",
        ["injury", "hp", "abilities", "pool", "conditions", "equipment"],
        "The order of the steps of a Rest.",
        kind="list",
        choices=("injury", "hp", "abilities", "pool", "conditions", "equipment"),
        gap="G-QC-17",
    ),
    HouseRule(
        "qc.levelUp.newCapacityAvailable",
        True,
        "New uses and pool capacity from a level-up are available at once.",
        kind="bool",
        gap="G-QC-18",
    ),
    HouseRule(
        "qc.traits.max",
        None,
        "Highest a trait may go; null: no maximum.",
        kind="int",
        nullable=True,
        gap="G-QC-18",
    ),
    HouseRule(
        "qc.debt.penalty",
        2,
        "Penalty on a required payment the hero cannot cover.",
        kind="int",
        minimum=0,
        maximum=100,
        gap="G-QC-19",
    ),
    HouseRule(
        "qc.debt.penaltyWhenAlreadyInDebt",
        True,
        "The penalty applies again while already in debt.",
        kind="bool",
        gap="G-QC-19",
    ),
    HouseRule(
        "qc.credits.nonDebtLossFloor",
        0,
        "Lottery losses and theft never take credits below this.",
        kind="int",
        minimum=-1000,
        maximum=0,
        gap="G-QC-20",
    ),
    HouseRule(
        "qc.virtue.min", -10, "Lowest virtue.", kind="int", minimum=-100, maximum=0, gap="G-QC-21"
    ),
    HouseRule(
        "qc.virtue.max", 10, "Highest virtue.", kind="int", minimum=0, maximum=100, gap="G-QC-21"
    ),
    HouseRule(
        "qc.hp.capAtMax", True, "Current HP never exceeds max HP.", kind="bool", gap="G-QC-22"
    ),
    HouseRule(
        "qc.shop.unlimitedStock",
        True,
        "Shops have unlimited stock unless listed.",
        kind="bool",
        gap="G-QC-23",
    ),
    HouseRule(
        "qc.equipment.swapScopeOnAcquire",
        "all",
        "On an equipment day, 'all' slots may change, or only the new item's 'sameType'.",
        choices=("all", "sameType"),
        gap="G-QC-24",
    ),
    HouseRule(
        "qc.equipment.types",
        [
            "helmet",
            "armor",
            "boots",
            "gloves",
            "shield",
            "ring",
            "amulet",
            "weapon",
            "cloak",
            "belt",
        ],
        "Equipment slot types.",
        kind="list",
        gap="G-QC-24",
    ),
    HouseRule(
        "qc.dogfight.hitIf",
        "total>=target",
        "When an Aim roll hits.",
        choices=("total>=target", "total>target"),
        gap="G-QC-25",
    ),
    HouseRule(
        "qc.dogfight.evasionTie",
        "reduced",
        "An Evasion total equal to the enemy Aim...",
        choices=("reduced", "max"),
        gap="G-QC-25",
    ),
    HouseRule(
        "qc.repair.perPart",
        1,
        "Integrity one Ship Part restores.",
        kind="int",
        minimum=1,
        maximum=10,
        gap="G-QC-26",
    ),
    HouseRule(
        "qc.repair.allowPageEnd",
        True,
        "Ship Parts may be used after a page's last roll.",
        kind="bool",
        gap="G-QC-26",
    ),
    HouseRule(
        "qc.crew.integrityBonus",
        1,
        "Integrity (max and current) a crew member adds.",
        kind="int",
        minimum=0,
        maximum=10,
        gap="G-QC-27",
    ),
    HouseRule(
        "qc.crew.feeCanCreateDebt",
        False,
        "Whether a crew fee may create debt.",
        kind="bool",
        gap="G-QC-27",
    ),
    HouseRule(
        "qc.upgrades.resalePrice",
        "catalogue",
        "What 'full price' of an upgrade is.",
        choices=("catalogue",),
        gap="G-QC-28",
    ),
    HouseRule(
        "qc.upgrades.installMinIntegrity",
        1,
        "Integrity needed to install an upgrade.",
        kind="int",
        minimum=0,
        maximum=10,
        gap="G-QC-28",
    ),
    HouseRule(
        "qc.rations.consumePartial",
        True,
        "Short of rations, eat what there is and lose 1 HP per missing ration.",
        kind="bool",
        gap="G-QC-29",
    ),
    HouseRule(
        "qc.infected.checkAt",
        "pageEnd",
        "When the Infected roll happens.",
        choices=("pageEnd",),
        gap="G-QC-30",
    ),
)

BOOKS[QUEST_CALENDAR].add(*QC_HOUSE_RULES)
