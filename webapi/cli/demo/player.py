"""A campaign played by the demo: commands sent through ``Questlog.campaigns.command`` as the API
sends them, on the campaign's own verifiable server dice, and a record of what they stored.

The demo never reports faces: every roll is a server roll, so the seed revealed at the end
proves each of them. Where a story beat depends on the dice, the scripts in ``week`` and
``match`` look at the state a command left and choose the next command from it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from uuid import UUID

from domain.facade import CommandResult, Questlog

Json = dict[str, Any]

DEMO_CLIENT_SEED = "questlog-demo"
"""The client seed of every demo campaign: the server seed is still secret and new each run,
so the stories are alike, not identical."""


class DemoError(RuntimeError):
    """The demo could not tell its story (a command it relies on was refused)."""


class Player:
    """One campaign and everything its commands stored, in order."""

    def __init__(self, questlog: Questlog, campaign_id: UUID, state: Json) -> None:
        self.questlog = questlog
        self.id = campaign_id
        self.state = state
        self.events: list[Json] = []
        """The facts of every event stored, as the command results gave them."""
        self.version = 1

    @classmethod
    def create(cls, questlog: Questlog, *, game: str, name: str, **start: Any) -> Player:
        """Create a campaign of ``game`` with the demo's client seed."""
        outcome = result(
            questlog.campaigns.create_campaign(
                game=game, name=name, client_seed=DEMO_CLIENT_SEED, **start
            )
        )
        return cls(questlog, outcome.campaign_id, outcome.value["state"])

    def run(self, command: Json) -> list[Json]:
        """Run one game command on server dice; returns the events it stored."""
        outcome = result(self.questlog.campaigns.command(self.id, command))
        events: list[Json] = outcome.value["events"]
        self.events.extend(events)
        self.state = outcome.value["state"]
        self.version = outcome.version
        return events

    def roll_back(self, to_version: int, reason: str) -> None:
        """Undo the events after ``to_version`` with one recorded ``RolledBack`` event."""
        travel = self.questlog.time_travel
        outcome = result(travel.rollback(self.id, to_version=to_version, reason=reason))
        self.state = outcome.value["state"]
        self.version = outcome.version

    @property
    def pending(self) -> Json | None:
        """The decision the campaign waits for, if any."""
        found: Json | None = self.state.get("pending")
        return found

    def count(self, event_type: str) -> int:
        """How many events of a type (without the game prefix) the demo stored."""
        return self.types()[event_type]

    def types(self) -> Counter[str]:
        """Every event type stored, without its game prefix, with its count."""
        return Counter(str(e["type"]).split(".", 1)[-1] for e in self.events)

    def details(self, event_type: str) -> list[Json]:
        """The details of every stored event of one type, in order."""
        return [
            e["data"]["details"]
            for e in self.events
            if str(e["type"]).split(".", 1)[-1] == event_type
        ]


def of_type(events: list[Json], event_type: str) -> list[Json]:
    """The details of the events of one type (without the game prefix) in a command's events."""
    return [e["data"]["details"] for e in events if str(e["type"]).split(".", 1)[-1] == event_type]


def result(outcome: Any) -> CommandResult:
    """A fresh command's result (the demo sends no idempotency keys, so never a replay)."""
    if not isinstance(outcome, CommandResult):
        raise DemoError(f"unexpected replayed outcome {outcome!r}")
    return outcome
