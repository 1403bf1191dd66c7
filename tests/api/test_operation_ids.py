"""Every operation of the served OpenAPI document has a stable, unique operationId for people,
declared on its view, and docs/api-clients.md lists every one of them in a table generated from
the document: a route added without a name fails here, a new route or a changed path shows as a
diff of the doc, and the table is never regenerated without a name it lists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from apispec import APISpec
from flask.testing import FlaskClient

from tests.clients.conftest import DOC, documented_operations
from webapi.doctools import operations as generated
from webapi.schemas.operation_ids import DuplicateOperationId, OperationIds

NAME = re.compile(r"^[a-z][A-Za-z0-9]*$")
REGENERATE = "run: questlog reference operations --write docs/api-clients.md"


@pytest.fixture
def document(client: FlaskClient) -> dict[str, Any]:
    """The document as the server serves it."""
    response = client.get("/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json
    return body


def operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every operation of the document by (method, path)."""
    return {
        (method, path): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in generated.METHODS
    }


def test_every_operation_has_a_name_for_people(document: dict[str, Any]) -> None:
    """No operation is left for a generator to name after its method and path."""
    found = operations(document)
    assert len(found) > 50
    unnamed = sorted(key for key, operation in found.items() if "operationId" not in operation)
    assert not unnamed, f'declare @blp.doc(operationId="...") on the views of: {unnamed}'


def test_the_names_are_unique_and_camel_case(document: dict[str, Any]) -> None:
    """Two operations never share a name, and each is a camelCase identifier in every
    generator's language."""
    names = [operation["operationId"] for operation in operations(document).values()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert [n for n in names if not NAME.match(n)] == []


def test_a_name_two_operations_declare_is_refused() -> None:
    spec = APISpec("t", "1", "3.0.3", plugins=[OperationIds()])
    spec.path("/a", operations={"get": {"operationId": "getA"}})
    spec.path("/a", operations={"get": {"operationId": "getA"}})  # the same operation again
    with pytest.raises(DuplicateOperationId, match="getA"):
        spec.path("/b", operations={"get": {"operationId": "getA"}})


def test_the_docs_table_is_generated_from_the_document(document: dict[str, Any]) -> None:
    """docs/api-clients.md's table is exactly what the document generates."""
    text = DOC.read_text(encoding="utf-8")
    assert text == generated.update_operations(text, document), REGENERATE


def test_the_docs_table_lists_every_name_as_served(document: dict[str, Any]) -> None:
    """The table's rows are exactly the document's operations and names, with the Python module
    and the TypeScript type each name gives."""
    rows = documented_operations()
    listed = {(row["method"].lower(), row["path"]): row["name"] for row in rows}
    assert len(listed) == len(rows)
    found = operations(document)
    assert listed == {key: operation["operationId"] for key, operation in found.items()}
    for row in rows:
        operation = found[(row["method"].lower(), row["path"])]
        assert row["python"] == f"{operation['tags'][0]}.{generated.snake(row['name'])}", row
        assert row["typescript"] == f'operations["{row["name"]}"]', row


def test_regenerating_never_drops_a_published_name(document: dict[str, Any]) -> None:
    """A renamed operation (or one gone) is refused; a moved path keeps its name and is taken."""
    text = DOC.read_text(encoding="utf-8")
    renamed = rename(document, "sendCommand", "postCommand")
    with pytest.raises(generated.PublishedNameDropped, match="sendCommand"):
        generated.update_operations(text, renamed)
    moved = {**document, "paths": dict(document["paths"])}
    moved["paths"]["/campaigns/{campaign}/game-commands"] = moved["paths"].pop(
        "/campaigns/{campaign}/commands"
    )
    assert "/campaigns/{campaign}/game-commands` | `sendCommand`" in generated.update_operations(
        text, moved
    )


def rename(document: dict[str, Any], name: str, new: str) -> dict[str, Any]:
    """``document`` with the operation called ``name`` called ``new``."""
    paths = {
        path: {
            method: {**operation, "operationId": new}
            if isinstance(operation, dict) and operation.get("operationId") == name
            else operation
            for method, operation in item.items()
        }
        for path, item in document["paths"].items()
    }
    return {**document, "paths": paths}


def test_the_command_writes_the_table(tmp_path: Path) -> None:
    """``questlog reference operations --write`` leaves an up-to-date doc as it is."""
    from click.testing import CliRunner

    from webapi.cli.docs import reference

    copy = tmp_path / "api-clients.md"
    copy.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    result = CliRunner().invoke(reference, ["operations", "--write", str(copy)])
    assert result.exit_code == 0, result.output
    assert copy.read_text(encoding="utf-8") == DOC.read_text(encoding="utf-8")


def test_some_names_are_the_ones_clients_were_promised(document: dict[str, Any]) -> None:
    """The names the docs' examples and the generated-client tests use."""
    found = operations(document)
    assert found[("post", "/campaigns/{campaign}/commands")]["operationId"] == "sendCommand"
    assert found[("post", "/campaigns")]["operationId"] == "createCampaign"
    assert found[("get", "/campaigns")]["operationId"] == "listCampaigns"
    assert found[("get", "/campaigns/{campaign}/events")]["operationId"] == "getCampaignEvents"
    assert found[("post", "/campaigns/{campaign}/rolls")]["operationId"] == "rollDice"
    assert found[("get", "/campaigns/{campaign}/actions")]["operationId"] == "getActions"
