"""The demo from start to finish: its store, the two campaigns, the seed reveal, the views, and
what a newcomer needs to go and look (share links, a roll to check by hand).

The demo writes to its own SQLite file so that trying it never touches a real store:
``QUESTLOG_DB`` if set, else ``questlog-demo.db`` in the current directory (QUESTLOG_DATABASE_URL
is ignored). Each run adds two campaigns; ``--reset`` deletes the demo store first, and refuses
to when the store holds a campaign the demo did not make.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from domain import settings
from domain.facade import Questlog, StoreConfig
from projections.fairness import dice_fairness
from projections.filters import Filter
from projections.rebuild import catch_up_views
from projections.store import ViewStore, open_view_store, views_path_for
from projections.views import ALL_VIEWS
from webapi.cli.demo.match import play_match
from webapi.cli.demo.player import Json, Player
from webapi.cli.demo.week import play_week

DEMO_DB = "questlog-demo.db"
"""The demo store in the current directory, unless QUESTLOG_DB names another file."""

DEMO_PREFIX = "Demo:"
"""Every campaign the demo makes has a name that starts with this."""

VIEWS_BATCH = 2000


class ResetRefused(RuntimeError):
    """``--reset`` would delete campaigns the demo did not make."""


@dataclass
class Played:
    """One demo campaign after the play: the player's record, its share link and its audit."""

    player: Player
    game: str
    name: str
    share_url: str
    version: int
    """The campaign's version after the seed rotation (how many events it has)."""
    audit_ok: bool
    rolls: dict[str, int]


@dataclass
class DemoResult:
    """Everything the demo prints."""

    store: str
    serve_env: str
    week: Played
    match: Played
    view_rows: dict[str, int] = field(default_factory=dict)
    """Rows of each view table for the two new campaigns."""
    dice_rolls: int = 0
    """Server dice counted by /analytics/dice for the two campaigns."""
    disputed: Json = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Both audits passed and every view table has rows for the new campaigns."""
        views_full = all(count > 0 for count in self.view_rows.values())
        return self.week.audit_ok and self.match.audit_ok and views_full


def demo_config(environ: dict[str, str] | None = None) -> StoreConfig:
    """The demo store: the SQLite file QUESTLOG_DB names, else ``questlog-demo.db`` here."""
    return StoreConfig(sqlite_path=settings.read(environ).db or Path(DEMO_DB))


def reset_store(config: StoreConfig) -> list[Path]:
    """Delete the demo store and its views file; returns the files deleted.

    Refused (``ResetRefused``) if the store holds a campaign whose name does not start with
    ``Demo:``: QUESTLOG_DB may name a real store, and a reset must never delete one.
    """
    assert config.sqlite_path is not None
    path = config.sqlite_path
    if path.exists():
        others = foreign_campaigns(config)
        if others:
            raise ResetRefused(
                f"--reset: {path} holds {len(others)} campaign(s) the demo did not make "
                f"(such as {others[0]!r}); it deletes only a demo store. Point QUESTLOG_DB at "
                f"another file, or leave it unset to use {DEMO_DB}."
            )
    views = views_path_for(path)
    files = [f for base in (path, views) for f in sqlite_files(base) if f.exists()]
    for found in files:
        found.unlink()
    return files


def foreign_campaigns(config: StoreConfig) -> list[str]:
    """The names of the store's campaigns that the demo did not make."""
    questlog = Questlog(config)
    names: list[str] = []
    try:
        after = 0
        while True:
            page, cursor = questlog.reading.list_campaigns(after=after, limit=500)
            names += [c.name for _, c in page if not str(c.name).startswith(DEMO_PREFIX)]
            if cursor is None:
                return names
            after = cursor
    finally:
        questlog.close()


def sqlite_files(path: Path) -> list[Path]:
    """A SQLite database file, its write-ahead log and shared-memory files, and the lock file
    the store keeps beside it."""
    return [path, *(path.with_name(path.name + end) for end in ("-wal", "-shm", ".lock"))]


def play_demo(config: StoreConfig, *, host: str = "http://127.0.0.1:8000") -> DemoResult:
    """Play the week and the match, reveal both seeds, bring the views up to date."""
    questlog = Questlog(config)
    try:
        week = finish(questlog, play_week(questlog), "quest-calendar", host)
        match = finish(questlog, play_match(questlog), "calendar-board", host)
        result = DemoResult(
            store=config.describe(),
            serve_env=f"QUESTLOG_DB={config.sqlite_path}",
            week=week,
            match=match,
            disputed=disputed_roll(questlog, week.player),
        )
        store = open_view_store(config)
        try:
            # what `questlog serve` would do in the background, so pages show the demo at once
            catch_up_views(questlog, store, batch_size=VIEWS_BATCH)
            ids = [str(week.player.id), str(match.player.id)]
            result.view_rows = view_rows(store, ids)
            result.dice_rolls = sum(server_dice(store, cid) for cid in ids)
        finally:
            store.close()
        return result
    finally:
        questlog.close()


def finish(questlog: Questlog, player: Player, game: str, host: str) -> Played:
    """Rotate the campaign's seed (revealing every roll's seed), audit it and share it."""
    questlog.dice.rotate_seed(player.id)
    report = questlog.reading.audit(player.id)
    _, secret = questlog.access.share_campaign(player.id)
    campaign = questlog.campaign(player.id)
    return Played(
        player=player,
        game=game,
        name=campaign.name,
        share_url=f"{host}/app/campaigns/{player.id}#token={secret}",
        version=campaign.version,
        audit_ok=report.ok,
        rolls=dict(report.rolls),
    )


def disputed_roll(questlog: Questlog, week: Player) -> Json:
    """The roll a player would dispute: the last one before the hero's first death, with its
    proof and revealed seed."""
    died = next(e["version"] for e in week.events if e["type"].endswith(".Died"))
    rolled = [e for e in week.events if e["version"] <= died and e["data"]["rolls"]]
    record = rolled[-1]["data"]["rolls"][-1]
    found: Json = questlog.reading.find_roll(week.id, record["roll_id"])
    return found


def view_rows(store: ViewStore, campaign_ids: list[str]) -> dict[str, int]:
    """Rows of each view table that belong to these campaigns."""
    marks = ", ".join("?" for _ in campaign_ids)
    counts: dict[str, int] = {}
    with store.read() as cursor:
        for view in ALL_VIEWS:
            for table in view.tables:
                query = f"SELECT count(*) AS n FROM {{{table}}} WHERE campaign_id IN ({marks})"
                counts[table] = int(store.rows(cursor, query, campaign_ids)[0]["n"])
    return counts


def server_dice(store: ViewStore, campaign_id: str) -> int:
    """How many server dice /analytics/dice counts for a campaign (every die type)."""
    report: dict[str, Any] = dice_fairness(store, Filter(campaign_id=campaign_id), source="server")
    return sum(int(entry["dice"]) for entry in report["dice"])
