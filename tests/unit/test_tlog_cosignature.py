"""Witness cosignatures (C2SP tlog-cosignature, Ed25519 cosignature/v1) and the bodies of the
tlog-witness add-checkpoint call."""

from __future__ import annotations

import base64
import hashlib
import struct

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import BadSignature, MalformedNote, NoteSigner
from domain.model.tlog.cosignature import (
    Cosigner,
    CosignerKey,
    cosignatures,
    parse_cosigner_key,
    signed_message,
)
from domain.model.tlog.witness_protocol import (
    MAX_PROOF_LINES,
    AddCheckpoint,
    MalformedRequest,
    parse_add_checkpoint,
    parse_cosignature_lines,
    parse_size_body,
    size_body,
)

# The checkpoint body of tlog-cosignature's example.
BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
SEED = bytes(range(32))


def witness(name: str = "witness.example.com/w1", seed: bytes = SEED) -> Cosigner:
    return Cosigner(name, Ed25519PrivateKey.from_private_bytes(seed))


def log_note() -> str:
    return NoteSigner("example.com/behind-the-sofa", Ed25519PrivateKey.generate()).sign(BODY)


def test_key_id_is_the_hash_of_name_newline_0x04_and_key() -> None:
    """tlog-cosignature "Format": SHA-256(<name> || "\\n" || 0x04 || public key)[:4]."""
    cosigner = witness()
    raw = cosigner.private_key.public_key().public_bytes_raw()
    expected = hashlib.sha256(b"witness.example.com/w1\n\x04" + raw).digest()[:4]
    assert cosigner.key.key_id == expected


def test_vkey_has_signature_type_0x04_and_parses_back() -> None:
    """tlog-cosignature "Format": Ed25519 keys as vkeys with signature type 0x04."""
    key = witness().key
    name, key_id, material = key.text.split("+", 2)
    assert (name, key_id) == ("witness.example.com/w1", key.key_id.hex())
    assert base64.b64decode(material)[0] == 0x04
    assert parse_cosigner_key(key.text) == key


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("w1+00000000", "is <name>"),
        ("w1+0000000g+AAAA", "8 lowercase hex"),
        ("w1+00000000+!!!!", "not valid base64"),
        ("w1+00000000+" + base64.b64encode(b"\x01" + bytes(32)).decode(), "type 0x04"),
        ("w1+00000000+" + base64.b64encode(b"\x04" + bytes(32)).decode(), "does not match"),
    ],
)
def test_a_bad_cosigner_key_is_refused_with_the_reason(text: str, words: str) -> None:
    with pytest.raises(MalformedNote, match=words):
        parse_cosigner_key(text)


def test_signed_message_is_header_time_line_and_body() -> None:
    """tlog-cosignature "Ed25519 signed message": the exact bytes of the spec's example."""
    assert signed_message(BODY, 1679315147) == (
        b"cosignature/v1\ntime 1679315147\n" + BODY.encode()
    )


def test_a_cosignature_line_is_key_id_timestamp_and_signature() -> None:
    """tlog-cosignature "Format": base64(key ID || u64 big-endian timestamp || signature)."""
    cosigner = witness()
    line = cosigner.cosign(BODY, 1679315147)
    assert line.startswith("\u2014 witness.example.com/w1 ") and line.endswith("\n")
    raw = base64.b64decode(line.split()[-1])
    assert raw[:4] == cosigner.key.key_id
    assert struct.unpack(">Q", raw[4:12]) == (1679315147,)
    public = cosigner.private_key.public_key()
    public.verify(raw[12:], signed_message(BODY, 1679315147))


def test_a_witness_never_omits_the_timestamp() -> None:
    """tlog-witness "add-checkpoint": the timestamp MUST NOT be zero."""
    with pytest.raises(ValueError, match="timestamp"):
        witness().cosign(BODY, 0)


def test_cosignatures_of_known_keys_are_found_and_unknown_ones_ignored() -> None:
    """tlog-witness: the client MUST ignore cosignatures from unknown keys."""
    w1, w2, w3 = witness("w1"), witness("w2", bytes(32)), witness("w3", b"\x01" * 32)
    note = log_note() + w1.cosign(BODY, 100) + w2.cosign(BODY, 200) + w3.cosign(BODY, 300)
    assert cosignatures(note, [w1.key, w2.key]) == {"w1": 100, "w2": 200}
    assert cosignatures(note, []) == {}


def test_a_failing_cosignature_by_a_known_key_is_a_bad_signature() -> None:
    """signed-note: a known key's signature that fails makes the note malformed."""
    w1 = witness("w1")
    note = log_note() + w1.cosign(BODY, 100)
    forged = note.replace("20852163", "20852164")
    with pytest.raises(BadSignature, match="w1"):
        cosignatures(forged, [w1.key])


def test_the_same_key_under_another_name_does_not_match() -> None:
    """tlog-cosignature: the key id commits to the name; a renamed line is an unknown key."""
    w1 = witness("w1")
    note = log_note() + w1.cosign(BODY, 100)
    other = CosignerKey.of("w9", w1.key.public_key)
    assert cosignatures(note, [other]) == {}


def test_add_checkpoint_body_round_trips() -> None:
    """tlog-witness "add-checkpoint": old line, proof lines, empty line, checkpoint."""
    note = log_note()
    request = AddCheckpoint(20852014, (b"\x01" * 32, b"\x02" * 32), note)
    body = request.body()
    assert body.startswith(b"old 20852014\nAQEB")
    assert parse_add_checkpoint(body) == request
    empty = AddCheckpoint(0, (), note)
    assert empty.body() == b"old 0\n\n" + note.encode()
    assert parse_add_checkpoint(empty.body()) == empty


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"old 01\n\nx\n", "no leading zeroes"),
        (b"old -1\n\nx\n", "old <size>"),
        (b"new 1\n\nx\n", "old <size>"),
        (b"old 1\nAAAA\n\nx\n", "line 2 is not a 32-byte hash"),
        (b"old 1\n!!\n\nx\n", "line 2 is not a base64 hash"),
        (b"old 1\n", "an empty line"),
        (b"\xff\n\n", "UTF-8"),
        (
            b"old 1\n" + b"".join([base64.b64encode(bytes(32)) + b"\n"] * 64) + b"\nx\n",
            "at most 63",
        ),
    ],
)
def test_a_malformed_request_names_what_is_wrong(body: bytes, words: str) -> None:
    with pytest.raises(MalformedRequest, match=words):
        parse_add_checkpoint(body)


def test_sixty_three_proof_lines_are_allowed_but_not_sixty_four() -> None:
    """tlog-witness: the client MUST NOT send more than 63 consistency proof lines."""
    proof = tuple(bytes([n]) * 32 for n in range(MAX_PROOF_LINES))
    assert len(parse_add_checkpoint(AddCheckpoint(1, proof, "x\n").body()).proof) == 63
    with pytest.raises(MalformedRequest):
        AddCheckpoint(1, (*proof, bytes(32)), "x\n").body()


def test_size_body_is_decimal_and_newline() -> None:
    """tlog-witness "add-checkpoint": a 409 body is the size in decimal and a newline."""
    assert size_body(20852163) == b"20852163\n"
    assert parse_size_body(b"0\n") == 0
    for bad in (b"12", b"012\n", b"-1\n", b"a\n"):
        with pytest.raises(MalformedRequest):
            parse_size_body(bad)


def test_cosignature_answer_lines_are_read() -> None:
    """tlog-witness: a 200 body is signature lines, each starting with U+2014."""
    lines = witness().cosign(BODY, 5) + witness("w2").cosign(BODY, 6)
    assert len(parse_cosignature_lines(lines.encode())) == 2
    with pytest.raises(MalformedRequest):
        parse_cosignature_lines(b"not a signature\n")
