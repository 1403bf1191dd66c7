"""The host's log on the API, on both stores: its checkpoint, tiles and entry bundles (C2SP
tlog-tiles), a campaign head's tlog-proof (C2SP tlog-proof) and where it stands with the
witnesses, and the errors of each route.

What is served is checked against the tree it must be: the checkpoint (C2SP tlog-checkpoint) is
signed by the served key, its origin is the log's name, its root is RFC 6962's MTH of the entries
the bundles hold, and each level-0 tile hash is the leaf hash of the bundle's entry.
"""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.model.signed_note import parse_verifier_key
from domain.model.tlog.checkpoint import open_tree_head
from domain.model.tlog.policy import parse_policy
from domain.model.tlog.proof import check_tlog_proof, parse_tlog_proof
from domain.model.tlog.tiles import parse_bundle
from domain.service.questlog import Questlog
from tests.api.conftest import client_as
from tests.application.test_tlog_integrator import mth

IMMUTABLE = "public, max-age=31536000, immutable"


def served_keys(client: FlaskClient) -> list[Any]:
    body = client.get("/.well-known/questlog-key").json
    return [parse_verifier_key(listed["key"]) for listed in body["keys"]]


def roll(client: FlaskClient, campaign_id: str, times: int) -> None:
    for n in range(times):
        answer = client.post(
            f"/campaigns/{campaign_id}/rolls", json={"dice": "d6", "purpose": f"r{n}"}
        )
        assert answer.status_code == 201, answer.json


def signed(client: FlaskClient) -> str:
    answer = client.post("/log/checkpoint")
    assert answer.status_code == 200, answer.json
    assert answer.content_type == "text/plain; charset=utf-8"
    return answer.get_data(as_text=True)


def test_the_checkpoint_is_the_signed_root_of_the_entries_served(
    store_client: FlaskClient, store_campaign: dict[str, Any], store_app: Flask
) -> None:
    """tlog-checkpoint: origin (the log's name, the key's name), size, base64 RFC 6962 root,
    signed by the log's Ed25519 key; tlog-tiles: the checkpoint at ``<prefix>/checkpoint``, the
    entry bundles' entries hash to the level-0 tile, tiles are immutable."""
    roll(store_client, store_campaign["id"], 4)
    note = signed(store_client)
    public = client_as(store_app, None)
    served = public.get("/log/checkpoint")
    assert served.status_code == 200
    assert served.get_data(as_text=True) == note
    assert "max-age=2" in served.headers["Cache-Control"]
    head, key = open_tree_head(note, served_keys(public))
    assert head.origin == key.name == public.get("/.well-known/questlog-key").json["log_name"]
    assert head.size == 5
    bundle = public.get("/log/tile/entries/000.p/5")
    assert bundle.status_code == 200 and bundle.headers["Cache-Control"] == IMMUTABLE
    assert bundle.content_type == "application/octet-stream"
    entries = parse_bundle(bundle.data)
    assert head.root == mth(entries)
    first = entries[0].decode().split("\n")
    assert first[:2] == [store_campaign["id"], "1"]
    tile = public.get("/log/tile/0/000.p/5")
    assert tile.headers["Cache-Control"] == IMMUTABLE
    leaves = [hashlib.sha256(b"\x00" + entry).digest() for entry in entries]
    assert tile.data == b"".join(leaves)
    assert public.get("/log/tile/0/000.p/3").data == b"".join(leaves[:3]), "a prefix is served"


def test_full_tiles_and_the_level_above(app: Questlog, store_client: FlaskClient) -> None:
    """tlog-tiles: a full tile is 256 hashes (8,192 bytes); a level-1 tile's hash is the MTH of a
    full level-0 tile; a tree of 258 has a partial level-0 tile of width 2."""
    campaign = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "Long"}).json
    for n in range(257):
        app.dice.roll(UUID(campaign["id"]), notation="d6", purpose=f"r{n}")
    head = signed(store_client)
    assert "\n258\n" in head
    full = store_client.get("/log/tile/0/000")
    assert full.status_code == 200 and len(full.data) == 8192
    entries = parse_bundle(store_client.get("/log/tile/entries/000").data)
    assert len(entries) == 256
    above = store_client.get("/log/tile/1/000.p/1")
    assert above.data == mth(entries)
    assert len(store_client.get("/log/tile/0/001.p/2").data) == 64
    assert store_client.get("/log/tile/0/001.p/3").status_code == 404
    assert store_client.get("/log/tile/1/000").status_code == 404


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("0/01", "index"),
        ("0/x000/001", "index"),
        ("00/000", "level"),
        ("64/000", "level"),
        ("0/000.p/256", "width"),
        ("0/000.p/0", "width"),
        ("entries/000.p/07", "width"),
        ("abc/000", "level"),
        ("0/000/x001", "index"),
    ],
)
def test_a_bad_tile_path_is_a_400_naming_the_part(
    store_client: FlaskClient, path: str, named: str
) -> None:
    """tlog-tiles: ``<L>`` 0..63 and ``<W>`` 1..255 without leading zeros, ``<N>`` in
    three-digit groups, all but the last behind an ``x``."""
    answer = store_client.get(f"/log/tile/{path}")
    assert answer.status_code == 400, (path, answer.json)
    assert named in answer.json["detail"]


def test_tiles_beyond_the_tree_are_404(store_client: FlaskClient) -> None:
    """tlog-tiles: "Empty tiles MUST NOT be served"; nothing beyond the integrated size."""
    assert store_client.get("/log/checkpoint").status_code == 404
    for path in ("0/000", "0/000.p/1", "entries/000.p/1", "0/x001/000"):
        assert store_client.get(f"/log/tile/{path}").status_code == 404, path


def test_a_campaigns_tlog_proof_verifies(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    """tlog-proof: the index, the inclusion proof of the head's entry and the checkpoint verify
    with the log's key (``check_tlog_proof``), under a policy of no witnesses."""
    cid = store_campaign["id"]
    roll(store_client, cid, 2)
    waiting = store_client.get(f"/campaigns/{cid}/tlog-proof")  # the campaign is there: a wait
    assert waiting.status_code == 409 and waiting.json["type"].endswith(":not-logged-yet")
    assert int(waiting.headers["Retry-After"]) >= 1
    signed(store_client)
    answer = store_client.get(f"/campaigns/{cid}/tlog-proof")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    head = store_client.get(f"/campaigns/{cid}").json
    entry = f"{cid}\n{head['version']}\n{head['head_hash']}\n".encode()
    assert parse_tlog_proof(text).extra == entry
    keys = served_keys(store_client)
    verdict = check_tlog_proof(
        text, entry, keys, parse_policy(f"log {keys[0].text}\nquorum none\n")
    )
    assert verdict.ok, verdict.message


def test_witnessing_says_whether_the_head_is_in_a_checkpoint(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    before = store_client.get(f"/campaigns/{cid}/witnessing").json
    assert before == {
        "head_version": 1,
        "witnessed_version": None,
        "pending": True,
        "proof": None,
        "checkpoint_size": None,
        "witnesses": [],
    }
    signed(store_client)
    after = store_client.get(f"/campaigns/{cid}/witnessing").json
    assert after["pending"] is False and after["checkpoint_size"] == 1
    assert after["proof"] == store_client.get(f"/campaigns/{cid}/tlog-proof").get_data(as_text=True)
    roll(store_client, cid, 1)
    assert store_client.get(f"/campaigns/{cid}/witnessing").json["pending"] is True


def test_the_checkpoints_qr_is_an_svg(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    answer = store_client.get(f"/campaigns/{store_campaign['id']}/checkpoint/qr")
    assert answer.status_code == 200
    assert answer.content_type == "image/svg+xml"
    assert b"<svg" in answer.data


def test_the_log_is_public_and_a_campaigns_proof_is_not(
    store_client: FlaskClient, store_campaign: dict[str, Any], store_app: Flask
) -> None:
    """Anyone may monitor the log (tlog-tiles); a campaign's proof, witnessing and QR need read
    access to it, as its checkpoint does; signing now needs a token."""
    signed(store_client)
    anyone = client_as(store_app, None)
    assert anyone.get("/log/checkpoint").status_code == 200
    assert anyone.get("/log/tile/entries/000.p/1").status_code == 200
    assert anyone.post("/log/checkpoint").status_code == 401
    cid = store_campaign["id"]
    for route in ("tlog-proof", "witnessing", "checkpoint/qr"):
        assert anyone.get(f"/campaigns/{cid}/{route}").status_code == 401, route


def test_no_policy_is_a_404(store_client: FlaskClient) -> None:
    answer = store_client.get("/log/policy")
    assert answer.status_code == 404
    assert "no witness" in answer.json["detail"]
