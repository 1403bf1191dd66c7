"""One composition root: ``Questlog`` (``domain.service.questlog``) builds each use case once, on
its core, and every caller reaches them through it (``questlog().reading``, ``.dice``,
``.access``, ``.library``, ``.campaigns``, ``.time_travel``, ``.table``, ``.imports``,
``.bundles``), never by wrapping the application per call."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.facade import Questlog, StoreConfig
from domain.service.actions import TableActions
from domain.service.application import Campaigns
from domain.service.bundles import Bundles
from domain.service.commands_service import CommandService
from domain.service.importing import CampaignImport
from domain.service.library import LibraryService
from domain.service.reading import Reading
from domain.service.seeds import DiceService
from domain.service.timetravel import TimeTravel
from domain.service.tokens import TokenService

ROOT = Path(__file__).resolve().parents[2]
OUTER = ("webapi", "projections", "bench", "tests")
USE_CASES: dict[str, type] = {
    "reading": Reading,
    "dice": DiceService,
    "access": TokenService,
    "library": LibraryService,
    "campaigns": Campaigns,
    "time_travel": TimeTravel,
    "table": TableActions,
    "imports": CampaignImport,
    "bundles": Bundles,
}
"""Each use case ``Questlog`` holds, by the attribute callers reach it by."""


def constructions(source: str) -> Iterator[tuple[int, str]]:
    """Each call in ``source`` that builds one of the use cases (by name or by attribute)."""
    names = {kind.__name__ for kind in USE_CASES.values()}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if called in names:
            yield node.lineno, called


def test_no_outer_module_builds_a_use_case() -> None:
    built = [
        f"{path.relative_to(ROOT)}:{line} {name}(...)"
        for package in OUTER
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, name in constructions(path.read_text("utf-8"))
    ]
    assert built == [], "reach the use case through the Questlog's attribute"


def test_the_check_sees_a_construction() -> None:
    source = "TimeTravel(app).rollback(cid)\nfacade.TableActions(questlog())\nTimeTravel\n"
    assert sorted(constructions(source)) == [(1, "TimeTravel"), (2, "TableActions")]


@pytest.fixture
def questlog(tmp_path: Path) -> Iterator[Questlog]:
    app = Questlog(StoreConfig(sqlite_path=tmp_path / "questlog.db"))
    yield app
    app.close()


@pytest.mark.parametrize("attribute", sorted(USE_CASES))
def test_questlog_holds_each_use_case_once(questlog: Questlog, attribute: str) -> None:
    held = getattr(questlog, attribute)
    assert isinstance(held, USE_CASES[attribute])
    assert held is getattr(questlog, attribute)
    assert held.app is questlog


def test_the_use_cases_share_what_they_build_on(questlog: Questlog) -> None:
    assert questlog.table.travel is questlog.time_travel
    assert questlog.bundles.imports is questlog.imports
    assert questlog.campaigns.dice is questlog.dice
    assert questlog.time_travel.campaigns is questlog.campaigns
    assert questlog.time_travel.reading is questlog.reading
    assert questlog.imports.reading is questlog.reading
    assert questlog.bundles.reading is questlog.reading


def test_no_use_case_is_the_application() -> None:
    """The use cases are held, not inherited: the core alone is the eventsourcing application,
    and no use case's methods hang on it."""
    for kind in USE_CASES.values():
        assert not issubclass(Questlog, kind)
        assert not issubclass(kind, CommandService)


def test_each_questlog_builds_its_own(tmp_path: Path, questlog: Questlog) -> None:
    other = Questlog(StoreConfig(sqlite_path=tmp_path / "other.db"))
    try:
        for attribute in USE_CASES:
            assert getattr(other, attribute) is not getattr(questlog, attribute)
            assert getattr(other, attribute).app is other
    finally:
        other.close()


def test_the_store_keeps_the_name_it_had(questlog: Questlog) -> None:
    """eventsourcing names the store's tables and reads the environment by the application's
    ``name``: the composition root keeps the one stores written before it carry."""
    assert Questlog.name == CommandService.name == "Questlog"
    assert questlog.env.name == "Questlog"
    assert issubclass(Questlog, CommandService)
