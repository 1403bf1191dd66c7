"""Quest Calendar's rules (QC-nn) and the gaps in them (G-QC-nn), each in one line of our own
words (the package gathers both games')."""

from __future__ import annotations

QUEST_CALENDAR: dict[str, str] = {
    # -- Quest Calendar ---------------------------------------------------------------------------
    "QC-01": (
        "Rules are the player's to change: each rule parameter and gap default is a "
        "per-campaign setting, and every change is recorded."
    ),
    "QC-02": (
        "The prologue is played with one fixed hero; once it is over the player picks one of "
        "six heroes or brings a custom one."
    ),
    "QC-03": (
        "A shared calendar can host several players, each with a hero of their own: nothing one "
        "of them rolls, spends or suffers reaches another, although all meet the same content."
    ),
    "QC-04": (
        "A hero has six signed trait modifiers (STR, DEX, CON, INT, WIS, CHA) that are added to "
        "every roll naming them."
    ),
    "QC-05": (
        "HP (death at 0), DEF (lowers the damage of a lost round), ATK (added to the attack "
        "d20) and DMG (the damage dice) are the hero's combat numbers."
    ),
    "QC-06": (
        "Virtue, the hero's morality score, starts at 0, stays within -10..+10 and shifts with "
        "certain decisions."
    ),
    "QC-07": "Play needs a set of seven polyhedral dice; dN names the one to roll.",
    "QC-08": "A d10 rolled on its own reads its 0 face as 10, so it gives 1 to 10.",
    "QC-09": (
        "A d100 adds a tens die and a units die whose 0 is 0, except that two zeros make 100, "
        "so it gives 1 to 100."
    ),
    "QC-10": (
        "A trait check adds the d20, the trait's modifier, that trait's boosters on the page "
        "and any ability bonus the player applies."
    ),
    "QC-11": (
        "Options marked with letters are alternatives of which exactly one is chosen; numbered "
        "ones are all done, in order; the two can be mixed."
    ),
    "QC-12": (
        "What a choice or roll on a day's page leads to is printed on the back of the previous "
        "day's page, which is kept until the day is resolved."
    ),
    "QC-13": (
        "The reminders printed on a page are only hints: any ability whose context fits may be "
        "used."
    ),
    "QC-14": (
        "Abilities may be applied once a roll's result is known; in combat the difficulty mode "
        "limits how much can be seen first."
    ),
    "QC-15": (
        "Every ability has one context (in combat, outside combat, both, or ship combat) and "
        "can be used only there."
    ),
    "QC-16": (
        "A per-rest ability can be used a fixed number of times between two Rests; each use "
        "stays marked until the next Rest."
    ),
    "QC-17": (
        "A once-per-page ability is available one time per calendar page and comes back with "
        "the next page."
    ),
    "QC-18": (
        "A trait booster adds to a single trait on every roll of it for the rest of the current "
        "page, then lapses."
    ),
    "QC-19": (
        "Surges (also called charges, spells or chi) form a pool: an ability that costs one "
        "needs one unspent, there is no per-page limit, and a Rest refills the pool."
    ),
    "QC-20": (
        "A combat page lasts the rounds the page prints; in each round the hero rolls Attack "
        "(d20 + ATK) and then Damage, against several enemies or one."
    ),
    "QC-21": (
        "A round is won when the attack hits and its damage is enough, and then the hero takes "
        "nothing; otherwise the hero takes the enemy's damage, lowered by DEF."
    ),
    "QC-22": (
        "Against several enemies a won round kills one of them; against a single enemy over "
        "several rounds it only stuns that enemy."
    ),
    "QC-23": (
        "During a combat page a Med Kit is allowed before the first roll or once the last round "
        "is over, never in between."
    ),
    "QC-24": (
        "Items without the not-between-rounds icon, and healing abilities, may be used between "
        "rounds; healing items may not."
    ),
    "QC-25": (
        "Doubled damage means a second roll of the damage dice added to the first, not the "
        "first roll times two."
    ),
    "QC-26": (
        "Fixed bonuses and penalties to damage count once, on top of the summed dice, doubling "
        "included."
    ),
    "QC-27": (
        "Combat is played in Standard, Easy or Hard mode, which decides how many results the "
        "player sees before committing abilities."
    ),
    "QC-28": (
        "Standard mode: roll one round's attack and damage, then choose the abilities for it; a "
        "closed round cannot be reopened."
    ),
    "QC-29": (
        "Easy mode: roll attack and damage for every round first, then place abilities on the "
        "rounds."
    ),
    "QC-30": (
        "Hard mode: commit one roll at a time: attack, any attack boost, damage, any damage "
        "boost, each decision final before the next roll."
    ),
    "QC-31": (
        "An infected hero rolls d20 + CON at the end of every page, the first one included, and "
        "loses 1 HP on 10 or less; an Antidote, a Rest or cloning cures it."
    ),
    "QC-32": (
        "A malfunctioning hero rolls every trait roll twice and keeps the lower d20; attack, "
        "damage and ship rolls are spared. A Rest, a Repair Kit or cloning ends it."
    ),
    "QC-33": (
        "An enemy that can cause Frightened (WIS), Restrained (DEX), Weakened (STR) or Confused "
        "(INT) makes the hero roll d20 + that trait; below the target the condition lasts that "
        "round."
    ),
    "QC-34": "Frightened: a second attack roll is made and the worse of the two counts.",
    "QC-35": "Restrained: no attack and no damage roll this round, so the round is lost.",
    "QC-36": "Weakened: whatever damage reaches the hero in that round counts twice.",
    "QC-37": "Confused: two damage rolls are made and the smaller total counts.",
    "QC-38": (
        "Each pickpocket icon found gives d4 credits; nothing changes that roll except the "
        "Smuggler's ability."
    ),
    "QC-39": (
        "A pickpocket roll of 4 costs a point of virtue unless the player turns the 4 credits "
        "down; 1 to 3 never touch virtue."
    ),
    "QC-40": (
        "An extra attack-and-damage ability repeats the round's rolls before any damage is "
        "taken; the damage of the attacks that hit adds up towards winning the round."
    ),
    "QC-41": (
        "At 0 HP, whatever the cause, the hero dies and is cloned at once; the adventure goes on."
    ),
    "QC-42": (
        "A cloned hero comes back with half of max HP, rounded up, worked out again from the "
        "final max after the cost roll."
    ),
    "QC-43": (
        "Cloning costs a d4 roll: 1 credits, 2 an injury, 3 an equipment item, 4 spent "
        "abilities; a 1 or a 3 that cannot apply is rolled again."
    ),
    "QC-44": (
        "Clone result 1: the hero loses half of their credits, rounded up; a hero without "
        "credits rolls again."
    ),
    "QC-45": (
        "Clone result 2: a d10 (0 = 10) picks an injury: one of the six traits -1, max HP -2, "
        "DEF -1, ATK -1 or -1 damage; each injury is its own entry and they stack."
    ),
    "QC-46": (
        "Clone result 3: the hero gives up one equipment item for good; a hero without "
        "equipment rolls again."
    ),
    "QC-47": (
        "Clone result 4: the clone comes back with all per-rest uses spent until the next Rest."
    ),
    "QC-48": (
        "Optional, harder: on a clone result of 4 the player may take a new hero of the same "
        "level instead, without the old hero's equipment."
    ),
    "QC-49": (
        "After the cost: HP becomes half of the (possibly injured) max rounded up, Infected and "
        "Malfunction go, and play goes on with the day's next encounter."
    ),
    "QC-50": (
        "An injury is removed at a Rest, by a Wound Sealant or by some abilities, and its "
        "removal gives back exactly what it took."
    ),
    "QC-51": (
        "A Rest day removes the injuries of one stat, restores HP, ability uses and the surge "
        "pool, cures Infected and Malfunction, and lets the hero change equipment."
    ),
    "QC-52": (
        "A Rest restores one injured stat of the player's choosing completely, taking away all "
        "of its injuries at once."
    ),
    "QC-53": (
        "A level-up brings the new level's abilities and two trait points, spent at once on one "
        "trait or split over two."
    ),
    "QC-54": (
        "A level-up is not a Rest: it restores nothing, uses and pool capacity it adds are free "
        "at once, and spent uses stay spent."
    ),
    "QC-55": "A level-up raises max HP and current HP by the same amount.",
    "QC-56": (
        "Levelling up keeps everything else as it was: credits, injuries, trait changes, spent "
        "per-rest uses and notes."
    ),
    "QC-57": (
        "Buying at a shop is optional, so it needs at least the price in credits, which it then "
        "takes."
    ),
    "QC-58": (
        "Selling needs a shop that stocks the same item and pays that shop's price; ship "
        "upgrades follow QC-83."
    ),
    "QC-59": "A shop visit ends when the hero moves on: no buying or selling there afterwards.",
    "QC-60": (
        "A required payment the hero cannot afford is made anyway: credits go negative and a "
        "further 2 credits are lost as a penalty."
    ),
    "QC-61": (
        "A hero in debt pays it off automatically: every later gain goes against the negative "
        "balance."
    ),
    "QC-62": "An optional purchase needs credits of at least its price, so it never creates debt.",
    "QC-63": "A thief takes no more than the hero has: the balance stops at 0.",
    "QC-64": (
        "A hero equips at most one item per type, and may change equipment only at a Rest or on "
        "a day new equipment arrives."
    ),
    "QC-65": (
        "When a page asks for more rations than the hero has, the hero eats those there are and "
        "loses 1 HP per missing ration."
    ),
    "QC-66": "After the prologue the player may play the lottery once on every Sunday page.",
    "QC-67": "The lottery d6 pays -2, -1, +1, +2, +3 or +4 credits, and no bonus changes it.",
    "QC-68": "Losing at the lottery can empty the purse but never push it into debt.",
    "QC-69": (
        "Ship combat uses the ship's Aim, Evasion, Shield and Damage; the Karnack/Fang starts "
        "at Aim +10, EVA +10 and SHD 1."
    ),
    "QC-70": (
        "Each dogfight round starts with d100 + Aim; a hit destroys the enemy or forces it back "
        "and the ship takes no damage; there is no damage roll."
    ),
    "QC-71": (
        "After a missed Aim roll the ship rolls d100 + EVA against the enemy's Aim: higher "
        "takes reduced damage, lower takes the maximum."
    ),
    "QC-72": "Each hit on the ship is reduced by its Shield, to no less than 0.",
    "QC-73": (
        "The ship has six compartments numbered for a d6 (Engine Room, Bridge, Labs, Weapons, "
        "Crew Quarters, Cargo), each starting at Integrity 3 and never below 0."
    ),
    "QC-74": (
        "Every point of net damage rolls a d6 and costs that compartment one Integrity; each "
        "point is settled before the next."
    ),
    "QC-75": (
        "A compartment that reaches Integrity 0 loses its crew member and its upgrade for good."
    ),
    "QC-76": (
        "When a damage point hits a compartment already at 0, the hero loses 1 HP in its place."
    ),
    "QC-77": (
        "Integrity comes back only through Ship Parts or a hero ability, and never while a "
        "combat page is under way."
    ),
    "QC-78": (
        "Crew are hired on certain days against a single fee, which cannot create debt; they "
        "bring abilities and Integrity."
    ),
    "QC-79": (
        "A new crew member goes to a compartment without crew whose Integrity is 1 or more, and "
        "never moves afterwards."
    ),
    "QC-80": (
        "A crew member whose compartment drops to 0 dies, and the abilities they gave go with them."
    ),
    "QC-81": "One upgrade per compartment, and only in a compartment the upgrade lists as allowed.",
    "QC-82": (
        "Upgrades can be installed or swapped when one is gained, or when a destroyed "
        "compartment gets Integrity back."
    ),
    "QC-83": (
        "A ship upgrade sells at full price to any shop that sells ship upgrades, stocked there "
        "or not."
    ),
    # -- gaps in Quest Calendar -------------------------------------------------------------------
    "G-QC-01": (
        "Hero books, custom-hero rules, item effects, enemies and pages are referred to but not "
        "part of the rules."
    ),
    "G-QC-02": "Which are the seven dice?",
    "G-QC-03": "Which weekday does a page fall on, and which page ends the prologue?",
    "G-QC-04": "Is a booster's die rolled once per page or for each roll, and do boosters add up?",
    "G-QC-05": "What must an attack reach to hit, what is enough damage, and do ties count?",
    "G-QC-06": "How does DEF lower the damage of a lost round?",
    "G-QC-07": "Which items may be used between combat rounds?",
    "G-QC-08": "How does the unfinished Standard-mode sentence end, and which mode is the default?",
    "G-QC-09": (
        "Does Weakened double before or after DEF, how does Confused meet doubling and flat "
        "modifiers, and do round conditions cover an extra attack?"
    ),
    "G-QC-10": "Can a damage total go below 0?",
    "G-QC-11": (
        "How big is the Smuggler's bonus, can an icon be used twice, and what does a refused 4 "
        "give?"
    ),
    "G-QC-12": "Can HP go below 0, and where does play pick up after a death?",
    "G-QC-13": "After a max-HP injury from the clone roll, which max does the clone's HP follow?",
    "G-QC-14": "Does a negative balance count as having no credits for clone result 1?",
    "G-QC-15": "Which equipment can clone result 3 take, and who chooses it?",
    "G-QC-16": "Does clone result 4 drain surges, and what does a replacement hero keep?",
    "G-QC-17": (
        "Does a Rest remove one injury or every injury of one stat, and before or after HP is "
        "restored?"
    ),
    "G-QC-18": (
        "Is pool capacity gained on a level-up usable at once, and do traits have a maximum?"
    ),
    "G-QC-19": "Does the debt penalty apply again to payments made while already in debt?",
    "G-QC-20": (
        "What does a loss that cannot create debt (lottery, theft) do to a balance that is "
        "already negative?"
    ),
    "G-QC-21": "What happens to a virtue change that would go past -10 or +10?",
    "G-QC-22": "Can HP go above max, and what happens when max falls below current HP?",
    "G-QC-23": "Is shop stock limited, and may the hero sell while in debt?",
    "G-QC-24": "On a day equipment is gained, may every slot change or only the new item's?",
    "G-QC-25": (
        "What must Aim reach to hit, what are reduced and maximum damage, and who wins a tied "
        "Evasion roll?"
    ),
    "G-QC-26": (
        "How much Integrity does a Ship Part restore, and may parts be used after a page's last "
        "roll?"
    ),
    "G-QC-27": (
        "How much Integrity does a crew member add, is it lost with them, and can the fee "
        "create debt?"
    ),
    "G-QC-28": (
        "What is an upgrade's full price, can one go into a compartment at 0, and where does a "
        "swapped-out upgrade go?"
    ),
    "G-QC-29": "With too few rations, are the ones the hero has eaten?",
    "G-QC-30": (
        "On a page with a cure, which comes first: the cure or the end-of-page Infected roll?"
    ),
}
