"""The analyst's dataset (SQLite and PostgreSQL): ``questlog export --all`` writes typed Parquet
files that DuckDB and pandas open with the declared types, as many rows as the view tables, the
event log with its undone flags, and no seed or token anywhere; ``--campaign`` and ``--game``
narrow every table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import UUID

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from domain.facade import acting_as, actor_label
from domain.service.questlog import Questlog
from projections.columns import SHAPES, arrow_schema
from projections.dataset import INTERNAL_TABLES, Scope, dataset_tables, row_tables, tables
from projections.event_log import EVENTS_NAME
from projections.parquet import write_dataset
from projections.store import ViewStore
from projections.views import ALL_VIEWS
from tests.conftest import RawStore
from tests.projections.conftest import dump, log_size, sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week
from tests.projections.test_runners import _env
from webapi.cli.main import main


@pytest.fixture
def played(app: Questlog, views: ViewStore) -> dict[str, Any]:
    """Both scripted campaigns, and a third played by a token: server rolls, a seed revealed,
    a rollback; every view caught up."""
    week, match = quest_calendar_week(app), calendar_board_match(app)
    token, secret = app.access.create_token("alice")
    created = app.campaigns.create_campaign(game="quest-calendar", name="Dice")
    dice = created.campaign_id
    with acting_as(token):
        for n in range(6):
            app.dice.roll(dice, notation="2d20kh1+3", purpose=f"roll {n}")
        app.dice.rotate_seed(dice)
        app.dice.roll(dice, notation="d6", purpose="after the reveal")
        # as the API records it: the actor named name#id (the id must not reach the dataset)
        app.time_travel.rollback(dice, to_version=4, reason="a misread", actor=actor_label(token))
        app.dice.roll(dice, notation="d8", purpose="after the rollback")
    sync(app, views)
    return {
        "week": str(week),
        "match": str(match),
        "dice": str(dice),
        "token": token,
        "secret": secret,
    }


def test_every_column_of_every_table_has_a_description() -> None:
    missing = [
        f"{name}.{column}"
        for name, spec in dataset_tables().items()
        for column in spec.names
        if not spec.doc.get(column, "").strip()
    ]
    assert not missing, f"columns without words in their table's doc: {missing}"
    # every view's row tables are in the dataset; its per-campaign state tables and its own
    # lookups are not
    for view in ALL_VIEWS:
        for name in view.all_tables():
            wanted = name in view.tables and name not in INTERNAL_TABLES
            assert (name in dataset_tables()) == wanted, name


def test_the_parquet_files_open_in_duckdb_and_pandas_with_the_declared_types(
    app: Questlog, views: ViewStore, played: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "dataset"
    written = write_dataset(app, views, out)
    rows = dump(views)
    assert set(written.rows) == set(dataset_tables())
    assert written.rows[EVENTS_NAME] == log_size(app)
    for name, spec in dataset_tables().items():
        path = out / f"{name}.parquet"
        schema = pq.read_schema(path)
        declared = arrow_schema(name, spec)
        assert schema.names == declared.names
        assert [f.type for f in schema] == [f.type for f in declared], name
        if name in row_tables():
            assert pq.read_metadata(path).num_rows == len(rows[name]) == written.rows[name]
        with duckdb.connect() as con:
            described = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()
        types = {column: kind for column, kind, *_ in described}
        for column, sql_type in spec.columns:
            kind = spec.kinds.get(column)
            expected = {
                "bool": "BOOLEAN",
                "date": "DATE",
                "timestamp": "TIMESTAMP WITH TIME ZONE",
            }.get(kind or "", "BIGINT" if sql_type.split()[0] in ("INTEGER", "BIGINT") else None)
            if (name, column) in SHAPES:
                assert types[column].endswith("[]"), (name, column, types[column])
            elif expected is not None:
                assert types[column] == expected, (name, column, types[column])
            else:
                assert types[column] == "VARCHAR", (name, column, types[column])
    rolls = pd.read_parquet(out / "rolls.parquet")
    assert str(rolls["recorded_at"].dtype).startswith("datetime64") and "UTC" in str(
        rolls["recorded_at"].dtype
    )
    assert rolls["total"].dtype == "int64"
    assert {type(v) for v in rolls["verified"].dropna()} <= {bool}
    assert set(rolls["verified"].dropna()) == {True}  # the revealed seed's rolls re-derive
    first = rolls.iloc[0]
    assert list(first["faces"]) == [die["face"] for die in first["dice"]]
    assert set(first["dice"][0]) == {"sides", "face", "kept", "raw"}
    ledger = pd.read_parquet(out / "ledger.parquet")
    dated = ledger["page_date"].dropna()
    assert len(dated) and all(type(d).__name__ == "date" for d in dated)
    events = pd.read_parquet(out / "events.parquet")
    assert events["undone"].dtype == bool
    assert events["position"].is_monotonic_increasing
    assert all(isinstance(json.loads(p), dict) for p in events["payload"])
    readme = (out / "README.md").read_text(encoding="utf-8")
    dictionary = json.loads((out / "schema.json").read_text(encoding="utf-8"))
    for name, spec in dataset_tables().items():
        assert f"## {name}" in readme
        documented = dictionary["tables"][name]["columns"]
        assert [c["name"] for c in documented] == list(spec.names)
        assert all(c["description"] for c in documented)


def test_the_event_log_says_which_events_a_rollback_undid(
    app: Questlog, views: ViewStore, played: dict[str, Any]
) -> None:
    ((_, events),) = tables(app, views, names=[EVENTS_NAME])
    assert [e["position"] for e in events.to_pylist()] == sorted(
        e["position"] for e in events.to_pylist()
    )
    for key in ("week", "match", "dice"):
        cid = played[key]
        campaign = app.campaign(UUID(cid))
        timeline = app.reading.timeline(campaign)
        mine = [e for e in events.to_pylist() if e["campaign_id"] == cid]
        assert [e["version"] for e in mine] == list(range(1, campaign.version + 1))
        for event in mine:
            assert event["undone_by"] == timeline.undone_by(event["version"]), event
            assert event["undone"] == (event["undone_by"] is not None)
    dice = [e for e in events.to_pylist() if e["campaign_id"] == played["dice"]]
    assert sum(e["undone"] for e in dice) == 5  # versions 5 to 9: the rollback went back to 4
    assert {e["actor"] for e in dice if e["version"] > 1} == {"alice"}
    rolled = [e for e in dice if e["event_type"] == "DiceRolled"]
    assert {e["command_type"] for e in rolled} == {"DiceRolled"}
    assert all(e["command_id"] == e["version"] for e in rolled)
    week = [e for e in events.to_pylist() if e["campaign_id"] == played["week"]]
    bought = next(e for e in week if e["event_type"] == "ItemBought")
    assert bought["command_type"] == "buy"
    assert str(bought["page_date"]) == "2027-01-10"
    assert bought["level"] == 1
    match = [e for e in events.to_pylist() if e["campaign_id"] == played["match"]]
    nights = {e["night"] for e in match if e["event_type"] == "ExhaustionChanged"}
    assert {1, 2} <= nights


def written_text(directory: Path) -> str:
    """Everything the export wrote, as text: every Parquet file's values decoded (its bytes are
    compressed) and the dictionary's files as they are."""
    parts = []
    for path in sorted(directory.iterdir()):
        if path.suffix == ".parquet":
            parts.append(json.dumps(pq.read_table(path).to_pylist(), default=str))
        else:
            parts.append(path.read_text(encoding="utf-8"))
        parts.append(path.read_bytes().decode("latin-1"))
    return "\n".join(parts)


def test_no_seed_secret_or_token_is_in_any_file(
    app: Questlog, views: ViewStore, raw: RawStore, played: dict[str, Any], tmp_path: Path
) -> None:
    write_dataset(app, views, tmp_path / "dataset")
    text = written_text(tmp_path / "dataset")
    seeds = [str(row[0]) for row in raw._run("SELECT seed FROM questlog_seeds")]
    assert len(seeds) >= 4  # one per campaign, and the dice campaign's second one
    revealed = [
        e.revealed_seed
        for e in app.campaign_events(UUID(played["dice"]))
        if type(e).__name__ == "SeedRotated"
    ]
    assert revealed and set(revealed) <= set(seeds)
    hashes = [str(row[0]) for row in raw._run("SELECT hash FROM questlog_tokens")]
    token = played["token"]
    secrets = [*seeds, played["secret"], token.id, *hashes]
    found = [secret for secret in secrets if secret in text]
    assert not found, f"the dataset holds a seed or a token: {found}"
    assert "alice" in text  # the actor is there, by name only
    commitments = {
        e.revealed_commitment
        for e in app.campaign_events(UUID(played["dice"]))
        if type(e).__name__ == "SeedRotated"
    }
    assert all(c in text for c in commitments)  # a reveal's commitment stays


def test_campaign_and_game_narrow_every_table(
    app: Questlog, views: ViewStore, played: dict[str, Any]
) -> None:
    week = played["week"]
    for name, table in tables(app, views, scope=Scope(campaign_id=week)):
        assert set(table.column("campaign_id").to_pylist()) <= {week}, name
    board = dict(tables(app, views, scope=Scope(game="calendar-board")))
    match = played["match"]
    for name, table in board.items():
        assert set(table.column("campaign_id").to_pylist()) <= {match}, name
    assert board["exhaustion"].num_rows > 0 and board["events"].num_rows > 0
    assert board["ledger"].num_rows == 0
    everything = dict(tables(app, views))
    for name, table in everything.items():
        assert table.num_rows >= board[name].num_rows
    assert everything["rolls"].schema == arrow_schema("rolls", dataset_tables()["rolls"])


def test_questlog_export_all_writes_the_directory(
    app: Questlog, views: ViewStore, played: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "dataset"
    cli = CliRunner()
    week = played["week"]
    args = ["export", "--all", "--format", "parquet", "--output", str(target)]
    done = cli.invoke(main, [*args, "--campaign", week], env=_env(app.config))
    assert done.exit_code == 0, done.output
    assert {p.name for p in target.iterdir()} == {
        *(f"{name}.parquet" for name in dataset_tables()),
        "README.md",
        "schema.json",
    }
    events = pq.read_table(target / "events.parquet")
    assert set(events.column("campaign_id").to_pylist()) == {week}
    done = cli.invoke(main, [*args, "--game", "calendar-board"], env=_env(app.config))
    assert done.exit_code == 0, done.output
    games = pq.read_table(target / "campaigns.parquet").column("game").to_pylist()
    assert games == ["calendar-board"]
    for wrong in (
        ["export", "--all", "--output", str(target), "--format", "csv"],
        ["export", "--all", "--format", "parquet"],
        ["export", "rolls", "--all", "--output", str(target)],
        ["export", "rolls", "--format", "parquet"],
        ["export"],
    ):
        refused = cli.invoke(main, wrong, env=_env(app.config))
        assert refused.exit_code == 2, (wrong, refused.output)


def test_an_empty_table_is_still_a_typed_file(
    app: Questlog, views: ViewStore, tmp_path: Path
) -> None:
    app.campaigns.create_campaign(game="quest-calendar", name="Empty")
    sync(app, views)
    write_dataset(app, views, tmp_path / "dataset")
    table = pq.read_table(tmp_path / "dataset" / "rolls.parquet")
    assert table.num_rows == 0
    assert table.schema.field("dice").type == pa.list_(SHAPES["rolls", "dice"].value_type)
