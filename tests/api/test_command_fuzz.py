"""Every command of both games, generated from the schemas the API publishes, sent to campaigns in
many states, on SQLite and on PostgreSQL.

The bodies come from ``GET /commands?game=...`` (tests/api/command_strategies.py): values the
schema accepts, ids the state holds, boundary numbers and one past them, nulls, lone surrogates
and odd Unicode, wrong types, unknown keys. The campaigns are the situations the plans
reach (tests/api/command_scenes.py): a new campaign, a hero with an open page, mid-combat, after a
death, in a shop, mid-dogfight, a match by day, a night waiting on each kind of decision. A scene
waiting on a decision is sent its answers more often than other commands; one in ten commands is
the other game's.

Every answer must be 201, 409 or 422; a refusal must store nothing (the campaign's last stored
event and the store's last notification id as they were; at the end, each campaign's version and
head hash as the API last gave them). Whatever a run of commands stored is undone by a rollback,
so that the next run meets the same situation.

Budget: about ``CI_COMMANDS`` commands per game and store (half as many runs of one to three).
``QUESTLOG_FUZZ_DEEP=1`` sends about ``DEEP_COMMANDS`` instead (docs/architecture.md, which this
file checks), and ``QUESTLOG_FUZZ_COMMANDS=n`` about n. Each run prints its figures (``-s``).
"""

from __future__ import annotations

import os
import shlex
import time
from collections import Counter
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.service.questlog import Questlog
from tests.api.command_scenes import Scene, scenes
from tests.api.command_strategies import Builder, one_thing_wrong, weighted
from tests.api.conftest import TokenClient
from tests.docs.examples import DOCS, checked_block

Json = dict[str, Any]
TEST = "tests/api/test_command_fuzz.py"
GAMES = ("quest-calendar", "calendar-board")
ANSWERS = (201, 409, 422)
CI_COMMANDS = 300
"""Per game and store: the four runs stay well under a minute on a busy two-core machine."""
DEEP_COMMANDS = 50_000
"""Per game and store under ``QUESTLOG_FUZZ_DEEP=1``: 100,000 commands per store."""


def budget() -> int:
    """How many commands each run sends."""
    if os.environ.get("QUESTLOG_FUZZ_COMMANDS"):
        return int(os.environ["QUESTLOG_FUZZ_COMMANDS"])
    return DEEP_COMMANDS if os.environ.get("QUESTLOG_FUZZ_DEEP") == "1" else CI_COMMANDS


class Fuzz:
    """Sends generated commands to the scenes of one game and checks every answer."""

    def __init__(self, client: TokenClient, app: Questlog, game: str) -> None:
        self.client = client
        self.app = app
        self.catalogue = {g: client.get(f"/commands?game={g}").json["commands"] for g in GAMES}
        self.scenes = scenes(client, game)
        self.own = self.catalogue[game]
        self.other = next(c for g, c in self.catalogue.items() if g != game)
        self.commands = {c["name"]: c for c in (*self.own, *self.other)}
        self.strategies: dict[tuple[str, str], st.SearchStrategy[Json]] = {}
        self.answers: Counter[int] = Counter()
        self.stored: Counter[str] = Counter()

    def scene_body(self, scene: Scene, command: Json) -> st.SearchStrategy[Json]:
        """Bodies for this command in this scene: six in ten keep to its schema, three have one
        thing wrong, one is made of hostile values (built once per scene and command)."""
        key = (scene.situation, command["name"])
        if key not in self.strategies:
            keeping = Builder(scene.state, hostile=False).body(command)
            hostile = Builder(scene.state, hostile=True).body(command)
            self.strategies[key] = weighted(
                (6, keeping), (3, one_thing_wrong(keeping)), (1, hostile)
            )
        return self.strategies[key]

    def command(self, state: Json) -> st.SearchStrategy[str]:
        """The name of a command to send: often one the pending decision accepts, one in ten
        the other game's."""
        own = st.sampled_from([c["name"] for c in self.own])
        answers = (state.get("pending") or {}).get("commands") or []
        mostly = [(4, own), (5, st.sampled_from(answers))] if answers else [(9, own)]
        return weighted(*mostly, (1, st.sampled_from([c["name"] for c in self.other])))

    def send(self, scene: Scene, body: Json) -> Json | None:
        """POST one command and check its answer: the state after it if it was stored, else
        None once it is sure that nothing was stored."""
        notification = self.app.recorder.max_notification_id()
        response = self.client.post(scene.url("/commands"), json=body)
        status = response.status_code
        self.answers[status] += 1
        assert status in ANSWERS, (scene.situation, body, status, response.json)
        if status == 201:
            self.stored[f"{scene.situation}: {body['type']}"] += 1
            scene.version, scene.head = response.json["version"], response.json["head_hash"]
            state: Json = response.json["state"]
            return state
        assert response.json["status"] == status, response.json
        # Nothing stored: not in this campaign (its last event is the one before), nor anywhere.
        [last] = self.app.recorder.select_events(UUID(scene.campaign), desc=True, limit=1)
        assert last.originator_version == scene.version, (scene.situation, body)
        assert self.app.recorder.max_notification_id() == notification, (scene.situation, body)
        return None

    def run(self, commands: int) -> None:
        """Send about ``commands`` generated commands, in runs of one to three to a scene (so a
        command may meet what the one before it did), each run undone by a rollback if anything
        was stored. Hypothesis shrinks a run that fails."""

        @given(data=st.data())
        @settings(
            max_examples=max(1, commands // 2),
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def one(data: st.DataObject) -> None:
            scene = data.draw(st.sampled_from(self.scenes), label="scene")
            moved = False
            try:
                for step in range(data.draw(st.integers(1, 3), label="commands")):
                    # Drawn from the scene as forked, never from a state the server dice made:
                    # Hypothesis must draw the same way each time it runs an example.
                    name = data.draw(self.command(scene.state), label="command")
                    command = self.commands[name]
                    body = data.draw(self.scene_body(scene, command), label=f"body {step + 1}")
                    moved = self.send(scene, body) is not None or moved
            finally:
                if moved:
                    scene.go_back(self.client)

        one()


@pytest.mark.parametrize("game", GAMES)
def test_generated_commands_answer_201_409_or_422_and_refusals_store_nothing(
    store_client: TokenClient, app: Questlog, game: str
) -> None:
    """No command its schema accepts, nor any other JSON body, fails the server."""
    fuzz = Fuzz(store_client, app, game)
    commands = budget()
    started = time.monotonic()
    fuzz.run(commands)
    seconds = time.monotonic() - started
    sent = sum(fuzz.answers.values())
    print(
        f"\n{game} on {app.config.kind}: {sent} commands in {seconds:.0f} s "
        f"({len(fuzz.scenes)} situations): answers {dict(sorted(fuzz.answers.items()))}, "
        f"{len(fuzz.stored)} (situation, command) pairs stored"
    )
    assert sent >= commands // 2  # at least one command per run
    # Every kind of answer occurs: the bodies get past the schema to the rules, and past those.
    assert fuzz.answers[201] > 0 and fuzz.answers[409] > 0 and fuzz.answers[422] > 0
    for scene in fuzz.scenes:
        assert scene.stored(store_client) == (scene.version, scene.head)


def test_the_deep_run_is_documented_as_it_runs() -> None:
    """docs/architecture.md gives the command of the deep run and both budgets as they are."""
    words = shlex.split(checked_block("architecture.md", TEST, "QUESTLOG_FUZZ_DEEP"))
    assert words[0] == "QUESTLOG_FUZZ_DEEP=1" and TEST in words
    text = " ".join((DOCS / "architecture.md").read_text(encoding="utf-8").split())
    assert f"CI sends about {CI_COMMANDS} commands per game" in text
    deep = f"the deep run about {DEEP_COMMANDS:,} per game and store, {DEEP_COMMANDS * 4:,} in all"
    assert deep in text
