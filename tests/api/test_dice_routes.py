"""Dice routes: server and reported rolls, proofs, client seed, rotation, and bad input."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import stored_state

PROBLEM = "application/problem+json"


def test_server_roll_carries_faces_total_and_proof(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    response = client.post(f"/campaigns/{cid}/rolls", json={"dice": "2d20kh1+3", "purpose": "p"})
    assert response.status_code == 201
    roll = response.json
    assert roll["roll_id"] == "2-1"
    assert roll["version"] == 2
    assert roll["source"] == "server"
    assert roll["modifier"] == 3
    assert [d["sides"] for d in roll["dice"]] == [20, 20]
    assert sum(d["kept"] for d in roll["dice"]) == 1
    kept = max(d["face"] for d in roll["dice"])
    assert roll["total"] == kept + 3
    assert roll["proof"] == {
        "commitment": campaign["commitment"],
        "client_seed": campaign["client_seed"],
        "nonce": 0,
    }
    assert response.headers["ETag"] == '"2"'
    assert roll["head_hash"] == client.get(f"/campaigns/{cid}").json["head_hash"]


def test_roll_verdict_is_null_until_the_seed_is_revealed(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    roll_id = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d100"}).json["roll_id"]
    secret = client.get(f"/campaigns/{cid}/rolls/{roll_id}").json
    assert secret["verified"] is None
    assert "server_seed" not in secret["proof"]
    rotated = client.post(f"/campaigns/{cid}/dice/rotate").json
    assert rotated["revealed_commitment"] == campaign["commitment"]
    assert rotated["dice"]["nonce"] == 0
    assert rotated["dice"]["commitment"] != campaign["commitment"]
    revealed = client.get(f"/campaigns/{cid}/rolls/{roll_id}").json
    assert revealed["verified"] is True
    assert revealed["proof"]["server_seed"] == rotated["revealed_seed"]


def test_client_seed_is_used_by_the_next_roll(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    changed = client.post(f"/campaigns/{cid}/dice/client-seed", json={"client_seed": "lucky"})
    assert changed.status_code == 200
    assert changed.json["dice"]["client_seed"] == "lucky"
    roll = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}).json
    assert roll["proof"]["client_seed"] == "lucky"


def test_qc08_qc09_reported_faces_are_read_per_die(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    d10 = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d10", "faces": [0]}).json
    assert d10["source"] == "reported"
    assert d10["total"] == 10
    assert "proof" not in d10
    d100 = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d100", "faces": [{"tens": 0, "units": 0}]}
    ).json
    assert d100["total"] == 100


def test_rolls_are_listed_with_verdicts(client: FlaskClient, campaign: dict[str, Any]) -> None:
    cid = campaign["id"]
    for _ in range(3):
        client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"})
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6", "faces": [6]})
    page = client.get(f"/campaigns/{cid}/rolls?limit=2").json
    assert [r["roll_id"] for r in page["items"]] == ["2-1", "3-1"]
    rest = client.get(f"/campaigns/{cid}/rolls?after={page['next_after']}").json
    assert [r["source"] for r in rest["items"]] == ["server", "reported"]
    assert rest["next_after"] is None


def test_unknown_roll_is_404(client: FlaskClient, campaign: dict[str, Any]) -> None:
    for roll_id in ("9-1", "1-1", "x"):
        response = client.get(f"/campaigns/{campaign['id']}/rolls/{roll_id}")
        assert response.status_code == 404
        assert response.mimetype == PROBLEM


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"dice": "d7"}, "dice"),
        ({"dice": "0d6"}, "dice"),
        ({"dice": "1000d20"}, "dice"),
        ({"dice": "d20++3"}, "dice"),
        ({"dice": ""}, "dice"),
        ({"dice": 20}, "dice"),
        ({"purpose": "no dice"}, "dice"),
        ({"dice": "d20", "faces": [0]}, "faces"),
        ({"dice": "d20", "faces": [21]}, "faces"),
        ({"dice": "d20", "faces": [True]}, "faces"),
        ({"dice": "2d6", "faces": [3]}, "faces"),
        ({"dice": "d20", "faces": "7"}, "faces"),
        ({"dice": "d20", "extra": 1}, "extra"),
    ],
)
def test_bad_roll_is_422_naming_the_field_and_stores_nothing(
    client: FlaskClient, campaign: dict[str, Any], body: dict[str, Any], field: str
) -> None:
    before = stored_state(client, campaign["id"])
    response = client.post(f"/campaigns/{campaign['id']}/rolls", json=body)
    assert response.status_code == 422
    assert response.mimetype == PROBLEM
    assert field in response.json["errors"]
    assert stored_state(client, campaign["id"]) == before


def test_body_that_is_not_json_is_400(client: FlaskClient, campaign: dict[str, Any]) -> None:
    before = stored_state(client, campaign["id"])
    response = client.post(
        f"/campaigns/{campaign['id']}/rolls", data="{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.mimetype == PROBLEM
    assert response.json["detail"] == "The request body is not valid JSON."
    assert stored_state(client, campaign["id"]) == before


def test_ten_megabyte_body_is_413(client: FlaskClient, campaign: dict[str, Any]) -> None:
    before = stored_state(client, campaign["id"])
    blob = '{"dice": "d20", "purpose": "' + "x" * (10 * 1024 * 1024) + '"}'
    response = client.post(
        f"/campaigns/{campaign['id']}/rolls", data=blob, content_type="application/json"
    )
    assert response.status_code == 413
    assert response.mimetype == PROBLEM
    assert stored_state(client, campaign["id"]) == before


def test_roll_on_unknown_or_malformed_campaign_is_404(client: FlaskClient) -> None:
    for cid in ("00000000-0000-4000-8000-000000000000", "not-a-uuid"):
        response = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"})
        assert response.status_code == 404
        assert response.mimetype == PROBLEM


def test_stale_if_match_is_412_and_stores_nothing(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"})
    before = stored_state(client, cid)
    for path, body in (
        (f"/campaigns/{cid}/rolls", {"dice": "d20"}),
        (f"/campaigns/{cid}/dice/client-seed", {"client_seed": "x"}),
        (f"/campaigns/{cid}/dice/rotate", None),
    ):
        response = client.post(path, json=body, headers={"If-Match": '"1"'})
        assert response.status_code == 412, path
        assert response.json["current_version"] == 2
    assert stored_state(client, cid) == before
    fresh = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d20"}, headers={"If-Match": '"2"'}
    )
    assert fresh.status_code == 201


@pytest.mark.parametrize(
    "faces",
    [
        [{"tens": 30, "units": -19}],  # not a face of the units die
        [7, 3],  # one face too many for a d20
        [],  # not enough faces
    ],
)
def test_faces_that_do_not_fit_the_notation_are_a_422_whatever_the_if_match(
    client: FlaskClient, campaign: dict[str, Any], faces: list[Any]
) -> None:
    """A free roll's dice are its own notation's, in the same body: faces that do not fit are the
    body's mistake, refused before the version is compared (422, never 412)."""
    cid = campaign["id"]
    before = stored_state(client, cid)
    dice = "d100" if isinstance(faces[0] if faces else 0, dict) else "d20"
    response = client.post(
        f"/campaigns/{cid}/rolls",
        json={"dice": dice, "faces": faces},
        headers={"If-Match": '"530"'},
    )
    assert response.status_code == 422, response.json
    assert "faces" in response.json["errors"]
    assert stored_state(client, cid) == before


def test_malformed_if_match_is_422(client: FlaskClient, campaign: dict[str, Any]) -> None:
    response = client.post(
        f"/campaigns/{campaign['id']}/rolls", json={"dice": "d20"}, headers={"If-Match": "abc"}
    )
    assert response.status_code == 422
    assert "If-Match" in response.json["errors"]


def test_idempotency_key_replays_the_first_response(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    headers = {"Idempotency-Key": "roll-1"}
    first = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}, headers=headers)
    again = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert client.get(f"/campaigns/{cid}").json["version"] == 2
    before = stored_state(client, cid)
    other = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"}, headers=headers)
    assert other.status_code == 422
    assert "Idempotency-Key" in other.json["errors"]
    assert stored_state(client, cid) == before


def test_idempotent_campaign_creation(client: FlaskClient) -> None:
    body = {"game": "quest-calendar", "name": "once"}
    headers = {"Idempotency-Key": "create-1"}
    first = client.post("/campaigns", json=body, headers=headers)
    again = client.post("/campaigns", json=body, headers=headers)
    assert again.json["id"] == first.json["id"]
    assert len(client.get("/campaigns").json["items"]) == 1


def test_concurrent_rolls_are_neither_lost_nor_duplicated(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]

    def roll(_: int) -> int:
        response = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"})
        assert response.status_code == 201, response.json
        return int(response.json["proof"]["nonce"])

    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        nonces = list(pool.map(roll, range(60)))
    assert sorted(nonces) == list(range(60))
    audit = client.get(f"/campaigns/{cid}/audit").json
    assert audit["chain_ok"] is True
    assert audit["head"]["version"] == 61


@pytest.mark.parametrize(
    ("path", "field", "body"),
    [
        ("/dice/client-seed", "client_seed", '{"client_seed": "\\ud800"}'),
        ("/rolls", "purpose", '{"dice": "d20", "purpose": "\\udfff"}'),
    ],
)
def test_text_that_is_not_unicode_is_422(
    client: FlaskClient, campaign: dict[str, Any], path: str, field: str, body: str
) -> None:
    before = stored_state(client, campaign["id"])
    response = client.post(
        f"/campaigns/{campaign['id']}{path}", data=body, content_type="application/json"
    )
    assert response.status_code == 422
    assert field in response.json["errors"]
    assert stored_state(client, campaign["id"]) == before
