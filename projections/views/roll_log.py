"""Roll log: every roll of every campaign, with its verdict once the seed is revealed, and undo.

A row per roll record, in log order: the campaign and its game, the event that rolled, purpose,
notation, the dice (sides, face, kept), faces, total, source and proof. ``verified`` stays NULL
until a ``SeedRotated`` reveals the seed of a server roll, which is then re-derived with
``domain.service.audit.rolls.roll_verdict`` (1 re-derives, 0 does not); reported rolls stay NULL. A
rollback sets ``undone_by`` on the rolls of the versions it undid.

Each row also carries the game's date and the hero's level when it was rolled: ``page_date`` (the
Quest Calendar page being played, NULL between pages), ``level`` (the hero's), and ``night`` (the
Calendar Board night under way, or the last one begun: 0 before the first night). The view
follows them from the figures Quest Calendar events record (``projections.figures``) and from
each ``NightPhaseStarted``, and starts again from the restored state after a rollback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from domain.facade import Timeline, campaign_events, cb_board_events, roll_verdict, topic_of
from projections.events import Recorded
from projections.figures import apply_figures, qc_places, remember
from projections.filters import Filter
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ANY,
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    CampaignCreated,
    RolledBack,
    View,
    handles,
    page,
    row_basics,
)

CampaignImported = campaign_events.CampaignImported
SeedRotated = campaign_events.SeedRotated
NightPhaseStarted = cb_board_events.NightPhaseStarted
NIGHT_STARTED = topic_of(NightPhaseStarted)
QUEST_CALENDAR, CALENDAR_BOARD = "quest-calendar", "calendar-board"
ROLL_FIGURES = qc_places("hero.level", "page.date")
"""The Quest Calendar figures a roll is dated with, and where the view's memory keeps them."""
LEVEL, PAGE_DATE = ROLL_FIGURES["hero.level"], ROLL_FIGURES["page.date"]

ROLLS = table(
    *ROW_COLUMNS,
    "roll_id TEXT NOT NULL",
    "game TEXT",
    "event_type TEXT NOT NULL",
    "purpose TEXT",
    "notation TEXT",
    "dice TEXT NOT NULL",
    "faces TEXT NOT NULL",
    "modifier INTEGER",
    "total INTEGER",
    "source TEXT NOT NULL",
    "commitment TEXT",
    "client_seed TEXT",
    "nonce BIGINT",
    "verified INTEGER",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    "entropy TEXT",
    "page_date TEXT",
    "night INTEGER",
    "level INTEGER",
    key=ROW_KEY,
    doc={
        **ROW_DOC,
        "n": "The roll's index among the rolls its event recorded (0 for the first).",
        "roll_id": "The roll's id: <version>-<n + 1>.",
        "game": "The campaign's game: quest-calendar or calendar-board.",
        "event_type": "The type of the event that rolled, e.g. DiceRolled or AttackRolled.",
        "purpose": "What the roll was for, as recorded.",
        "notation": "The dice in dice notation, e.g. 2d20kh1+3.",
        "dice": "Each die in draw order: its sides, its face, whether it was kept, and `raw`, what "
        "the player read when it differs from the face (JSON text in the dataset).",
        "faces": "The faces in draw order (kept or not).",
        "modifier": "The flat modifier added to the kept dice.",
        "total": "The roll's total: the kept faces plus the modifier.",
        "source": "server (verifiable dice) or reported (rolled by hand at the table).",
        "commitment": "Server rolls: the commitment (SHA-256) to the seed rolled with.",
        "client_seed": "Server rolls: the client seed mixed in.",
        "nonce": "Server rolls: the roll's nonce in the seed's stream.",
        "verified": "Server rolls: whether the roll re-derives from its revealed seed; empty "
        "until the seed is revealed, and for reported rolls.",
        "entropy": "Server rolls: the player's entropy mixed in, when given.",
        "page_date": "Quest Calendar: the date of the page being played when it was rolled; "
        "empty between pages.",
        "night": "Calendar Board: the night under way when it was rolled, or the last one "
        "begun (0 before the first night).",
        "level": "Quest Calendar: the hero's level when it was rolled.",
    },
    kinds={**ROW_KINDS, "dice": "json", "faces": "json", "verified": "bool", "page_date": "date"},
    defaults={**ROW_DEFAULTS, "verified": None},
    by_event=("event_id", "n"),
    by_game=("game", "source"),
)
_encode = json.JSONEncoder(separators=(",", ":")).encode


def compact_json(value: Any) -> str:
    """``value`` as ``json`` writes it with compact separators (and ASCII only), by orjson when
    that is surely the same text. orjson's text is taken only when it holds nothing
    the two write differently: no character outside space to ``~`` (``json`` escapes those, orjson
    writes them as they are), no ``.``, ``e+`` or ``e-`` (orjson writes every finite float with
    one, not always as ``json`` does) and no ``null`` (orjson's NaN and infinities, which ``json``
    writes as ``NaN`` and ``Infinity``). Text that merely looks like those goes to ``json`` too.
    """
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return _encode(value)
    if (
        text.isascii()
        and text.find(b".") < 0
        and text.find(b"e+") < 0
        and text.find(b"e-") < 0
        and text.find(b"null") < 0
        and text.find(b"\x7f") < 0
    ):
        return text.decode()
    return _encode(value)


class RollLog(View):
    """Every roll across all campaigns."""

    name = "roll_log"
    revision = 2
    """2: each roll's ``page_date``, ``night`` and ``level``."""
    tables = {"rolls": ROLLS}
    undoable = ("rolls",)

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Remember the campaign's game for its core ``DiceRolled`` events, and where its game
        starts: the hero's level and page, or the nights begun."""
        state = self.state(event.campaign_id)
        state["game"] = created.game
        self._restore(state, created.state)

    @staticmethod
    def _restore(state: dict[str, Any], game_state: Any) -> None:
        """Follow the game's date and the hero's level from a whole state."""
        if not isinstance(game_state, dict):
            return
        if state.get("game") == QUEST_CALENDAR:
            state["mirror"] = remember(game_state, ROLL_FIGURES)
        elif state.get("game") == CALENDAR_BOARD:
            state["night"] = game_state.get("nights", 0)

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Follow the game's date and the hero's level from the restored state."""
        self._restore(state, rollback.restored_state)

    @handles(ANY)
    def rolled(self, event: Recorded) -> None:
        """Follow the game's date and the hero's level; a row per roll the event recorded."""
        campaign_id, records = event.campaign_id, event.rolls
        game = event.game
        page_date = night = level = None
        if game == QUEST_CALENDAR:
            state = self.state(campaign_id)
            mirror = state.setdefault("mirror", {})
            apply_figures(event, mirror, ROLL_FIGURES)
            page_date, level = mirror.get(PAGE_DATE), mirror.get(LEVEL)
        elif game == CALENDAR_BOARD:
            state = self.state(campaign_id)
            if event.topic == NIGHT_STARTED:
                state["night"] = event.payload(NightPhaseStarted).night_number
            night = state.get("night")
        if not records:
            return
        event_id, version = event.id, event.version
        if game is None:
            state = self.state(campaign_id)
            game = state.get("game")
            if game == QUEST_CALENDAR:
                mirror = state.get("mirror") or {}
                page_date, level = mirror.get(PAGE_DATE), mirror.get(LEVEL)
            elif game == CALENDAR_BOARD:
                night = state.get("night")
        kind, timestamp = event.kind, event.timestamp
        rows, row = self.pending("rolls"), ROLLS.row
        for n, record in enumerate(records):
            get = record.get
            dice = get("dice") or []
            proof = get("proof") or {}
            rows.append(
                row(
                    campaign_id=campaign_id,
                    event_id=event_id,
                    n=n,
                    version=version,
                    roll_id=get("roll_id") or f"{version}-{n + 1}",
                    game=game,
                    event_type=kind,
                    purpose=get("purpose"),
                    notation=get("notation"),
                    dice=compact_json(dice),
                    faces="[" + ",".join([str(d.get("face")) for d in dice]) + "]",
                    modifier=get("modifier"),
                    total=get("total"),
                    source=get("source") or "unknown",
                    commitment=proof.get("commitment"),
                    client_seed=proof.get("client_seed"),
                    nonce=proof.get("nonce"),
                    recorded_at=timestamp,
                    entropy=proof.get("entropy"),
                    page_date=page_date,
                    night=night,
                    level=level,
                ),
            )

    @handles(SeedRotated)
    def rotated(self, event: Recorded, rotation: SeedRotated) -> None:
        """Re-derive every server roll made on the seed the rotation revealed."""
        self.revealed(event, rotation.revealed_commitment, rotation.revealed_seed)

    @handles(CampaignImported)
    def imported(self, event: Recorded, imported: CampaignImported) -> None:
        """Re-derive the rolls made on the seeds an import revealed (a campaign come back)."""
        for commitment, seed in imported.revealed_seeds.items():
            self.revealed(event, commitment, seed)

    def revealed(self, event: Recorded, commitment: str, seed: str) -> None:
        """Re-derive every server roll of the campaign made on a revealed seed."""
        revealed = {commitment: seed}
        rows = self.query(
            "SELECT event_id, n, dice, commitment, client_seed, nonce, entropy, source "
            "FROM {rolls} WHERE campaign_id = ? AND commitment = ?",
            (event.campaign_id, commitment),
        )
        verdicts = []
        for row in rows:
            record = {
                "source": row["source"],
                "dice": json.loads(row["dice"]),
                "proof": proof_of(row),
            }
            verdict = roll_verdict(record, revealed)
            if verdict is not None:
                verdicts.append((int(verdict), event.campaign_id, row["event_id"], row["n"]))
        if verdicts:
            self.cursor.executemany(
                self.sql(
                    "UPDATE {rolls} SET verified = ? "
                    "WHERE campaign_id = ? AND event_id = ? AND n = ?"
                ),
                verdicts,
            )


def proof_of(row: dict[str, Any]) -> dict[str, Any]:
    """A server roll's proof from its row: the player's entropy only when it carried one."""
    proof = {
        "commitment": row["commitment"],
        "client_seed": row["client_seed"],
        "nonce": row["nonce"],
    }
    if row["entropy"] is not None:
        proof["entropy"] = row["entropy"]
    return proof


def _item(row: dict[str, Any]) -> dict[str, Any]:
    verified = row["verified"]
    item = row_basics(row)
    item.update(
        roll_id=row["roll_id"],
        game=row["game"],
        event_type=row["event_type"],
        purpose=row["purpose"],
        notation=row["notation"],
        dice=json.loads(row["dice"]),
        faces=json.loads(row["faces"]),
        modifier=row["modifier"],
        total=row["total"],
        source=row["source"],
        proof=None if row["commitment"] is None else proof_of(row),
        verified=None if verified is None else bool(verified),
        recorded_at=row["recorded_at"],
        page_date=row["page_date"],
        night=row["night"],
        level=row["level"],
    )
    return item


@dataclass(frozen=True)
class RollFilter:
    """Which rows of the roll log a query reads: the one filter of the roll log and the dice
    fairness (by campaign, game, source, purpose, verdict, undone or not, and time)."""

    campaign_id: str | None = None
    game: str | None = None
    source: str | None = None
    purpose: str | None = None
    verified: bool | None = None
    include_undone: bool = True
    since: str | None = None
    until: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition (``?`` parameters) and its parameters."""
        where, params = Filter(
            campaign_id=self.campaign_id,
            game=self.game,
            since=self.since,
            until=self.until,
            include_undone=self.include_undone,
        ).where(game_column="game")
        conditions = [where]
        for column, value in (
            ("source", self.source),
            ("purpose", self.purpose),
            ("verified", None if self.verified is None else int(self.verified)),
        ):
            if value is not None:
                conditions.append(f"{column} = ?")
                params.append(value)
        return " AND ".join(conditions), params


def roll_log(
    store: ViewStore,
    *,
    campaign_id: str | None = None,
    game: str | None = None,
    source: str | None = None,
    purpose: str | None = None,
    verified: bool | None = None,
    include_undone: bool = True,
    since: str | None = None,
    until: str | None = None,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """Rolls in log order, filtered by campaign, game, source, purpose, verdict and time."""
    where, params = RollFilter(
        campaign_id=campaign_id,
        game=game,
        source=source,
        purpose=purpose,
        verified=verified,
        include_undone=include_undone,
        since=since,
        until=until,
    ).where()
    template = "SELECT * FROM {rolls} WHERE " + where
    return page(store, RollLog.name, template, params, after=after, limit=limit, item=_item)
