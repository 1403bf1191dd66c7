"""The Calendar Board's rules (CB-nn) and the gaps in them (G-CB-nn), each in one line of our
own words (the package gathers both games')."""

from __future__ import annotations

CALENDAR_BOARD: dict[str, str] = {
    # -- The Calendar Board -----------------------------------------------------------------------
    "CB-01": (
        "A night phase comes once per round, after every player has had their turn (a skipped "
        "turn counts) and before the starting-token holder plays again; nobody is the active "
        "player during it."
    ),
    "CB-02": (
        "The night runs eight steps in a fixed order, each finished before the next starts: "
        "token handover, creatures, relationship decay, basketball shot, calendar roll, wind "
        "roll, Annustaria upkeep, night actions."
    ),
    "CB-03": (
        "Once a night the god token moves one seat to the right; the new holder makes the "
        "choices and rolls that the night gives to the holder."
    ),
    "CB-04": (
        "Night creatures act in step 2, Ophanim before Zombies; when several of one type are in "
        "play, the god-token holder sets their order."
    ),
    "CB-05": (
        "In step 3 every party that has a partner (catgirl girlfriend or catboy boyfriend) "
        "loses one point of relationship."
    ),
    "CB-06": (
        "The basketball shot (step 4) is two d20s rolled by the god-token holder; both faces "
        "are recorded."
    ),
    "CB-07": (
        "In step 7 the Annustar Damage Value goes down by one while it is between 1 and 19, "
        "calls for the Annustaria Breaker check at 20 and stays at 0."
    ),
    "CB-08": (
        "The calendar is a board of its own on which one god piece moves along a track of typed "
        "spaces: Start, End, and days that are normal, weather (rain, snow, fog, hail), supply "
        "or event spaces."
    ),
    "CB-09": (
        "In step 5 the holder rolls a d4 and the god piece moves that far; only the space where "
        "it stops sets weather, hail or event effects, and of the spaces it crosses only supply "
        "spaces do anything."
    ),
    "CB-10": (
        "Nobody may use a fate reroll on the calendar d4 or the wind d20; the first result stands."
    ),
    "CB-11": (
        "End halts the god piece whatever the d4 had left (the rest is forfeit); the piece then "
        "restarts from Start for a new lap."
    ),
    "CB-12": (
        "With the optional ceasefire rule, every return of the god piece to Start moves the "
        "ceasefire marker up one step."
    ),
    "CB-13": (
        "Supply spaces act both when the god piece stops on them and when it passes over them, "
        "once per move."
    ),
    "CB-14": (
        "When supply fires, the weapon a player picks (ranged or hybrid, using ammunition, not "
        "looted) gains its regeneration in ammo, never above its capacity."
    ),
    "CB-15": (
        "Each player refills a single eligible weapon per firing, choosing one when they own "
        "several."
    ),
    "CB-16": "Looted weapons are left out of resupply: they gain no ammo and cannot be chosen.",
    "CB-17": (
        "Weather-wise a supply space counts as Normal: ending a move there sets Normal weather, "
        "passing it changes nothing."
    ),
    "CB-18": (
        "The space where the god piece stops chooses the weather: its own for rain, snow, fog "
        "and hail spaces, Normal for normal, Start, End and supply spaces, and CB-29 for event "
        "spaces."
    ),
    "CB-19": (
        "New weather begins with the starting-token holder's next turn and holds until the next "
        "calendar roll sets another."
    ),
    "CB-20": "Normal weather has no effect.",
    "CB-21": (
        "Rain makes every pathway piece Wet, no matter its owner, from when it takes effect "
        "until the next night phase begins; attack rolls are unaffected."
    ),
    "CB-22": (
        "Rain, Snow and Hail make tackles slippery: each side's tackle roll gets -4 plus that "
        "side's adaptability."
    ),
    "CB-23": (
        "In Rain, Snow and Hail a movement 6 still moves six spaces but earns no bonus movement "
        "roll."
    ),
    "CB-24": (
        "Snow hampers every attack: offender and defender, structures included, each get -4 "
        "plus their own adaptability."
    ),
    "CB-25": "In Snow a spell that needs sight reaches one space less.",
    "CB-26": (
        "In Fog the attacker rolls with disadvantage and the defender adds -4 plus "
        "adaptability; tackles and movement are not affected."
    ),
    "CB-27": "Fog forbids sight spells and fortifying structures; the service refuses both.",
    "CB-28": (
        "When the god piece stops on hail, every player saves at once: a die plus luck against "
        "one per own piece on the pathway or at home, and a failure costs 1d4 normal natural "
        "damage."
    ),
    "CB-29": (
        "Landing on an event space gives the special weather of the current event when the "
        "optional event rules are on and an event is running; otherwise the weather is Normal."
    ),
    "CB-30": (
        "In step 6, once the weather is settled, the holder rolls a d20 that a table turns into "
        "a wind outcome; wind does not depend on the weather."
    ),
    "CB-31": (
        "Wind is either none or one of three speeds (light, moderate, heavy) towards one of "
        "four directions: thirteen outcomes in all."
    ),
    "CB-32": (
        "A wind-sensitive action is classed by the facing of the member who acts: facing where "
        "the wind blows is away, facing into it is towards, across it is sideways; no wind, no "
        "class."
    ),
    "CB-33": (
        "In step 8 every party takes exactly one night action, Ambush, Rizz (if allowed) or "
        "Sleep, in turn from the starting-token holder, each resolved before the next."
    ),
    "CB-34": (
        "Exhaustion runs from 0 to 5: Ambush and Rizz add one, night and day sleep take one "
        "off, and a night Ambush or Rizz uses no reaction."
    ),
    "CB-35": (
        "Night ambush: roll a d6; if an own piece would end exactly on an enemy after that many "
        "spaces, it moves there and ambushes, otherwise nothing moves; exhaustion rises by one "
        "either way."
    ),
    "CB-36": (
        "A party that finishes an Ambush or a Rizz at exhaustion 5 loses all its pieces on the "
        "pathway; pieces elsewhere stay."
    ),
    "CB-37": "Rizz is open only to a party without a partner; a party that has one is refused.",
    "CB-38": (
        "Rizz is a contest: a roll plus intelligence against a chart value for the party's "
        "exhaustion before the action; a win brings a partner of the player's choice at "
        "relationship 12."
    ),
    "CB-39": "Sleeping at night adds no exhaustion and takes one level off, never below 0.",
    "CB-40": (
        "A party may choose day sleep only first thing in its owner's turn and only with "
        "exhaustion of 1 or more."
    ),
    "CB-41": (
        "Sleeping through the day removes one exhaustion, skips the player's whole turn, and "
        "blocks reactions and additions to the bonus until the next night phase is over."
    ),
    # -- gaps in The Calendar Board ---------------------------------------------------------------
    "G-CB-01": (
        "The chapter relies on mechanics from the rest of the game (tackles, attacks, "
        "reactions, structures, spells, modifiers, fate rerolls) that it never defines, such as "
        "how many fate rerolls a player has and whether spent ones come back."
    ),
    "G-CB-02": "Is the god token passed at the start of the night or after the wind roll?",
    "G-CB-03": (
        "Which steps make up a night phase, and is declining to ambush an action of its own?"
    ),
    "G-CB-04": (
        "Which way is right, who starts with the god token, and in which order do parties take "
        "their night actions?"
    ),
    "G-CB-05": "What do night creatures do, and where do other creature types come in the order?",
    "G-CB-06": "How far can relationship fall or rise, and what happens at 0?",
    "G-CB-07": "When does the basketball shot go in, and what does a made shot do?",
    "G-CB-08": "What are the Annustaria Breaker checks, and what range does the damage value have?",
    "G-CB-09": "How many spaces does the calendar board have, and which type is each?",
    "G-CB-10": (
        "Does End set the weather, does the return to Start count as landing, and when does the "
        "piece go back?"
    ),
    "G-CB-11": "How high can the ceasefire marker go, and what does it do?",
    "G-CB-12": "Which other night rolls may be fate-rerolled?",
    "G-CB-13": (
        "What if one move crosses two supply spaces, is the refill per player, and may it be "
        "declined or spent on a full weapon?"
    ),
    "G-CB-14": (
        "Which weather applies between the calendar roll and the starting-token holder's turn, "
        "and which pieces get Wet?"
    ),
    "G-CB-15": "What does the Wet condition do?",
    "G-CB-16": "What happens when -4 plus adaptability comes out positive?",
    "G-CB-17": "Which adaptability does a structure have, and does Fog apply to structures?",
    "G-CB-18": "How short can Snow make the range of a sight spell?",
    "G-CB-19": "What does rolling with disadvantage mean?",
    "G-CB-20": (
        "Which die and comparison does the hail save use, whose pieces count, and which piece "
        "takes the damage?"
    ),
    "G-CB-21": "What is an event's special weather?",
    "G-CB-22": "How does the wind d20 map onto the thirteen wind outcomes?",
    "G-CB-23": "How strong are the effects of wind, and how long does it last?",
    "G-CB-24": (
        "Is a named wind direction the way the wind comes from or goes to, and how is facing kept?"
    ),
    "G-CB-25": (
        "In a night ambush, which piece moves, in which direction, and against which target?"
    ),
    "G-CB-26": "Can exhaustion pass 5, and does another action at 5 eliminate again?",
    "G-CB-27": "What are the rizz chart's values, the contest die and the tie rule?",
    "G-CB-28": "Does a failed rizz cost exhaustion as well?",
    "G-CB-29": (
        "Does a night's sleep lower exhaustion (the text says both that it does and that it "
        "does not)?"
    ),
    "G-CB-30": (
        "What does not adding to the bonus block after day sleep, and when do the locks end?"
    ),
}
