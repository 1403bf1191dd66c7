"""Rolls the host cannot foresee: the player's entropy on server rolls.

A roll that carries ``entropy`` draws from HMAC messages ``client_seed:nonce:k:entropy``; the
entropy is kept in its proof; a retry under the same Idempotency-Key must carry the same entropy;
the house rule ``player_entropy: required`` refuses server rolls without it
(docs/dice-verification.md, "Who can foresee a roll, and who can bend it").
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.model.dice.draw import derive_faces
from tests.api.conftest import stored_state
from tests.api.test_command_routes import qc_campaign

ENTROPY = "k3V9-qT2x_8bLw0Z"


def roll(client: FlaskClient, cid: str, **body: Any) -> Any:
    return client.post(f"/campaigns/{cid}/rolls", json={"dice": "4d20", **body})


def revealed(client: FlaskClient, cid: str, roll_id: str) -> dict[str, Any]:
    client.post(f"/campaigns/{cid}/dice/rotate")
    shown: dict[str, Any] = client.get(f"/campaigns/{cid}/rolls/{roll_id}").json
    return shown


def test_a_roll_with_entropy_draws_from_messages_ending_in_the_entropy(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    created = roll(client, cid, entropy=ENTROPY, purpose="attack")
    assert created.status_code == 201, created.json
    assert created.json["proof"]["entropy"] == ENTROPY
    shown = revealed(client, cid, created.json["roll_id"])
    assert shown["verified"] is True
    proof = shown["proof"]
    assert proof["entropy"] == ENTROPY
    faces = [d["face"] for d in shown["dice"]]
    seed, client_seed, nonce = proof["server_seed"], proof["client_seed"], proof["nonce"]
    assert faces == derive_faces(seed, client_seed, nonce, [20] * 4, ENTROPY)
    assert faces != derive_faces(seed, client_seed, nonce, [20] * 4)  # 1 in 160,000 to clash
    # the message, written out: block 0 of nonce 0 ends in ":<entropy>"
    message = f"{client_seed}:{nonce}:0:{ENTROPY}".encode()
    first_word = int.from_bytes(
        hmac.new(bytes.fromhex(seed), message, hashlib.sha256).digest()[:4], "big"
    )
    assert faces[0] == first_word % 20 + 1
    audit = client.get(f"/campaigns/{cid}/audit").json
    assert audit["ok"] is True
    assert audit["rolls"]["with_entropy"] == 1


def test_a_retry_must_carry_the_same_entropy(client: FlaskClient, campaign: dict[str, Any]) -> None:
    cid = campaign["id"]
    headers = {"Idempotency-Key": "roll-with-entropy"}
    first = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d20", "entropy": "aaaa"}, headers=headers
    )
    again = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d20", "entropy": "aaaa"}, headers=headers
    )
    assert first.status_code == again.status_code == 201
    assert again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    before = stored_state(client, cid)
    for other in ({"entropy": "bbbb"}, {}):
        refused = client.post(
            f"/campaigns/{cid}/rolls", json={"dice": "d20", **other}, headers=headers
        )
        assert refused.status_code == 422, refused.json
        assert list(refused.json["errors"]) == ["entropy"]
        assert "same entropy" in refused.json["errors"]["entropy"][0]
        assert stored_state(client, cid) == before
    # and a first use without entropy refuses a retry that adds some
    plain = {"Idempotency-Key": "roll-without"}
    assert client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"}, headers=plain).status_code
    before = stored_state(client, cid)
    added = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d6", "entropy": "cc"}, headers=plain
    )
    assert added.status_code == 422 and list(added.json["errors"]) == ["entropy"]
    # a different body is still refused as before, naming the key
    body = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d8", "entropy": "aaaa"}, headers=headers
    )
    assert body.status_code == 422 and "Idempotency-Key" in body.json["errors"]
    assert stored_state(client, cid) == before


@pytest.mark.parametrize("entropy", ["", "x" * 65, "two words", "é", "a\n", 7, True])
def test_bad_entropy_is_refused_naming_the_field(
    client: FlaskClient, campaign: dict[str, Any], entropy: object
) -> None:
    cid = campaign["id"]
    before = stored_state(client, cid)
    refused = roll(client, cid, entropy=entropy)
    assert refused.status_code == 422, refused.json
    assert "entropy" in refused.json["errors"]
    assert stored_state(client, cid) == before


def test_entropy_does_not_go_with_faces_rolled_by_hand(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    before = stored_state(client, cid)
    refused = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d20", "faces": [4], "entropy": "abc"}
    )
    assert refused.status_code == 422
    assert "faces rolled by hand carry none" in refused.json["errors"]["entropy"][0]
    assert stored_state(client, cid) == before


def test_a_game_command_mixes_the_entropy_into_each_of_its_rolls(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-03"})
    check = client.post(
        f"/campaigns/{cid}/commands",
        json={"type": "trait_check", "trait": "INT", "target": 5, "entropy": ENTROPY},
    )
    assert check.status_code == 201, check.json
    (event,) = check.json["events"]
    record = event["data"]["rolls"][0]
    assert record["proof"]["entropy"] == ENTROPY
    shown = revealed(client, cid, record["roll_id"])
    assert shown["verified"] is True


def test_the_house_rule_player_entropy_required_refuses_server_rolls_without_it(
    client: FlaskClient,
) -> None:
    cid = qc_campaign(client, player_entropy="required")
    before = stored_state(client, cid)
    refused = roll(client, cid)  # the campaign's rule refuses it, not the body's shape: a 409
    assert refused.status_code == 409
    assert refused.json["rule"] == "house_rules.player_entropy"
    assert "'entropy'" in refused.json["detail"]
    assert stored_state(client, cid) == before
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-03"})
    before = stored_state(client, cid)
    command = {"type": "trait_check", "trait": "INT", "target": 5}
    no_entropy = client.post(f"/campaigns/{cid}/commands", json=command)
    assert no_entropy.status_code == 409
    assert no_entropy.json["rule"] == "house_rules.player_entropy"
    assert stored_state(client, cid) == before
    ok = client.post(f"/campaigns/{cid}/commands", json={**command, "entropy": "x1"})
    assert ok.status_code == 201, ok.json
    assert roll(client, cid, entropy="y2").status_code == 201
    assert roll(client, cid, faces=[1, 2, 3, 4]).status_code == 201  # hand-rolled: no entropy
    rolls = client.get(f"/campaigns/{cid}/audit").json["rolls"]
    assert rolls["server"] == rolls["with_entropy"] == 2
    assert rolls["reported"] == 1


def test_player_entropy_is_a_house_rule_with_optional_the_default(client: FlaskClient) -> None:
    created = client.post("/campaigns", json={"game": "quest-calendar", "name": "q"})
    assert created.status_code == 201
    rules = created.json["state"]["house_rules"]
    assert rules["player_entropy"] == "optional"
    bad = client.post(
        "/campaigns",
        json={"game": "quest-calendar", "name": "q", "house_rules": {"player_entropy": "always"}},
    )
    assert bad.status_code == 422
    assert "house_rules.player_entropy" in bad.json["errors"]


def test_a_command_retried_with_other_entropy_is_refused(client: FlaskClient) -> None:
    cid = qc_campaign(client)
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-03"})
    headers = {"Idempotency-Key": "check-1"}
    command = {"type": "trait_check", "trait": "INT", "target": 5}
    first = client.post(
        f"/campaigns/{cid}/commands", json={**command, "entropy": "one"}, headers=headers
    )
    assert first.status_code == 201, first.json
    before = stored_state(client, cid)
    again = client.post(
        f"/campaigns/{cid}/commands", json={**command, "entropy": "one"}, headers=headers
    )
    assert again.status_code == 201 and again.json == first.json
    other = client.post(
        f"/campaigns/{cid}/commands", json={**command, "entropy": "two"}, headers=headers
    )
    assert other.status_code == 422 and list(other.json["errors"]) == ["entropy"]
    assert stored_state(client, cid) == before


def test_null_entropy_is_no_entropy_on_rolls_and_commands_alike(client: FlaskClient) -> None:
    """As every optional field of a command, ``"entropy": null`` counts as left out."""
    cid = qc_campaign(client)
    assert roll(client, cid, entropy=None).json["proof"].get("entropy") is None
    client.post(f"/campaigns/{cid}/commands", json={"type": "start_page", "date": "01-03"})
    check = {"type": "trait_check", "trait": "INT", "target": 5, "entropy": None}
    answer = client.post(f"/campaigns/{cid}/commands", json=check)
    assert answer.status_code == 201
    assert "entropy" not in answer.json["events"][0]["data"]["rolls"][0]["proof"]
