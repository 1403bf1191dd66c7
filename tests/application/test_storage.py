"""The stores: configuration, WAL, safe start-up, snapshots, and where the secret seed lives."""

from __future__ import annotations

import multiprocessing
import sqlite3
import sys
import traceback
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.model.campaign import Campaign
from domain.service.questlog import Questlog
from domain.storage.side_tables import ATTEMPTS_TABLE, SEEDS_TABLE
from domain.storage.store import StoreConfig
from tests.conftest import SETUPS, RawStore

NewCampaign = Callable[..., UUID]


# -- configuration ------------------------------------------------------------------------------


def test_from_environ_defaults_to_questlog_db_in_the_working_directory() -> None:
    config = StoreConfig.from_environ({})

    assert config.kind == "sqlite"
    assert config.sqlite_path == Path("questlog.db")


def test_from_environ_reads_questlog_db(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere" / "campaigns.db"

    config = StoreConfig.from_environ({"QUESTLOG_DB": str(path)})

    assert (config.kind, config.sqlite_path, config.database_url) == ("sqlite", path, None)


def test_from_environ_prefers_questlog_database_url() -> None:
    url = "postgresql://someone:secret@db.example:6543/questlog"

    config = StoreConfig.from_environ({"QUESTLOG_DATABASE_URL": url, "QUESTLOG_DB": "x.db"})

    assert (config.kind, config.database_url) == ("postgres", url)
    assert "secret" not in config.describe()


def test_an_app_built_from_the_environment_uses_that_store(store_config: StoreConfig) -> None:
    if store_config.kind == "sqlite":
        environ = {"QUESTLOG_DB": str(store_config.sqlite_path)}
    else:
        environ = {
            "QUESTLOG_DATABASE_URL": str(store_config.database_url),
            "QUESTLOG_PG_SCHEMA": str(store_config.postgres_schema),
        }

    with closing(Questlog(StoreConfig.from_environ(environ))) as from_env:
        from_env.campaigns.create_campaign(
            game="calendar-board", name="From the environment", setup=SETUPS["calendar-board"]
        )
    with closing(Questlog(store_config)) as direct:
        [(_, created)] = direct.reading.list_campaigns()[0]

    assert created.name == "From the environment"


@pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)
def test_the_sqlite_file_is_in_wal_mode(app: Questlog, store_config: StoreConfig) -> None:
    assert store_config.sqlite_path is not None

    with closing(sqlite3.connect(store_config.sqlite_path)) as connection:
        [(mode,)] = connection.execute("PRAGMA journal_mode").fetchall()

    assert mode == "wal"


# -- several processes starting on one new store ------------------------------------------------

STARTING_PROCESSES = 6
ROUNDS = 5


def _start_and_create(config: StoreConfig, start: Any, problems: Any) -> None:
    """In a child process: wait for the others, open the store, create one campaign."""
    try:
        start.wait(timeout=30)
        with closing(Questlog(config)) as app:
            app.campaigns.create_campaign(game="quest-calendar", name="started together")
    except BaseException:
        problems.put(traceback.format_exc(limit=3))
        sys.exit(1)


@pytest.mark.parametrize(
    "store_config",
    [
        pytest.param("sqlite", id="sqlite"),
        pytest.param(
            "postgres",
            id="postgres",
            marks=[pytest.mark.postgres],
        ),
    ],
    indirect=True,
)
def test_processes_starting_together_on_a_new_store_all_succeed(stores: Any) -> None:
    context = multiprocessing.get_context("fork")
    for round_ in range(ROUNDS):
        config = stores.new()
        start = context.Barrier(STARTING_PROCESSES)
        problems = context.Queue()
        processes = [
            context.Process(target=_start_and_create, args=(config, start, problems))
            for _ in range(STARTING_PROCESSES)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
        codes = [process.exitcode for process in processes]
        reports = [problems.get(timeout=5) for code in codes if code != 0]

        assert codes == [0] * STARTING_PROCESSES, f"round {round_}: {codes}\n" + "\n".join(reports)
        with closing(Questlog(config)) as app:
            assert len(app.reading.list_campaigns()[0]) == STARTING_PROCESSES


# -- snapshots ----------------------------------------------------------------------------------

SNAPSHOT_ROLLS = 250  # versions 2..251


def replayed(app: Questlog, campaign_id: UUID, version: int) -> Campaign:
    """The campaign rebuilt from its events alone, one by one, without any snapshot."""
    campaign: Any = None
    for event in app.campaign_events(campaign_id, limit=version):
        campaign = event.mutate(campaign)
    assert isinstance(campaign, Campaign) and campaign.version == version
    return campaign


def state(campaign: Campaign) -> dict[str, Any]:
    """Everything a loaded campaign knows, for comparison."""
    return {
        "version": campaign.version,
        "head_hash": campaign.head_hash,
        "dice": campaign.dice,
        "view": campaign.view(),
    }


def test_snapshots_every_100_events_give_the_same_state_as_a_full_replay(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    for n in range(SNAPSHOT_ROLLS):
        app.dice.roll(campaign_id, notation="d20", purpose=f"roll {n}")
        if n == 120:
            app.dice.rotate_seed(campaign_id)  # version 123: snapshot 200 holds a revealed seed

    assert app.campaign(campaign_id).version == SNAPSHOT_ROLLS + 2
    assert raw.snapshot_versions(campaign_id) == [100, 200]
    assert app.snapshots is not None
    stored_snapshots = list(app.snapshots.recorder.select_events(campaign_id))
    assert [s.originator_version for s in stored_snapshots] == [100, 200]
    for version in (99, 100, 150, 200, 201, 252):
        assert state(app.campaign(campaign_id, version=version)) == state(
            replayed(app, campaign_id, version)
        ), f"version {version}"
    assert state(app.campaign(campaign_id)) == state(replayed(app, campaign_id, 252))


def test_loading_from_a_snapshot_does_not_replay_the_events_before_it(
    app: Questlog, make_app: Callable[[], Questlog], raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    for _ in range(104):
        app.dice.roll(campaign_id, notation="d20", purpose="")
    expected = state(app.campaign(campaign_id, version=105))

    for version in range(1, 100):
        raw.delete_event(campaign_id, version)
    fresh = make_app()  # a cold cache, so only the store can answer

    assert state(fresh.campaign(campaign_id, version=105)) == expected
    assert state(fresh.campaign(campaign_id)) == expected


# -- the secret seed ----------------------------------------------------------------------------


def test_the_secret_seed_is_stored_only_in_the_seed_table_until_revealed(
    app: Questlog, raw: Any, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    commitment = app.campaign(campaign_id).dice["commitment"]
    secret = app.dice.secret_seed(commitment)
    for _ in range(99):  # version 100: a snapshot is taken
        app.dice.roll(campaign_id, notation="d20", purpose="")
    campaign = app.campaign(campaign_id)
    assert raw.snapshot_versions(campaign_id) == [100]
    secret_forms = [secret.encode(), secret.upper().encode(), bytes.fromhex(secret)]

    tables = raw.tables()
    assert SEEDS_TABLE in tables
    assert raw.events_table in tables and raw.snapshots_table in tables
    for table in tables:
        stored = raw.table_bytes(table)
        if table == SEEDS_TABLE:
            assert secret.encode() in stored
            continue
        for form in secret_forms:
            assert form not in stored, f"the secret seed ({form!r}) is in {table}"
    for stored_event in app.stored_events(campaign_id):
        assert secret.encode() not in stored_event.state
    for text in (repr(campaign), str(campaign.__dict__), repr(campaign.view())):
        assert secret not in text

    app.dice.rotate_seed(campaign_id)
    revealed = app.campaign_events(campaign_id)[-1]

    assert revealed.revealed_seed == secret
    assert secret.encode() in raw.table_bytes(raw.events_table)
    new_secret = app.dice.secret_seed(app.campaign(campaign_id).dice["commitment"])
    for table in tables:
        assert (new_secret.encode() in raw.table_bytes(table)) == (table == SEEDS_TABLE)


def test_a_store_written_before_attempt_ids_loads_verifies_and_takes_commands(
    store_config: StoreConfig, raw: RawStore, app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    # Early releases had no questlog_attempts table and wrote the access flag apart.
    campaign_id = new_campaign()
    app.dice.roll(campaign_id, notation="d20", purpose="old release")
    app.close()
    raw._run(f"DROP TABLE {ATTEMPTS_TABLE}")
    assert ATTEMPTS_TABLE not in raw.tables()

    reopened = Questlog(store_config)
    try:
        assert reopened.reading.audit(campaign_id).ok is True
        reopened.dice.roll(campaign_id, notation="d20", purpose="new release")
        assert reopened.campaign(campaign_id).version == 3
        assert reopened.reading.audit(campaign_id).ok is True
        assert len(raw._run(f"SELECT attempt FROM {ATTEMPTS_TABLE}")) == 1
    finally:
        reopened.close()


def test_a_store_config_takes_a_str_or_a_path(tmp_path: Path) -> None:
    """``StoreConfig(sqlite_path="...")`` works as ``StoreConfig(sqlite_path=Path(...))``."""
    as_text = StoreConfig(sqlite_path=str(tmp_path / "text.db"))
    assert as_text == StoreConfig(sqlite_path=tmp_path / "text.db")
    assert isinstance(as_text.sqlite_path, Path)
    app = Questlog(as_text)
    try:
        created = app.campaigns.create_campaign(game="quest-calendar", name="from a str path")
        assert app.campaign(created.campaign_id).name == "from a str path"
    finally:
        app.close()
    assert (tmp_path / "text.db").exists()


# -- reading a campaign's events in one call ------------------------------------------


def test_a_campaigns_events_read_in_one_call_are_the_recorders_own(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    """The audit reads a whole log through ``stored_events_after`` (on SQLite one autocommit
    SELECT on the thread's own reading connection): the same events as ``select_events``."""
    cid = new_campaign()
    for n in range(5):
        app.dice.roll(cid, notation="d20", purpose=f"roll {n}")
    recorder = app.side_tables
    for after, limit in [(0, None), (2, None), (2, 2), (6, None), (0, 1)]:
        fast = recorder.stored_events_after(cid, after, limit)
        exact = list(app.recorder.select_events(cid, gt=after, limit=limit))
        assert fast == exact, (after, limit)
    assert [e.originator_version for e in recorder.stored_events_after(cid, 2, 2)] == [3, 4]
