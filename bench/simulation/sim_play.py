"""The tables the simulation plays: Quest Calendar pages and Calendar Board nights, server dice.

Each table is one campaign and a small player that chooses its next command the way a table
does: from the game's own set-ups (the sample Vanguard of ``domain/model/samples.py``, and
``tests/application/cb_match_data.py`` copied here in the few fields the simulation needs, because
``bench`` must not import ``tests``)
and from what the engine asks for next (a pending decision names the commands it accepts and the
options). Dice are the campaign's verifiable server dice, so outcomes vary as in real play; a
command the rules refuse (a 409) is counted, as a real table's mistakes would be, and the player
moves on. Every command goes through ``Questlog`` exactly as the API sends it.
"""

from __future__ import annotations

import random
import threading
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any
from uuid import UUID

from domain.model import samples
from domain.model.errors import InvalidInput, RuleViolation
from domain.service.questlog import Questlog

Json = dict[str, Any]

TALLY_LOCK = threading.Lock()

# A year of combats without a death: the simulation measures the store, not the hero's luck.
QC_HERO: Json = samples.variant(
    samples.BARE_VANGUARD, hp_max=10_000, abilities=[samples.SMITE], inventory=[]
)
QC_ROUNDS: list[Json] = [
    {"enemy": "Void hound", "hit_target": 14, "damage_needed": 7, "enemy_attack": 13,
     "damage_reduced": 3, "damage_full": 6},
    {"enemy": "Scrap drone", "hit_target": 13, "damage_needed": 6, "enemy_attack": 12,
     "damage_reduced": 4, "damage_full": 7},
]  # fmt: skip
QC_TRAITS = ("STR", "DEX", "CON", "INT", "WIS", "CHA")
QC_NOTATIONS = ("d20", "2d6", "d100", "d8+1", "2d20kh1")


def _pathway(space: int) -> Json:
    return {"kind": "pathway", "space": space}


CB_HOME: Json = {"kind": "home"}
CB_FOUR_PLAYERS: Json = {
    "players": [
        {"id": "A", "pieces": [{"id": "a1", "location": _pathway(2), "facing": "N"},
                               {"id": "a2", "location": CB_HOME}]},
        {"id": "B", "int_mod": 3, "pieces": [{"id": "b1", "location": _pathway(0), "facing": "N"},
                                             {"id": "b2", "location": CB_HOME, "facing": "S"}]},
        {"id": "C", "luck_mod": -1, "pieces": [{"id": "c1", "location": _pathway(9)}]},
        {"id": "D", "exhaustion": 1, "pieces": [{"id": "d1", "location": _pathway(11)},
                                                {"id": "d3", "location": CB_HOME}]},
    ],
    "starting_token": "B",
    "creatures": [{"id": "z1", "type": "Zombie"}, {"id": "o1", "type": "Ophanim"},
                  {"id": "z2", "type": "Zombie"}],
    "options": {"ceasefire_rule": False, "event_rules": False},
}  # fmt: skip
CB_THREE_PLAYERS: Json = {
    **CB_FOUR_PLAYERS,
    "players": CB_FOUR_PLAYERS["players"][:3],
    "starting_token": "A",
}


@dataclass
class Tally:
    """What the tables of one process did: commands by type and outcome, events appended."""

    commands: Counter[str] = field(default_factory=Counter)
    """Stored commands by ``game/type``."""
    refused: Counter[str] = field(default_factory=Counter)
    """Commands the rules refused (nothing stored), by ``game/type``."""
    events: Counter[str] = field(default_factory=Counter)
    """Events appended, by game (campaign creations included)."""
    campaigns: Counter[str] = field(default_factory=Counter)
    """Campaigns created, by game."""
    nights: int = 0
    """Calendar Board nights played (``NightPhaseStarted`` events)."""

    def add(self, other: Tally) -> None:
        """Fold another tally into this one."""
        for mine, theirs in self.counters(other):
            mine.update(theirs)
        self.nights += other.nights

    def minus(self, before: Tally) -> Tally:
        """What was counted since ``before`` (a copy taken earlier)."""
        since = Tally(nights=self.nights - before.nights)
        for mine, theirs in since.counters(self):
            mine.update(theirs)
        for mine, theirs in since.counters(before):
            mine.subtract(theirs)
        return since

    def counters(self, other: Tally) -> list[tuple[Counter[str], Counter[str]]]:
        """Each counter of this tally beside the same counter of ``other``."""
        return [
            (self.commands, other.commands),
            (self.refused, other.refused),
            (self.events, other.events),
            (self.campaigns, other.campaigns),
        ]

    def of_game(self, game: str, kind: str) -> int:
        """Stored commands of one type in one game."""
        return self.commands[f"{game}/{kind}"]

    def game_commands(self, game: str) -> int:
        """Stored commands of one game."""
        return sum(n for key, n in self.commands.items() if key.startswith(f"{game}/"))


class Table(ABC):
    """One campaign and the player who chooses its next command."""

    game = ""

    def __init__(self, app: Questlog, rng: random.Random, tally: Tally) -> None:
        self.app = app
        self.rng = rng
        self.tally = tally
        self.queue: list[Json] = []
        self.id = self.start()
        tally.campaigns[self.game] += 1
        tally.events[self.game] += 1

    @abstractmethod
    def start(self) -> UUID:
        """Create the campaign (one command, one event)."""

    @abstractmethod
    def next_command(self) -> Json:
        """The command this table sends next."""

    def play_one(self) -> None:
        """Send the next command; count it, its events, or the rule that refused it."""
        body = self.next_command()
        kind = str(body["type"])
        try:
            if kind == "roll":
                outcome = self.app.dice.roll(
                    self.id, notation=body["dice"], purpose=body["purpose"]
                )
                events: list[Json] = [{"type": "rolled"}]
            else:
                outcome = self.app.campaigns.command(self.id, body)
                events = outcome.value["events"]
        except (RuleViolation, InvalidInput):
            with TALLY_LOCK:
                self.tally.refused[f"{self.game}/{kind}"] += 1
            self.after_refusal(body)
            return
        with TALLY_LOCK:  # the tables of a process share one tally, across its threads
            self.tally.commands[f"{self.game}/{kind}"] += 1
            self.tally.events[self.game] += len(events)
            self.tally.nights += sum(1 for e in events if e["type"] == "cb.NightPhaseStarted")
        self.after(body, outcome.value)

    def after(self, body: Json, value: Any) -> None:  # noqa: B027 - a hook, empty by default
        """Look at what the command did (the default: nothing)."""

    def after_refusal(self, body: Json) -> None:  # noqa: B027 - a hook, empty by default
        """Recover from a refused command (the default: nothing; the next one is chosen anew)."""


class QuestCalendarTable(Table):
    """A Quest Calendar page a session: start it, 20 to 60 commands, end it."""

    game = "quest-calendar"

    def start(self) -> UUID:
        created = self.app.campaigns.create_campaign(
            game=self.game, name="simulated year", setup={"prologue_complete": True}
        )
        self.day = date(2027, 1, 4) + timedelta(days=self.rng.randrange(300))
        self.queue = [{"type": "select_hero", "phase": "main", "hero": QC_HERO}]
        return created.campaign_id

    def next_command(self) -> Json:
        if not self.queue:
            self.queue = self.page()
        return self.queue.pop(0)

    def page(self) -> list[Json]:
        """One page's commands: checks and free rolls, a combat on some pages, a shop on others."""
        commands: list[Json] = [{"type": "start_page", "date": self.day.isoformat()}]
        self.day += timedelta(days=1)
        if self.rng.random() < 0.4:
            commands += [{"type": "start_combat", "kind": "several_enemies", "rounds": QC_ROUNDS}]
            for _ in QC_ROUNDS:
                commands += [{"type": "combat_round"}, {"type": "resolve_round", "abilities": []}]
        if self.rng.random() < 0.2:
            commands += [
                {"type": "gain_credits", "amount": 4, "cause": "salvage"},
                {"type": "enter_shop", "shop_id": "dock-market",
                 "stock": [{"item": {"id": "ration", "name": "Meal Ration", "kind": "other",
                                     "effect": {"kind": "ration"}}, "price": 2}]},
                {"type": "buy", "item": "ration"},
                {"type": "leave_shop"},
            ]  # fmt: skip
        length = self.rng.randint(20, 60)  # a session of 20 to 60 commands
        while len(commands) < length - 1:
            commands.append(self.check_or_roll())
        return [*commands, {"type": "end_page"}]

    def check_or_roll(self) -> Json:
        """A trait check (three times in four) or a free roll with a purpose."""
        if self.rng.random() < 0.75:
            return {
                "type": "trait_check",
                "trait": self.rng.choice(QC_TRAITS),
                "purpose": "page check",
                "target": self.rng.randint(10, 15),
            }
        return {"type": "roll", "dice": self.rng.choice(QC_NOTATIONS), "purpose": "table roll"}

    def after_refusal(self, body: Json) -> None:
        """A refused start_page or end_page would leave the page open: drop the rest of it."""
        if body["type"] in ("start_page", "end_page"):
            self.queue = [{"type": "end_page"}] if body["type"] == "start_page" else []


class CalendarBoardTable(Table):
    """A Calendar Board match: turns, then each night's steps and the decisions they ask for."""

    game = "calendar-board"

    def start(self) -> UUID:
        setup = CB_FOUR_PLAYERS if self.rng.random() < 0.5 else CB_THREE_PLAYERS
        created = self.app.campaigns.create_campaign(
            game=self.game, name="simulated match", setup=setup
        )
        self.state: Json = created.value["state"]
        return created.campaign_id

    def next_command(self) -> Json:
        pending = self.state.get("pending")
        if pending:
            return self.answer(pending)
        player = self.state["turn"]["player"]
        return {"type": "end_turn", "player": player}

    def answer(self, pending: Json) -> Json:
        """Answer the decision the night asks for, with one of the options it offers."""
        decision, who, options = pending["decision"], pending["who"], pending.get("options") or []
        if "decline_fate_reroll" in pending["commands"]:
            return {"type": "decline_fate_reroll", "player": who}
        if decision == "night_roll":  # the player whose roll it is rolls it, on server dice
            return {"type": "roll_night", "player": who, "roll": pending["context"]["roll"]}
        if decision == "creature_order":
            return {"type": "order_creatures", "player": who, "order": options}
        if decision == "supply_weapon":
            return {"type": "choose_supply_weapon", "player": who, "weapon": options[0]}
        if decision == "hail_damage":
            return {"type": "assign_hail_damage", "player": who, "piece": options[0]}
        if decision == "ambush_target":
            option = options[0]
            return {"type": "choose_ambush", "player": who, "piece": option["piece"],
                    "target": option["target"], "form": "raid"}  # fmt: skip
        action = "sleep" if self.rng.random() < 0.7 or "sleep" not in options else "ambush"
        return {"type": "night_action", "player": who, "action": action}

    def after(self, body: Json, value: Any) -> None:
        """Keep the state the command returned: the next decision is read from it."""
        self.state = value["state"]

    def after_refusal(self, body: Json) -> None:
        """Read the state again: a refused night action is answered with sleep next time."""
        self.state = self.app.campaign(self.id).view()
        if self.finished():
            self.id = self.start()
            with TALLY_LOCK:
                self.tally.campaigns[self.game] += 1
                self.tally.events[self.game] += 1

    def finished(self) -> bool:
        """No one left to take a turn and nothing asked: the match is over."""
        return not self.state.get("pending") and not self.state["turn"].get("player")


def calibrate(
    app: Questlog, rng: random.Random, pages: int, nights: int
) -> tuple[Tally, list[UUID]]:
    """Play whole Quest Calendar pages and Calendar Board nights, to measure real play per unit.

    The load's tables stop wherever a step ends, mid-page or mid-night; these play complete
    units, so commands and events per page and per night are exact. Returns the tally and the
    Quest Calendar campaigns played (long real campaigns: the growth part's probes).
    """
    tally = Tally()
    quests = [QuestCalendarTable(app, rng, tally) for _ in range(2)]
    while tally.of_game(QuestCalendarTable.game, "end_page") < pages:
        for table in quests:
            table.play_one()
    board = CalendarBoardTable(app, rng, tally)
    while tally.nights < nights or board.state.get("pending"):
        board.play_one()
    return tally, [table.id for table in quests]
