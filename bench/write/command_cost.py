"""What one game command costs, in process: ``python -m bench.write.command_cost``.

Two figures for the Quest Calendar ``trait_check`` (the game command of
docs/performance-results.md):

- **engine**: ``GameRules.run`` alone, on a state with a hero and an open page, with fixed
  faces: the schema, the handler, the event payloads and the patch, no store;
- **stored**: ``Questlog.campaigns.command`` on a SQLite store in a temporary directory, with
  server dice: the engine plus the chain, the dice proof, the append (fsync) and the side tables.

It uses only what every release since 2026-12-01 offers (the commands' own examples, the
application's public methods), so it runs unchanged on an older checkout to compare two commits
(``PYTHONPATH=<checkout> python -m bench.write.command_cost``, from that checkout).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import domain.model.quest_calendar  # noqa: F401  (registers the game)
from domain.model.dice.draw import Draw
from domain.model.games import RULES
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig

GAME = "quest-calendar"


class Faces:
    """Dice that always show the same faces (for the engine alone)."""

    source = "reported"

    def draw(self, sides: Sequence[int]) -> Draw:
        return Draw(faces=[max(1, s // 2) for s in sides], source="reported", proof=None)


def example(name: str) -> dict[str, Any]:
    return dict(RULES[GAME].commands[name].example)


def per_second(run: Callable[[], None], seconds: float, rounds: int) -> tuple[float, list[float]]:
    """Calls per second of ``run``: the median of ``rounds`` timed rounds, and every round."""
    rates = []
    for _ in range(rounds):
        count, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds / rounds:
            run()
            count += 1
        rates.append(count / elapsed)
    return statistics.median(rates), rates


def engine_rate(seconds: float, rounds: int) -> tuple[float, list[float]]:
    rules = RULES[GAME]
    with tempfile.TemporaryDirectory() as folder:
        app = Questlog(StoreConfig(sqlite_path=Path(folder) / "q.db"))
        campaign_id = app.campaigns.create_campaign(game=GAME, name="bench").campaign_id
        for name in ("select_hero", "start_page"):
            app.campaigns.command(campaign_id, example(name))
        campaign = app.campaign(campaign_id)
        state, house = campaign.state, campaign.house_rules
        app.close()
    check = example("trait_check")
    return per_second(lambda: rules.run(state, house, check, Faces()), seconds, rounds)


def stored_rate(seconds: float, rounds: int) -> tuple[float, list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        app = Questlog(StoreConfig(sqlite_path=Path(folder) / "q.db"))
        campaign_id = app.campaigns.create_campaign(game=GAME, name="bench").campaign_id
        for name in ("select_hero", "start_page"):
            app.campaigns.command(campaign_id, example(name))
        check = example("trait_check")
        try:
            return per_second(
                lambda: app.campaigns.command(campaign_id, dict(check)), seconds, rounds
            )
        finally:
            app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="measured seconds per figure")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per figure")
    args = parser.parse_args()
    for label, measure in (("engine", engine_rate), ("stored", stored_rate)):
        median, rates = measure(args.seconds, args.rounds)
        shown = ", ".join(f"{r:,.0f}" for r in rates)
        print(f"{label}: trait_check {median:,.0f} commands/s (rounds: {shown})")


if __name__ == "__main__":
    main()
