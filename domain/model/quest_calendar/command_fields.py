"""The fields and nested schemas of Quest Calendar's commands: the hero book (items, abilities,
traits, pool), dogfight rounds, the ability uses of a combat round, and the dice several commands
may draw: what several commands share. A command declares its own fields beside its handler
(``@rules.command(schema=takes(...))``)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields, validates_schema

from domain.model.command_schema import Document, Strict
from domain.model.dice.notation import PATTERN as DICE_PATTERN
from domain.model.dice.notation import RULES_IN_WORDS as DICE_IN_WORDS
from domain.model.dice.notation import parse
from domain.model.errors import InvalidInput
from domain.model.quest_calendar import state as qc
from domain.model.schema_fields import (
    compartment,
    flag,
    id_or_object,
    integer,
    item_of,
    nested,
    picks,
    text,
)
from domain.model.schema_fields import items as many

GAME = "quest-calendar"
ITEM_ID = "The id of an item in the hero's inventory."
INVENTORY = "/hero/inventory"
ABILITY_IDS = "/hero/abilities"
COMPARTMENTS = "/ship/compartments"
CONDITIONS = ("infected", "malfunction")
"""The conditions a page gives and a cure ends (QC-31, QC-32)."""
DOGFIGHT_ROLLS = ("aim", "evasion")
"""The dogfight rolls an ability changes (QC-69)."""
SHIP_STATS = ("aim", "eva", "shd")
"""The ship stats an upgrade's ship_stat effect changes."""


def inventory_item(description: str = ITEM_ID, **where: Any) -> fields.Field[Any]:
    """An item picked from the hero's inventory (of a kind, if ``where`` says so)."""
    field = text(description, required=True, max_length=80)
    return picks(field, INVENTORY, value="id", label="name", where=where)


def hero_ability(description: str, *, required: bool = True) -> fields.Field[Any]:
    """One of the hero's abilities, picked by id."""
    return picks(text(description, required=required, max_length=80), ABILITY_IDS, label="name")


def ship_compartment(description: str) -> fields.Field[Any]:
    """A compartment of the hero's ship (1-6), picked by its name."""
    return picks(compartment(description), COMPARTMENTS, value="@key", label="name")


ABILITIES = (
    "Abilities to use: ability ids, or objects {id, attempt: first|extra, roll: attack|damage} "
    "naming the attack and roll an ability changes."
)
CHECK_DICE = (
    "d20 for the check; a second d20 if the hero malfunctions (the lower counts); "
    "then each trait booster's dice, in the order they were gained."
)
HUNDREDS: dict[str, Any] = {"minimum": -1000, "maximum": 1000}

DEATH = (
    " If the hero's HP reaches 0, the clone procedure follows: d4 (clone cost, rolled again "
    "until a result applies), then d10 per injury."
)


class AbilityUse(Strict):
    """An ability used in combat, naming the attack and the roll it changes."""

    id = hero_ability("The id of one of the hero's abilities.")
    attempt = text("The attack it changes (default: the current one).", choices=("first", "extra"))
    roll = text("The roll it changes (default: as its effect says).", choices=("attack", "damage"))


class Setup(Strict):
    """A new Quest Calendar campaign."""

    prologue_complete = flag("Start after the prologue.", default=False)


def dice_notation(value: str) -> None:
    """Dice notation such as 1d10 or 2d6+1, as the dice roller reads it."""
    try:
        parse(value)
    except InvalidInput as error:
        raise ValidationError(error.message) from None


EFFECT_KINDS = {
    "heal": "restores HP: dice and/or amount (items, abilities)",
    "cure": "ends a condition: condition (items, abilities)",
    "remove_injury": "removes an injury; the command names the stat (items, abilities)",
    "booster": "adds to a trait's checks: trait, dice and/or amount (items)",
    "check_bonus": "adds to a trait check: dice and/or amount, traits it applies to (abilities)",
    "reroll": "rolls again: keep new or better; in a dogfight, roll aim or evasion (abilities)",
    "attack_bonus": "adds to an attack roll: dice and/or amount (abilities)",
    "damage_bonus": "adds to a damage roll: dice and/or amount (abilities)",
    "double_damage": "doubles a hit's damage (abilities)",
    "extra_attack": "a second attack in the round (abilities)",
    "aim_bonus": "adds to a dogfight Aim roll: dice and/or amount (abilities)",
    "evasion_bonus": "adds to a dogfight Evasion roll: dice and/or amount (abilities)",
    "repair": "restores ship integrity: dice or amount, default 1 (abilities)",
    "ship_stat": "changes a ship stat while installed: stat and amount (upgrades)",
}
"""The effect kinds the engine applies; any other kind is descriptive and applied by nobody."""
DICE_OR_AMOUNT = ("heal", "booster", "aim_bonus", "evasion_bonus")


class Effect(Schema):
    """What an item or ability does: its kind and that kind's dice, amount or target. A kind the
    engine does not apply (such as ration) is descriptive; only the keys given are kept."""

    class Meta:
        unknown = RAISE

    error_messages = Strict.error_messages

    # Not a closed list (any other kind is descriptive), so no choices: the help names them all,
    # ration included, since a shop's Meal Rations need it (QC-65).
    kind = text(
        "What it does; applied kinds: "
        + "; ".join(f"{kind} ({what})" for kind, what in EFFECT_KINDS.items())
        + "; ration (a Meal Ration: counted in the hero's rations, not the inventory, QC-65)"
        + "; any other kind only describes the item.",
        max_length=40,
    )
    dice = text(
        f"Dice rolled when it applies. {DICE_IN_WORDS}", max_length=40, pattern=DICE_PATTERN
    )
    dice.validators.append(dice_notation)
    amount = integer("A flat amount added to its dice.", **HUNDREDS)
    condition = text("The condition a cure ends.", choices=CONDITIONS)
    trait = text("The trait a booster adds to.", choices=qc.TRAITS)
    traits = many(
        "The traits a check bonus applies to (any if left out).",
        max_items=6,
        item=text("A trait.", required=True, choices=qc.TRAITS),
    )
    roll = text(
        "The dogfight roll a reroll changes (default: the open one).", choices=DOGFIGHT_ROLLS
    )
    keep = text("Which result a reroll keeps.", choices=("new", "better"))
    stat = text("The ship stat a ship_stat effect changes.", choices=SHIP_STATS)

    @validates_schema
    def kind_needs(self, data: dict[str, Any], **_: Any) -> None:
        """What each applied kind needs besides its kind."""
        kind = data.get("kind")
        if kind in DICE_OR_AMOUNT and data.get("dice") is None and data.get("amount") is None:
            raise ValidationError(f"a {kind} effect needs dice or an amount")
        needed = {"cure": ("condition",), "booster": ("trait",), "ship_stat": ("stat", "amount")}
        for name in needed.get(str(kind), ()):
            if data.get(name) is None:
                raise ValidationError(f"a {kind} effect needs {name}", name)


class Item(Strict):
    """An item from the book (G-QC-01): id, name, kind, a slot for equipment, price, effect."""

    id = text("The item's id.", required=True, max_length=80)
    name = text("Its name.", default="", max_length=200)
    kind = text("What kind of item it is.", required=True, choices=qc.ITEM_KINDS)
    slot = text(
        "The equipment slot it takes (equipment needs one): one of the house rule "
        "qc.equipment.types.",
        max_length=40,
    )
    price = integer("Its price in credits.", minimum=0, maximum=1_000_000)
    usable_between_rounds = flag("Whether it may be used between combat rounds.")
    compartments = many(
        "The compartments (1-6) an upgrade fits; any if left out.",
        max_items=6,
        item=compartment("A compartment, 1-6."),
    )
    effect = nested("What it does (see Effect).", Effect, default={})

    document: ClassVar[Document] = {
        "not": {
            "properties": {"kind": {"enum": ["equipment"]}},
            "not": {
                "required": ["slot"],
                "properties": {"slot": {"type": "string", "minLength": 1}},
            },
        }
    }

    @validates_schema
    def slot_for_equipment(self, data: dict[str, Any], **_: Any) -> None:
        """Equipment names the slot it takes."""
        if data.get("kind") == "equipment" and not data.get("slot"):
            raise ValidationError("equipment needs a slot type", "slot")


class Ability(Strict):
    """An ability from the hero book (QC-15..QC-19): usage, uses or cost, context, effect."""

    id = text("The ability's id.", required=True, max_length=80)
    name = text("Its name.", default="", max_length=200)
    usage = text("How often it may be used.", required=True, choices=qc.USAGES)
    context = text("Where it may be used.", required=True, choices=qc.CONTEXTS)
    uses = integer("Uses per Rest (default: 1 for per_rest, else 0).", minimum=0, maximum=100)
    cost = integer("Surges it costs (default: 1 for surge, else 0).", minimum=0, maximum=100)
    effect = nested("What it does (see Effect).", Effect, default={})


class Traits(Strict):
    """The hero's six traits (QC-04), each 0 unless given."""

    STR = integer("Strength.", default=0, minimum=-100, maximum=100)
    DEX = integer("Dexterity.", default=0, minimum=-100, maximum=100)
    CON = integer("Constitution.", default=0, minimum=-100, maximum=100)
    INT = integer("Intelligence.", default=0, minimum=-100, maximum=100)
    WIS = integer("Wisdom.", default=0, minimum=-100, maximum=100)
    CHA = integer("Charisma.", default=0, minimum=-100, maximum=100)


class Pool(Strict):
    """The hero's pool of surges (QC-19)."""

    name = text("What the pool is called.", default="surges", max_length=40)
    max = integer("Its maximum.", required=True, minimum=0, maximum=100)


class Hero(Strict):
    """A hero as the player defines them (QC-02, QC-04, QC-05): the stats come from the book."""

    id = text("The hero's id.", required=True, max_length=80)
    name = text("Their name.", default="", max_length=200)
    level = integer("Their level.", default=1, minimum=1, maximum=100)
    traits = nested("The six traits; each is 0 unless given.", Traits, required=True)
    hp_max = integer("Maximum HP.", required=True, minimum=1, maximum=10_000)
    hp = integer("Current HP, at most hp_max (default: hp_max).", minimum=1, maximum=10_000)
    defence = integer("DEF.", required=True, minimum=-100, maximum=100, data_key="def")
    atk = integer("ATK.", required=True, minimum=-100, maximum=100)
    damage_dice = text(
        f"The damage dice. {DICE_IN_WORDS}", required=True, max_length=40, pattern=DICE_PATTERN
    )
    damage_mod = integer("Added to every damage roll.", default=0, minimum=-100, maximum=100)
    virtue = integer("Virtue.", default=0, minimum=-10, maximum=10)
    credits = integer("Credits.", default=0, minimum=-100_000, maximum=100_000)
    rations = integer("Meal Rations.", default=0, minimum=0, maximum=1000)
    abilities = many("The hero's abilities.", default=[], item=item_of(Ability))
    pool = nested("The pool of surges, if the hero has one.", Pool)
    inventory = many(
        "Items the hero starts with; an id names one item (the same id again is a second copy "
        "of that same item).",
        default=[],
        item=item_of(Item),
    )
    equipped = many(
        "The equipment the hero starts wearing, each by the id of an item from the inventory: "
        "one item per type (QC-64). Left out, the hero wears nothing until a Rest or a day "
        "equipment is gained.",
        default=[],
        max_items=20,
        item=text("An equipment item's id, from the inventory.", required=True, max_length=80),
    )

    @validates_schema
    def numbers(self, data: dict[str, Any], **_: Any) -> None:
        """HP within the maximum, damage dice that parse."""
        hp, hp_max = data.get("hp"), data.get("hp_max")
        if hp is not None and hp_max is not None and hp > hp_max:
            raise ValidationError(f"must be at most {hp_max}", "hp")
        if data.get("damage_dice") is not None:
            try:
                parse(data["damage_dice"])
            except InvalidInput as error:
                raise ValidationError(error.message, "damage_dice") from None

    @validates_schema
    def one_item_per_id(self, data: dict[str, Any], **_: Any) -> None:
        """An id names one item: the same id twice must be the same item (a second copy)."""
        seen: dict[str, dict[str, Any]] = {}
        for at, item in enumerate(data.get("inventory") or []):
            first = seen.setdefault(item.get("id"), item)
            if not qc.same_item(first, item):
                raise ValidationError(
                    f"another item of the inventory has the id {item.get('id')!r}; "
                    "give this one an id of its own",
                    f"inventory.{at}.id",
                )

    @validates_schema
    def worn(self, data: dict[str, Any], **_: Any) -> None:
        """QC-64: what the hero starts wearing is equipment it carries, one item per type."""
        carried = {item.get("id"): item for item in data.get("inventory") or []}
        slots: dict[str, str] = {}
        for at, item_id in enumerate(data.get("equipped") or []):
            item = carried.get(item_id)
            if item is None:
                raise ValidationError(f"{item_id!r} is not in the inventory", f"equipped.{at}")
            if item.get("kind") != "equipment":
                raise ValidationError(f"{item_id!r} is not equipment", f"equipped.{at}")
            slot = str(item.get("slot"))
            if slot in slots:
                raise ValidationError(
                    f"{item_id!r} and {slots[slot]!r} are both {slot}: one item per type (QC-64)",
                    f"equipped.{at}",
                )
            slots[slot] = item_id


class DogfightRound(Strict):
    """A dogfight round as the page prints it (G-QC-25)."""

    evasion_target = integer("The Aim total that hits the enemy.", required=True, **HUNDREDS)
    enemy_aim = integer(
        "The enemy's Aim: Evasion above it reduces damage.", required=True, **HUNDREDS
    )
    damage_reduced = integer("Damage after a good Evasion.", required=True, minimum=0, maximum=100)
    damage_max = integer("Damage otherwise.", required=True, minimum=0, maximum=100)
    on_hit = text(
        "What a hit does to the enemy.", default="destroyed", choices=("destroyed", "defensive")
    )


def enemy_name() -> fields.Field[Any]:
    """An enemy ship's name, as a list's item."""
    return text("An enemy ship's name.", required=True, max_length=200)


def ability_uses(description: str) -> fields.Field[Any]:
    """A list of abilities used: ids, or ``AbilityUse`` objects (errors named ``abilities.n``)."""
    return many(
        description,
        default=[],
        max_items=20,
        item=id_or_object("An ability id or an ability use.", AbilityUse),
        not_a_list="must be a list of abilities",
    )


def dogfight_rounds_field() -> fields.Field[Any]:
    """The rounds of a dogfight as the page prints them."""
    return many(
        "The rounds as printed.",
        required=True,
        max_items=50,
        item=item_of(DogfightRound),
        at_least_one="a dogfight has at least one round",
    )
