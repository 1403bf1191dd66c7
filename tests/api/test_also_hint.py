"""A command refused because a decision is pending carries an ``also`` hint: the rule that would
refuse it on its own. The hint runs the command as if no decision were pending; every such run
must end in a rule's refusal or in getting as far as a roll, never in a crash (one logged a
traceback on every ``combat_round`` sent while a combat's last round waited for its abilities).

Every command of each game, as its catalogue example, is sent to every situation of the game's
plans that waits on a decision (tests/api/command_scenes.py)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.api.command_scenes import scenes
from tests.api.conftest import TokenClient

GAMES = ("quest-calendar", "calendar-board")


@pytest.mark.parametrize("game", GAMES)
def test_every_refusal_under_a_pending_decision_gives_its_hint_without_a_traceback(
    client: TokenClient, game: str, caplog: pytest.LogCaptureFixture
) -> None:
    examples: dict[str, Any] = {
        entry["name"]: entry["example"]
        for entry in client.get("/commands", query_string={"game": game}).json["commands"]
    }
    waiting = [scene for scene in scenes(client, game) if scene.state.get("pending")]
    assert waiting, "the plans reach no decision"
    hinted = 0
    with caplog.at_level(logging.WARNING, logger="domain.model.rules_engine"):
        for scene in waiting:
            accepted = set(scene.state["pending"].get("commands", ()))
            for name, body in sorted(examples.items()):
                if name in accepted:
                    continue
                response = client.post(scene.url("/commands"), json=body)
                assert response.status_code == 409, (scene.situation, name, response.json)
                hinted += "also" in response.json
    failed = [r.getMessage() for r in caplog.records if "trial run" in r.getMessage()]
    assert not failed, failed
    assert hinted > 0  # some commands would be refused on their own too
