"""The requests of the game docs that sit outside their walkthroughs (calendar-board.md and
quest-calendar.md, before the walkthrough each doc's reference is checked against), read from
the docs and sent to a real app on both stores."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from tests.docs.examples import checked_block, mismatches, request_of, walkthrough

HERE = Path(__file__).resolve()
TEST = HERE.relative_to(HERE.parents[2]).as_posix()


def sent(client: FlaskClient, block: str, campaign: str = "") -> Any:
    """Send a request block; the answer."""
    method, path, body = request_of(block)
    return client.open(path.replace("{id}", campaign), method=method, json=body)


def test_the_calendar_board_match_is_created_as_its_setup_says(client: FlaskClient) -> None:
    block = checked_block("calendar-board.md", TEST, '"Friday match"')
    answer = sent(client, block)
    assert answer.status_code == 201, answer.json
    _, _, body = request_of(block)
    state, setup = answer.json["state"], body["setup"]
    assert [player["id"] for player in setup["players"]] == list(state["parties"])
    for player in setup["players"]:
        party = state["parties"][player["id"]]
        shown = {k: v for k, v in player.items() if k not in ("id", "pieces", "weapons")}
        shown["pieces"] = {piece["id"]: piece for piece in player["pieces"]}
        shown["weapons"] = {weapon["id"]: weapon for weapon in player.get("weapons", [])}
        assert not mismatches(shown, party), (player["id"], mismatches(shown, party))
    for key in ("starting_token", "annustar", "options"):
        assert state[key] == setup[key], key
    assert [c["id"] for c in state["creatures"]] == [c["id"] for c in setup["creatures"]]
    assert not mismatches(body["house_rules"], state["house_rules"])


def test_a_malformed_field_of_the_setup_is_named_as_the_doc_says(client: FlaskClient) -> None:
    # "Every malformed field is a 422 that names it (for example `players[1].pieces[0].facing`)".
    _, _, body = request_of(checked_block("calendar-board.md", TEST, '"Friday match"'))
    wrong = copy.deepcopy(body)
    wrong["setup"]["players"][1]["pieces"][0]["facing"] = "up"
    answer = client.post("/campaigns", json=wrong)
    assert answer.status_code == 422
    assert list(answer.json["errors"]) == ["players[1].pieces[0].facing"]


def test_the_quest_calendar_campaign_is_created_with_its_house_rule(client: FlaskClient) -> None:
    block = checked_block("quest-calendar.md", TEST, '"Year one"')
    answer = sent(client, block)
    assert answer.status_code == 201, answer.json
    _, _, body = request_of(block)
    assert not mismatches(body["house_rules"], answer.json["state"]["house_rules"])


def test_the_first_command_is_accepted_where_the_doc_says(client: FlaskClient) -> None:
    # The doc: refused until a hero is selected and a page is open (the walkthrough's steps 3
    # and 4); accepted after them.
    block = checked_block("quest-calendar.md", TEST, '"trait_check"')
    steps = walkthrough("quest-calendar.md")
    campaign = ""
    for example in [e for e in steps if e.step <= 4]:
        if example.step == 3 and example.path.endswith("/commands"):
            refused = sent(client, block, campaign)
            assert refused.status_code == 409, refused.json
            assert refused.json["rule"] == "QC-02"
        answer = client.open(
            example.path.replace("{id}", campaign), method=example.method, json=example.body
        )
        assert answer.status_code == example.status, (
            example.where("quest-calendar.md"),
            answer.json,
        )
        campaign = campaign or answer.json["id"]
    answer = sent(client, block, campaign)
    assert answer.status_code == 201, answer.json
    assert [event["type"] for event in answer.json["events"]] == ["qc.CheckRolled"]
