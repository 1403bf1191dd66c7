"""Every operation of the served OpenAPI document has a stable, unique operationId for people,
from the one table of ``webapi/schemas/operation_ids.py``, and docs/api-clients.md lists every
one of them: a route added without a name fails here, and a rename shows as a diff of the doc."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.clients.conftest import documented_operations
from webapi.schemas.operation_ids import OPERATION_IDS

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
NAME = re.compile(r"^[a-z][A-Za-z0-9]*$")


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
        if method in METHODS
    }


def snake(name: str) -> str:
    """A camelCase name in snake case, as openapi-python-client names a module after it."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_operation_has_a_name_for_people(document: dict[str, Any]) -> None:
    """No operation is left for a generator to name after its method and path."""
    found = operations(document)
    assert len(found) > 50
    unnamed = sorted(key for key, operation in found.items() if "operationId" not in operation)
    assert not unnamed, f"add these to webapi/schemas/operation_ids.py: {unnamed}"


def test_the_names_are_unique_and_camel_case(document: dict[str, Any]) -> None:
    """Two operations never share a name, and each is a camelCase identifier in every
    generator's language."""
    names = [operation["operationId"] for operation in operations(document).values()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert [n for n in names if not NAME.match(n)] == []
    assert len(set(OPERATION_IDS.values())) == len(OPERATION_IDS)


def test_the_table_has_no_stale_entry(document: dict[str, Any]) -> None:
    """Every entry of the table names an operation the document has, with that name."""
    found = operations(document)
    stale = sorted(key for key in OPERATION_IDS if key not in found)
    assert not stale, f"no such operation: {stale}"
    assert {key: found[key]["operationId"] for key in OPERATION_IDS} == OPERATION_IDS


def test_the_docs_table_lists_every_name_as_served(document: dict[str, Any]) -> None:
    """docs/api-clients.md's table is the golden list: its rows are exactly the document's
    operations and names (a rename or a new route is a visible diff there), with the Python
    module and the TypeScript type each name gives."""
    rows = documented_operations()
    listed = {(row["method"].lower(), row["path"]): row["name"] for row in rows}
    assert len(listed) == len(rows)
    found = operations(document)
    assert listed == {key: operation["operationId"] for key, operation in found.items()}
    for row in rows:
        operation = found[(row["method"].lower(), row["path"])]
        assert row["python"] == f"{operation['tags'][0]}.{snake(row['name'])}", row
        assert row["typescript"] == f'operations["{row["name"]}"]', row


def test_some_names_are_the_ones_clients_were_promised() -> None:
    """The names the docs' examples and the generated-client tests use."""
    assert OPERATION_IDS[("post", "/campaigns/{campaign}/commands")] == "sendCommand"
    assert OPERATION_IDS[("post", "/campaigns")] == "createCampaign"
    assert OPERATION_IDS[("get", "/campaigns")] == "listCampaigns"
    assert OPERATION_IDS[("get", "/campaigns/{campaign}/events")] == "getCampaignEvents"
    assert OPERATION_IDS[("post", "/campaigns/{campaign}/rolls")] == "rollDice"
    assert OPERATION_IDS[("get", "/campaigns/{campaign}/actions")] == "getActions"
