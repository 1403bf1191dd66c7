"""The OpenAPI document publishes each command's schema: it validates, and a standard generator
builds client models from it that produce bodies the API accepts."""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from datamodel_code_generator import DataModelType, InputFileType, generate
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from webapi.schemas.catalogue import COMMANDS, NULL_ONLY, command_components

BODY = ("paths", "/campaigns/{campaign}/commands", "post", "requestBody")


def command_body_schema(document: dict[str, Any]) -> dict[str, Any]:
    """The request body schema of POST /campaigns/{id}/commands."""
    node: Any = document
    for key in BODY:
        node = node[key]
    return node["content"]["application/json"]["schema"]  # type: ignore[no-any-return]


def test_the_command_body_is_one_of_the_command_schemas(client: FlaskClient) -> None:
    document = client.get("/openapi.json").json
    validate(document)
    body = command_body_schema(document)
    mapping = body["discriminator"]["mapping"]
    assert body["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(COMMANDS)
    assert sorted(r["$ref"] for r in body["oneOf"]) == sorted(mapping.values())
    for name, ref in mapping.items():
        component = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert component["properties"]["type"]["enum"] == [name]
        assert "faces" in component["properties"]
        assert component["additionalProperties"] is False
    check = document["components"]["schemas"]["TraitCheckCommand"]
    assert check["required"] == ["trait", "type"]
    assert check["properties"]["bonus"]["maximum"] == 100


def test_a_generated_client_model_builds_a_command(
    client: FlaskClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = client.get("/openapi.json").json
    output = tmp_path / "questlog_models.py"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the generator's own notice on formatters
        generate(
            json.dumps(document),
            input_file_type=InputFileType.OpenAPI,
            output=output,
            output_model_type=DataModelType.PydanticV2BaseModel,
        )
    spec = importlib.util.spec_from_file_location("questlog_models", output)
    assert spec is not None and spec.loader is not None
    models = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "questlog_models", models)  # pydantic looks itself up
    spec.loader.exec_module(models)

    model = models.TraitCheckCommand
    kind = model.model_fields["type"].annotation
    built = model(type=kind("trait_check"), trait="INT", target=12)
    body = json.loads(built.model_dump_json(exclude_none=True))
    assert body == {"type": "trait_check", "trait": "INT", "target": 12, "bonus": 0}
    assert COMMANDS["trait_check"].schema().validate(body) == {}

    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    answer = client.post(f"/campaigns/{cid}/commands", json=body)
    assert answer.status_code == 409, answer.json  # the body is accepted; a rule refuses it
    assert answer.json["rule"] == "QC-02"  # no hero yet


def object_defaults(schema: Any, path: str = "") -> list[str]:
    """Where a schema, or one inside it, has an object as its ``default``."""
    if not isinstance(schema, dict):
        return []
    found = [path] if isinstance(schema.get("default"), dict) else []
    inner = [(f"{path}/properties/{k}", s) for k, s in schema.get("properties", {}).items()]
    for key in ("items", "additionalProperties"):
        inner.append((f"{path}/{key}", schema.get(key)))
    for key in ("anyOf", "oneOf", "allOf"):
        inner += [(f"{path}/{key}/{n}", s) for n, s in enumerate(schema.get(key, []))]
    for where, each in inner:
        found += object_defaults(each, where)
    return found


def test_an_object_default_is_told_in_words_and_still_loaded(client: FlaskClient) -> None:
    """A nullable object field whose default is ``{}`` (which client generators cannot take)
    says so in its description; the server still loads ``{}`` where it is left out or null, and
    GET /commands still lists the default."""
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]
    assert [p for name, s in schemas.items() for p in object_defaults(s, name)] == []
    told = {
        ("LevelUpCommand", "new_uses"): "Left out or null: {}.",
        ("ResolveRoundsCommand", "assignments"): "Left out or null: {}.",
        ("Ability", "effect"): "Left out or null: {} (every field of it left out).",
        ("Item", "effect"): "Left out or null: {} (every field of it left out).",
        ("CalendarBoardSetup", "options"): "Left out or null: {} (every field of it left out).",
    }
    for (component, name), words in told.items():
        assert schemas[component]["properties"][name]["description"].endswith(words)
    rounds = COMMANDS["resolve_rounds"].schema()
    assert rounds.load({"type": "resolve_rounds"})["assignments"] == {}
    assert rounds.load({"type": "resolve_rounds", "assignments": None})["assignments"] == {}
    listed = client.get("/commands?game=quest-calendar").json["commands"]
    fields = next(c["fields"] for c in listed if c["name"] == "resolve_rounds")
    assert next(f for f in fields if f["name"] == "assignments")["default"] == {}


def test_a_nullable_object_lists_its_schema_before_null(client: FlaskClient) -> None:
    """Generators try a union's branches in order and the null branch takes any object, so the
    typed schema comes first (``Actions.pending`` is a ``PendingDecision`` or null)."""
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]
    assert schemas["Actions"]["properties"]["pending"]["anyOf"] == [
        {"$ref": "#/components/schemas/PendingDecision"},
        {"type": "object", "nullable": True},
    ]
    unions = [
        (name, key, prop["anyOf"])
        for name, schema in schemas.items()
        for key, prop in schema.get("properties", {}).items()
        if "anyOf" in prop
    ]
    assert len(unions) > 5
    commands = set(command_components())
    for name, key, branches in unions:
        # a command's nested object takes its schema or null alone, not any other object
        null = NULL_ONLY if name in commands else {"type": "object", "nullable": True}
        assert branches[-1] == null, (name, key)
        assert "$ref" in branches[0], (name, key)
    assert schemas["Hero"]["properties"]["pool"]["anyOf"][-1] == NULL_ONLY
