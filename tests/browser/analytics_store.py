"""The store of the analytics page's test and screenshot: campaigns of both games with every
figure ``GET /analytics/campaigns`` gives (pages, a death and its clone, a combat won and one
lost, nights of exhaustion, weather) and dice of each verdict (fair, too few, loaded), an admin
token, and a viewer's and a player's that may not read analytics.

Run it alone to try the page by hand: ``python -m tests.browser.analytics_store DB`` seeds DB and
prints the tokens (then ``QUESTLOG_DB=DB questlog serve`` and open ``/app/analytics``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from uuid import UUID

from domain.model.access import Membership, acting_as
from domain.model.quest_calendar.combat import ROUND_EXAMPLE
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.browser.seed import Seeded
from tests.fixtures.make_release_store import play_calendar_board, play_quest_calendar
from tests.projections.scenarios import HERO, calendar_board_match, quest_calendar_week, run


def a_fight(app: Questlog, name: str, mode: str, rounds: list[list[int]]) -> UUID:
    """A Quest Calendar page with one combat in this difficulty mode, a round per list of faces
    (QC-21: a round is won by a hit and enough damage; round 2 first checks Frightened, a d20)."""
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name=name, setup={"prologue_complete": True}
    ).campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": "2027-01-04"})
    start = {"type": "start_combat", "kind": "several_enemies", "mode": mode}
    run(app, cid, {**start, "rounds": ROUND_EXAMPLE})
    for faces in rounds:
        run(app, cid, {"type": "combat_round"}, faces)
    run(app, cid, {"type": "end_page"})
    return cid


def dice(app: Questlog) -> None:
    """Fair hand-rolled d6 from ``1d6`` and ``2d6`` mixed (each face equally often: fair, the
    expected counts following the dice, not the rolls), a few server d12, and a hand-rolled d8
    that always shows 8."""
    fair = app.campaigns.create_campaign(game="quest-calendar", name="Fair dice").campaign_id
    faces = [1, 2, 3, 4, 5, 6] * 10
    for face in faces:
        app.dice.roll(fair, notation="1d6", purpose="fair, one die", faces=[face])
    for first, second in zip(faces, reversed(faces), strict=True):  # 120 dice, 20 of each face
        app.dice.roll(fair, notation="2d6", purpose="fair, two dice", faces=[first, second])
    app.dice.roll(fair, notation="2d12", purpose="a few")
    loaded = app.campaigns.create_campaign(
        game="calendar-board", name="Loaded dice", setup={"players": [{"id": "A"}, {"id": "B"}]}
    ).campaign_id
    for _ in range(40):
        app.dice.roll(loaded, notation="d8", purpose="loaded", faces=[8])


def seed_analytics(db: Path) -> Seeded:
    """Seed a new store at ``db`` (the server is not running yet)."""
    out = Seeded()
    app = Questlog(StoreConfig(sqlite_path=db))
    try:
        _admin, out.tokens["admin"] = app.access.create_token("admin", admin=True)
        owner, out.tokens["owner"] = app.access.create_token("owner")
        viewer, out.tokens["viewer"] = app.access.create_token("viewer")
        with acting_as(owner):
            qc, _fork = play_quest_calendar(app)
            out.campaigns["qc"] = str(qc)
            out.campaigns["week"] = str(quest_calendar_week(app))
            out.campaigns["won"] = str(
                a_fight(app, "A fight won", "standard", [[20, 8], [20, 20, 8]])
            )
            out.campaigns["lost"] = str(
                a_fight(app, "A fight lost", "standard", [[20, 8], [1, 1, 1, 1]])
            )
            out.campaigns["match"] = str(calendar_board_match(app))
            dice(app)
        out.campaigns["cb"] = str(play_calendar_board(app))
        for cid in out.campaigns.values():
            app.side_tables.set_member(Membership(cid, viewer.id, "viewer"))
    finally:
        app.close()
    return out


if __name__ == "__main__":
    seeded = seed_analytics(Path(sys.argv[1]))
    print(json.dumps({"tokens": seeded.tokens, "campaigns": seeded.campaigns}, indent=2))
