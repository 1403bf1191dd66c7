"""The outer layers reach the domain through ``domain.facade`` (an import-linter contract in
pyproject.toml holds the imports); this test holds what no import shows: no webapi module reaches
into the store through the application's ``recorder``, ``side_tables`` or ``datastore``."""

from __future__ import annotations

import ast
from pathlib import Path

import domain.facade

ROOT = Path(__file__).resolve().parents[2]
STORE_INTERNALS = {"recorder", "side_tables", "datastore"}


def test_no_webapi_module_reaches_the_stores_tables() -> None:
    reaching = [
        f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}"
        for path in sorted((ROOT / "webapi").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in STORE_INTERNALS
    ]
    assert reaching == []


def test_the_facade_exports_exactly_what_it_imports() -> None:
    imported = {
        alias.asname or alias.name
        for node in ast.parse(Path(domain.facade.__file__).read_text()).body
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
    }
    assert set(domain.facade.__all__) == imported
    assert len(domain.facade.__all__) == len(imported)
