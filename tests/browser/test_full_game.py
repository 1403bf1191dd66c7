"""A whole game of each kind played on the page alone, from an empty server
holding only an admin token. The plan (tests/browser/game_plan.py, proven through the API by
tests/api/test_game_plan.py) is replayed by clicks and typing (tests/browser/page_table.py); the
owner reveals the seed and every roll reads verified; the stored events hold exactly the bodies
the test chose. The clicks and fields per step are printed (``-s``) and written to
``effort.json`` in the test's tmp dir.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser import game_plan as plan
from tests.browser.conftest import Watch
from tests.browser.page_table import (
    Effort,
    PageTable,
    at_version,
    build_setup,
    change_house_rules,
    create,
    open_new_campaign,
    posted,
    ready,
    sign_in,
)
from tests.browser.seed import Seeded
from tests.browser.server import QUESTLOG, Server, running

pytestmark = pytest.mark.browser
Json = dict[str, Any]


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[Server]:
    """``questlog serve`` on a new store whose only token is an admin's (``questlog token
    create --admin``)."""
    folder = tmp_path_factory.mktemp("empty")
    env = {**os.environ, "QUESTLOG_DB": str(folder / "questlog.db")}
    env.pop("QUESTLOG_DATABASE_URL", None)
    made = subprocess.run(
        [*QUESTLOG, "token", "create", "--name", "admin", "--admin"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    secret = made.stdout.strip().splitlines()[-1]
    with running(folder, seeded=Seeded(tokens={"owner": secret})) as started:
        yield started


def read_api(server: Server, path: str) -> Any:
    """GET with the admin token: only to check, after the page played."""
    request = urllib.request.Request(server.url(path))
    request.add_header("Authorization", f"Bearer {server.seeded.tokens['owner']}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def new_context(browser: Any, server: Server, watches: list[Watch]) -> Any:
    """A browser context of its own (its own storage), and its page, watched."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    watch = Watch(urlsplit(server.base).netloc)
    page.on("request", lambda r: watch.requests.append(r.url))
    page.on("response", lambda r: r.status >= 400 and watch.refusals.append((r.status, r.url)))
    page.on("console", lambda m: m.type == "error" and watch.console_errors.append(m.text))
    page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    watches.append(watch)
    return page


def play(table: PageTable, effort: Effort, steps: list[plan.Step], answer: plan.Answer) -> Any:
    """The plan's steps in order (game_plan.play), each counted under its words."""
    trace = plan.Trace()
    state: Json = table.state
    for step in steps:
        effort.begin(step.says)
        if step.undo:
            state = table.undo()
            trace.undone += 1
        else:
            state = plan.play_step(step, table, answer, trace, state)
    return trace


def reveal_and_verify(effort: Effort, page: Any) -> int:
    """ "Reveal the seed" on the owner's card; then every roll on the page reads verified.
    The number of rolls shown."""
    effort.begin("Reveal the seed")
    effort.click(page.get_by_role("button", name="Reveal the seed"))
    with page.expect_response(posted("/dice/rotate")) as answered:  # asked once more first
        effort.click(page.get_by_role("button", name="Reveal", exact=True))
    assert answered.value.status == 200, answered.value.text()
    at_version(page, int(answered.value.json()["version"]))  # the SeedRotated event, shown
    verified = page.locator('[data-roll-id][data-verdict="verified"]')
    expect(verified).not_to_have_count(0)
    expect(page.locator('[data-roll-id]:not([data-verdict="verified"])')).to_have_count(0)
    return verified.count()


def stored(server: Server, cid: str) -> list[Json]:
    items: list[Json] = read_api(server, f"/campaigns/{cid}/events?limit=1000")["items"]
    return items


def check_log(server: Server, cid: str, chosen: Json, commands: list[Json]) -> list[Json]:
    """The stored commands are the bodies chosen (plus the page's entropy, a string, on every
    command the page sent: the browser's share of the dice); the creation event's house rules
    are the defaults and the ones changed. The events, for more checks."""
    events = stored(server, cid)
    by_command: dict[Any, Json] = {}
    for event in events:
        data = event["data"]
        if "command" in data:
            by_command.setdefault(data["command_id"], data["command"])
    kept = list(by_command.values())
    assert len(kept) == len(commands)
    for stored_body, body in zip(kept, commands, strict=True):
        extra = set(stored_body) - set(body)
        assert extra <= {"entropy"}, (stored_body, body)
        assert {k: v for k, v in stored_body.items() if k != "entropy"} == body
    created = events[0]["data"]
    game = chosen["game"]
    rules = read_api(server, f"/house-rules?game={game}")["rules"]
    defaults = {r["key"]: r["default"] for r in rules}
    assert created["house_rules"] == {**defaults, **chosen.get("house_rules", {})}
    assert created["name"] == chosen["name"]
    return events


def print_effort(name: str, effort: Effort) -> list[Json]:
    rows = effort.rows()
    print(f"\n{name}: clicks and fields filled per step")
    print(f"{'step':<84} {'clicks':>6} {'fields':>6}")
    for row in rows:
        print(f"{row['step'][:84]:<84} {row['clicks']:>6} {row['fields']:>6}")
    return rows


def quest_calendar(browser: Any, server: Server, watches: list[Watch]) -> Json:
    """Sign in, "New campaign" with the sample Scout, the three pages, the reveal."""
    effort = Effort()
    page = new_context(browser, server, watches)
    effort.begin("Sign in with the admin token")
    sign_in(effort, page, server.base, server.seeded.tokens["owner"])
    effort.begin("New campaign: the game, its name, the prologue done, a house rule, a hero")
    open_new_campaign(effort, page, "quest-calendar", plan.QC_CAMPAIGN["name"])
    effort.click(page.get_by_label("The prologue is complete"))
    effort.select(page.get_by_label("Hero", exact=True), label="The Scout (sample)")
    change_house_rules(effort, page, plan.QC_CAMPAIGN["house_rules"])
    cid = create(effort, page)
    table = PageTable(effort, {"owner": page}, 2)
    trace = play(table, effort, plan.qc_steps()[1:], plan.qc_answer)
    assert trace.undone == 1 and plan.CLONE_DECISION in trace.answered
    assert "rest_injury" in trace.answered
    rolls = reveal_and_verify(effort, page)
    hero = plan.qc_steps()[0].bodies[0]  # the sample Scout, as the page sends it
    events = check_log(server, cid, plan.QC_CAMPAIGN, [hero, *trace.sent])
    undone = [e for e in events if e["type"].endswith("RolledBack")]
    assert [e["data"]["reason"] for e in undone] == table.reasons
    figures = {"campaign": cid, "versions": table.version, "rolls verified": rolls}
    return {**figures, "effort": print_effort("Quest Calendar", effort)}


def offered_seats(owner: Any) -> list[str]:
    """The seats the owner's "roll_movement" form offers (opened from "All commands")."""
    every = owner.locator("details.all-commands")
    if not every.evaluate("d => d.open"):
        every.locator("summary").click()
    every.locator('li[data-command="roll_movement"] button').click()
    form = owner.locator('.form-slot form[data-command="roll_movement"]')
    seats: list[str] = form.locator('select[name="player"] option').evaluate_all(
        "options => options.map((o) => o.value).filter(Boolean)"
    )
    return seats


def invite(effort: Effort, owner: Any, seat: str) -> str:
    """ "Invite seat X" on the owner's card; the link it shows. The seat is held from then on:
    the owner's forms stop offering it at once (a trial found them offering it until the next
    refresh)."""
    assert seat in offered_seats(owner)
    effort.click(owner.get_by_role("button", name=f"Invite seat {seat}"))
    link = owner.locator(f'p[data-invite-seat="{seat}"] input')
    link.wait_for()
    ready(owner)
    deadline = time.monotonic() + 10  # the page shows itself again once it has the members
    while seat in offered_seats(owner) and time.monotonic() < deadline:
        owner.wait_for_timeout(200)
    assert seat not in offered_seats(owner)
    return str(link.input_value())


def calendar_board(browser: Any, server: Server, watches: list[Watch]) -> Json:
    """The match built on the page, two seats invited into their own browsers, a day and a
    night played seat by seat, the reveal."""
    effort = Effort()
    owner = new_context(browser, server, watches)
    effort.begin("Sign in with the admin token")
    sign_in(effort, owner, server.base, server.seeded.tokens["owner"])
    effort.begin("New campaign: a match, the setup builder, the layout")
    open_new_campaign(effort, owner, "calendar-board", plan.CB_CAMPAIGN["name"])
    sent: list[Json] = []
    owner.on(
        "request",
        lambda r: (
            r.method == "POST"
            and r.url.endswith("/campaigns")
            and sent.append(json.loads(r.post_data or "{}"))
        ),
    )
    build_setup(effort, owner, plan.CB_CAMPAIGN["setup"])
    change_house_rules(effort, owner, plan.CB_CAMPAIGN["house_rules"])
    cid = create(effort, owner)
    assert sent == [plan.CB_CAMPAIGN]
    pages = {"owner": owner, "A": owner}
    for seat in ("B", "C"):
        effort.begin(
            f"The owner invites seat {seat}; {seat} opens the link in a browser of its own"
        )
        link = invite(effort, owner, seat)
        player = new_context(browser, server, watches)
        player.goto(link)
        ready(player)
        expect(player.locator("[data-turn]")).to_be_attached()
        pages[seat] = player
    table = PageTable(effort, pages, 1)
    trace = play(table, effort, plan.cb_steps(), plan.cb_answer)
    rizz = [b for b in trace.sent if b.get("action") == "rizz"]
    assert rizz == [{"type": "night_action", "player": "B", **plan.NIGHT_ACTIONS["B"]}]
    assert any(b["type"] == "fate_reroll" for b in trace.sent)
    at_version(owner, table.version)  # the last answer may have come from another seat's page
    rolls = reveal_and_verify(effort, owner)
    check_log(server, cid, plan.CB_CAMPAIGN, trace.sent)
    figures = {"campaign": cid, "versions": table.version, "rolls verified": rolls}
    return {**figures, "effort": print_effort("Calendar Board", effort)}


def test_a_whole_game_of_each_kind_on_the_page_alone(
    browser: Any, empty_server: Server, tmp_path: Path
) -> None:
    watches: list[Watch] = []
    figures = {
        "quest-calendar": quest_calendar(browser, empty_server, watches),
        "calendar-board": calendar_board(browser, empty_server, watches),
    }
    out = tmp_path / "effort.json"
    out.write_text(json.dumps(figures, indent=2))
    print(f"\nwritten to {out}")
    for watch in watches:
        watch.check()
