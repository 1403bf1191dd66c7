"""``GET /campaigns/{id}/evening``: what was played in a range, as Markdown or HTML a table keeps.

A short Quest Calendar evening (a hero, a page with two trait checks, a combat of two rounds, a
shop, a mistaken toll undone by a rollback, the next page) and a Calendar Board day and night
(a movement roll, day sleep, the night with its decisions and a fate reroll), played through the
API on server dice, on SQLite and PostgreSQL; the export must hold each roll's dice, formula,
purpose, total and game date, the undo in words and the verification link.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient
from markdown_it import MarkdownIt

from projections.evening import purpose_words
from tests.api.api_calls import ApiTable
from tests.api.conftest import client_as
from tests.browser import game_plan as plan
from tests.browser.seed import tamper_with_a_face
from tests.projections.test_runners import _env
from webapi.cli.main import main

Json = dict[str, Any]
QC_EVENING = 10
"""The Quest Calendar plan's first steps: up to opening page 2 (after the undone toll)."""


LUCKY = {
    "id": "lucky",
    "name": "Lucky",
    "usage": "per_rest",
    "context": "both",
    "effect": {"kind": "reroll"},
}
"""A reroll ability (QC-14), spent on the first round's attack."""


def play_qc(client: FlaskClient, name: str = "Year one") -> ApiTable:
    response = client.post("/campaigns", json={**plan.QC_CAMPAIGN, "name": name})
    assert response.status_code == 201, response.json
    created = response.json
    table = ApiTable(client, created)
    steps = plan.qc_steps()[:QC_EVENING]
    hero = {**plan.HERO, "abilities": [*plan.HERO["abilities"], LUCKY]}
    first = plan.step(steps[0].says, " ".join(steps[0].rules), {**steps[0].bodies[0], "hero": hero})
    rerolled: list[bool] = []

    def answer(pending: Json, state: Json) -> Json:
        if pending["commands"][0] == "resolve_round" and not rerolled:
            rerolled.append(True)
            return {"type": "resolve_round", "abilities": [{"id": "lucky", "roll": "attack"}]}
        return plan.qc_answer(pending, state)

    plan.play([first, *steps[1:]], table, answer)
    assert rerolled, "the combat never offered the reroll"
    return table


def play_cb(client: FlaskClient) -> ApiTable:
    response = client.post("/campaigns", json=plan.CB_CAMPAIGN)
    assert response.status_code == 201, response.json
    table = ApiTable(client, response.json)
    plan.play(plan.cb_steps(), table, plan.cb_answer)
    return table


def export(client: FlaskClient, cid: str, **query: Any) -> Any:
    return client.get(f"/campaigns/{cid}/evening", query_string=query)


def rolls_of(table: ApiTable) -> list[Json]:
    return [roll for event in table.events for roll in event["data"].get("rolls") or []]


def test_a_quest_calendar_page_as_markdown_holds_every_roll_and_the_undo(
    store_client: FlaskClient,
) -> None:
    """QC-10 checks, QC-20 combat rounds and the QC-60 toll undone: each roll of the page is
    in the export with its faces, formula, purpose, total and page date; the rollback in words,
    the undone event marked, and the verification link at the range's end."""
    table = play_qc(store_client)
    response = export(store_client, table.cid, date="2027-01-04")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.content_type == "text/markdown; charset=utf-8"
    disposition = response.headers["Content-Disposition"]
    assert disposition == f'attachment; filename="questlog-{table.cid}-2027-01-04.md"'
    text = response.get_data(as_text=True)
    assert text.startswith("# Year one — Quest Calendar\n")
    assert "Pages of 2027-01-04: versions " in text
    rolls = [r for r in rolls_of(table) if r["version"] > 2]
    assert len(rolls) >= 4  # two checks and at least two combat rounds
    for roll in rolls:
        faces = ", ".join(str(d["face"]) for d in roll["dice"])
        row = next(line for line in text.splitlines() if line.startswith(f"| {roll['version']}"))
        assert f"| {roll['notation']} | {faces} |" in row, row
        assert f"| {roll['total']} | " in row
        assert f"| server dice, commitment {roll['proof']['commitment']}" in row
        assert f"nonce {roll['proof']['nonce']}" in row
        assert "| page 2027-01-04 |" in row
        assert roll["purpose"].split(" (")[0] in row
    assert "force the door" in text
    # QC-14: the attack rolled again by the reroll ability, both rolls in the export
    assert re.search(r"[Ll]ucky: the attack roll \d+ → \d+", text), text
    assert "| round 1 (lucky): attack | 1d20 |" in text
    assert "**Undo:** Rolled back to version " in text
    assert "“undo the last command”" in text
    undone = re.findall(
        r"^- v(\d+): ~~.*~~ \*\(undone by the rollback at version (\d+)\)\*$", text, re.M
    )
    assert undone, text
    assert "city toll" in text
    last = int(re.search(r"versions \d+ to (\d+) of", text).group(1))  # type: ignore[union-attr]
    state = store_client.get(f"/campaigns/{table.cid}?version={last}").json
    assert f"version {last}, hash `{state['head_hash']}`" in text
    assert f"<http://localhost/app/campaigns/{table.cid}?version={last}>" in text
    assert f"<http://localhost/campaigns/{table.cid}/bundle>" in text
    assert "Chain: intact" in text
    assert "docs/dice-verification.md" in text
    assert "by store-admin" in text and "#" not in text.split("by store-admin")[1][:3]


def test_a_page_range_and_versions_read_only_their_events(client: FlaskClient) -> None:
    """From_date..to_date spans both pages; a version range holds exactly its versions."""
    table = play_qc(client)
    both = export(client, table.cid, from_date="2027-01-04", to_date="2027-01-05")
    assert both.status_code == 200
    assert "Pages of 2027-01-04 to 2027-01-05" in both.get_data(as_text=True)
    assert "page 2027-01-05" in both.get_data(as_text=True)
    text = export(client, table.cid, from_version=3, to_version=4).get_data(as_text=True)
    assert re.findall(r"^- v(\d+):", text, re.M) == ["3", "4"]
    assert "Versions 3 to 4 of" in text
    assert text.count("(seed not revealed yet)") == 2  # the INT check, in the play and the table
    assert client.post(f"/campaigns/{table.cid}/dice/rotate").status_code == 200
    text = export(client, table.cid, from_version=3, to_version=4).get_data(as_text=True)
    assert text.count("(checked against the revealed seed)") == 2


def test_a_calendar_board_day_and_night_names_seats_rounds_and_the_fate_reroll(
    store_client: FlaskClient,
) -> None:
    """CB-01 a round's turns and CB-02 the night after it, with CB-10's fate reroll: each roll
    with its round or night, the seats that acted, the decisions asked and answered."""
    table = play_cb(store_client)
    response = export(store_client, table.cid, night=1, format="html")
    assert response.status_code == 200
    assert response.content_type == "text/html; charset=utf-8"
    assert response.headers["Content-Disposition"].endswith(f'-{table.cid}-night-1.html"')
    page = response.get_data(as_text=True)
    assert "Day and night 1" in page
    assert "round 1, by day" in page and "night 1" in page
    assert "seat A (sent by store-admin)" in page
    assert "Decision asked:" in page and "answers the decision asked above" in page
    assert "a fate reroll" in page
    for roll in rolls_of(table):
        assert f"<td>{roll['notation']}</td>" in page
    markdown = export(store_client, table.cid, night=1).get_data(as_text=True)
    assert "Fate reroll" in markdown or "fate reroll" in markdown


def test_names_and_reasons_are_escaped_in_html_and_markdown(client: FlaskClient) -> None:
    table = play_qc(client, name="<script>alert(1)</script> *bold*")
    back = {"to_version": table.version - 1, "reason": "<script>steal()</script> [x](y)"}
    assert client.post(f"/campaigns/{table.cid}/rollback", json=back).status_code == 201
    page = export(client, table.cid, from_version=1, format="html").get_data(as_text=True)
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;script&gt;steal()&lt;/script&gt;" in page
    assert "Content-Security-Policy" in page and "<style>" in page
    text = export(client, table.cid, from_version=1).get_data(as_text=True)
    assert re.findall(r"(?<!\\)<(?!http://localhost/)", text) == []  # every < escaped
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert "<script" not in rendered and '<a href="y"' not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt; *bold* — Quest Calendar</h1>" in rendered
    assert r"\<script\>alert(1)\</script\> \*bold\*" in text
    assert r"\<script\>steal()\</script\> \[x\](y)" in text


@pytest.mark.parametrize(
    ("query", "field", "says", "status"),
    [
        ({}, "date", "give a range", 422),
        ({"date": "2027-13-01"}, "date", "date", 422),
        ({"date": "2027-01-04", "from_date": "2027-01-04"}, "from_date", "date alone", 422),
        ({"from_date": "2027-01-05"}, "to_date", "both", 422),
        ({"from_date": "2027-01-05", "to_date": "2027-01-04"}, "to_date", "before from_date", 422),
        ({"date": "2027-01-04", "night": 1}, "night", "one kind of range", 422),
        ({"from_version": 0}, "from_version", "1", 422),
        ({"from_version": 5, "to_version": 4}, "to_version", "below from_version", 422),
        ({"format": "pdf", "date": "2027-01-04"}, "format", "markdown", 422),
        ({"date": "2027-01-04", "colour": "red"}, "colour", "Unknown", 422),
        # what this campaign does not hold: the state's refusal (409 not-held), named the same way
        ({"date": "2030-01-01"}, "date", "no page", 409),
        ({"night": 1}, "night", "Calendar Board", 409),
        ({"to_version": 100000}, "to_version", "no version 100000", 409),
    ],
)
def test_bad_ranges_are_refused_by_name(
    client: FlaskClient, query: Json, field: str, says: str, status: int
) -> None:
    table = play_qc(client)
    response = export(client, table.cid, **query)
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.content_type == "application/problem+json"
    errors = response.json["errors"]
    flat = (
        {k: v for loc in errors.values() for k, v in loc.items()} if "query" in errors else errors
    )
    assert field in flat, errors
    assert says in " ".join(flat[field]), errors


def test_a_night_on_a_quest_calendar_log_and_a_date_on_a_board(client: FlaskClient) -> None:
    board = client.post("/campaigns", json=plan.CB_CAMPAIGN).json
    response = export(client, board["id"], date="2027-01-04")
    assert response.status_code == 409
    assert "night" in response.json["errors"]["date"][0]
    response = export(client, board["id"], night=3)
    assert response.status_code == 409
    assert "no day and night 3 yet" in response.json["errors"]["night"][0]


def test_reading_the_export_needs_read_access(client: FlaskClient, flask_app: Any) -> None:
    """A token with no role on a private campaign gets 404, as for its events; a viewer reads."""
    table = play_qc(client)
    stranger = client_as(
        flask_app, client.post("/admin/tokens", json={"name": "nobody"}).json["token"]
    )
    assert export(stranger, table.cid, date="2027-01-04").status_code == 404
    share = client.post(f"/campaigns/{table.cid}/share", json={"name": "players"}).json
    viewer = client_as(flask_app, share["token"])
    response = export(viewer, table.cid, date="2027-01-04")
    assert response.status_code == 200
    assert (
        client_as(flask_app, None)
        .get(f"/campaigns/{table.cid}/evening?date=2027-01-04")
        .status_code
        == 401
    )


def test_the_cli_writes_the_same_evening_as_the_route(
    store_client: FlaskClient, app: Any, tmp_path: Path
) -> None:
    """``questlog export evening``: the same text as the route (but the export time and the
    links' server), to a file or stdout; a bad range is refused by its option's name."""
    table = play_qc(store_client)
    cli = CliRunner()
    env = _env(app.config)
    target = tmp_path / "evening.html"
    args = ["export", "evening", table.cid, "--date", "2027-01-04", "--format", "html"]
    done = cli.invoke(main, [*args, "--output", str(target)], env=env)
    assert done.exit_code == 0, done.output
    assert "wrote" in done.stderr and "pages of 2027-01-04" in done.stderr
    served = export(store_client, table.cid, date="2027-01-04", format="html")
    assert without_time(target.read_text("utf-8")) == without_time(
        served.get_data(as_text=True).replace("http://localhost/", "/")
    )
    printed = cli.invoke(main, ["export", "evening", table.cid, "--from-version", "3"], env=env)
    assert printed.exit_code == 0, printed.output
    assert printed.stdout.startswith("# Year one — Quest Calendar\n")
    assert f"`/app/campaigns/{table.cid}?version=" in printed.stdout
    for wrong, says in (
        (["--from-date", "2027-01-04"], "--to-date: give both from_date and to_date"),
        (["--night", "1"], "--night: nights are the Calendar Board's"),
        (["--to-version", "5000"], "--to-version: no version 5000: the head is version"),
    ):
        refused = cli.invoke(main, ["export", "evening", table.cid, *wrong], env=env)
        assert refused.exit_code == 2, refused.output
        assert says in refused.output
    unknown = cli.invoke(main, ["export", "evening", str(uuid4()), "--date", "2027-01-04"], env=env)
    assert unknown.exit_code == 2 and "does not exist" in unknown.output
    tables = cli.invoke(main, ["export", "--format", "jsonl", "events"], env=env)
    assert tables.exit_code == 0, tables.output  # an option before NAME still counts


def without_time(text: str) -> str:
    return re.sub(r"exported \S+;", "exported …;", text)


def test_an_edited_face_breaks_the_chain_the_export_states(
    client: FlaskClient, tmp_path: Path
) -> None:
    """A face edited in the store is shown as stored, and the verification says the chain is
    broken at that version (the event's hash no longer covers what it holds)."""
    table = play_qc(client)
    good = export(client, table.cid, from_version=1, to_version=5).get_data(as_text=True)
    assert "Chain: intact: the 5 event(s)" in good
    tamper_with_a_face(tmp_path / "api.db", table.cid, 4)
    text = export(client, table.cid, from_version=1, to_version=5).get_data(as_text=True)
    assert "Chain: BROKEN: version 4's hash is not the hash of what it holds" in text


def test_a_roll_by_hand_says_so_with_its_faces(client: FlaskClient) -> None:
    """A reported roll (dice rolled at the table) keeps its faces and says it was rolled by hand;
    a roll outside any command is headed by what it was."""
    table = play_qc(client)
    body = {"dice": "2d6+1", "purpose": "the <table>'s dice", "faces": [6, 2]}
    rolled = client.post(f"/campaigns/{table.cid}/rolls", json=body)
    assert rolled.status_code == 201, rolled.json
    version = rolled.json["version"]
    text = export(client, table.cid, from_version=version).get_data(as_text=True)
    assert f"### Version {version} · page 2027-01-05 · dice rolled · by test-admin" in text
    assert r"the \<table\>'s dice: dice 6, 2, formula 2d6+1, modifier +1, total 9" in text
    assert "rolled by hand (faces reported)" in text


def test_qc10_a_check_roll_line_gives_the_dice_total_and_no_modifier_of_zero(
    client: FlaskClient,
) -> None:
    """A trait check's roll adds its trait outside the dice modifier: the roll line under the
    check's summary (which reads "13 + 3 = 16") says the dice total, not "modifier 0"."""
    table = play_qc(client)
    text = export(client, table.cid, date="2027-01-04").get_data(as_text=True)
    lines = text.splitlines()
    checks = [i for i, line in enumerate(lines) if line.startswith("- v") and " check" in line]
    assert checks, text
    roll = lines[checks[0] + 1]
    assert roll.startswith("  - Roll: ") and ", dice total " in roll, roll
    assert "modifier 0" not in text


@pytest.mark.parametrize(
    ("recorded", "said"),
    [
        ("hail_damage", "hail damage"),
        ("force the door", "force the door"),
        (None, "roll"),
        ("attack (fate reroll of 72-1)", "attack (fate reroll of the roll at version 72)"),
    ],
)
def test_a_roll_purpose_in_the_export_reads_in_words(recorded: Any, said: str) -> None:
    assert purpose_words(recorded) == said
