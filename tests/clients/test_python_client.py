"""openapi-python-client, the most used Python generator, builds the whole client from the
OpenAPI document a running server publishes, with no warning, and a page and a night play
through that client alone (``tests/clients/python_client.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, get_args, get_type_hints

import pytest

from tests.clients import python_client
from tests.clients.conftest import Served, checked_blocks, documented_operations
from webapi.schemas.catalogue import COMMANDS

pytestmark = pytest.mark.clients

METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture(scope="module")
def generated(
    served: Served, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[dict[str, Any], Path, str]]:
    """The served document, the client project generated from it, and what the generator
    printed."""
    document = served.document()
    project, printed = python_client.generate(document, tmp_path_factory.mktemp("python-client"))
    yield document, project, printed


@pytest.fixture(scope="module")
def client(generated: tuple[dict[str, Any], Path, str]) -> Iterator[ModuleType]:
    """The generated package, imported."""
    _, project, _ = generated
    yield python_client.load(project)
    python_client.unload(project)


@pytest.fixture
def http(client: ModuleType, served: Served) -> Iterator[Any]:
    """The generated ``AuthenticatedClient``, with the admin token."""
    with client.AuthenticatedClient(base_url=served.url, token=served.token) as made:
        yield made


def test_the_whole_client_is_generated_without_a_warning(
    generated: tuple[dict[str, Any], Path, str], client: ModuleType
) -> None:
    """Every operation of the document has its function and every command its model; the
    generator printed no warning (it was run with --fail-on-warning, too)."""
    document, project, printed = generated
    assert not re.search(r"warning|unable|will not be generated", printed, re.IGNORECASE), printed
    operations = {(method, path) for path, item in document["paths"].items() for method in item} - {
        (m, p) for p, item in document["paths"].items() for m in item if m not in METHODS
    }
    modules = [
        m for m in (project / python_client.PACKAGE / "api").glob("*/*.py") if m.stem != "__init__"
    ]
    assert len(modules) == len(operations) > 50
    for entry in COMMANDS.values():
        model = getattr(client.models, entry.component)
        assert model.__name__ == entry.component
    send = python_client.operation(client, "commands", "send_command")
    accepted = {kind.__name__ for kind in get_args(get_type_hints(send.sync_detailed)["body"])}
    assert accepted == {entry.component for entry in COMMANDS.values()}
    for name in ("CalendarBoardSetup", "Ability", "Item", "PendingDecision"):
        assert hasattr(client.models, name), name


def test_each_operation_is_the_module_the_docs_name(
    generated: tuple[dict[str, Any], Path, str], client: ModuleType
) -> None:
    """docs/api-clients.md's table names, for each operationId, the module the generator
    writes (``questlog_client.api.<tag>.<name in snake case>``): each one is there, and they
    are all the generated operations."""
    _, project, _ = generated
    rows = documented_operations()
    for row in rows:
        tag, _, name = row["python"].partition(".")
        module = python_client.operation(client, tag, name)
        assert callable(module.sync_detailed), row
    written = {
        f"{m.parent.name}.{m.stem}"
        for m in (project / python_client.PACKAGE / "api").glob("*/*.py")
        if m.stem != "__init__"
    }
    assert written == {row["python"] for row in rows}


def test_a_generated_model_writes_the_body_the_schema_accepts(client: ModuleType) -> None:
    """A typed command sends exactly the fields it was given, plus its declared defaults; the
    command schema loads it."""
    m = client.models
    check = m.TraitCheckCommand(
        type_=m.TraitCheckCommandType.TRAIT_CHECK, trait=m.TraitCheckCommandTrait.DEX, target=9
    )
    body = check.to_dict()
    assert body == {"type": "trait_check", "trait": "DEX", "target": 9, "bonus": 0}
    assert COMMANDS["trait_check"].schema().validate(body) == {}
    rounds = m.ResolveRoundsCommand(type_=m.ResolveRoundsCommandType.RESOLVE_ROUNDS)
    assert rounds.to_dict() == {"type": "resolve_rounds"}
    assert COMMANDS["resolve_rounds"].schema().load(rounds.to_dict())["assignments"] == {}


def test_qc02_qc17_a_page_through_the_generated_client(client: ModuleType, http: Any) -> None:
    """A hero, a page, a trait check, an item and the page's end, each a typed command."""
    table = python_client.play_page(client, http)
    assert table.events == [
        "qc.HeroSelected",
        "qc.PageStarted",
        "qc.CheckRolled",
        "qc.ItemGained",
        "qc.PageEnded",
    ]
    assert table.state["page"] is None
    inventory = table.state["hero"]["inventory"]
    assert {item["id"] for item in inventory} == {"visor", "med-kit"}


def test_cb01_cb33_a_night_through_the_generated_client(client: ModuleType, http: Any) -> None:
    """Every player ends a turn, the night runs, and every decision it asks is answered with a
    typed command until the next day: at least the three night actions (CB-33) and the
    god-token holder's order of the two zombies (CB-04)."""
    table, asked = python_client.play_night(client, http)
    assert asked["night_action"] == 3
    assert asked["creature_order"] >= 1
    assert table.events.count("cb.NightPhaseStarted") == 1
    assert table.state["round"] == 2


def test_the_docs_generate_and_use_the_client_as_tested(client: ModuleType, served: Served) -> None:
    """docs/api-clients.md: its generate command has the flags used here, and its example runs
    as written against the server (a page started, a check refused with QC-02)."""
    (_, commands), (language, example) = checked_blocks("test_python_client.py")
    assert "openapi-python-client generate --path openapi.json" in commands
    assert "--fail-on-warning" in commands
    assert "'openapi-python-client>=0.29,<0.30'" in commands  # the test extra's range
    assert language == "python"
    exec(
        compile(example, "docs/api-clients.md", "exec"),
        {"BASE_URL": served.url, "TOKEN": served.token},
    )
