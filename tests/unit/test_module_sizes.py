"""The size limits, counted from the syntax tree: no module of ``domain/``, ``webapi/`` or
``projections/`` over 500 lines and no function over 60 (from its ``def`` to its end; decorators
are declarations)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("domain", "webapi", "projections")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


def sources() -> list[Path]:
    return sorted(path for package in CHECKED for path in (ROOT / package).rglob("*.py"))


def long_functions(tree: ast.AST) -> list[tuple[str, int]]:
    """Every function of a module longer than the limit, with its length."""
    return [
        (node.name, length)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    ]


@pytest.mark.parametrize("path", sources(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_modules_and_functions_stay_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES
    assert long_functions(ast.parse(text)) == []


def test_a_long_function_is_found() -> None:
    body = "\n".join(f"    x = {n}" for n in range(MAX_FUNCTION_LINES))
    assert long_functions(ast.parse(f"@decorated\ndef f():\n{body}\n")) == [
        ("f", MAX_FUNCTION_LINES + 1)
    ]
