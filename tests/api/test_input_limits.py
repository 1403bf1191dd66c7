"""Bad input is a 4xx problem on every route and on both stores: nesting depth, digits, control
characters, strict JSON numbers and booleans, odd headers (docs/architecture.md, Input limits)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import fields

from tests.api.conftest import api_routes
from webapi.http.limits import MAX_JSON_DEPTH, json_depth
from webapi.schemas.fields import Flag, Text

PROBLEM = "application/problem+json"


def assert_field_error(response: Any, status: int, field: str) -> None:
    """A problem+json answer with this status whose errors name this field."""
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    assert response.mimetype == PROBLEM
    assert field in response.json["errors"], response.json


def nested(depth: int, inner: str = "1") -> str:
    """A JSON value nested ``depth`` arrays and objects deep, alternating."""
    text = inner
    for level in range(depth):
        text = f'{{"a": {text}}}' if level % 2 else f"[{text}]"
    return text


# -- nesting depth --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("", 0),
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}], "c": {}}', 4),
        ('["[[[[", "{{{{"]', 1),
        (r'["\"[[[[", "\\", [2]]', 2),
        (r'["\\\"[[[["]', 1),
        (r'{"a\"{{": "\\\\"}', 1),
        ("]]]][", 0),  # a stray closer: the parser stops there, before any nesting
        (nested(1000), 1000),
    ],
)
def test_json_depth_skips_brackets_inside_strings(text: str, depth: int) -> None:
    assert json_depth(text.encode()) == depth


def test_a_body_nested_beyond_the_limit_is_422_on_body_on_every_route(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    deep = nested(1000)
    routes = [
        ("POST", "/campaigns"),
        ("POST", f"/campaigns/{cid}/rolls"),
        ("POST", f"/campaigns/{cid}/commands"),
        ("POST", f"/campaigns/{cid}/members"),
        ("POST", f"/campaigns/{cid}/rollback/proposals/p/approve"),
        ("POST", "/admin/tokens"),
        ("GET", f"/campaigns/{cid}"),
    ]
    for method, path in routes:
        for headers in ({}, {"Idempotency-Key": "deep"}):
            response = store_client.open(
                path, method=method, data=deep, content_type="application/json", headers=headers
            )
            assert_field_error(response, 422, "body")
            assert str(MAX_JSON_DEPTH) in response.json["errors"]["body"][0]


def test_a_body_at_the_limit_is_read_and_brackets_in_strings_do_not_count(
    store_client: FlaskClient,
) -> None:
    at_limit = nested(MAX_JSON_DEPTH - 2)  # inside the body's object and setup's
    body = f'{{"game": "quest-calendar", "name": "deep", "setup": {{"x": {at_limit}}}}}'
    response = store_client.post("/campaigns", data=body, content_type="application/json")
    assert_field_error(response, 422, "x")  # the game's own answer: the depth was fine
    name = "[{" * 40 + r"\"" + "[{" * 40
    body = f'{{"game": "quest-calendar", "name": "{name}"}}'
    response = store_client.post("/campaigns", data=body, content_type="application/json")
    assert response.status_code == 201, response.json


# -- digits ---------------------------------------------------------------------------------------

NOT_ASCII_NUMBERS = ["²", "³", "٣", "1²", "9" * 19, "9" * 5000, "", "-1", "+1", " 1", "1_0"]
"""Text that ``str.isdigit`` or ``int`` may accept but that is no version or roll number."""


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_if_match_takes_ascii_digits_only(
    store_client: FlaskClient, store_campaign: dict[str, Any], text: str
) -> None:
    path = f"/campaigns/{store_campaign['id']}/rolls"
    response = store_client.post(path, json={"dice": "d20"}, headers={"If-Match": f'"{text}"'})
    assert_field_error(response, 422, "If-Match")


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_a_roll_id_with_other_digits_is_404(
    store_client: FlaskClient, store_campaign: dict[str, Any], text: str
) -> None:
    cid = store_campaign["id"]
    assert store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}).status_code == 201
    response = store_client.get(f"/campaigns/{cid}/rolls/{text}-1")
    assert response.status_code == 404, response.json
    assert response.mimetype == PROBLEM
    assert store_client.get(f"/campaigns/{cid}/rolls/2-1").status_code == 200


@pytest.mark.parametrize("text", ["٣-0", "²-0", "1-٣", "9" * 19 + "-0"])
def test_a_view_cursor_takes_ascii_digits_only(
    store_client: FlaskClient, store_campaign: dict[str, Any], text: str
) -> None:
    response = store_client.get(f"/campaigns/{store_campaign['id']}/views/rolls?after={text}")
    assert_field_error(response, 422, "after")


# -- control characters ---------------------------------------------------------------------------

NUL = "a\x00b"


def test_a_nul_in_a_token_name_or_id_is_refused(store_client: FlaskClient) -> None:
    assert_field_error(store_client.post("/admin/tokens", json={"name": NUL}), 422, "name")
    response = store_client.delete("/admin/tokens/a%00b")
    assert response.status_code == 404 and response.mimetype == PROBLEM
    assert store_client.get("/admin/tokens").status_code == 200


@pytest.mark.parametrize("field", ["token_name", "token_id", "seat"])
@pytest.mark.parametrize("value", [NUL, "a\nb", "a\x7fb", "a\x85b"])
def test_a_control_character_in_a_member_is_refused(
    store_client: FlaskClient, store_campaign: dict[str, Any], field: str, value: str
) -> None:
    body = {"token_name": "store-admin", "role": "player", field: value}
    response = store_client.post(f"/campaigns/{store_campaign['id']}/members", json=body)
    assert_field_error(response, 422, field)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/campaigns", {"game": "quest-calendar", "name": NUL}, "name"),
        ("/campaigns", {"game": "quest-calendar", "name": "a\tb"}, "name"),
        ("/campaigns", {"game": "quest-calendar", "name": "n", "client_seed": NUL}, "client_seed"),
        ("{cid}/dice/client-seed", {"client_seed": "a\rb"}, "client_seed"),
        ("{cid}/rolls", {"dice": "d20", "purpose": NUL}, "purpose"),
        ("{cid}/rolls", {"dice": "d20", "purpose": "a\x1bb"}, "purpose"),
        ("{cid}/rollback", {"to_version": 1, "reason": NUL}, "reason"),
        ("{cid}/rollback", {"to_version": 1, "reason": "r", "actor": "a\nb"}, "actor"),
        ("{cid}/rollback/proposals", {"to_version": 1, "reason": "r", "proposer": NUL}, "proposer"),
        ("{cid}/rollback/proposals/p/approve", {"player": NUL}, "player"),
        ("{cid}/fork", {"at_version": 1, "name": NUL}, "name"),
        ("{cid}/commands", {"type": "trait_check", "trait": "INT", "purpose": NUL}, "purpose"),
        ("{cid}/house-rules", {"key": NUL, "value": 1}, "key"),
    ],
)
def test_a_control_character_in_stored_text_is_422_naming_the_field(
    store_client: FlaskClient,
    store_campaign: dict[str, Any],
    path: str,
    body: dict[str, Any],
    field: str,
) -> None:
    url = path.replace("{cid}", f"/campaigns/{store_campaign['id']}")
    assert_field_error(store_client.post(url, json=body), 422, field)


def test_free_text_keeps_tabs_and_line_breaks(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    purpose = "first line\n\tsecond line\r\n"
    rolled = store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6", "purpose": purpose})
    assert rolled.status_code == 201 and rolled.json["purpose"] == purpose
    undone = store_client.post(
        f"/campaigns/{cid}/rollback", json={"to_version": 1, "reason": "misread\nthe die"}
    )
    assert undone.status_code == 201, undone.json


@pytest.mark.parametrize("header", ["Idempotency-Key", "If-Match"])
def test_a_control_character_in_a_header_is_422_naming_it(
    store_client: FlaskClient, store_campaign: dict[str, Any], header: str
) -> None:
    path = f"/campaigns/{store_campaign['id']}/rolls"
    response = store_client.post(path, json={"dice": "d20"}, headers={header: "k\x01ey"})
    assert_field_error(response, 422, header)


# -- every route, a NUL in each of its strings ----------------------------------------------------


VALID_PATH = {"roll_id": "2-1", "proposal_id": "no-such-proposal", "token": "no-such-token"}
VALID_QUERY = {"game": "quest-calendar", "player": "A", "q": "SELECT count(*) FROM rolls"}


def operation(document: dict[str, Any], rule: str, method: str) -> dict[str, Any]:
    """The OpenAPI operation of a Flask rule and method."""
    path = rule.replace("<", "{").replace(">", "}")
    found: dict[str, Any] = document["paths"][path][method.lower()]
    return found


def request_body(document: dict[str, Any], op: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """An operation's example body and the names of its string fields."""
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return {}, []
    examples = [e["value"] for e in content.get("examples", {}).values()]
    example: dict[str, Any] = content.get("example") or (examples[0] if examples else {})
    ref = content["schema"].get("$ref")
    if ref is None:  # one of several schemas (the game commands): the example's own
        discriminator = content["schema"]["discriminator"]
        ref = discriminator["mapping"][example[discriminator["propertyName"]]]
    schema = document["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    if "oneOf" in schema:  # a branch per value of a field (a house rule's key): the example's
        schema = next(b for b in schema["oneOf"] if fits(b["properties"], example))
    strings = [k for k, v in schema["properties"].items() if v.get("type") == "string"]
    return example, strings


def fits(properties: dict[str, Any], example: dict[str, Any]) -> bool:
    """Whether the example's fields take the values a branch's enums allow."""
    return all(example.get(k) in v["enum"] for k, v in properties.items() if "enum" in v)


def query_strings(op: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """An operation's required query parameters (valid values) and its string parameters."""
    params = [p for p in op.get("parameters", []) if p["in"] == "query"]
    required = {p["name"]: VALID_QUERY[p["name"]] for p in params if p.get("required")}
    strings = [p["name"] for p in params if p["schema"].get("type") == "string"]
    return required, strings


@pytest.mark.parametrize(("rule", "method"), api_routes())
def test_a_nul_anywhere_in_a_request_is_a_4xx_problem(
    store_app: Flask,
    store_client: FlaskClient,
    store_campaign: dict[str, Any],
    rule: str,
    method: str,
) -> None:
    document = store_app.test_client().get("/openapi.json").json
    op = operation(document, rule, method)
    body, body_strings = request_body(document, op)
    query, query_names = query_strings(op)
    valid = {**VALID_PATH, "campaign": store_campaign["id"]}
    params = re.findall(r"<(\w+)>", rule)

    def send(path_args: dict[str, str], data: dict[str, Any], args: dict[str, str]) -> Any:
        path = rule
        for name, value in path_args.items():
            path = path.replace(f"<{name}>", quote(value, safe=""))
        json_body = data if method in ("POST", "DELETE") else None
        return store_client.open(path, method=method, json=json_body, query_string=args)

    wrong: list[str] = []
    for name in params:
        response = send({**valid, name: NUL}, body, query)
        if response.status_code != 404 or response.mimetype != PROBLEM:
            wrong.append(f"path {name}: {response.status_code}")
    for field in body_strings:
        response = send(valid, {**body, field: NUL}, query)
        if not 400 <= response.status_code < 500 or response.mimetype != PROBLEM:
            wrong.append(f"body {field}: {response.status_code}")
    for name in query_names:
        response = send(valid, body, {**query, name: NUL})
        if not 400 <= response.status_code < 500 or response.mimetype != PROBLEM:
            wrong.append(f"query {name}: {response.status_code}")
    assert not wrong, wrong


# -- strict numbers and booleans in JSON bodies ---------------------------------------------------

NOT_INTEGERS = [1.5, 1.0, "1", True, None, [1]]
NOT_BOOLEANS = [0, 1, 0.0, "false", "true", None]


@pytest.mark.parametrize("value", NOT_INTEGERS)
@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("rollback", {"reason": "undo"}, "to_version"),
        ("rollback/proposals", {"reason": "undo", "proposer": "owner"}, "to_version"),
        ("fork", {"name": "what if"}, "at_version"),
    ],
)
def test_a_version_in_a_body_is_a_json_integer(
    store_client: FlaskClient,
    store_campaign: dict[str, Any],
    path: str,
    body: dict[str, Any],
    field: str,
    value: Any,
) -> None:
    cid = store_campaign["id"]
    for _ in range(2):
        store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"})
    response = store_client.post(f"/campaigns/{cid}/{path}", json={**body, field: value})
    assert_field_error(response, 422, field)
    assert store_client.get(f"/campaigns/{cid}").json["version"] == 3
    assert len(store_client.get("/campaigns").json["items"]) == 1


@pytest.mark.parametrize("value", NOT_BOOLEANS)
def test_a_flag_in_a_body_is_json_true_or_false(store_client: FlaskClient, value: Any) -> None:
    token = store_client.post("/admin/tokens", json={"name": "maybe", "admin": value})
    assert_field_error(token, 422, "admin")
    body = {"game": "quest-calendar", "name": "maybe", "public": value}
    assert_field_error(store_client.post("/campaigns", json=body), 422, "public")


def test_query_string_numbers_and_flags_are_still_text(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    assert store_client.get("/campaigns?limit=5&after=0").status_code == 200
    assert store_client.get(f"/campaigns/{cid}?version=1").status_code == 200
    rolls = store_client.get(f"/campaigns/{cid}/views/rolls?include_undone=false&limit=2")
    assert rolls.status_code == 200, rolls.json


@pytest.mark.parametrize(
    ("field", "value"),
    [("cost", 1.5), ("cost", True), ("cost", "5"), ("required", 0), ("required", "true")],
)
def test_game_command_numbers_and_flags_are_strict(
    store_client: FlaskClient, store_campaign: dict[str, Any], field: str, value: Any
) -> None:
    body = {"type": "pay", "purpose": "toll", "cost": 5, "required": True, field: value}
    response = store_client.post(f"/campaigns/{store_campaign['id']}/commands", json=body)
    assert_field_error(response, 422, field)


# -- methods and headers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/campaigns", {"GET", "POST"}),
        ("POST", "/campaigns/{cid}", {"GET"}),
        ("PUT", "/admin/tokens/someone", {"DELETE"}),
    ],
)
def test_a_405_names_the_allowed_methods(
    store_client: FlaskClient,
    store_campaign: dict[str, Any],
    method: str,
    path: str,
    allowed: set[str],
) -> None:
    response = store_client.open(path.replace("{cid}", store_campaign["id"]), method=method)
    assert response.status_code == 405 and response.mimetype == PROBLEM
    assert allowed <= {m.strip() for m in response.headers["Allow"].split(",")}


@pytest.mark.parametrize("header", ["Authorization", "Idempotency-Key", "If-Match"])
@pytest.mark.parametrize("value", ["\xff\xfe", "\udcff", "caf\xc3\xa9", "\x00", "\x7f"])
def test_a_header_of_odd_bytes_is_a_4xx_problem(
    store_client: FlaskClient, store_campaign: dict[str, Any], header: str, value: str
) -> None:
    text = f"Bearer {value}" if header == "Authorization" else value
    path = f"/campaigns/{store_campaign['id']}/rolls"
    response = store_client.post(path, json={"dice": "d20"}, headers={header: text})
    want = 401 if header == "Authorization" else 422
    assert response.status_code == want and response.mimetype == PROBLEM, response.json
    if want == 422:
        assert header in response.json["errors"]


# -- the OpenAPI document lists the problems ------------------------------------------------------

CROSS_CAMPAIGN = (
    "/admin/",
    "/views/rolls",
    "/views/campaigns",
    "/analytics/",
    "/projections",
    "/metrics",
)
NO_TOKEN = ("/healthz", "/readyz", "/.well-known/questlog-key")
"""The health checks, the verifier keys and the host's Merkle log (read by any witness or monitor)
ask for no token, so they never answer 401 (signing a checkpoint now, a POST, takes one)."""
PLAIN_TEXT = ("/metrics", "/log/checkpoint", "/log/policy", "/campaigns/{campaign}/tlog-proof")
"""Prometheus reads its own text format, and the C2SP checkpoint, policy and tlog-proof are
text, not JSON."""
TILES = "/log/tile/"
"""The tlog-tiles hash tiles and entry bundles: bytes."""
DOCUMENTS = {"/campaigns/{campaign}/evening": ["text/markdown", "text/html"]}
"""Routes that answer a document for people to keep, in the formats listed."""
HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def documented_problems(path: str, method: str, op: dict[str, Any]) -> set[int]:
    """The error statuses an operation must list, written out apart from webapi.schemas.openapi."""
    open_read = path in NO_TOKEN or (method == "get" and path.startswith("/log/"))
    statuses = {503} if open_read else {401, 503}
    if "{campaign}" in path or path.startswith(CROSS_CAMPAIGN):
        statuses.add(403)
    if "{" in path:
        statuses.add(404)
    side_write = path.endswith(("/members", "/share", "/invites"))  # no event: no rule, no limit
    if method == "post" and path.startswith("/campaigns") and not side_write:
        statuses |= {409, 429}
    headers = {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}
    if "If-Match" in headers:
        statuses.add(412)
    if "requestBody" in op:
        statuses |= {413, 422}
    if any(p["in"] != "path" for p in op.get("parameters", [])):
        statuses.add(422)
    return statuses


def test_the_openapi_document_lists_each_operations_problems(flask_app: Flask) -> None:
    document = flask_app.test_client().get("/openapi.json").json
    components = document["components"]["responses"]
    wrong: list[str] = []
    for path, item in document["paths"].items():
        for method in set(item) & set(HTTP_METHODS):
            op = item[method]
            listed = {
                code: components[r["$ref"].rsplit("/", 1)[-1]] if "$ref" in r else r
                for code, r in op["responses"].items()
            }
            missing = documented_problems(path, method, op) - {
                int(c) for c in listed if c != "default"
            }
            if missing:
                wrong.append(f"{method.upper()} {path} lacks {sorted(missing)}")
            for code, response in listed.items():
                content = response.get("content", {})
                is_error = code == "default" or int(code) >= 400
                want = PROBLEM if is_error else "application/json"
                if not is_error and path.endswith("/stream"):
                    want = "text/event-stream"
                if not is_error and path in PLAIN_TEXT:
                    want = "text/plain"
                if not is_error and path.startswith(TILES):
                    want = "application/octet-stream"
                if is_error and content != {
                    PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}
                }:
                    wrong.append(f"{method.upper()} {path} {code}: {content}")
                if not is_error and path in DOCUMENTS:
                    if list(content) != DOCUMENTS[path]:
                        wrong.append(f"{method.upper()} {path} {code}: {list(content)}")
                    continue
                if not is_error and list(content) != [want]:
                    wrong.append(f"{method.upper()} {path} {code}: {list(content)}")
    assert not wrong, "\n".join(wrong)


def json_body_fields(flask_app: Flask) -> list[tuple[str, Any]]:
    """Every field of every schema an API view reads from a JSON body, nested ones too."""
    found: list[tuple[str, Any]] = []
    for rule in flask_app.url_map.iter_rules():
        view = flask_app.view_functions[rule.endpoint]
        view_class = getattr(view, "view_class", None)
        for method in (rule.methods or set()) if view_class else ():
            doc = getattr(getattr(view_class, method.lower(), None), "_apidoc", {})
            for parameter in doc.get("arguments", {}).get("parameters", []):
                if parameter["in"] == "json":
                    found += schema_fields(rule.rule, parameter["schema"])
    return found


def schema_fields(where: str, schema: Any) -> list[tuple[str, Any]]:
    """A schema's fields and those of the schemas nested in it."""
    found: list[tuple[str, Any]] = []
    instance = schema() if isinstance(schema, type) else schema
    for name, field in instance.fields.items():
        found.append((f"{where} {name}", field))
        for part in ("inner", "key_field", "value_field"):
            if getattr(field, part, None) is not None:
                found.append((f"{where} {name}.{part}", getattr(field, part)))
        if isinstance(field, fields.Nested):
            found += schema_fields(f"{where} {name}.", field.schema)
    return found


def test_every_json_body_field_is_strict(flask_app: Flask) -> None:
    wrong = []
    for where, field in json_body_fields(flask_app):
        if isinstance(field, fields.Integer) and not field.strict:
            wrong.append(f"{where}: Integer without strict=True")
        if isinstance(field, fields.Boolean) and not isinstance(field, Flag):
            wrong.append(f"{where}: Boolean, not webapi.schemas.fields.Flag")
        if isinstance(field, fields.Float | fields.Decimal):
            wrong.append(f"{where}: a float takes 1.5 and '1.5'")
        if isinstance(field, fields.String) and not isinstance(field, Text):
            wrong.append(f"{where}: String, not webapi.schemas.fields.Text")
    assert not wrong, "\n".join(wrong)


def test_a_number_with_too_many_digits_is_422_on_body(client: FlaskClient) -> None:
    # Python's JSON parser refuses integers past 4,300 digits with a ValueError: it was a 500.
    for path in ("/campaigns", "/admin/tokens"):
        body = '{"game": "quest-calendar", "name": "x", "n": ' + "1" * 5000 + "}"
        answer = client.post(path, data=body, content_type="application/json")
        assert answer.status_code == 422, answer.json
        assert "body" in answer.json["errors"]
    text = '{"game": "quest-calendar", "name": "' + "1" * 150 + '"}'
    assert client.post("/campaigns", data=text, content_type="application/json").status_code == 201
