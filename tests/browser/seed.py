"""The store the browser tests open: both games, tokens of each role, one tampered roll.

Run it alone to try the page by hand: ``python -m tests.browser.seed DB`` seeds DB and prints the
tokens and the campaign ids (then ``QUESTLOG_DB=DB questlog serve``).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

from bench.page.campaigns import LONG_EVENTS, long_campaign
from domain.model import samples
from domain.model.access import Membership, acting_as
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.fixtures.make_release_store import (
    HAIL_SETUP,
    HERO,
    play_calendar_board,
    play_quest_calendar,
)
from webapi.cli.demo.match import play_match


@dataclass
class Seeded:
    """What the seeded store holds: the tokens' secrets and the campaigns' ids by purpose."""

    tokens: dict[str, str] = field(default_factory=dict)
    campaigns: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)


def hero_on_a_page(app: Questlog, name: str) -> UUID:
    """A Quest Calendar campaign whose hero has a page open (2027-01-04)."""
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name=name, setup={"prologue_complete": True}
    ).campaign_id
    app.campaigns.command(cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    app.campaigns.command(cid, {"type": "start_page", "date": "2027-01-04"})
    return cid


def two_rounds(app: Questlog) -> tuple[UUID, int]:
    """A match of A and B (calendar nights only) two rounds in, and the version after round one."""
    cid = app.campaigns.create_campaign(
        game="calendar-board",
        name="Two rounds",
        house_rules={**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
        setup={"players": [{"id": "A"}, {"id": "B"}]},
    ).campaign_id
    app.campaigns.command(cid, {"type": "end_turn", "player": "A"})
    app.campaigns.command(cid, {"type": "end_turn", "player": "B", "faces": [2]})
    round_two = app.campaign(cid).version
    app.campaigns.command(cid, {"type": "end_turn", "player": "A"})
    app.campaigns.command(cid, {"type": "end_turn", "player": "B", "faces": [3]})
    return cid, round_two


def hail_night(app: Questlog) -> UUID:
    """A match whose fourth night lands on hail: A failed the save and may use a fate reroll."""
    cid = app.campaigns.create_campaign(
        game="calendar-board",
        name="A hail night",
        house_rules={**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
        setup=HAIL_SETUP,
    ).campaign_id
    for faces in ([4], [4], [4], [1, 1]):  # god piece 4 -> 8 -> 12 -> 13 (hail); A's save: 1
        app.campaigns.command(cid, {"type": "end_turn", "player": "A"})
        app.campaigns.command(cid, {"type": "end_turn", "player": "B", "faces": faces})
    return cid


def tamper_with_a_face(db: Path, campaign_id: str, version: int) -> None:
    """Edit the first stored face of the roll at this version, as someone with the file might."""
    with sqlite3.connect(db) as conn:
        (state,) = conn.execute(
            "SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
            (UUID(campaign_id).hex, version),
        ).fetchone()
        fields = json.loads(state)
        die = fields["rolls"][0]["dice"][0]
        die["face"] = die["face"] % die["sides"] + 1
        edited = json.dumps(fields, separators=(",", ":")).encode()
        conn.execute(
            "UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (edited, UUID(campaign_id).hex, version),
        )


def seed(db: Path) -> Seeded:
    """Seed a new store at ``db`` (the server is not running yet)."""
    out = Seeded()
    app = Questlog(StoreConfig(sqlite_path=db))
    try:
        owner, out.tokens["owner"] = app.access.create_token("owner")
        viewer, out.tokens["viewer"] = app.access.create_token("viewer")
        bee, out.tokens["bee"] = app.access.create_token("bee")
        with acting_as(owner):
            qc, _fork = play_quest_calendar(app)
            out.campaigns["qc"] = str(qc)
            out.campaigns["play"] = str(hero_on_a_page(app, "A page to play"))
            pending = hero_on_a_page(app, "A pickpocket's four")
            app.campaigns.command(pending, {"type": "pickpocket", "icon_id": "alley", "faces": [4]})
            out.campaigns["pending"] = str(pending)
            undo = hero_on_a_page(app, "A page to undo")
            for amount in (3, 4):
                app.campaigns.command(
                    undo, {"type": "gain_credits", "amount": amount, "cause": "salvage"}
                )
            out.campaigns["undo"] = str(undo)
            out.campaigns["live"] = str(hero_on_a_page(app, "Played elsewhere"))
            tampered = app.campaigns.create_campaign(
                game="quest-calendar", name="Tampered"
            ).campaign_id
            for n in range(3):
                app.dice.roll(tampered, notation="d20", purpose=f"roll {n + 1}")
            app.dice.rotate_seed(tampered)
            out.campaigns["tampered"] = str(tampered)
            entropy = app.campaigns.create_campaign(
                game="quest-calendar", name="Entropy"
            ).campaign_id
            app.dice.roll(
                entropy, notation="3d20", purpose="with entropy", entropy="From-the-player_1"
            )
            app.dice.roll(entropy, notation="3d20", purpose="without")
            app.dice.rotate_seed(entropy)
            out.campaigns["entropy"] = str(entropy)
            out.campaigns["long"] = str(long_campaign(app, LONG_EVENTS))
        out.campaigns["cb"] = str(play_calendar_board(app))
        with acting_as(owner):
            match, out.versions["match-round-two"] = two_rounds(app)
            out.campaigns["match"] = str(match)
        app.side_tables.set_member(Membership(str(match), owner.id, "owner", seat="A"))
        app.side_tables.set_member(Membership(str(match), bee.id, "player", seat="B"))
        with acting_as(owner):
            out.campaigns["hail"] = str(hail_night(app))
            # the demo's match: two nights with exhaustion climbing (the exhaustion chart)
            out.campaigns["demo-match"] = str(play_match(app).id)
            # a match of its own for the invite test, which seats a player: the proposal test
            # counts demo-match's unheld seats, in whatever order the two run
            out.campaigns["invite-match"] = str(play_match(app, "A match to invite into").id)
        app.side_tables.set_member(Membership(out.campaigns["hail"], owner.id, "owner", seat="A"))
        # the match's owner plays seat A, so that its rollbacks go through proposals
        app.side_tables.set_member(Membership(out.campaigns["cb"], owner.id, "owner", seat="A"))
        for cid in out.campaigns.values():
            app.side_tables.set_member(Membership(cid, viewer.id, "viewer"))
    finally:
        app.close()
    # the roll at version 3 is the second: the page must call that one, and only it, a mismatch
    tamper_with_a_face(db, out.campaigns["tampered"], 3)
    return out


if __name__ == "__main__":
    seeded = seed(Path(sys.argv[1]))
    print(json.dumps({"tokens": seeded.tokens, "campaigns": seeded.campaigns}, indent=2))
