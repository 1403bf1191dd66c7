"""POST /campaigns/import and ``questlog import``: a bundle downloaded from one instance loaded
into another, over HTTP and from the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from domain.facade import bundles
from domain.service.questlog import Questlog
from tests.api.conftest import TokenClient, client_as
from tests.conftest import StoreFactory
from webapi.app import create_app
from webapi.cli.main import main

PROBLEM = "application/problem+json"


@pytest.fixture
def target(stores: StoreFactory) -> Iterator[Questlog]:
    """The instance the campaign moves to: a store of its own, of the test's kind."""
    app = Questlog(stores.new())
    yield app
    app.close()


@pytest.fixture
def target_client(target: Questlog) -> TokenClient:
    """An admin client of the target instance."""
    _, secret = target.access.create_token("target-admin", admin=True)
    return client_as(create_app(target, auth=True, rate_limit=0, TESTING=True), secret)


def played(client: FlaskClient) -> str:
    """A campaign on the source with a server roll, a reported roll, a rotation and a roll
    after it; returns its id."""
    created = client.post("/campaigns", json={"game": "quest-calendar", "name": "Moving"})
    cid: str = created.json["id"]
    for path, body in [
        ("rolls", {"dice": "d20", "purpose": "a"}),
        ("rolls", {"dice": "d6", "purpose": "b", "faces": [4]}),
        ("dice/rotate", None),
        ("rolls", {"dice": "2d8", "purpose": "c"}),
    ]:
        response = client.post(f"/campaigns/{cid}/{path}", json=body)
        assert response.status_code in (200, 201), response.json
    return cid


def download(client: FlaskClient, cid: str) -> dict[str, Any]:
    """The bundle as the download sends it."""
    response = client.get(f"/campaigns/{cid}/bundle")
    assert response.status_code == 200
    body: dict[str, Any] = json.loads(response.data)
    return body


def test_a_campaign_moves_between_instances_over_the_api(
    store_client: TokenClient, target_client: TokenClient
) -> None:
    """The events on the target are the source's (the same JSON), then the import event; the
    audit is ok and the campaign plays on under the new commitment from nonce 0."""
    cid = played(store_client)
    source = download(store_client, cid)

    response = target_client.post("/campaigns/import", json=source)

    assert response.status_code == 201, response.json
    body = response.json
    head = source["head"]["version"]
    assert body["id"] == cid and body["version"] == head + 1 and not body["extended"]
    assert body["imported_events"] == head and body["bundle_head"] == source["head"]
    assert response.headers["Location"] == f"/campaigns/{cid}"
    theirs = store_client.get(f"/campaigns/{cid}/events").json["items"]
    ours = target_client.get(f"/campaigns/{cid}/events").json["items"]
    assert ours[:head] == theirs
    assert ours[head]["type"] == "questlog.CampaignImported"
    assert target_client.get(f"/campaigns/{cid}/audit").json["ok"] is True
    roll = target_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20", "purpose": "d"})
    assert roll.json["proof"] == {
        "commitment": body["commitment"],
        "client_seed": body["client_seed"],
        "nonce": 0,
    }


def test_a_public_import_is_readable_by_every_token_and_a_private_one_by_its_owner(
    store_client: TokenClient, target_client: TokenClient, target: Questlog
) -> None:
    """The importing admin owns the campaign; ``?public=true`` opens it to every token."""
    public, private = played(store_client), played(store_client)
    for cid, query in ((public, "?public=true"), (private, "")):
        body = download(store_client, cid)
        assert target_client.post(f"/campaigns/import{query}", json=body).status_code == 201
    _, secret = target.access.create_token("someone")
    someone = client_as(target_client.application, secret)

    assert someone.get(f"/campaigns/{public}").status_code == 200
    assert someone.get(f"/campaigns/{private}").status_code == 404
    [importer] = [t for t in target.side_tables.tokens() if t.name == "target-admin"]
    membership = target.side_tables.membership(private, importer.id)
    assert membership is not None and membership.role == "owner"


def test_a_bundle_exported_again_from_the_new_host_verifies_offline(
    store_client: TokenClient, target_client: TokenClient, tmp_path: Path
) -> None:
    """The new host's bundle (the old events, the import event, a roll after it) passes
    ``questlog verify --bundle``."""
    cid = played(store_client)
    target_client.post("/campaigns/import", json=download(store_client, cid))
    target_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d4", "purpose": "new host"})
    path = tmp_path / "again.json"
    path.write_text(json.dumps(download(target_client, cid)))

    result = CliRunner().invoke(main, ["verify", "--bundle", str(path)])

    assert result.exit_code == 0, result.output
    assert "OK" in result.output


def test_an_edited_bundle_is_a_422_naming_the_first_bad_version(
    store_client: TokenClient, target_client: TokenClient
) -> None:
    """An edited face: refused with the version it broke, and the campaign is not there."""
    cid = played(store_client)
    source = download(store_client, cid)
    source["events"][1]["data"]["rolls"][0]["dice"][0]["face"] += 1

    response = target_client.post("/campaigns/import", json=source)

    assert response.status_code == 422 and response.mimetype == PROBLEM
    assert response.json["errors"]["bundle"][0] == (
        "version 2: the event's hash does not match its contents"
    )
    assert "nothing was stored" in response.json["detail"]
    assert target_client.get(f"/campaigns/{cid}").status_code == 404


def test_importing_a_campaign_twice_is_a_409(
    store_client: TokenClient, target_client: TokenClient
) -> None:
    cid = played(store_client)
    source = download(store_client, cid)
    assert target_client.post("/campaigns/import", json=source).status_code == 201

    again = target_client.post("/campaigns/import", json=source)

    assert again.status_code == 409
    assert again.json["rule"] == "campaign-exists"
    assert f"version {source['head']['version'] + 1}" in again.json["detail"]


def test_only_an_admin_may_import(
    client: FlaskClient, flask_app: Flask, questlog: Questlog
) -> None:
    """Any other token is refused before the body is looked at; no token at all is a 401."""
    _, secret = questlog.access.create_token("player")
    response = client_as(flask_app, secret).post("/campaigns/import", json={})
    assert response.status_code == 403 and response.mimetype == PROBLEM
    assert client_as(flask_app, None).post("/campaigns/import", json={}).status_code == 401


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        pytest.param(b"{not json", 400, None, id="junk"),
        pytest.param(b"[1, 2]", 422, None, id="not an object"),
        pytest.param(b'{"format": "zip"}', 422, "events", id="missing fields"),
    ],
)
def test_junk_is_refused_and_nothing_is_stored(
    client: FlaskClient, body: bytes, status: int, field: str | None
) -> None:
    response = client.post("/campaigns/import", data=body, content_type="application/json")
    assert response.status_code == status and response.mimetype == PROBLEM
    if field is not None:
        assert field in response.json["errors"]
    assert client.get("/campaigns").json["items"] == []


@pytest.mark.parametrize("rolls", [5, [5], ["ab"]], ids=["a number", "numbers", "strings"])
def test_an_event_of_the_wrong_shape_is_a_422_not_a_crash(
    client: FlaskClient, rolls: object
) -> None:
    """Values no event holds (rolls that are no list of objects) are refused naming the
    event's version, not a crash."""
    cid = played(client)
    body = download(client, cid)
    body["events"][1]["data"]["rolls"] = rolls

    response = client.post("/campaigns/import", json=body)

    assert response.status_code == 422 and response.mimetype == PROBLEM
    errors = response.json["errors"]["bundle"]
    assert errors[0] == "version 2: the event's hash does not match its contents"
    assert "version 2: the event's rolls are not a list of roll objects" in errors


def test_a_bundle_of_another_format_is_a_422(client: FlaskClient) -> None:
    body = {"format": "zip", "campaign_id": "x", "head": {}, "revealed_seeds": {}, "events": []}
    response = client.post("/campaigns/import", json=body)
    assert response.status_code == 422
    assert "questlog-bundle/1" in response.json["errors"]["bundle"][0]


def test_the_import_takes_bundles_past_the_usual_body_limit_up_to_its_own(
    questlog: Questlog, admin_token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bundle may be larger than the 1 MiB of other bodies, up to ``MAX_BUNDLE_BYTES``; a
    larger one is a 413 that names the limit (here lowered to 2 MiB)."""
    monkeypatch.setattr(bundles, "MAX_BUNDLE_BYTES", 2 * 1024 * 1024)
    client = client_as(create_app(questlog, auth=True, rate_limit=0, TESTING=True), admin_token)
    padding = {"format": "zip", "events": [], "padding": "x"}

    def sized(size: int) -> Any:
        return client.post("/campaigns/import", json={**padding, "padding": "x" * size})

    assert sized(1536 * 1024).status_code == 422  # read, then refused as no bundle
    too_large = sized(3 * 1024 * 1024)
    assert too_large.status_code == 413
    assert "(2097152 bytes)" in too_large.json["detail"]


def test_the_import_route_is_in_the_openapi_document(client: FlaskClient) -> None:
    operation = client.get("/openapi.json").json["paths"]["/campaigns/import"]["post"]
    assert {"201", "403", "409", "422"} <= set(operation["responses"])
    assert "requestBody" in operation


# -- questlog import --------------------------------------------------------------------------


def test_questlog_import_loads_a_bundle_file_and_refuses_a_second_or_tampered_one(
    client: FlaskClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 0 when imported, 1 when refused (with the first bad version), 2 for a file that is
    not a bundle; ``questlog verify`` is clean on the imported campaign."""
    cid = played(client)
    source = download(client, cid)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(source))
    tampered = dict(source, events=[dict(e) for e in source["events"]])
    tampered["events"][2] = {**tampered["events"][2], "timestamp": "2020-01-01T00:00:00+00:00"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    monkeypatch.setenv("QUESTLOG_DB", str(tmp_path / "target.db"))
    monkeypatch.delenv("QUESTLOG_DATABASE_URL", raising=False)
    runner = CliRunner()

    refused = runner.invoke(main, ["import", str(bad)])
    imported = runner.invoke(main, ["import", str(good)])
    again = runner.invoke(main, ["import", str(good)])
    not_bundle = runner.invoke(main, ["import", str(junk)])
    verified = runner.invoke(main, ["verify", cid])

    assert refused.exit_code == 1, refused.output
    assert "version 3: the event's hash does not match its contents" in refused.output
    assert imported.exit_code == 0, imported.output
    assert f"Campaign {cid}" in imported.output and "imported" in imported.output
    assert again.exit_code == 1 and "already holds every event" in again.output
    assert not_bundle.exit_code == 2 and "questlog-bundle/1" in not_bundle.output
    assert verified.exit_code == 0, verified.output
