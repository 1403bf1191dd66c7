"""Calendar Board house rules: every gap default (G-CB-xx, docs/rules.md), as data."""

from __future__ import annotations

from domain.model.house_rules import BOOKS, CALENDAR_BOARD, HouseRule

NIGHT_STEPS = (
    "token",
    "creatures",
    "decay",
    "basketball",
    "calendar",
    "wind",
    "annustaria",
    "actions",
)

# G-CB-09: 0 Start, 1..30 day spaces, 31 End.
DEFAULT_LAYOUT = ["start"] + ["normal"] * 30 + ["end"]
for _space in (7, 14, 21, 28):
    DEFAULT_LAYOUT[_space] = "supply"
for _space in (10, 20, 30):
    DEFAULT_LAYOUT[_space] = "event"
for _space in (2, 9, 16, 23):
    DEFAULT_LAYOUT[_space] = "rain"
for _space in (5, 19, 26):
    DEFAULT_LAYOUT[_space] = "snow"
for _space in (4, 12, 25):
    DEFAULT_LAYOUT[_space] = "fog"
for _space in (13, 27):
    DEFAULT_LAYOUT[_space] = "hail"

# G-CB-22: d20 -> wind, as [from, to, speed, direction]; speed "none" has no direction.
DEFAULT_WIND_TABLE = [
    [1, 4, "none", None],
    [5, 6, "light", "north"],
    [7, 8, "light", "west"],
    [9, 10, "light", "south"],
    [11, 12, "light", "east"],
    [13, 13, "moderate", "north"],
    [14, 14, "moderate", "west"],
    [15, 15, "moderate", "south"],
    [16, 16, "moderate", "east"],
    [17, 17, "heavy", "north"],
    [18, 18, "heavy", "west"],
    [19, 19, "heavy", "south"],
    [20, 20, "heavy", "east"],
]

# G-CB-23: damage modifier by relation and speed.
DEFAULT_WIND_EFFECTS = {
    "away": {"light": 0, "moderate": 1, "heavy": 2},
    "towards": {"light": -1, "moderate": -2, "heavy": -3},
    "sideways": {"light": 0, "moderate": -1, "heavy": -1},
}

NIGHT_ROLLS = "cb.night.rolls"
NIGHT_ROLLS_BEFORE = "automatic"
"""What a match whose house rules predate ``cb.night.rolls`` plays by."""
MOVEMENT_ROLLS = "cb.movement.rollsPerTurn"
MOVEMENT_MOVES = "cb.movement.movesPiece"
FATE_OFFER = "cb.fateReroll.offer"
FATE_OFFER_BEFORE = "useful"

SPEEDS = ("none", "light", "moderate", "heavy")
DIRECTIONS = ("north", "west", "south", "east")


def check_wind_table(value: object) -> str | None:
    """G-CB-22: rows [from, to, speed, direction] covering 1..20 exactly once, in order."""
    if not isinstance(value, list) or not value:
        return "must be a non-empty list of [from, to, speed, direction] rows"
    expected = 1
    for row in value:
        if not (isinstance(row, list) and len(row) == 4):
            return "each row must be [from, to, speed, direction]"
        low, high, speed, direction = row
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (low, high)):
            return "from and to must be integers"
        if low != expected or high < low or high > 20:
            return f"rows must cover 1..20 in order; expected a row from {expected}"
        if speed not in SPEEDS:
            return f"speed must be one of {', '.join(SPEEDS)}"
        if (speed == "none") != (direction is None) or (
            direction is not None and direction not in DIRECTIONS
        ):
            return "direction is null for no wind, else one of north, west, south, east"
        expected = high + 1
    return None if expected == 21 else "rows must reach 20"


def check_wind_effects(value: object) -> str | None:
    """G-CB-23: {relation: {speed: modifier}} for away, towards and sideways."""
    if not isinstance(value, dict) or set(value) != {"away", "towards", "sideways"}:
        return "must map away, towards and sideways to speed modifiers"
    for row in value.values():
        if not isinstance(row, dict) or set(row) != {"light", "moderate", "heavy"}:
            return "each relation maps light, moderate and heavy to an integer"
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in row.values()):
            return "modifiers must be integers"
    return None


def check_layout(value: object) -> str | None:
    """G-CB-09: a Start space, at least one day space, and an End space, in that order."""
    kinds = ("normal", "rain", "snow", "fog", "hail", "supply", "event")
    if not isinstance(value, list) or not 3 <= len(value) <= 1000:
        return "must be a list of 3 to 1000 space types"
    if value[0] != "start" or value[-1] != "end":
        return "must begin with 'start' and end with 'end'"
    if any(space not in kinds for space in value[1:-1]):
        return f"day spaces must be one of {', '.join(kinds)}"
    return None


def check_steps(value: object) -> str | None:
    """G-CB-03: the night steps, each at most once (the token never passes twice, CB-03)."""
    if not isinstance(value, list) or any(step not in NIGHT_STEPS for step in value):
        return f"must be a list of steps among {', '.join(NIGHT_STEPS)}"
    if len(set(value)) != len(value):
        return "each step may appear only once"
    return None


def check_rizz_chart(value: object) -> str | None:
    """G-CB-27: defender values by exhaustion 0, 1, 2, ..."""
    if not isinstance(value, list) or not value or len(value) > 50:
        return "must be a list of 1 to 50 integers"
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        return "must hold integers"
    return None


CB_HOUSE_RULES = (
    HouseRule(
        "cb.godToken.passTiming",
        "nightStart",
        "When the god token passes (once a night).",
        choices=("nightStart", "afterWind"),
        gap="G-CB-02",
    ),
    HouseRule(
        "cb.night.steps",
        list(NIGHT_STEPS),
        "The night phase steps, in order.",
        kind="list",
        choices=NIGHT_STEPS,
        gap="G-CB-03",
        validator=check_steps,
    ),
    HouseRule(
        "cb.godToken.initialHolder",
        "startingPlayer",
        "Who holds the god token at setup.",
        choices=("startingPlayer",),
        gap="G-CB-04",
    ),
    HouseRule(
        "cb.nightActions.order",
        "turnOrder",
        "Night actions go in turn order from the starting-token holder.",
        choices=("turnOrder",),
        gap="G-CB-04",
    ),
    HouseRule(
        "cb.night.creatureOrder",
        ["Ophanim", "Zombie"],
        "Creature types in the order they act at night; others follow alphabetically.",
        kind="list",
        gap="G-CB-05",
    ),
    HouseRule(
        "cb.relationship.initial",
        12,
        "Relationship of a new partner (never below cb.relationship.floor).",
        kind="int",
        minimum=1,
        maximum=100,
        gap="G-CB-06",
    ),
    HouseRule(
        "cb.relationship.floor",
        0,
        "Relationship never goes below this (a set-up's and a new partner's included).",
        kind="int",
        minimum=0,
        maximum=100,
        gap="G-CB-06",
    ),
    HouseRule(
        "cb.relationship.breakupAt",
        0,
        "At this relationship the partner leaves; null: never.",
        kind="int",
        nullable=True,
        minimum=0,
        maximum=100,
        gap="G-CB-06",
    ),
    HouseRule(
        "cb.basketball.threshold",
        30,
        "The shot is made when the two d20 total at least this.",
        kind="int",
        minimum=2,
        maximum=41,
        gap="G-CB-07",
    ),
    HouseRule(
        "cb.annustaria.max",
        20,
        "Highest Annustar damage value.",
        kind="int",
        minimum=1,
        maximum=100,
        gap="G-CB-08",
    ),
    HouseRule(
        "cb.annustaria.checkTarget",
        11,
        "The Annustaria check passes on d20 >= this.",
        kind="int",
        minimum=1,
        maximum=20,
        gap="G-CB-08",
    ),
    HouseRule(
        "cb.annustaria.checksPerNight",
        1,
        "Checks made at the maximum value.",
        kind="int",
        minimum=0,
        maximum=10,
        gap="G-CB-08",
    ),
    HouseRule(
        "cb.calendar.layout",
        DEFAULT_LAYOUT,
        "Space types from Start to End: start, end, normal, rain, snow, fog, hail, supply, event.",
        kind="list",
        choices=("start", "end", "normal", "rain", "snow", "fog", "hail", "supply", "event"),
        gap="G-CB-09",
        validator=check_layout,
    ),
    HouseRule(
        "cb.calendar.resetTiming",
        "immediate",
        "When the god piece goes back to Start after End.",
        choices=("immediate", "beforeNextRoll"),
        gap="G-CB-10",
    ),
    HouseRule(
        "cb.ceasefire.max",
        None,
        "Highest ceasefire value; null: no limit.",
        kind="int",
        nullable=True,
        minimum=0,
        maximum=1000,
        gap="G-CB-11",
    ),
    HouseRule(
        "cb.fateReroll.refresh",
        "match",
        "When the fate rerolls a match's set-up gives come back: match (never: the number lasts "
        "the whole match) or night (every night phase starts with the set-up's number again).",
        choices=("match", "night"),
        gap="G-CB-01",
    ),
    HouseRule(
        FATE_OFFER,
        "always",
        "When the night stops to offer a fate reroll of a party's own roll (a hail save, a "
        "rizz contest or an ambush d6): always (after every failed save, lost contest, missed "
        "ambush and ambush that hits, the player deciding whether to spend it) or useful (only "
        "when another face could change the outcome; a match started before this rule existed "
        "plays this way).",
        choices=("always", "useful"),
        gap="G-CB-12",
    ),
    HouseRule(
        "cb.fateReroll.forbidden",
        ["calendar", "wind", "basketball", "annustaria"],
        "Rolls never fate-rerolled (CB-10); only ambush, rizz and hail are ever offered one.",
        kind="list",
        choices=("calendar", "wind", "basketball", "annustaria", "ambush", "rizz", "hail"),
        gap="G-CB-12",
    ),
    HouseRule(
        "cb.supply.firePerSpace",
        True,
        "Each supply space crossed fires separately.",
        kind="bool",
        gap="G-CB-13",
    ),
    HouseRule(
        "cb.supply.mayDecline",
        False,
        "A player may decline a resupply.",
        kind="bool",
        gap="G-CB-13",
    ),
    HouseRule(
        "cb.weather.activation",
        "startingTurn",
        "When rolled weather takes effect.",
        choices=("startingTurn", "immediate"),
        gap="G-CB-14",
    ),
    HouseRule(
        "cb.weather.nightGap",
        "normal",
        "Weather in force for the rest of the night after the calendar roll.",
        choices=("normal", "previous", "new"),
        gap="G-CB-14",
    ),
    HouseRule(
        "cb.weather.wetSnapshot",
        True,
        "Wet goes to the pieces on the pathway when Rain takes effect, not later arrivals.",
        kind="bool",
        gap="G-CB-14",
    ),
    HouseRule(
        "cb.weather.penaltyCap",
        0,
        "A weather modifier (-4 + adaptability) never goes above this; null: no cap.",
        kind="int",
        nullable=True,
        minimum=-10,
        maximum=10,
        gap="G-CB-16",
    ),
    HouseRule(
        "cb.structures.adaptability",
        0,
        "Adaptability of structures.",
        kind="int",
        minimum=-10,
        maximum=10,
        gap="G-CB-17",
    ),
    HouseRule(
        "cb.weather.fogAppliesToStructures",
        True,
        "Fog affects structures' attacks.",
        kind="bool",
        gap="G-CB-17",
    ),
    HouseRule(
        "cb.weather.snowSightRangeFloor",
        0,
        "Lowest sight-spell range in Snow.",
        kind="int",
        minimum=0,
        maximum=10,
        gap="G-CB-18",
    ),
    HouseRule(
        "cb.hail.successIf",
        "total>=goal",
        "When a hail save succeeds.",
        choices=("total>=goal", "total>goal"),
        gap="G-CB-20",
    ),
    HouseRule(
        "cb.hail.countScope",
        "own",
        "Pieces counted in a hail goal.",
        choices=("own",),
        gap="G-CB-20",
    ),
    HouseRule(
        "cb.hail.retriggerOnRepeat",
        True,
        "Landing on Hail while Hail is in effect calls for another save.",
        kind="bool",
        gap="G-CB-20",
    ),
    HouseRule(
        "cb.wind.table",
        DEFAULT_WIND_TABLE,
        "d20 ranges to wind speed and direction.",
        kind="list",
        gap="G-CB-22",
        validator=check_wind_table,
    ),
    HouseRule(
        "cb.wind.effects",
        DEFAULT_WIND_EFFECTS,
        "Damage modifier by relation and speed.",
        kind="object",
        gap="G-CB-23",
        validator=check_wind_effects,
    ),
    HouseRule(
        "cb.wind.directionMeans",
        "towards",
        "A named wind blows towards that direction.",
        choices=("towards", "from"),
        gap="G-CB-24",
    ),
    HouseRule(
        "cb.ambush.direction",
        "forward",
        "Ambush moves go forward along the pathway.",
        choices=("forward",),
        gap="G-CB-25",
    ),
    HouseRule(
        "cb.exhaustion.max",
        5,
        "Highest exhaustion (a set-up's included).",
        kind="int",
        minimum=1,
        maximum=20,
        gap="G-CB-26",
    ),
    HouseRule(
        "cb.exhaustion.eliminateAt",
        5,
        "Exhaustion that eliminates pathway pieces after an Ambush or Rizz.",
        kind="int",
        minimum=1,
        maximum=20,
        gap="G-CB-26",
    ),
    HouseRule(
        "cb.rizz.chart",
        [10, 12, 14, 16, 18, 20],
        "Rizz defender value by exhaustion 0..5.",
        kind="list",
        gap="G-CB-27",
        validator=check_rizz_chart,
    ),
    HouseRule(
        "cb.rizz.tieGoesTo",
        "defender",
        "Who wins a tied rizz contest.",
        choices=("defender", "offender"),
        gap="G-CB-27",
    ),
    HouseRule(
        "cb.rizz.exhaustionOnFail",
        True,
        "A failed rizz still adds exhaustion.",
        kind="bool",
        gap="G-CB-28",
    ),
    HouseRule(
        NIGHT_ROLLS,
        "players",
        "Who rolls the night's dice (the calendar d4, the wind d20, the basketball shot, the "
        "Annustaria Breaker check, each hail save and its damage): players (the night stops "
        "and asks the player whose roll it is, CB-06, CB-09, CB-28, CB-30: the god-token holder, "
        "or the player who owes the save, who answers roll_night with server dice or their own "
        "faces) or automatic (the command that reaches a roll makes it, as one screen plays; a "
        "match started before this rule existed plays this way).",
        choices=("players", "automatic"),
    ),
    HouseRule(
        MOVEMENT_ROLLS,
        1,
        "Movement rolls a party makes in its turn, not counting the bonus roll a 6 earns "
        "(CB-23); null: no limit (a match started before this rule existed has none).",
        kind="int",
        nullable=True,
        minimum=0,
        maximum=20,
        gap="G-CB-01",
    ),
    HouseRule(
        MOVEMENT_MOVES,
        True,
        "Whether a movement roll moves a piece on the pathway forward its value in spaces, as an "
        "ambush moves it (G-CB-25): true, or false to move pieces on the table only (a match "
        "started before this rule existed plays that way). A piece at home or elsewhere is "
        "never moved by it: entering the pathway is the main rules'.",
        kind="bool",
        gap="G-CB-01",
    ),
    HouseRule(
        "cb.sleep.nightReduction",
        1,
        "Exhaustion a night's sleep removes.",
        kind="int",
        minimum=0,
        maximum=5,
        gap="G-CB-29",
    ),
    HouseRule(
        "cb.daySleep.unlockAt",
        "nextNightPhaseEnd",
        "When day-sleep restrictions are lifted.",
        choices=("nextNightPhaseEnd",),
        gap="G-CB-30",
    ),
)

BOOKS[CALENDAR_BOARD].add(*CB_HOUSE_RULES)
