"""The schema of every quest-calendar command, and the dice each may draw."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.model.command_schema import (
    REQUIRED,
    Command,
    Strict,
    StrictInteger,
    command,
    compartment,
    flag,
    id_or_object,
    integer,
    item_of,
    mapping,
    nested,
    picks,
    required_when,
    text,
)
from domain.model.command_schema import items as many
from domain.model.dice import parse
from domain.model.errors import InvalidInput
from domain.model.quest_calendar import (
    abilities,
    combat_rules,
    dogfight_rounds,
    economy,
    items,
    pages,
    ship,
)
from domain.model.quest_calendar import state as qc
from domain.model.text import quoted

GAME = "quest-calendar"
ITEM_ID = "The id of an item in the hero's inventory."
INVENTORY = "/hero/inventory"
ABILITY_IDS = "/hero/abilities"
COMPARTMENTS = "/ship/compartments"


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
DOGFIGHT_DICE = (
    "Per round: d100 (Aim); on a miss d100 (Evasion); then a d6 per point of net damage "
    "(the compartment hit). How many depends on the rounds and the hits."
)
CHECK_DICE = (
    "d20 for the check; a second d20 if the hero malfunctions (the lower counts); "
    "then each trait booster's dice, in the order they were gained."
)
COMBAT_DICE = (
    "Per round: d20 (attack; a second d20 if Frightened), then the hero's damage dice (on a "
    "miss too: an ability may still turn it into a hit), then each used ability's dice; a "
    "condition check rolls d20 as a trait check. Which rounds are rolled depends on the mode "
    "and the state."
)

HUNDREDS: dict[str, Any] = {"minimum": -1000, "maximum": 1000}
DAMAGE: dict[str, Any] = {"minimum": 0, "maximum": 1000}

DEATH = (
    " If the hero's HP reaches 0, the clone procedure follows: d4 (clone cost, rolled again "
    "until a result applies), then d10 per injury."
)
COMBAT_DICE += DEATH
DOGFIGHT_DICE += DEATH


class CombatCondition(Strict):
    """QC-33: the condition an enemy can cause and the check that resists it."""

    name = text("The condition.", required=True, choices=combat_rules.CONDITION_TRAITS)
    target = integer("The check's target.", required=True, minimum=-1000, maximum=1000)


class CombatRound(Strict):
    """A combat round as the page prints it (QC-20, G-QC-05, G-QC-06)."""

    enemy = text("The enemy's name.")
    hit_target = integer("The hero's attack hits at this total.", required=True, **HUNDREDS)
    damage_needed = integer(
        "Damage that defeats the enemy.", required=True, minimum=0, maximum=1000
    )
    enemy_attack = integer("The enemy's attack total.", required=True, **HUNDREDS)
    damage_reduced = integer(
        "Damage the hero takes when the defence holds.", required=True, minimum=0, maximum=1000
    )
    damage_full = integer(
        "Damage the hero takes otherwise.", required=True, minimum=0, maximum=1000
    )
    condition = nested("A condition the enemy can cause (QC-33).", CombatCondition)


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
    dice = text("Dice rolled when it applies, such as 1d6.", max_length=40)
    dice.validators.append(dice_notation)
    amount = integer("A flat amount added to its dice.", **HUNDREDS)
    condition = text("The condition a cure ends.", choices=items.CONDITIONS)
    trait = text("The trait a booster adds to.", choices=qc.TRAITS)
    traits = many(
        "The traits a check bonus applies to (any if left out).",
        max_items=6,
        item=text("A trait.", required=True, choices=qc.TRAITS),
    )
    roll = text(
        "The dogfight roll a reroll changes (default: the open one).", choices=dogfight_rounds.ROLLS
    )
    keep = text("Which result a reroll keeps.", choices=("new", "better"))
    stat = text("The ship stat a ship_stat effect changes.", choices=ship.SHIP_STATS)

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
    slot = text("The equipment slot it takes (equipment needs one).", max_length=40)
    price = integer("Its price in credits.", minimum=0, maximum=1_000_000)
    usable_between_rounds = flag("Whether it may be used between combat rounds.")
    compartments = many(
        "The compartments (1-6) an upgrade fits; any if left out.",
        max_items=6,
        item=compartment("A compartment, 1-6."),
    )
    effect = nested("What it does (see Effect).", Effect, default={})

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
    hp = integer("Current HP (default: hp_max).", minimum=1, maximum=10_000)
    defence = integer("DEF.", required=True, minimum=-100, maximum=100, data_key="def")
    atk = integer("ATK.", required=True, minimum=-100, maximum=100)
    damage_dice = text("The damage dice, such as 1d6.", required=True, max_length=40)
    damage_mod = integer("Added to every damage roll.", default=0, minimum=-100, maximum=100)
    virtue = integer("Virtue.", default=0, minimum=-10, maximum=10)
    credits = integer("Credits.", default=0, minimum=-100_000, maximum=100_000)
    rations = integer("Meal Rations.", default=0, minimum=0, maximum=1000)
    abilities = many("The hero's abilities.", default=[], item=item_of(Ability))
    pool = nested("The pool of surges, if the hero has one.", Pool)
    inventory = many("Items the hero starts with.", default=[], item=item_of(Item))
    equipped = many(
        "The inventory's equipment the hero starts wearing, by item id: one item per type "
        "(QC-64). Left out, the hero wears nothing until a Rest or a day equipment is gained.",
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


class Crew(Strict):
    """A crew member: id, name, the abilities they give and an optional Integrity bonus."""

    id = text("The crew member's id.", required=True, max_length=80)
    name = text("Their name.", default="", max_length=200)
    abilities = many("The abilities they give.", default=[], max_items=20, item=item_of(Ability))
    integrity_bonus = integer("Integrity the compartment gains.", minimum=0, maximum=10)


class StockEntry(Strict):
    """What a shop sells: an item, its price and how many (G-QC-23)."""

    item = nested("The item, defined as in gain_item.", Item, required=True)
    price = integer("Its price in credits.", required=True, minimum=0, maximum=1_000_000)
    quantity = integer(
        "How many the shop has (default: per the house rule qc.shop.unlimitedStock).",
        minimum=0,
        maximum=10_000,
    )


MAX_ROUNDS = 50
"""The most rounds a printed combat has."""
ROUND_NUMBERS = frozenset(str(number) for number in range(1, MAX_ROUNDS + 1))


def round_number(value: str) -> None:
    """A combat round's number as an object's key: "1" to "50", as the rounds were given."""
    if value not in ROUND_NUMBERS:
        raise ValidationError(f"{quoted(value)} is not a round number (1 to {MAX_ROUNDS})")


def trait_name(value: str) -> None:
    """A trait a level-up raises (QC-53)."""
    if value not in qc.TRAITS:
        raise ValidationError(f"{value!r} is not one of {qc.TRAITS}")


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


def choice_labels(data: dict[str, Any]) -> None:
    """QC-11: labels such as 1, 2-A, 2-B, each once; the ones taken among them."""
    try:
        abilities.read_choice(data["options"], data["selected"])
    except InvalidInput as error:
        raise ValidationError(error.errors) from None


def hero_with_replace(data: dict[str, Any]) -> None:
    """QC-48: a new hero comes with replace: true, and only then."""
    if data.get("replace") and data.get("hero") is None:
        raise ValidationError("is required", "hero")
    if not data.get("replace") and data.get("hero") is not None:
        raise ValidationError("give a hero only with replace: true", "hero")


def parts_or_ability(data: dict[str, Any]) -> None:
    """QC-77: a repair uses parts or an ability, not both."""
    if (data.get("parts") is None) == (data.get("ability") is None):
        raise ValidationError("give either parts or ability", "parts")


def an_upgrade(data: dict[str, Any]) -> None:
    """An upgrade defined here is of kind upgrade."""
    upgrade = data.get("upgrade")
    if isinstance(upgrade, dict) and upgrade["kind"] != "upgrade":
        raise ValidationError("must be upgrade", "upgrade.kind")


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


COMMANDS: list[Command] = [
    command(
        GAME,
        "trait_check",
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
    command(
        GAME,
        "use_item",
        "The item's effect dice if it has any (e.g. a heal of 1d6); otherwise none.",
        item=inventory_item("The id of a consumable in the inventory.", kind="consumable"),
        stat=text("The injured stat an injury-removing item restores.", choices=qc.INJURY_STATS),
    ),
    command(
        GAME,
        "use_ability",
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
    command(
        GAME,
        "apply_condition",
        None,
        condition=text("The condition the page gives.", required=True, choices=items.CONDITIONS),
        source=text("What caused it.", default="page"),
    ),
    command(
        GAME,
        "make_choice",
        None,
        choice=text("The id of the printed choice.", required=True, max_length=80),
        options=many(
            "The printed option labels (numbers, lettered as '2-A').",
            required=True,
            max_items=50,
            item=text("An option label such as 2-B.", required=True, max_length=40),
        ),
        selected=many(
            "The labels of the options taken.",
            required=True,
            max_items=50,
            item=text("An option label such as 2-B.", required=True, max_length=40),
        ),
        checks=[choice_labels],
    ),
    command(
        GAME,
        "start_combat",
        None,
        kind=text("Several enemies or one enemy.", required=True, choices=combat_rules.KINDS),
        mode=text(
            "The difficulty mode (default: the house rule qc.combat.mode).",
            choices=combat_rules.MODES,
        ),
        rounds=many(
            "The rounds as printed.",
            required=True,
            max_items=MAX_ROUNDS,
            item=item_of(CombatRound),
            at_least_one="give at least one round",
        ),
    ),
    command(GAME, "combat_round", COMBAT_DICE),
    command(
        GAME,
        "resolve_round",
        "Each used ability's dice; an extra attack rolls d20 and the damage dice again." + DEATH,
        abilities=ability_uses(ABILITIES),
    ),
    command(
        GAME,
        "resolve_rounds",
        "Each assigned ability's dice, round by round; an extra attack rolls d20 and the damage "
        "dice again." + DEATH,
        assignments=fields.Dict(
            keys=fields.String(validate=round_number),
            values=ability_uses("The abilities used in this round."),
            load_default={},
            allow_none=True,
            metadata={
                "description": "Round number (as a string, 1 to 50) -> the abilities used in it."
            },
        ),
    ),
    command(
        GAME,
        "boost_attack",
        "Each used ability's dice, then the hero's damage dice (on a miss too)." + DEATH,
        abilities=ability_uses(ABILITIES),
    ),
    command(
        GAME,
        "boost_damage",
        "Each used ability's dice; an extra attack rolls d20 and the damage dice again." + DEATH,
        abilities=ability_uses(ABILITIES),
    ),
    command(
        GAME,
        "choose_loot",
        None,
        item=picks(
            text(
                "The equipment item lost for good: one the pending decision offers.",
                required=True,
                max_length=80,
            ),
            "/pending/options",
            value="item",
            label="name",
        ),
    ),
    command(
        GAME,
        "choose_clone_outcome",
        None,
        replace=flag("true switches to a new hero; false keeps the rushed clone.", required=True),
        hero=required_when(
            nested("The new hero (as in select_hero); only with replace: true.", Hero),
            replace=True,
        ),
        checks=[hero_with_replace],
    ),
    command(
        GAME,
        "rest",
        None,
        restore_stat=text(
            "The injured stat to restore (asked for when several are injured).",
            choices=qc.INJURY_STATS,
        ),
    ),
    command(
        GAME,
        "choose_rest_stat",
        None,
        stat=picks(
            text("The injured stat to restore: one the pending Rest offers.", required=True),
            "/pending/options",
        ),
    ),
    command(
        GAME,
        "level_up",
        None,
        max_hp_gain=integer("How much max HP rises.", default=0, minimum=0, maximum=1000),
        trait_points=fields.Dict(
            keys=fields.String(validate=trait_name),
            values=StrictInteger(
                validate=validate.Range(1, 2, error="must be 1 or 2"),
                error_messages={"invalid": "must be 1 or 2", **REQUIRED},
                metadata={"description": "The points this trait gains."},
            ),
            required=True,
            error_messages={"invalid": "must be an object", **REQUIRED},
            metadata={"description": "Trait -> points gained: +2 to one trait or +1 to two."},
        ),
        new_abilities=many(
            "New abilities, each defined as in select_hero.", default=[], item=item_of(Ability)
        ),
        new_uses=mapping(
            "Ability id -> its new number of uses (at least its uses now).",
            default={},
            keys=text("A per-rest ability's id.", required=True, max_length=80),
            values=integer("Its new number of uses.", required=True, minimum=0, maximum=100),
        ),
        pool_max=integer("The pool's new maximum.", minimum=0, maximum=100),
    ),
    command(
        GAME,
        "dogfight",
        DOGFIGHT_DICE,
        rounds=dogfight_rounds_field(),
        enemies=many("The enemy ships' names.", default=[], max_items=20, item=enemy_name()),
    ),
    command(
        GAME,
        "start_dogfight",
        None,
        rounds=dogfight_rounds_field(),
        enemies=many("The enemy ships' names.", default=[], max_items=20, item=enemy_name()),
    ),
    command(
        GAME,
        "dogfight_round",
        "d100 (Aim); on a miss d100 (Evasion); then a d6 per point of net damage. It stops "
        "early when a dogfight ability could change the roll just made." + DEATH,
    ),
    command(
        GAME,
        "resolve_dogfight_round",
        "A re-roll ability rolls d100; other abilities their effect dice; then as dogfight_round "
        "goes on: d100 (Evasion) after a missed Aim, a d6 per point of net damage." + DEATH,
        abilities=many(
            "Dogfight ability ids to use.",
            default=[],
            max_items=20,
            item=picks(
                fields.String(
                    validate=validate.Length(1, 80, error="must be an ability id"),
                    error_messages={"invalid": "must be an ability id", **REQUIRED},
                ),
                ABILITY_IDS,
                label="name",
            ),
        ),
        roll=text(
            "The roll the abilities change (default: the roll just made).",
            choices=dogfight_rounds.ROLLS,
        ),
    ),
    command(
        GAME,
        "pickpocket",
        "d4.",
        icon_id=text("The id of the pickpocket icon on the page.", required=True, max_length=80),
        accept_four=flag("Decide a 4 in advance: true accepts, false refuses (default: ask)."),
    ),
    command(
        GAME,
        "decide_pickpocket",
        None,
        choice=text(
            "Accept the credits (and lose 1 virtue) or refuse them.",
            required=True,
            choices=economy.PICKPOCKET_OPTIONS,
        ),
    ),
    command(
        GAME,
        "pay",
        None,
        purpose=text("What is paid for.", required=True, free_text=True),
        cost=integer("The price in credits.", required=True, minimum=0, maximum=1_000_000),
        required=flag("Whether the page requires it (it may then go into debt).", required=True),
    ),
    command(
        GAME,
        "gain_credits",
        None,
        amount=integer("Credits gained.", required=True, minimum=1, maximum=1_000_000),
        cause=text("Why (a reward, a find).", default="reward"),
    ),
    command(
        GAME,
        "theft",
        None,
        amount=integer("Credits stolen.", required=True, minimum=1, maximum=1_000_000),
    ),
    command(
        GAME,
        "eat_rations",
        "None, unless a missing ration costs the last HP." + DEATH,
        count=integer("Meal Rations the page asks for.", required=True, minimum=1, maximum=1000),
    ),
    command(GAME, "play_lottery", "d6."),
    command(
        GAME,
        "enter_shop",
        None,
        shop_id=text("The shop's id.", required=True, max_length=80),
        stock=many(
            "What it sells: each item with its price.",
            required=True,
            max_items=200,
            item=item_of(StockEntry),
        ),
        sells_upgrades=flag("Whether it buys and sells ship upgrades.", default=False),
    ),
    command(
        GAME,
        "buy",
        None,
        item=picks(
            text("The id of an item the open shop sells.", required=True, max_length=80),
            "/page/shop/stock",
            value="@key",
            label="item.name",
        ),
    ),
    command(GAME, "sell", None, item=inventory_item()),
    command(GAME, "leave_shop", None),
    command(
        GAME,
        "gain_item",
        None,
        item=nested("The item gained.", Item, required=True),
    ),
    command(
        GAME,
        "equip",
        None,
        item=inventory_item(kind="equipment"),
        replace=flag("Swap out the item already in that slot.", default=False),
    ),
    command(
        GAME,
        "unequip",
        None,
        item=picks(
            text("The id of an equipped item.", required=True, max_length=80),
            "/hero/equipped",
            label="@key",
        ),
    ),
    command(
        GAME,
        "select_hero",
        None,
        phase=text("Which hero this is.", required=True, choices=("prologue", "main", "custom")),
        hero=nested("The hero.", Hero, required=True),
    ),
    command(
        GAME,
        "start_page",
        None,
        date=text("The page's date, YYYY-MM-DD or MM-DD.", required=True, max_length=10),
        weekday=text(
            "The weekday printed on the page: it must match the date unless the house rule "
            "qc.calendar.weekdaySource is 'page' (G-QC-03).",
            choices=pages.WEEKDAYS,
        ),
        rest_day=flag("A Rest day.", default=False),
        level_up_day=flag("A level-up day.", default=False),
        prologue_end=flag("The page that ends the prologue.", default=False),
    ),
    command(
        GAME,
        "end_page",
        "Only if the hero is still Infected: a CON check, " + CHECK_DICE + DEATH,
    ),
    command(
        GAME,
        "change_virtue",
        None,
        delta=integer("The change in virtue.", required=True, minimum=-100, maximum=100),
        cause=text("The decision that changed it.", default="decision"),
    ),
    command(
        GAME,
        "repair_ship",
        "The repair ability's dice when an ability repairs; otherwise none.",
        compartment=ship_compartment("The compartment repaired (1-6)."),
        parts=integer("Ship Parts to use.", minimum=1, maximum=100),
        ability=hero_ability("A repair ability to use instead of parts.", required=False),
        checks=[parts_or_ability],
    ),
    command(
        GAME,
        "hire_crew",
        None,
        crew=nested("The crew member.", Crew, required=True),
        fee=integer("The one-time fee in credits.", default=0, minimum=0, maximum=1_000_000),
    ),
    command(
        GAME,
        "assign_crew",
        None,
        crew=picks(
            text("The id of a hired crew member.", required=True, max_length=80),
            "/ship/unassigned_crew",
            value="id",
            label="name",
        ),
        compartment=ship_compartment("The compartment (1-6)."),
    ),
    command(
        GAME,
        "install_upgrade",
        None,
        upgrade=picks(
            id_or_object("An upgrade in the inventory (its id), or one defined here.", Item),
            INVENTORY,
            value="id",
            label="name",
            where={"kind": "upgrade"},
            free=True,
        ),
        checks=[an_upgrade],
        compartment=ship_compartment("The compartment (1-6)."),
        replace=flag("Swap out the upgrade already installed there.", default=False),
    ),
    command(
        GAME,
        "sell_upgrade",
        None,
        upgrade=inventory_item("The id of an upgrade in the inventory.", kind="upgrade"),
    ),
]
