"""Arrow columns from the views' table definitions, for the analyst's dataset.

A column's SQL type and its ``kinds`` (``projections.schema.KINDS``) give its Arrow type:
integers int64, ``bool`` booleans, ``date`` date32, ``timestamp`` UTC timestamps, ``json`` JSON
text, or the fixed shape ``SHAPES`` names for a JSON column that has one. ``record_batch`` builds
a chunk of rows column by column, converting each column as a whole where Arrow can.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.json as pa_json

from projections.schema import Table

JSON_BLOCK = 1 << 24
"""Bytes per block of Arrow's JSON reader: more than any one value."""
DIE = pa.struct(
    [("sides", pa.int64()), ("face", pa.int64()), ("kept", pa.bool_()), ("raw", pa.string())]
)
"""A die of a roll. ``raw`` is what the player read when it differs from ``face`` (a d10's ``0``,
a d100's ``{"tens": 0, "units": 7}``), as JSON text, since its shape depends on the die; else
null."""
SHAPES: dict[tuple[str, str], pa.DataType] = {
    ("rolls", "dice"): pa.list_(DIE),
    ("rolls", "faces"): pa.list_(pa.int64()),
    ("exhaustion", "eliminated"): pa.list_(pa.string()),
    ("trait_checks", "faces"): pa.list_(pa.int64()),
    ("trait_checks", "abilities"): pa.list_(pa.string()),
    ("combats", "enemies"): pa.list_(pa.string()),
    ("board_nights", "actions"): pa.list_(
        pa.struct([("action", pa.string()), ("result", pa.string())])
    ),
}
"""The JSON columns with a fixed shape, typed as that shape; other JSON columns stay text."""


def arrow_type(name: str, column: str, spec: Table) -> pa.DataType:
    """The Arrow type of a column: its shape, else its kind, else its SQL type."""
    shape = SHAPES.get((name, column))
    if shape is not None:
        return shape
    kind = spec.kinds.get(column)
    if kind == "bool":
        return pa.bool_()
    if kind == "date":
        return pa.date32()
    if kind == "timestamp":
        return pa.timestamp("us", tz="UTC")
    sql_type = dict(spec.columns)[column].split()[0].upper()
    return pa.int64() if sql_type in ("INTEGER", "BIGINT") else pa.string()


def arrow_schema(name: str, spec: Table) -> pa.Schema:
    """A table's Arrow schema: typed columns, each with its words (``description``) and, for
    JSON text, ``kind: json`` in the field's metadata."""
    fields = []
    for column, sql_type in spec.columns:
        metadata = {"description": spec.doc.get(column, "")}
        if spec.kinds.get(column) == "json" and (name, column) not in SHAPES:
            metadata["kind"] = "json"
        nullable = "NOT NULL" not in sql_type.upper()
        fields.append(pa.field(column, arrow_type(name, column, spec), nullable, metadata))
    return pa.schema(fields)


def type_name(data_type: pa.DataType) -> str:
    """A type as the data dictionary writes it (``int64``, ``list<int64>``...)."""
    if pa.types.is_timestamp(data_type):
        return "timestamp (UTC)"
    if pa.types.is_date32(data_type):
        return "date"
    return str(data_type).replace("list<item: ", "list<")


def _json_array(values: Sequence[Any], data_type: pa.DataType) -> pa.Array:
    """JSON texts parsed into their fixed shape by Arrow's JSON reader (no Python object per
    value): each text becomes the one field of a JSON Lines row."""
    if not values:
        return pa.array([], data_type)
    texts = [_raw_as_text(v) if v is not None and RAW in v else v for v in values]
    lines = "\n".join(['{"v":' + ("null" if v is None else v) + "}" for v in texts])
    parsed = pa_json.read_json(
        io.BytesIO(lines.encode()),
        read_options=pa_json.ReadOptions(block_size=JSON_BLOCK),
        parse_options=pa_json.ParseOptions(explicit_schema=pa.schema([("v", data_type)])),
    )
    return parsed.column("v").combine_chunks()


RAW = '"raw"'
"""How a die's ``raw`` reading shows in a ``dice`` column's JSON text."""


def _raw_as_text(value: str) -> str:
    """A ``dice`` column's JSON with each die's ``raw`` reading as JSON text (``DIE``): a number
    for one die and an object for another cannot share one Arrow type. Only the few rolls with
    hand-read dice pass here."""
    dice = json.loads(value)
    for die in dice if isinstance(dice, list) else ():
        if isinstance(die, dict) and "raw" in die:
            die["raw"] = json.dumps(die["raw"], separators=(",", ":"))
    return json.dumps(dice, separators=(",", ":"))


def _array(values: Sequence[Any], data_type: pa.DataType, is_json: bool) -> pa.Array:
    """One column of a chunk as an Arrow array, converted as a whole where Arrow can."""
    if is_json:
        return _json_array(values, data_type)
    if pa.types.is_boolean(data_type):
        return pa.array(values, pa.int64()).cast(data_type)
    if pa.types.is_date32(data_type) or pa.types.is_timestamp(data_type):
        return pa.array(values, pa.string()).cast(data_type)
    return pa.array(values, data_type)


def record_batch(name: str, schema: pa.Schema, rows: Sequence[Sequence[Any]]) -> pa.RecordBatch:
    """A chunk of rows (tuples in the schema's column order) as a record batch of the schema."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    arrays = [
        _array(values, column.type, (name, column.name) in SHAPES)
        for values, column in zip(columns, schema, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
