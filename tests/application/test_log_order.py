"""The log's order on PostgreSQL (``domain.storage.log_order``).

Each event records its transaction id, and ``ordered_rows`` reads the log in the order
(transaction id, notification id), only below the oldest open transaction. These tests hold a
transaction open with an early id and an early transaction id while later rows commit, as an
append without the table lock would, and check that a reader never passes the open one, and
then reads it exactly once when it commits (or never, when it aborts). The rows are written with
plain SQL, as an append is (no table lock); ``tests/projections/test_late_commits.py`` does the
same with real events and the views.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from uuid import UUID, uuid4

import click
import psycopg
import pytest
from psycopg import sql

from domain.service.questlog import Questlog
from domain.storage.log_order import (
    LOCK_TIMEOUT,
    START,
    LogPosition,
    UpgradeBlocked,
    position_of,
    writer_mark,
)
from domain.storage.recorders import PostgresRecorder
from domain.storage.store import StoreConfig
from projections.batches import Target, catch_up
from projections.store import open_view_store, position_in
from projections.views import ALL_VIEWS
from tests.conftest import StoreFactory

pytestmark = [pytest.mark.postgres, pytest.mark.holds_transactions]


@pytest.fixture
def config(factory: StoreFactory) -> StoreConfig:
    return factory.new()


@pytest.fixture
def app(config: StoreConfig) -> Iterator[Questlog]:
    opened = Questlog(config)
    yield opened
    opened.close()


def recorder(app: Questlog) -> PostgresRecorder:
    found = app.recorder
    assert isinstance(found, PostgresRecorder)
    return found


def connect(config: StoreConfig, *, autocommit: bool) -> psycopg.Connection[tuple[object, ...]]:
    assert config.database_url is not None
    connection = psycopg.connect(config.database_url, autocommit=autocommit)
    schema = sql.Identifier(str(config.postgres_schema))
    connection.execute(sql.SQL("SET search_path TO {}").format(schema))
    return connection


def mark_writer(connection: psycopg.Connection[tuple[object, ...]], app: Questlog) -> None:
    """Hold the writer mark every append holds (``log_order.writer_mark``) until the
    connection's transaction ends."""
    call, keys = writer_mark(recorder(app).datastore.schema, recorder(app).events_table_name)
    connection.execute(f"SELECT {call}", keys)


def append_raw(connection: psycopg.Connection[tuple[object, ...]], app: Questlog) -> UUID:
    """One event row of a new originator, written with plain SQL as an append writes it (the
    writer mark, no table lock)."""
    mark_writer(connection, app)
    originator = uuid4()
    table = sql.Identifier(recorder(app).events_table_name)
    connection.execute(
        sql.SQL(
            "INSERT INTO {} (originator_id, originator_version, topic, state) "
            "VALUES (%s, 1, 'raw:Row', '{{}}'::bytea)"
        ).format(table),
        (originator,),
    )
    return originator


def settle(app: Questlog) -> None:
    """Wait until no append older than the newest event still writes: until the horizon
    (``log_order.horizon_statement``) is past the newest event's transaction."""
    deadline = time.monotonic() + 30
    with connect(app.config, autocommit=True) as shell:
        while True:
            newest = shell.execute(
                "SELECT max(transaction_id)::text FROM questlog_events"
            ).fetchone()
            if int((newest or [None])[0] or 0) < recorder(app).horizon():
                return
            assert time.monotonic() < deadline, "an append never ended"
            time.sleep(0.02)


def read_all(app: Questlog, after: LogPosition, page: int = 1) -> list[tuple[object, ...]]:
    """Every row after a position, read ``page`` rows at a time from the last row read, once
    every transaction that wrote one has left the horizon."""
    settle(app)
    rows: list[tuple[object, ...]] = []
    while batch := recorder(app).ordered_rows(after, page):
        rows += batch
        after = position_of(batch[-1])
    return rows


def originators(rows: list[tuple[object, ...]]) -> list[object]:
    return [UUID(str(row[2])) for row in rows]


def earlier_release_store(config: StoreConfig, *, rolls: int) -> tuple[UUID, sql.Identifier]:
    """A store with a campaign and ``rolls`` rolls, its events table then as an earlier release
    made it (no transaction id column): the campaign's id and the table."""
    app = Questlog(config)
    try:
        campaign = app.campaigns.create_campaign(game="quest-calendar", name="old").campaign_id
        for number in range(rolls):
            app.dice.roll(campaign, notation="d20", purpose=f"old {number}")
        table = sql.Identifier(recorder(app).events_table_name)
    finally:
        app.close()
    with connect(config, autocommit=True) as shell:
        shell.execute(sql.SQL("ALTER TABLE {} DROP COLUMN transaction_id").format(table))
    return campaign, table


def test_a_new_store_records_each_event_s_transaction_and_reads_them_in_commit_order(
    app: Questlog,
) -> None:
    campaign = app.campaigns.create_campaign(game="quest-calendar", name="order").campaign_id
    app.dice.roll(campaign, notation="d20", purpose="one")
    app.dice.roll(campaign, notation="d20", purpose="two")

    rows = read_all(app, START)

    assert [row[3] for row in rows] == [1, 2, 3]  # the campaign's versions, in order
    assert all(isinstance(row[0], int) and row[0] > 0 for row in rows)
    assert [position_of(row) for row in rows] == sorted(position_of(row) for row in rows)
    assert recorder(app).ordered_rows(position_of(rows[-1]), 10) == []


@pytest.mark.parametrize("ending", ["commit", "rollback"])
def test_a_reader_never_passes_an_open_transaction_and_reads_it_once_when_it_commits(
    app: Questlog, config: StoreConfig, ending: str
) -> None:
    campaign = app.campaigns.create_campaign(game="quest-calendar", name="late").campaign_id
    app.dice.roll(campaign, notation="d20", purpose="before")
    seen = position_of(read_all(app, START)[-1])

    with (
        connect(config, autocommit=False) as late,
        connect(config, autocommit=True) as others,
    ):
        early = append_raw(late, app)  # the earlier id and transaction id, left open
        later = [append_raw(others, app), append_raw(others, app)]  # committed after it

        assert recorder(app).ordered_rows(seen, 10) == [], "nothing is read past the open one"

        if ending == "commit":
            late.commit()
        else:
            late.rollback()
        rows = read_all(app, seen)

    expected = [early, *later] if ending == "commit" else later
    assert originators(rows) == expected  # each once, the late one first: its transaction is
    assert read_all(app, position_of(rows[-1])) == []  # older, and nothing is read twice


@pytest.mark.parametrize("where", ["this database", "another database"])
def test_another_client_s_open_write_transaction_holds_no_reader_back(
    app: Questlog, config: StoreConfig, postgres_url: str, where: str
) -> None:
    """Another application's transaction that has written something and stays open (here an
    insert into a temporary table, left idle in its transaction) is not one of Questlog's
    appends: the rolls committed meanwhile are read at once, each once."""
    campaign = app.campaigns.create_campaign(
        game="quest-calendar", name="shared server"
    ).campaign_id
    seen = position_of(read_all(app, START)[-1])
    url = config.database_url
    if where == "another database":
        url = postgres_url.rsplit("/", 1)[0] + "/postgres"
    assert url is not None
    with psycopg.connect(url, autocommit=False) as stranger:
        stranger.execute("CREATE TEMPORARY TABLE scratch (n int)")
        stranger.execute("INSERT INTO scratch VALUES (1)")
        (stranger_id,) = stranger.execute("SELECT pg_current_xact_id()::text").fetchone() or ()
        for number in range(20):
            app.dice.roll(campaign, notation="d20", purpose=f"while another client writes {number}")

        rows = recorder(app).ordered_rows(seen, 100)
        assert [row[3] for row in rows] == list(range(2, 22))  # every roll, in order, once
        assert app.readable_version(campaign) == 21
        assert recorder(app).horizon() > int(str(stranger_id))  # the stranger is not waited for
        assert recorder(app).horizon_holder() is None
        stranger.rollback()


def test_every_append_takes_the_writer_mark_before_its_rows(
    app: Questlog, config: StoreConfig
) -> None:
    """A roll's insert asks for the writer mark: while another session holds the mark's keys
    exclusively, the roll waits on them (seen in ``pg_locks``), and goes on once they are free."""
    campaign = app.campaigns.create_campaign(game="quest-calendar", name="marked").campaign_id
    _, keys = writer_mark(recorder(app).datastore.schema, recorder(app).events_table_name)
    with connect(config, autocommit=False) as blocker:
        blocker.execute("SELECT pg_advisory_xact_lock(%s, %s)", keys)
        rolled = threading.Thread(
            target=lambda: app.dice.roll(campaign, notation="d20", purpose="behind the mark")
        )
        rolled.start()
        deadline = time.monotonic() + 10
        while not blocker.execute(
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND mode = 'ShareLock' AND classid = %s AND objid::bigint = %s AND objsubid = 2",
            keys,
        ).fetchone():
            assert time.monotonic() < deadline, "the roll never asked for the writer mark"
            time.sleep(0.01)
        assert app.campaign(campaign).version == 1
        # Nothing written before the mark: the waiting append has no transaction id yet.
        assert blocker.execute(
            "SELECT count(*) FROM pg_locks AS waiting JOIN pg_locks AS own "
            "ON own.virtualtransaction = waiting.virtualtransaction "
            "AND own.locktype = 'transactionid' AND own.mode = 'ExclusiveLock' "
            "WHERE waiting.locktype = 'advisory' AND NOT waiting.granted "
            "AND waiting.classid = %s AND waiting.objid::bigint = %s",
            keys,
        ).fetchone() == (0,)
        blocker.rollback()
    rolled.join(10)
    assert app.campaign(campaign).version == 2


def test_an_append_holding_the_mark_before_its_transaction_id_is_locked_holds_the_horizon(
    app: Questlog, config: StoreConfig
) -> None:
    """PostgreSQL gives a transaction its id a moment before it locks it: an append seen then
    holds the mark with no id in ``pg_locks``, and its id may be below any other. The horizon
    then goes no further than the oldest transaction running anywhere (here a stranger's)."""
    with (
        connect(config, autocommit=False) as stranger,
        connect(config, autocommit=False) as marked,
    ):
        stranger.execute("CREATE TEMPORARY TABLE scratch (n int)")
        (xid,) = stranger.execute("SELECT pg_current_xact_id()::text").fetchone() or ()
        mark_writer(marked, app)  # the mark, and no transaction id in pg_locks
        assert recorder(app).horizon() <= int(str(xid))
        marked.rollback()
        app.campaigns.create_campaign(game="quest-calendar", name="after the stranger began")
        assert recorder(app).horizon() > int(str(xid))  # the stranger alone is not waited for
        stranger.rollback()


@pytest.mark.parametrize("epoch", [0, 1, 7])
@pytest.mark.parametrize(("behind", "ahead"), [(0, 0), (5, 0), (0, 3), (2**31 - 1, 0), (0, 2**20)])
def test_a_32_bit_transaction_id_is_widened_against_the_snapshot_in_every_epoch(
    app: Questlog, config: StoreConfig, epoch: int, behind: int, ahead: int
) -> None:
    """``pg_locks`` shows 32-bit ids; a running transaction's may be up to 2^31 below the
    snapshot's ``xmax`` or (given after the snapshot) above it, across an epoch's end too."""
    from domain.storage.log_order import _FULL_ID

    for low in (10, 2**32 - 10, 2**31):
        newest = epoch * 2**32 + low
        full = newest - behind + ahead
        if full < 0:
            continue
        with connect(config, autocommit=True) as shell:
            (found,) = (
                shell.execute(
                    f"SELECT {_FULL_ID} FROM (SELECT %s::bigint AS newest, %s::bigint AS xid) "
                    "AS writers",
                    (newest, full % 2**32),
                ).fetchone()
                or ()
            )
        assert found == full, (newest, full)


def test_the_append_holding_the_horizon_is_named(app: Questlog, config: StoreConfig) -> None:
    """The horizon is the oldest open append's transaction id; the status names that append
    (its transaction id, process, application name and state) so an operator can end it."""
    assert recorder(app).horizon_holder() is None
    with connect(config, autocommit=False) as late:
        late.execute("SET application_name = 'held append'")
        mark_writer(late, app)
        (xid,) = late.execute("SELECT pg_current_xact_id()::text").fetchone() or ()
        (pid,) = late.execute("SELECT pg_backend_pid()").fetchone() or ()
        time.sleep(0.05)

        holder = recorder(app).horizon_holder()
        assert holder is not None
        assert (holder.transaction, holder.pid) == (int(str(xid)), pid)
        assert (holder.application, holder.state) == ("held append", "idle in transaction")
        assert holder.open_seconds >= 0.05
        assert recorder(app).horizon() == int(str(xid))
        late.rollback()
    assert recorder(app).horizon_holder() is None
    assert recorder(app).horizon() > int(str(xid))


def test_a_transaction_given_its_id_first_and_its_row_last_is_read_before_the_later_rows(
    app: Questlog, config: StoreConfig
) -> None:
    """The transaction id is given at a transaction's first write, the notification id at the
    event's insert: the two orders can differ. The reader follows the transactions'."""
    with (
        connect(config, autocommit=False) as late,
        connect(config, autocommit=True) as others,
    ):
        mark_writer(late, app)
        late.execute("SELECT pg_current_xact_id()")  # its transaction id, before the others'
        first = append_raw(others, app)  # the lower notification id, committed at once
        last = append_raw(late, app)  # the higher notification id, in the older transaction

        assert recorder(app).ordered_rows(START, 10) == []
        late.commit()
        rows = read_all(app, START)

    assert originators(rows) == [last, first]
    notification_ids = [int(str(row[1])) for row in rows]
    assert notification_ids[0] > notification_ids[1]


def test_a_store_written_before_the_column_upgrades_on_start_keeps_its_order_and_audits(
    config: StoreConfig,
) -> None:
    campaign, _ = earlier_release_store(config, rolls=1)

    upgraded = Questlog(config)
    try:
        upgraded.dice.roll(campaign, notation="d20", purpose="new")
        rows = read_all(upgraded, START, page=2)
        report = upgraded.reading.audit(campaign)
    finally:
        upgraded.close()

    assert [row[3] for row in rows] == [1, 2, 3]
    assert [row[0] for row in rows[:2]] == [0, 0]  # written before: transaction 0, id order
    assert isinstance(rows[2][0], int) and rows[2][0] > 0
    assert report.ok


def test_only_a_store_that_held_events_is_said_to_be_upgraded(
    config: StoreConfig, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="questlog.store"):
        Questlog(config).close()  # a new store: the column comes with its tables
    assert "upgraded" not in caplog.text
    earlier_release_store(config, rolls=0)
    with caplog.at_level("INFO", logger="questlog.store"):
        Questlog(config).close()
    assert "events table upgraded" in caplog.text


def test_transaction_ids_a_restore_brought_from_another_server_are_cleared_on_start(
    config: StoreConfig, caplog: pytest.LogCaptureFixture
) -> None:
    app = Questlog(config)
    try:
        campaign = app.campaigns.create_campaign(game="quest-calendar", name="moved").campaign_id
        app.dice.roll(campaign, notation="d20", purpose="before the move")
        table = sql.Identifier(recorder(app).events_table_name)
        views = open_view_store(config)
        views.ensure(ALL_VIEWS)
        settle(app)
        catch_up(app.recorder, app.mapper, views, [Target(v) for v in ALL_VIEWS], batch_size=9)
    finally:
        app.close()
    with connect(config, autocommit=True) as shell:  # ids from a server that had run longer
        for moved in (table, sql.Identifier("view_positions")):
            shell.execute(
                sql.SQL(
                    "UPDATE {} SET transaction_id = "
                    "(pg_current_xact_id()::text::bigint + 1000000)::text{}"
                ).format(moved, sql.SQL("::xid8" if moved == table else "::bigint"))
            )

    with caplog.at_level("WARNING", logger="questlog.store"):
        restored = Questlog(config)
    try:
        restored.dice.roll(campaign, notation="d20", purpose="after the move")
        rows = read_all(restored, START)
        report = restored.reading.audit(campaign)
        views.ensure(ALL_VIEWS)  # the positions are placed again by their notification ids
        assert {position_in(row) for row in views.positions().values()} == {position_of(rows[1])}
        applied = catch_up(
            restored.recorder, restored.mapper, views, [Target(v) for v in ALL_VIEWS], batch_size=9
        )
    finally:
        restored.close()
        views.close()
    assert applied == 1, "the views apply the new roll, and nothing again"

    assert "restored from another server" in caplog.text
    assert [row[3] for row in rows] == [1, 2, 3]
    assert [row[0] for row in rows[:2]] == [0, 0] and int(str(rows[2][0])) > 0
    assert report.ok


def test_an_upgrade_a_long_transaction_blocks_gives_up_and_names_the_cause(
    config: StoreConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webapi.cli.common import open_store

    _, table = earlier_release_store(config, rolls=0)

    with connect(config, autocommit=False) as dump:  # a pg_dump's long read, say
        dump.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(table))
        started = time.monotonic()
        with pytest.raises(UpgradeBlocked, match=f"within {LOCK_TIMEOUT}.*pg_dump"):
            Questlog(config)
        assert time.monotonic() - started < 30
        # the command line says it in one line (questlog serve, and every command on the store)
        monkeypatch.setenv("QUESTLOG_DATABASE_URL", str(config.database_url))
        monkeypatch.setenv("QUESTLOG_PG_SCHEMA", str(config.postgres_schema))
        with pytest.raises(click.ClickException, match="not upgraded: could not add"):
            open_store()
    Questlog(config).close()  # once the reader has ended, the next start upgrades
    with connect(config, autocommit=True) as shell:
        found = shell.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = %s "
            "AND column_name = 'transaction_id'",
            (str(config.postgres_schema),),
        ).fetchone()
    assert found is not None
