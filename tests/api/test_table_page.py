"""The table page's server side: share links, the bundle and its offline verifier,
and the page's HTML shell and static files."""

from __future__ import annotations

import copy
import http.client
import json
import logging
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from domain.facade import bundles
from domain.service.questlog import Questlog
from tests.api.conftest import TokenClient, client_as, stored_state
from tests.api.test_cli_and_server import QUESTLOG, free_port, run
from webapi.cli.main import main
from webapi.routes import page

APPENDING_BODIES: dict[str, Any] = {
    "/rolls": {"dice": "d20", "purpose": "viewer"},
    "/commands": {"command": "rest"},
}


def share(client: TokenClient, cid: str, **body: Any) -> dict[str, Any]:
    response = client.post(f"/campaigns/{cid}/share", json=body)
    assert response.status_code == 201, response.json
    shared: dict[str, Any] = response.json
    return shared


@pytest.fixture
def played(client: TokenClient, campaign: dict[str, Any]) -> str:
    """A campaign with server rolls, a reported roll, a seed reveal and a roll still secret."""
    cid: str = campaign["id"]
    for notation in ("d20", "2d6+1", "d100"):
        assert client.post(f"/campaigns/{cid}/rolls", json={"dice": notation}).status_code == 201
    reported = {"dice": "d20", "faces": [17], "purpose": "by hand"}
    assert client.post(f"/campaigns/{cid}/rolls", json=reported).status_code == 201
    assert client.post(f"/campaigns/{cid}/dice/rotate").status_code == 200
    assert client.post(f"/campaigns/{cid}/rolls", json={"dice": "d8"}).status_code == 201
    return cid


# -- share links ----------------------------------------------------------------------------


def test_a_share_link_is_a_viewer_token_on_that_campaign_only(
    client: TokenClient, flask_app: Flask, questlog: Questlog, played: str
) -> None:
    shared = share(client, played, name="for the table")
    assert shared["role"] == "viewer"
    assert shared["campaign_id"] == played
    assert shared["url"] == f"/app/campaigns/{played}#token={shared['token']}"
    members = client.get(f"/campaigns/{played}/members").json["items"]
    viewer = {
        "token_id": shared["token_id"],
        "role": "viewer",
        "seat": None,
        "name": "for the table",
    }
    assert viewer in members
    token = questlog.side_tables.find_token("for the table")
    assert token is not None and not token.admin and token.id == shared["token_id"]
    other = client.post("/campaigns", json={"game": "quest-calendar", "name": "other"}).json
    viewer = client_as(flask_app, shared["token"])
    assert viewer.get(f"/campaigns/{other['id']}").status_code == 404


def test_a_viewer_token_reads_everything_and_appends_nothing(
    client: TokenClient, flask_app: Flask, played: str
) -> None:
    viewer = client_as(flask_app, share(client, played)["token"])
    for path in ("", "/events", "/views/rolls", "/views/summary", "/bundle", "/rolls/2-1"):
        response = viewer.get(f"/campaigns/{played}{path}")
        assert response.status_code == 200, (path, response.json)
    stream = viewer.get(f"/campaigns/{played}/stream", buffered=False)
    assert stream.status_code == 200
    stream.close()
    before = stored_state(client, played)
    posting = [
        rule
        for rule in flask_app.url_map.iter_rules()
        if rule.rule.startswith("/campaigns/<campaign>") and "POST" in (rule.methods or ())
    ]
    assert len(posting) >= 8
    for rule in posting:
        path = rule.rule.replace("<campaign>", played).replace("<proposal_id>", "p1")
        body = APPENDING_BODIES.get(rule.rule.removeprefix("/campaigns/<campaign>"), {})
        response = viewer.post(path, json=body)
        assert response.status_code == 403, (rule.rule, response.json)
        assert "viewer" in response.json["detail"]
    assert stored_state(client, played) == before


def test_only_the_owner_shares(client: TokenClient, flask_app: Flask, played: str) -> None:
    viewer = client_as(flask_app, share(client, played)["token"])
    refused = viewer.post(f"/campaigns/{played}/share", json={})
    assert refused.status_code == 403
    assert "manage" in refused.json["detail"]


def test_a_share_name_in_use_is_refused_by_field(client: TokenClient, played: str) -> None:
    share(client, played, name="twice")
    refused = client.post(f"/campaigns/{played}/share", json={"name": "twice"})
    assert refused.status_code == 409  # not-held: the name is taken
    assert "name" in refused.json["errors"]


def test_a_share_secret_never_reaches_a_log_line(
    client: TokenClient, flask_app: Flask, played: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = share(client, played)["token"]
    viewer = client_as(flask_app, secret)
    viewer.get(f"/campaigns/{played}/events")
    viewer.post(f"/campaigns/{played}/rolls", json={"dice": "d20"})
    viewer.get(f"/campaigns/{played}/stream?after=x")
    logging.getLogger("questlog.api").warning("a request of %s", f"/campaigns/{played}/share")
    assert "/share" in caplog.text  # what a log line names: the path, never a header
    assert secret not in caplog.text


# -- the bundle -----------------------------------------------------------------------------


def download(client: TokenClient, cid: str) -> dict[str, Any]:
    response = client.get(f"/campaigns/{cid}/bundle")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="questlog-{cid}.json"'
    )
    body: dict[str, Any] = json.loads(response.get_data())
    return body


def test_a_bundle_holds_every_event_as_the_events_route_shows_it(
    client: TokenClient, played: str
) -> None:
    body = download(client, played)
    assert body["format"] == "questlog-bundle/1"
    assert body["campaign_id"] == played
    events = client.get(f"/campaigns/{played}/events?limit=1000").json["items"]
    # ... less each event's summary, which is computed when read and never part of a bundle.
    assert body["events"] == [{k: v for k, v in e.items() if k != "summary"} for e in events]
    head = client.get(f"/campaigns/{played}").json
    assert body["head"] == {"version": head["version"], "hash": head["head_hash"]}
    assert len(body["revealed_seeds"]) == 1


def verify_file(tmp_path: Path, data: dict[str, Any]) -> Any:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(data))
    return CliRunner().invoke(main, ["verify", "--bundle", str(path)])


def test_a_good_bundle_verifies_offline(client: TokenClient, played: str, tmp_path: Path) -> None:
    body = download(client, played)
    checked = bundles.check(body)
    assert checked.ok
    statuses = [v["status"] for v in checked.report.verdicts]
    assert statuses == ["verified"] * 3 + ["reported", "awaiting_reveal"]
    result = verify_file(tmp_path, body)
    assert result.exit_code == 0, result.output
    assert "OK" in result.output
    assert "awaiting_reveal" in result.output


def roll_event(body: dict[str, Any], roll_id: str) -> dict[str, Any]:
    return next(
        event
        for event in body["events"]
        if any(r["roll_id"] == roll_id for r in event["data"].get("rolls", []))
    )


def test_an_edited_face_fails_naming_the_version_and_the_roll(
    client: TokenClient, played: str, tmp_path: Path
) -> None:
    body = copy.deepcopy(download(client, played))
    event = roll_event(body, "3-1")
    die = event["data"]["rolls"][0]["dice"][0]
    die["face"] = die["face"] % die["sides"] + 1
    checked = bundles.check(body)
    assert not checked.ok
    assert {"version": 3, "roll_id": "3-1", "status": "mismatch"} in checked.report.verdicts
    assert {"version": 3, "problem": "the event's hash does not match its contents"} in (
        checked.all_problems()
    )
    result = verify_file(tmp_path, body)
    assert result.exit_code == 1
    assert "version 3: roll 3-1 does not verify" in result.output


def test_an_edited_hash_fails_naming_the_version(
    client: TokenClient, played: str, tmp_path: Path
) -> None:
    body = copy.deepcopy(download(client, played))
    body["events"][1]["hash"] = "f" * 64
    result = verify_file(tmp_path, body)
    assert result.exit_code == 1
    assert "version 2: the event's hash does not match its contents" in result.output
    assert "version 3: prev_hash does not match the previous event's hash" in result.output


def test_a_removed_event_fails_naming_the_version(
    client: TokenClient, played: str, tmp_path: Path
) -> None:
    body = copy.deepcopy(download(client, played))
    del body["events"][2]
    result = verify_file(tmp_path, body)
    assert result.exit_code == 1
    assert "version 3 is missing" in result.output
    last = copy.deepcopy(download(client, played))
    head = last["events"].pop()["version"]
    result = verify_file(tmp_path, last)
    assert result.exit_code == 1
    assert f"the head names version {head}" in result.output


def test_a_file_that_is_no_bundle_is_refused(tmp_path: Path) -> None:
    result = verify_file(tmp_path, {"format": "something else"})
    assert result.exit_code == 2
    assert "questlog-bundle/1" in result.output


# -- the page -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/app/", "/app/verify", "/app/campaigns/some-id"])
def test_the_page_shell_is_served_without_a_token_under_a_strict_policy(
    flask_app: Flask, path: str
) -> None:
    response = client_as(flask_app, None).get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert b'<script type="module" src="/app/static/app.js"></script>' in response.data
    assert b'<main id="main"' in response.data
    assert response.headers["Content-Security-Policy"] == page.CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_the_root_sends_a_browser_to_the_page(flask_app: Flask) -> None:
    response = client_as(flask_app, None).get("/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/app/"


def test_static_files_come_from_the_static_folder_only(
    flask_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "app.js").write_text("export {};\n")
    monkeypatch.setattr(page, "STATIC", tmp_path)
    anonymous = client_as(flask_app, None)
    served = anonymous.get("/app/static/app.js")
    assert served.status_code == 200
    assert served.data == b"export {};\n"
    assert served.headers["Content-Security-Policy"] == page.CONTENT_SECURITY_POLICY
    assert anonymous.get("/app/static/../page.py").status_code == 404
    assert anonymous.get("/app/static/missing.js").status_code == 404


def test_the_page_routes_are_not_in_the_api_document(flask_app: Flask) -> None:
    document = client_as(flask_app, None).get("/openapi.json").json
    assert not any(path == "/" or path.startswith("/app") for path in document["paths"])
    assert "/campaigns/{campaign}/stream" in document["paths"]
    assert "/campaigns/{campaign}/bundle" in document["paths"]
    assert "/campaigns/{campaign}/share" in document["paths"]


def wait_for(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/app/")
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("questlog serve did not start")


def call(port: int, token: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    data = json.loads(response.read() or b"null")
    conn.close()
    return response.status, data


def test_a_real_server_streams_and_never_prints_a_share_secret(tmp_path: Path) -> None:
    db = tmp_path / "served.db"
    admin = run(["token", "create", "--name", "tester", "--admin"], db).stdout.split()[-1]
    port = free_port()
    env = {**os.environ, "QUESTLOG_DB": str(db), "QUESTLOG_MAX_STREAMS": "4"}
    env.pop("QUESTLOG_DATABASE_URL", None)
    env.pop("QUESTLOG_AUTH", None)
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*QUESTLOG, "serve", "--port", str(port)], env=env, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            wait_for(port)
            cid = call(port, admin, "POST", "/campaigns", {"game": "quest-calendar", "name": "x"})[
                1
            ]["id"]
            secret = call(port, admin, "POST", f"/campaigns/{cid}/share", {})[1]["token"]
            assert call(port, secret, "POST", f"/campaigns/{cid}/rolls", {"dice": "d20"})[0] == 403
            assert call(port, secret, "GET", f"/campaigns/{cid}/events")[0] == 200
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request(
                "GET", f"/campaigns/{cid}/stream", headers={"Authorization": f"Bearer {secret}"}
            )
            stream = conn.getresponse()
            assert stream.status == 200
            assert stream.getheader("Content-Type", "").startswith("text/event-stream")
            call(port, admin, "POST", f"/campaigns/{cid}/rolls", {"dice": "d20"})
            lines = [stream.readline().decode() for _ in range(7)]
            assert lines[:3] == [": stream open\n", "\n", "id: 1\n"]
            assert "id: 2\n" in lines
            conn.close()
        finally:
            process.terminate()
            process.wait(timeout=10)
    printed = log.read_text()
    assert "Threads: 8 for requests + 4 for live streams" in printed
    assert secret not in printed
