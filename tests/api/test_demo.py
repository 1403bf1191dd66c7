"""``questlog demo``: a week and a match played on server dice, the views filled,
``--reset``, a second run that adds two campaigns, and the links and roll it prints.

The demo's dice are the server's, so these tests check what every run must contain (the story
beats the demo drives by the state), read back from the store and the views, not from the demo's
own record.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner, Result

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.views import ALL_VIEWS
from tests.unit.test_dice_verification_doc import doc_script
from webapi.app import create_app
from webapi.cli.main import main

WEEK = "Demo: a week of the Voidspark Chronicles"
MATCH = "Demo: a Calendar Board match, two nights"


def demo(db: Path | None, *args: str) -> Result:
    """Run ``questlog demo`` in this process on the SQLite file ``db`` (None: QUESTLOG_DB unset)."""
    env = {"QUESTLOG_DB": None if db is None else str(db), "QUESTLOG_DATABASE_URL": None}
    return CliRunner().invoke(main, ["demo", *args], env=env)


def campaigns(db: Path) -> list[tuple[UUID, str, int, str]]:
    """Every campaign of the store: id, name, version and head hash, in creation order."""
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        page, _ = questlog.reading.list_campaigns(limit=100)
        found = []
        for _, created in page:
            campaign = questlog.campaign(created.originator_id)
            found.append((campaign.id, campaign.name, campaign.version, campaign.head_hash))
        return found
    finally:
        questlog.close()


def event_types(db: Path, campaign_id: UUID) -> Counter[str]:
    """The stored event types of a campaign (class names), with their counts."""
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        return Counter(
            type(e).__name__ for e in questlog.campaign_events(campaign_id, limit=10_000)
        )
    finally:
        questlog.close()


def details(db: Path, campaign_id: UUID, kind: str) -> list[dict[str, Any]]:
    """The details of a campaign's stored events of one type."""
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        events = questlog.campaign_events(campaign_id, limit=10_000)
        return [dict(e.details) for e in events if type(e).__name__ == kind]
    finally:
        questlog.close()


def view_rows(db: Path, campaign_id: UUID) -> dict[str, int]:
    """Rows per view table for one campaign, read straight from the views file."""
    views = db.with_name(f"{db.stem}.views.db")
    with sqlite3.connect(views) as conn:
        return {
            table: conn.execute(
                f"SELECT count(*) FROM view_{table} WHERE campaign_id = ?", (str(campaign_id),)
            ).fetchone()[0]
            for view in ALL_VIEWS
            for table in view.tables
        }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    """One demo run on a fresh store, shared by the read-only checks below."""
    db = tmp_path_factory.mktemp("demo") / "demo.db"
    result = demo(db)
    assert result.exit_code == 0, result.output
    return db, result


def test_the_week_has_every_beat_of_the_issue(played: tuple[Path, Result]) -> None:
    # The Quest Calendar week.
    db, _ = played
    [(week, *_)] = [c for c in campaigns(db) if c[1] == WEEK]
    types = event_types(db, week)
    for kind in (
        "HeroSelected",
        "CheckRolled",
        "Died",
        "Cloned",
        "ShopEntered",
        "ItemSold",
        "ItemBought",
        "PaymentMade",
        "DebtIncurred",
        "RationsConsumed",
        "Rested",
        "LotteryPlayed",
        "DogfightStarted",
        "CrewDied",
        "RolledBack",
        "SeedRotated",
    ):
        assert types[kind] >= 1, kind
    assert types["PageStarted"] == types["PageEnded"] == 7
    assert types["RolledBack"] == 1
    ended = details(db, week, "CombatEnded")
    assert any(c["rounds_won"] == c["rounds_played"] for c in ended), "a combat won"
    assert any(c["rounds_won"] < c["rounds_played"] for c in ended), "a combat lost"
    assert any(p["cleared"] for p in details(db, week, "DebtPaid")), "the debt paid back"


def test_the_match_has_every_beat_of_the_issue(played: tuple[Path, Result]) -> None:
    # The Calendar Board match of three players over two nights.
    db, _ = played
    [(match, *_)] = [c for c in campaigns(db) if c[1] == MATCH]
    types = event_types(db, match)
    assert types["NightPhaseStarted"] == 2
    for kind in (
        "SupplySpaceTriggered",
        "HailSaveRolled",
        "WindRolled",
        "RizzAttempted",
        "AmbushRolled",
        "SleptDuringDay",
        "SeedRotated",
    ):
        assert types[kind] >= 1, kind
    climbs = [c for c in details(db, match, "ExhaustionChanged") if c["to"] > c["from"]]
    assert climbs, "an exhaustion track climbs"


def test_every_roll_is_revealed_and_verified(played: tuple[Path, Result]) -> None:
    # The seed rotated at the end, so every roll is verifiable.
    db, _ = played
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        for campaign_id, *_ in campaigns(db):
            report = questlog.reading.audit(campaign_id)
            assert report.ok
            assert report.rolls["server"] > 10
            assert report.rolls["verified"] == report.rolls["server"]
    finally:
        questlog.close()


def test_every_view_has_rows_and_the_dice_analytics_can_draw(played: tuple[Path, Result]) -> None:
    # Every read model has rows after the demo, and /analytics/dice is full.
    db, _ = played
    ids = [c[0] for c in campaigns(db)]
    both = Counter[str]()
    for campaign_id in ids:
        both.update(view_rows(db, campaign_id))
    assert all(both[table] > 0 for view in ALL_VIEWS for table in view.tables), both
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        client = create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client()
        response = client.get("/analytics/dice?source=server")
        assert response.status_code == 200, response.get_json()
        dice = {entry["sides"]: entry for entry in response.get_json()["dice"]}
    finally:
        questlog.close()
    assert {4, 6, 20, 100} <= set(dice)
    assert dice[20]["test"] is not None, "enough d20s for a chi-square test"


def test_it_prints_the_story_the_server_command_the_share_links_and_a_roll_to_check(
    played: tuple[Path, Result], tmp_path: Path
) -> None:
    db, result = played
    out = result.output
    assert WEEK in out and MATCH in out
    assert f"QUESTLOG_DB={db} questlog serve" in out
    links = re.findall(r"http://127\.0\.0\.1:8000/app/campaigns/([0-9a-f-]{36})#token=(\S+)", out)
    assert len(links) == 2
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        client = create_app(questlog, auth=True, rate_limit=0, TESTING=True).test_client()
        (own, token), (other, _) = links
        bearer = {"Authorization": f"Bearer {token}"}
        assert client.get(f"/campaigns/{own}", headers=bearer).status_code == 200
        assert client.get(f"/campaigns/{other}", headers=bearer).status_code in (403, 404)
        assert client.post(
            f"/campaigns/{own}/commands", json={"type": "end_page"}, headers=bearer
        ).status_code in (401, 403)
        # The printed curl line works as printed: its path and its bearer token.
        [curl] = re.findall(
            r"curl http://127\.0\.0\.1:8000(\S+) -H \"Authorization: Bearer (\S+)\"", out
        )
        path, printed = curl
        answer = client.get(path, headers={"Authorization": f"Bearer {printed}"})
        assert answer.status_code == 200 and answer.get_json()["roll_id"] in path
    finally:
        questlog.close()
    # The disputed roll: the printed arguments of the script in docs/dice-verification.md.
    [line] = [line for line in out.splitlines() if "python verify_roll.py" in line]
    script = tmp_path / "verify_roll.py"
    script.write_text(doc_script(), encoding="utf-8")
    arguments = shlex.split(line.split("python verify_roll.py", 1)[1])
    checked = subprocess.run(
        [sys.executable, "-I", str(script), *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_second_run_adds_two_campaigns_and_leaves_the_first_untouched(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    assert demo(db).exit_code == 0
    first = campaigns(db)
    assert [name for _, name, _, _ in first] == [WEEK, MATCH]
    again = demo(db)
    assert again.exit_code == 0, again.output
    after = campaigns(db)
    assert len(after) == 4
    assert after[:2] == first, "the first run's campaigns are unchanged (version, head hash)"
    assert {c[0] for c in after[2:]}.isdisjoint(c[0] for c in first)


def test_reset_starts_on_an_empty_demo_store(tmp_path: Path) -> None:
    # --reset.
    db = tmp_path / "demo.db"
    assert demo(db).exit_code == 0
    first = {c[0] for c in campaigns(db)}
    reset = demo(db, "--reset")
    assert reset.exit_code == 0, reset.output
    after = campaigns(db)
    assert len(after) == 2
    assert first.isdisjoint(c[0] for c in after)


def test_reset_refuses_a_store_with_a_campaign_the_demo_did_not_make(tmp_path: Path) -> None:
    # Bad input changes nothing: QUESTLOG_DB may name a real store.
    db = tmp_path / "real.db"
    questlog = Questlog(StoreConfig(sqlite_path=db))
    try:
        questlog.campaigns.create_campaign(game="quest-calendar", name="Our Tuesday game")
    finally:
        questlog.close()
    before = campaigns(db)
    refused = demo(db, "--reset")
    assert refused.exit_code == 2
    assert "--reset" in refused.output and "Our Tuesday game" in refused.output
    assert campaigns(db) == before


def test_without_questlog_db_the_demo_uses_questlog_demo_db_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = demo(None)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "questlog-demo.db").exists()
    assert not (tmp_path / "questlog.db").exists()
    assert "QUESTLOG_DB=questlog-demo.db questlog serve" in result.output
