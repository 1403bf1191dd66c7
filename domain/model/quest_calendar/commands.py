"""The schema of every quest-calendar command, and the dice each may draw."""

from __future__ import annotations

from marshmallow import fields, validate

from domain.model.command_schema import Command, command, exactly_one, given
from domain.model.quest_calendar import (
    combat_rules,
    dogfight_rounds,
    economy,
    items,
    pages,
)
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.command_documents import (
    DATE,
    HERO_WITH_REPLACE,
    LABELS_ONCE,
    ROUND_KEYS,
    UPGRADE_ONLY,
    option_label,
)
from domain.model.quest_calendar.command_fields import (
    ABILITIES,
    ABILITY_IDS,
    CHECK_DICE,
    COMBAT_DICE,
    DEATH,
    DOGFIGHT_DICE,
    GAME,
    INVENTORY,
    MAX_ROUNDS,
    Ability,
    CombatRound,
    Crew,
    Hero,
    Item,
    StockEntry,
    ability_uses,
    an_upgrade,
    choice_labels,
    dogfight_rounds_field,
    enemy_name,
    hero_ability,
    hero_with_replace,
    inventory_item,
    parts_or_ability,
    round_number,
    ship_compartment,
    trait_name,
)
from domain.model.schema_fields import (
    REQUIRED,
    StrictInteger,
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
from domain.model.schema_fields import items as many

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
        document=[{"properties": {"assignments": {"propertyNames": {"enum": ROUND_KEYS}}}}],
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
        document=[HERO_WITH_REPLACE],
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
        document=[{"properties": {"trait_points": {"propertyNames": {"enum": list(qc.TRAITS)}}}}],
        new_abilities=many(
            "New abilities, each defined as in select_hero.", default=[], item=item_of(Ability)
        ),
        new_uses=mapping(
            "Ability id (the id of a per-rest ability of the hero: text with no control "
            "characters) -> its new number of uses (at least its uses now).",
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
        shop_id=text(
            "The shop, by the name the page gives it (it names the shop in the log).",
            required=True,
            max_length=80,
        ),
        stock=many(
            "What it sells: each item with its price, each item id once.",
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
        date=text(
            "The page's date, YYYY-MM-DD or MM-DD (in the campaign's year): a day of that month.",
            required=True,
            max_length=10,
            pattern=DATE,
        ),
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
        document=[exactly_one(given("parts", "integer"), given("ability", "string"))],
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
        document=[UPGRADE_ONLY],
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
