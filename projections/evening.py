"""An evening the table can keep: what was played in a range of a campaign, read from the log.

A range is a span of versions, named one of three ways: by versions (``from_version`` and
``to_version``), by Quest Calendar page dates (``date``, or ``from_date`` and ``to_date``: the
events played on the pages of those dates) or by Calendar Board nights (``night``, or
``from_night`` and ``to_night``: a day and a night, the turns of a round and the night that
follows it, from the end of the night before to the end of that night). The span runs from the
first event of the range to its last, so a rollback inside it and the events it undid are shown,
marked.

The cost: a version range reads its own events, and the campaign's state just before it (for
the game date its first events were played on); a date or night range first reads the campaign's
events once, up to its head, following only their recorded page date and night (the tracker of
the event log, ``projections.event_log``), to find its versions. Then the range's events are read
with their actors and put into words by the summaries every reader shows (``summarise``).

``projections.evening_text`` renders an ``Evening`` as Markdown or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from uuid import UUID

from domain.facade import (
    START,
    Campaign,
    InvalidInput,
    NotHeld,
    Questlog,
    Timeline,
    chain,
    roll_verdict,
    summarise,
)
from projections.event_log import (
    CREATED,
    NIGHT_STARTED,
    PAGE,
    ROLLED_BACK,
    CampaignTrack,
    EventRows,
    NightPhaseStarted,
)
from projections.events import Recorded, without_token_id
from projections.view import CampaignCreated, RolledBack

_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ROLL_REF = re.compile(r"\(fate reroll of (\d+)-\d+\)")
"""A roll id in a recorded purpose (``72-1``): said as the version of the roll it replaced."""
_CODE_NAME = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")
"""A purpose the game recorded as a code name (``hail_damage``), said in words ("hail damage")."""
MAX_EVENTS = 5000
"""The most events one export holds; a longer range is refused with the size it has."""
SCAN_BATCH = 500
"""Events read at a time while finding the versions of a date or night range."""
DATES = ("date", "from_date", "to_date")
NIGHTS = ("night", "from_night", "to_night")
VERSIONS = ("from_version", "to_version")
RANGE_FIELDS = (*DATES, *NIGHTS, *VERSIONS)
DECISION_TOPICS = frozenset({"qc.DecisionRequested", "cb.DecisionRequested"})
GAME_NAMES = {"quest-calendar": "Quest Calendar", "calendar-board": "The Calendar Board"}


@dataclass(frozen=True)
class Span:
    """The versions ``first..last`` of a range, and the range in words (for the title)."""

    first: int
    last: int
    label: str
    slug: str


@dataclass
class RollLine:
    """One roll of the evening, as a reader checks it."""

    purpose: str
    notation: str
    faces: list[Mapping[str, Any]]
    modifier: int
    total: Any
    source: str
    commitment: str | None
    nonce: int | None
    entropy: str | None
    verdict: bool | None
    game_date: str
    result: str = ""


@dataclass
class EventLine:
    """One event in words, with its rolls; ``undone_by`` is the rollback that undid it."""

    version: int
    summary: str
    undone_by: int | None
    decision: bool
    rolled_back: bool
    rolls: list[RollLine] = field(default_factory=list)


@dataclass
class CommandBlock:
    """The events one command recorded, in order, with who sent it and when in the game."""

    first: int
    last: int
    what: str
    who: str
    game_date: str
    recorded_at: str
    answers_decision: bool
    events: list[EventLine] = field(default_factory=list)


@dataclass
class Evening:
    """Everything an export says: the title, the commands in order and the verification."""

    campaign_id: UUID
    name: str
    game: str
    span: Span
    head: int
    commands: list[CommandBlock]
    head_hash: str
    chain_problems: list[str]
    checkpoint: str
    exported_at: str

    @property
    def game_name(self) -> str:
        """The game as its rulebook names it."""
        return GAME_NAMES.get(self.game, self.game)

    @property
    def rolls(self) -> int:
        """How many rolls the evening holds (undone ones too)."""
        return sum(len(e.rolls) for c in self.commands for e in c.events)


def range_of(query: Mapping[str, Any]) -> dict[str, Any]:
    """The range parameters a query gives (the others absent)."""
    return {name: query[name] for name in RANGE_FIELDS if query.get(name) is not None}


def evening(app: Questlog, campaign_id: UUID, query: Mapping[str, Any]) -> Evening:
    """The evening a range names (``RANGE_FIELDS``; refused by name when it is bad)."""
    campaign = app.campaign(campaign_id)
    span = resolve(app, campaign, range_of(query))
    records = app.reading.event_records(
        campaign_id, after=span.first - 1, limit=span.last - span.first + 1
    )
    timeline = app.reading.timeline(campaign)
    reader = Reader(app, campaign, timeline)
    reader.start_at(span.first)
    commands = reader.blocks(records)
    return Evening(
        campaign_id=campaign_id,
        name=campaign.name,
        game=campaign.game,
        span=span,
        head=campaign.version,
        commands=commands,
        head_hash=str(records[-1]["hash"]),
        chain_problems=chain_problems(campaign_id, records, hash_before(app, campaign_id, span)),
        checkpoint=app.reading.checkpoint(campaign_id, span.last, str(records[-1]["hash"])),
        exported_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


# -- the range ----------------------------------------------------------------------------------


def resolve(app: Questlog, campaign: Campaign, given: dict[str, Any]) -> Span:
    """The span of versions a range names; each bad or contradictory part refused by name."""
    kinds = [
        kind
        for kind, names in (("date", DATES), ("night", NIGHTS), ("version", VERSIONS))
        if any(name in given for name in names)
    ]
    if not kinds:
        raise InvalidInput.field(
            "date",
            "give a range: date, or from_date and to_date (Quest Calendar pages); night, or "
            "from_night and to_night (Calendar Board nights); or from_version and to_version",
        )
    if len(kinds) > 1:
        second = next(n for n in RANGE_FIELDS if n in given and not n.endswith(kinds[0]))
        raise InvalidInput.field(second, f"give one kind of range, not {kinds[0]}s and {kinds[1]}s")
    if kinds[0] == "version":
        span = version_span(campaign, given)
    elif kinds[0] == "date":
        span = date_span(app, campaign, *bounds(given, DATES))
    else:
        span = night_span(app, campaign, *bounds(given, NIGHTS))
    size = span.last - span.first + 1
    if size > MAX_EVENTS:
        name = next(n for n in RANGE_FIELDS if n in given)
        raise InvalidInput.field(
            name, f"the range holds {size} events; export at most {MAX_EVENTS} at a time"
        )
    return span


def bounds(given: dict[str, Any], names: tuple[str, str, str]) -> tuple[Any, Any]:
    """A single value, or a from and to pair (both needed, in order)."""
    single, low, high = names
    if single in given:
        if low in given or high in given:
            other = low if low in given else high
            raise InvalidInput.field(other, f"give {single} alone, or {low} and {high}")
        return given[single], given[single]
    for name in (low, high):
        if name not in given:
            raise InvalidInput.field(name, f"give both {low} and {high} (or {single} alone)")
    if given[high] < given[low]:
        raise InvalidInput.field(high, f"must not be before {low} ({given[low]})")
    return given[low], given[high]


def version_span(campaign: Campaign, given: dict[str, Any]) -> Span:
    """``from_version`` (default 1) to ``to_version`` (default the head)."""
    head = campaign.version
    first, last = given.get("from_version", 1), given.get("to_version", head)
    for name, value in (("from_version", first), ("to_version", last)):
        if value > head:
            raise NotHeld(name, f"no version {value}: the head is version {head}")
    if last < first:
        raise InvalidInput.field("to_version", f"must not be below from_version ({first})")
    return Span(first, last, f"versions {first} to {last}", f"v{first}-{last}")


def date_span(app: Questlog, campaign: Campaign, low: date, high: date) -> Span:
    """The events played on the Quest Calendar pages dated ``low`` to ``high``."""
    name = "date" if low == high else "from_date"
    if campaign.game != "quest-calendar":
        raise NotHeld(name, "page dates are Quest Calendar's; use night on this board")
    found = [
        v
        for v, page, _ in scan(app, campaign)
        if page and low.isoformat() <= page <= high.isoformat()
    ]
    if not found:
        raise NotHeld(name, f"no page of this campaign is dated {dates_label(low, high)}")
    return Span(min(found), max(found), f"pages of {dates_label(low, high)}", slug_of(low, high))


def night_span(app: Questlog, campaign: Campaign, low: int, high: int) -> Span:
    """The days and nights ``low`` to ``high``: from the end of night ``low - 1`` (or the start)
    to the end of night ``high`` (or the last event, while it runs)."""
    name = "night" if low == high else "from_night"
    if campaign.game != "calendar-board":
        raise NotHeld(name, "nights are the Calendar Board's; use date on this log")
    found = [v for v, _, evening_number in scan(app, campaign) if low <= evening_number <= high]
    if not found:
        played = "no night yet" if low == 1 else f"no day and night {low} yet"
        raise NotHeld(name, f"this match has {played}")
    label = f"day and night {low}" if low == high else f"days and nights {low} to {high}"
    slug = f"night-{low}" if low == high else f"nights-{low}-{high}"
    return Span(min(found), max(found), label, slug)


def dates_label(low: date, high: date) -> str:
    return low.isoformat() if low == high else f"{low.isoformat()} to {high.isoformat()}"


def slug_of(low: date, high: date) -> str:
    return low.isoformat() if low == high else f"{low.isoformat()}-to-{high.isoformat()}"


def scan(app: Questlog, campaign: Campaign) -> Iterator[tuple[int, str | None, int]]:
    """Each version of the campaign with the page date it was played on and the number of the
    day and night it belongs to (one pass, reading only what the tracker follows)."""
    tracker = Tracker(app, campaign.id)
    cursor = 0
    while cursor < campaign.version:
        batch = app.campaign_events(campaign.id, after=cursor, limit=SCAN_BATCH)
        if not batch:
            return
        for event in batch:
            cursor = event.originator_version
            recorded = tracker.recorded_from(event)
            yield recorded.version, *tracker.follow(recorded)


# -- following the game date --------------------------------------------------------------------


class Tracker:
    """The page date, the night and the round an event was played in, followed event by event
    with the event log's tracker; the number of the day and night an event belongs to."""

    def __init__(self, app: Questlog, campaign_id: UUID) -> None:
        self.rows = EventRows(app, START, 1)
        self.key = str(campaign_id)
        self.round: int | None = None
        self.nights = 0

    def restart(self, game: str, state: Mapping[str, Any]) -> None:
        """Start from a whole game state (the state just before a range)."""
        track = self.rows.tracks.setdefault(self.key, CampaignTrack())
        track.game = game
        track.restart(state)
        track.page_then = track.memory.get(PAGE)
        self._from_state(state)

    def _from_state(self, state: Mapping[str, Any] | None) -> None:
        state = state if isinstance(state, Mapping) else {}
        self.round = state.get("round") if isinstance(state.get("round"), int) else None
        self.nights = int(state.get("nights") or 0)

    def recorded_from(self, event: Any) -> Recorded:
        """A decoded event as the tracker reads it."""
        data = {k: v for k, v in vars(event).items() if k not in chain.ENVELOPE_FIELDS}
        stamp = event.timestamp
        return Recorded(0, self.key, event.originator_version, event.TOPIC, str(stamp), data)

    def follow(self, event: Recorded) -> tuple[str | None, int]:
        """Follow one event; its page date and the day and night it belongs to."""
        track = self.rows.follow(event)
        if event.topic == CREATED:
            self._from_state(event.payload(CampaignCreated).state)
        elif event.topic == ROLLED_BACK:
            self._from_state(event.payload(RolledBack).restored_state)
        elif event.topic == NIGHT_STARTED:
            self.nights = event.payload(NightPhaseStarted).night_number
        round_then = event.details.get("round")  # a fact of several Calendar Board types
        if isinstance(round_then, int):
            self.round = round_then
        night = track.night_then
        number = night if isinstance(night, int) else self.nights + 1
        page = track.page_then
        return (str(page) if page else None), number

    def game_date(self, event: Recorded, game: str) -> str:
        """The game date an event was played on, in words."""
        page, _ = self.follow(event)
        if game == "quest-calendar":
            return f"page {page}" if page else "before the first page"
        night = self.rows.tracks[self.key].night_then
        if isinstance(night, int):
            return f"night {night}"
        return f"round {self.round}, by day" if self.round else "before the first round"


# -- the events in words ------------------------------------------------------------------------


class Reader:
    """Puts a range's event records into command blocks, in words."""

    def __init__(self, app: Questlog, campaign: Campaign, timeline: Timeline) -> None:
        self.app = app
        self.campaign = campaign
        self.timeline = timeline
        self.revealed: Mapping[str, str] = campaign.dice["revealed"]
        self.tracker = Tracker(app, campaign.id)

    def start_at(self, first: int) -> None:
        """Follow the game date from the state just before version ``first``."""
        if first > 1:
            before = self.app.campaign(self.campaign.id, version=first - 1)
            self.tracker.restart(before.game, before.state)

    def blocks(self, records: list[dict[str, Any]]) -> list[CommandBlock]:
        """The records grouped by the command that recorded them, in order."""
        blocks: list[CommandBlock] = []
        key: Any = None
        for record in records:
            data = record["data"]
            recorded = Recorded(
                0,
                str(self.campaign.id),
                record["version"],
                record["type"],
                record["timestamp"],
                data,
            )
            when = self.tracker.game_date(recorded, self.campaign.game)
            command_id = data.get("command_id")
            this = command_id if isinstance(command_id, int) else ("event", record["version"])
            if this != key or not blocks:
                key = this
                asked = bool(blocks) and blocks[-1].events[-1].decision
                blocks.append(self.block(record, when, answers=asked))
            blocks[-1].last = record["version"]
            blocks[-1].events.append(self.line(record, when))
        return blocks

    def block(self, record: dict[str, Any], when: str, *, answers: bool) -> CommandBlock:
        """A new command block, opened by its first event."""
        data = record["data"]
        command = data.get("command") if isinstance(data.get("command"), Mapping) else {}
        kind = command.get("type") or record["type"].rpartition(".")[2]
        return CommandBlock(
            first=record["version"],
            last=record["version"],
            what=in_words(str(kind)),
            who=who_acted(record.get("actor"), command),
            game_date=when,
            recorded_at=str(record["timestamp"]),
            answers_decision=answers,
        )

    def line(self, record: dict[str, Any], when: str) -> EventLine:
        """One event in words, with its rolls."""
        rolls = [r for r in record["data"].get("rolls") or [] if isinstance(r, Mapping)]
        summary = summarise(record)  # its words name no seed, and an actor without a token id
        return EventLine(
            version=record["version"],
            summary=summary,
            undone_by=self.timeline.undone_by(record["version"]),
            decision=record["type"] in DECISION_TOPICS,
            rolled_back=record["type"] == "questlog.RolledBack",
            rolls=[self.roll(r, when, summary) for r in rolls],
        )

    def roll(self, record: Mapping[str, Any], when: str, result: str) -> RollLine:
        """One roll record as a reader checks it: faces, formula, purpose, total, source."""
        found = record.get("proof")
        proof: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        server = record.get("source") == "server"
        return RollLine(
            purpose=purpose_words(record.get("purpose")),
            notation=str(record.get("notation") or ""),
            faces=[d for d in record.get("dice") or [] if isinstance(d, Mapping)],
            modifier=int(record.get("modifier") or 0),
            total=record.get("total"),
            source="server" if server else "by hand",
            commitment=proof.get("commitment") if server else None,
            nonce=proof.get("nonce") if server else None,
            entropy=proof.get("entropy") if server else None,
            verdict=roll_verdict(record, self.revealed) if server else None,
            game_date=when,
            result=result,
        )


def purpose_words(purpose: Any) -> str:
    """A roll's recorded purpose as the export says it: a code name in words (``hail_damage``
    reads "hail damage"), a fate reroll's roll id as the version of the roll it replaced."""
    shown = str(purpose or "roll")
    if _CODE_NAME.fullmatch(shown):
        return shown.replace("_", " ")
    return _ROLL_REF.sub(r"(fate reroll of the roll at version \1)", shown)


def in_words(kind: str) -> str:
    """A command's type (or an event's, for what no game command recorded) in words:
    ``trait_check`` reads "trait check", ``RolledBack`` "rolled back"."""
    spaced = _WORD_START.sub(" ", kind).replace("_", " ")
    return " ".join(spaced.split()).lower() or "event"


def who_acted(actor: Any, command: Mapping[str, Any]) -> str:
    """Who sent a command: the seat it names (Calendar Board) and the token's name, never its
    id; "the server" for an event no token caused."""
    name = without_token_id(actor) if isinstance(actor, str) and actor else None
    seat = command.get("player")
    if isinstance(seat, str) and seat:
        return f"seat {seat}" + (f" (sent by {name})" if name else "")
    return name or "the server"


def hash_before(app: Questlog, campaign_id: UUID, span: Span) -> str:
    """The stored hash the range's first event must link to: the genesis hash for version 1."""
    if span.first == 1:
        return str(chain.GENESIS_HASH)
    return str(app.reading.hash_at(campaign_id, span.first - 1))


def chain_problems(campaign_id: UUID, records: list[dict[str, Any]], before: str) -> list[str]:
    """Each event of the range re-hashed and linked to the one before it; what does not hold."""
    problems: list[str] = []
    previous = before
    for record in records:
        version = record["version"]
        if record["prev_hash"] != previous:
            problems.append(f"version {version} does not link to the event before it")
        computed = chain.event_hash(
            campaign_id=campaign_id,
            version=version,
            event_type=record["type"],
            timestamp=datetime.fromisoformat(record["timestamp"]),
            data=record["data"],
            prev_hash=record["prev_hash"],
            actor=record.get("actor"),
        )
        if computed != record["hash"]:
            problems.append(f"version {version}'s hash is not the hash of what it holds")
        previous = record["hash"]
    return problems
