"""The analyst's dataset as a directory: a Parquet file per table and its data dictionary.

``write_dataset`` writes ``<table>.parquet`` for every table of ``projections.dataset`` (a chunk
at a time, with pyarrow), then ``README.md`` (every table and column: name, type, what it holds)
and ``schema.json`` (the same, for programs). Nothing in the directory holds a seed, a secret or a
token: the event store does, and is never handed out (docs/analytics.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from domain.facade import Questlog
from projections.columns import arrow_schema, type_name
from projections.dataset import Scope, dataset_tables, snapshot
from projections.store import ViewStore

TABLE_DOC = {
    "campaigns": "One row per campaign, across both games: its game, name, times and counts.",
    "rolls": "Every roll of every campaign, with its dice and, once its seed is revealed, "
    "whether it verifies.",
    "exhaustion": "Calendar Board: every change of a party's exhaustion, and the pieces it "
    "eliminated.",
    "weather": "Calendar Board: one row per night of a match: the space, weather and wind.",
    "ledger": "Quest Calendar: every credit movement of the hero, with the balance after it.",
    "debt_spans": "Quest Calendar: each span of debt, from the first entry below 0 to the first "
    "back at 0 or above.",
    "hero_timeline": "Quest Calendar: every change of the hero's HP and virtue.",
    "hero_lives": "Quest Calendar: the hero's deaths and clonings.",
    "ship_history": "Quest Calendar: every change of a ship compartment's Integrity.",
    "ship_losses": "Quest Calendar: the crew and upgrades lost.",
    "stat_pages": "Quest Calendar: a row per ended calendar page, with the hero's figures.",
    "stat_lives": "Quest Calendar: a row per death and per clone, with the hero's level.",
    "stat_combats": "Quest Calendar: a row per finished combat.",
    "stat_nights": "Calendar Board: a row per party at the end of each night, with its exhaustion.",
    "trait_checks": "Quest Calendar: a row per trait check, with its target, total, success and "
    "the abilities used on it.",
    "combats": "Quest Calendar: a row per combat that ended (dogfights are not combats): mode, "
    "enemies, rounds, whether won, HP lost.",
    "rollbacks": "A row per rollback: where from, where to, what it undid, who, and how (direct "
    "or by an approved proposal).",
    "rollback_commands": "A row per command a rollback undid: its type and how far back it was.",
    "house_rules": "A row per campaign and house rule: the value in force now (JSON text), and "
    "whether it is the game's default.",
    "board_nights": "Calendar Board: a row per player per night: exhaustion, the night actions "
    "taken and their results, whether the party slept through the day.",
    "events": "The event log: a row per event, in the log's order, with its payload as JSON "
    "(no seeds, no tokens).",
}
"""What each table holds, in a sentence (a table not named here: its view's docstring)."""


@dataclass(frozen=True)
class Written:
    """What ``write_dataset`` wrote: the rows per table and the views' positions it read."""

    rows: dict[str, int]
    positions: dict[str, int]


def table_doc(name: str) -> str:
    """A table's description in a sentence."""
    if name in TABLE_DOC:
        return TABLE_DOC[name]
    from projections.views import ALL_VIEWS

    for view in ALL_VIEWS:
        if name in view.tables:
            return (view.__doc__ or view.name).strip().splitlines()[0]
    return ""


def dictionary() -> dict[str, Any]:
    """The data dictionary: every table with its description and its columns (name, type,
    nullable, description)."""
    found: dict[str, Any] = {}
    for name, spec in dataset_tables().items():
        schema = arrow_schema(name, spec)
        found[name] = {
            "file": f"{name}.parquet",
            "description": table_doc(name),
            "key": list(spec.key),
            "columns": [
                {
                    "name": column.name,
                    "type": type_name(column.type),
                    "nullable": column.nullable,
                    "json": spec.kinds.get(column.name) == "json"
                    and not pa.types.is_list(column.type),
                    "description": spec.doc.get(column.name, ""),
                }
                for column in schema
            ],
        }
    return found


def dictionary_markdown(positions: dict[str, int] | None = None) -> str:
    """The data dictionary as Markdown: the directory's README."""
    lines = [
        "# Questlog dataset",
        "",
        "A Parquet file per table, written by `questlog export --all --format parquet`. The view "
        "tables come from one snapshot of the views; `events.parquet` holds the event log up to "
        "the event every view had applied. No file holds a server seed, a secret or a token.",
        "",
        "Open it with DuckDB (`SELECT * FROM 'rolls.parquet'`) or pandas "
        "(`pandas.read_parquet('rolls.parquet')`); `schema.json` is this dictionary for "
        "programs. Times are UTC. A row a rollback undid is kept, with `undone_by` set.",
        "",
    ]
    if positions:
        read = ", ".join(f"{view} {position}" for view, position in sorted(positions.items()))
        lines += [f"Views read at positions: {read}.", ""]
    for name, entry in dictionary().items():
        lines += [f"## {name}", "", f"`{entry['file']}`: {entry['description']}", ""]
        lines += ["| column | type | description |", "|---|---|---|"]
        for column in entry["columns"]:
            kind = column["type"] + (" (JSON text)" if column["json"] else "")
            words = column["description"].replace("|", "\\|")
            lines.append(f"| `{column['name']}` | {kind} | {words} |")
        lines.append("")
    return "\n".join(lines)


def write_dataset(
    app: Questlog,
    store: ViewStore,
    directory: Path,
    *,
    scope: Scope | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> Written:
    """Write every table of the dataset into ``directory`` as Parquet, and its dictionary."""
    directory.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    with snapshot(app, store, scope) as data:
        for name, spec in dataset_tables().items():
            schema = arrow_schema(name, spec)
            target = directory / f"{name}.parquet"
            partial = target.with_name(f".{target.name}.part")
            rows = 0
            try:
                with pq.ParquetWriter(partial, schema, compression="zstd") as writer:
                    for batch in data.batches(name):
                        writer.write_batch(batch)
                        rows += batch.num_rows
            except BaseException:
                partial.unlink(missing_ok=True)  # no half-written file left beside the others
                raise
            partial.replace(target)
            counts[name] = rows
            if progress is not None:
                progress(name, rows)
        positions = dict(data.positions)
    (directory / "README.md").write_text(dictionary_markdown(positions), encoding="utf-8")
    schema_json = {"positions": positions, "rows": counts, "tables": dictionary()}
    (directory / "schema.json").write_text(
        json.dumps(schema_json, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return Written(counts, positions)
