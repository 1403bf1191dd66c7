"""Rollbacks: a row per ``questlog.RolledBack``, and a row per command it undid.

``rollbacks``: where the game stood when the players rolled back (the page's date, or the night
number, at the head before the rollback) and where it went back to (``to_page_date``,
``to_night``: the restored state's), the head before (``from_version``) and the target
(``to_version``), how many events and rolls it took off the active history, who asked for it
(``actor``) and how: ``direct`` (POST /rollback) or ``proposal`` (the last approval of a
``questlog.RollbackProposed`` carried it out: the event names the proposal). A later rollback can
undo a rollback, so both tables are undoable (``undone_by``); a redo (a rollback to just before a
rollback) brings its rows back.

``rollback_commands``: one row per command the rollback took off the active history (at least one
of its events was active and is now undone), with the rollback's game date and level, the
command's type (``command``: the game command's ``type``, such as ``trait_check``; for a campaign
event that is not a game command, its event type, such as ``DiceRolled``: as
``events.command_type`` names it), the version it
started at and how far back it was. Every event
records its command's first and last versions (``command_id``, ``command_versions``; an event of an
older store that records none is its own command), and the view keeps each campaign's commands in
``command_index`` to look them up. A rollback carried out by a proposal undoes the proposal's own
events too (they come after its target), so the proposal is one of its commands.
"""

from __future__ import annotations

from typing import Any

from domain.facade import Timeline
from projections.events import Recorded, without_token_id
from projections.schema import table
from projections.view import (
    ANY,
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    RolledBack,
    handles,
)
from projections.views.game_view import LEVEL, PAGE_DATE, ROW_NAMES, GameView, doc

GAME_DATE_DOC = {
    "page_date": "The date of the Quest Calendar page being played when the players rolled "
    "back (at the head before the rollback); empty for the Calendar Board.",
    "night": "The Calendar Board's night number when the players rolled back: the nights "
    "started so far (at the head before the rollback); empty for Quest Calendar.",
    "level": "The hero's level when the players rolled back (Quest Calendar).",
}
ROLLBACKS = table(
    *ROW_COLUMNS,
    "game TEXT",
    "page_date TEXT",
    "night INTEGER",
    "level INTEGER",
    "to_page_date TEXT",
    "to_night INTEGER",
    "from_version BIGINT NOT NULL",
    "to_version BIGINT NOT NULL",
    "events_undone INTEGER NOT NULL",
    "rolls_undone INTEGER NOT NULL",
    "server_rolls_undone INTEGER",
    "actor TEXT",
    "how TEXT NOT NULL",
    "proposal_id TEXT",
    "reason TEXT",
    "flagged INTEGER",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc=doc(
        {
            **GAME_DATE_DOC,
            "game": "The game, as the code names it: quest-calendar or calendar-board.",
            "to_page_date": "The page date of the state the rollback restored (empty if no page "
            "was open then, and for the Calendar Board).",
            "to_night": "The night number of the state the rollback restored (Calendar Board).",
            "from_version": "The campaign's head before the rollback (the version before it).",
            "to_version": "The version whose state the rollback restored.",
            "events_undone": "How many events it took off the active history (active before, "
            "undone after): those after to_version, less any an earlier rollback had undone.",
            "rolls_undone": "How many active rolls it undid (the event's undone_rolls).",
            "server_rolls_undone": "How many of those were server rolls.",
            "actor": "Who asked for it: the API token's name (never its id), or system (the "
            "command line).",
            "how": "direct (POST /rollback) or proposal (carried out by the last approval of a "
            "rollback proposal, RollbackProposed/RollbackApproved).",
            "proposal_id": "The proposal it carried out; empty if direct.",
            "reason": "Why, as given.",
            "flagged": "Whether it undid server rolls under the 'flag' policy.",
        },
        *ROW_NAMES,
    ),
    kinds={**ROW_KINDS, "page_date": "date", "to_page_date": "date", "flagged": "bool"},
    defaults=ROW_DEFAULTS,
)
ROLLBACK_COMMANDS = table(
    *ROW_COLUMNS,
    "game TEXT",
    "page_date TEXT",
    "night INTEGER",
    "level INTEGER",
    "command TEXT",
    "command_version BIGINT NOT NULL",
    "last_version BIGINT NOT NULL",
    "distance BIGINT NOT NULL",
    "events_undone INTEGER NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc=doc(
        {
            "event_id": "The notification id of the rollback (its place in the log).",
            "n": "The command's index among the commands the rollback undid, oldest first.",
            "version": "The rollback's version in its campaign.",
            "recorded_at": "When the rollback was recorded (UTC).",
            "undone_by": "The version of a later rollback that undid this rollback; empty while "
            "it stands.",
            **GAME_DATE_DOC,
            "game": "The game, as the code names it: quest-calendar or calendar-board.",
            "command": "The command's type: a game command's type (trait_check, night_action, "
            "...), else the event type of a campaign event (DiceRolled, ...), as "
            "events.command_type names it.",
            "command_version": "The version the command started at (its command_id).",
            "last_version": "The command's last version.",
            "distance": "How far back it was: the rollback's version minus command_version.",
            "events_undone": "How many of the command's events the rollback took off the active "
            "history.",
        },
        "campaign_id",
    ),
    kinds={**ROW_KINDS, "page_date": "date"},
    defaults=ROW_DEFAULTS,
)
COMMAND_INDEX = table(
    "campaign_id TEXT NOT NULL",
    "command_id BIGINT NOT NULL",
    "last_version BIGINT NOT NULL",
    "command TEXT",
    "recorded_at TEXT NOT NULL",
    key=("campaign_id", "command_id"),
    doc={
        "campaign_id": ROW_DOC["campaign_id"],
        "command_id": "The version the command started at (its first event's command_id).",
        "last_version": "The command's last version.",
        "command": "The command's type (as rollback_commands.command).",
        "recorded_at": "When the command's first event was recorded (UTC).",
    },
    kinds={"recorded_at": "timestamp"},
)


def command_of(event: Recorded) -> tuple[int, int, str]:
    """An event's command: its first and last versions and its type (the envelope's: an older
    store's events have none, and each is then a command of its own)."""
    span = event.data.get("command_versions")
    first = event.data.get("command_id", event.version)
    last = span[1] if isinstance(span, list) and len(span) == 2 else first
    command = event.data.get("command")
    kind = command.get("type") if isinstance(command, dict) else None
    return int(first), int(last), str(kind or event.kind)


class Rollbacks(GameView):
    """Per rollback: where from, where to, what it undid, who and how; per command it undid."""

    name = "rollbacks"
    tables = {
        "rollbacks": ROLLBACKS,
        "rollback_commands": ROLLBACK_COMMANDS,
        "command_index": COMMAND_INDEX,
    }
    undoable = ("rollbacks", "rollback_commands")

    def started(self, event: Recorded, state: dict[str, Any]) -> None:
        """The creation is a command of its own."""
        self._index(event)

    @handles(ANY)
    def followed(self, event: Recorded) -> None:
        """Index every command at its first event, and follow the figures."""
        self._index(event)
        super().followed(event)

    def _index(self, event: Recorded) -> None:
        first, last, command = command_of(event)
        if first == event.version:
            self.insert(
                "command_index",
                campaign_id=event.campaign_id,
                command_id=first,
                last_version=last,
                command=command,
                recorded_at=event.timestamp,
            )

    def restored(
        self,
        event: Recorded,
        rollback: RolledBack,
        state: dict[str, Any],
        timeline: Timeline,
        before: dict[str, Any],
    ) -> None:
        """Record the rollback and the commands it took off the active history."""
        self._index(event)
        earlier = Timeline.of(state["rollbacks"][:-1], event.version - 1)
        undone = earlier.newly_undone(rollback.to_version)
        game = state.get("game")
        board = game == "calendar-board"
        page = rollback.restored_state.get("page")
        proposal = rollback.proposal_id
        mirror = before["mirror"]
        where = {
            "page_date": None if board else mirror.get(PAGE_DATE),
            "night": before["nights"] if board else None,
            "level": None if board else mirror.get(LEVEL),
        }
        self.insert(
            "rollbacks",
            campaign_id=event.campaign_id,
            event_id=event.id,
            n=0,
            version=event.version,
            game=game,
            **where,
            to_page_date=page.get("date") if isinstance(page, dict) else None,
            to_night=state.get("nights") if board else None,
            from_version=max([event.version - 1, *rollback.undone_versions]),
            to_version=rollback.to_version,
            events_undone=sum(last - first + 1 for first, last in undone),
            rolls_undone=len(rollback.undone_rolls),
            server_rolls_undone=rollback.server_rolls_undone,
            actor=without_token_id(rollback.actor) or "system",
            how="proposal" if proposal else "direct",
            proposal_id=proposal,
            reason=rollback.reason,
            flagged=int(rollback.flagged),
            recorded_at=event.timestamp,
        )
        self._commands(event, game, where, undone)

    def _commands(
        self,
        event: Recorded,
        game: Any,
        where: dict[str, Any],
        undone: list[tuple[int, int]],
    ) -> None:
        """A row per indexed command with events in the ranges undone, oldest first."""
        if not undone:
            return
        found = self.query(
            "SELECT command_id, last_version, command FROM {command_index} "
            "WHERE campaign_id = ? AND command_id <= ? AND last_version >= ? ORDER BY command_id",
            (event.campaign_id, undone[-1][1], undone[0][0]),
        )
        n = 0
        for command in found:
            first, last = int(command["command_id"]), int(command["last_version"])
            count = sum(max(0, min(last, hi) - max(first, lo) + 1) for lo, hi in undone)
            if not count:
                continue
            self.insert(
                "rollback_commands",
                campaign_id=event.campaign_id,
                event_id=event.id,
                n=n,
                version=event.version,
                game=game,
                **where,
                command=command["command"],
                command_version=first,
                last_version=last,
                distance=event.version - first,
                events_undone=count,
                recorded_at=event.timestamp,
            )
            n += 1
