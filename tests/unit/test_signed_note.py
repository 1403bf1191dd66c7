"""Signed notes in the C2SP format, byte for byte as Go's golang.org/x/mod/sumdb/note writes
them, and checkpoints of a campaign's head."""

from __future__ import annotations

import base64
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import (
    BadSignature,
    Checkpoint,
    MalformedNote,
    NoteSigner,
    UnknownKey,
    UnsignedNote,
    VerifierKey,
    open_checkpoint,
    open_note,
    parse_checkpoint,
    parse_note,
    parse_verifier_key,
)

# The example of golang.org/x/mod/sumdb/note (note_test.go): its keys, text and signed note.
GO_VERIFIER_KEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_SIGNER_KEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
GO_NOTE = (
    GO_TEXT + "\n"
    "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngot"
    "pRZb6KE6RyyBwJnAM=\n"
)
CAMPAIGN = UUID("0b6e1a52-3f0e-4a4e-9a55-5b1f8e0c2d11")
HEAD = "9f" * 32


def go_signer() -> NoteSigner:
    """The Go example's private key (its last '+' field is 0x01 and the 32-byte seed)."""
    raw = base64.b64decode(GO_SIGNER_KEY.split("+", 4)[4])
    assert raw[0] == 1
    return NoteSigner("PeterNeumann", Ed25519PrivateKey.from_private_bytes(raw[1:]))


def signer(name: str = "questlog-test") -> NoteSigner:
    return NoteSigner(name, Ed25519PrivateKey.generate())


def test_go_verifier_key_parses_and_prints_back_the_same() -> None:
    key = parse_verifier_key(GO_VERIFIER_KEY)
    assert key.name == "PeterNeumann"
    assert key.key_hash.hex() == "c74f20a3"
    assert key.text == GO_VERIFIER_KEY


def test_go_signer_key_has_the_go_verifier_key() -> None:
    assert go_signer().verifier.text == GO_VERIFIER_KEY


def test_signing_the_go_text_gives_the_go_note_byte_for_byte() -> None:
    assert go_signer().sign(GO_TEXT) == GO_NOTE


def test_the_go_note_verifies_with_the_go_key() -> None:
    opened = open_note(GO_NOTE, [parse_verifier_key(GO_VERIFIER_KEY)])
    assert opened.body == GO_TEXT
    assert opened.key.text == GO_VERIFIER_KEY


def test_an_altered_go_note_is_a_bad_signature() -> None:
    altered = GO_NOTE.replace("cryptography", "cryptographY")
    with pytest.raises(BadSignature, match="forged or altered"):
        open_note(altered, [parse_verifier_key(GO_VERIFIER_KEY)])


@pytest.mark.parametrize(
    "text",
    [
        "PeterNeumann+c74f20a3",
        "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # wrong hash
        "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+ApRc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # not Ed25519
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10",  # short key
        "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    ],
)
def test_mangled_verifier_keys_are_refused(text: str) -> None:
    with pytest.raises(MalformedNote):
        parse_verifier_key(text)


def test_checkpoint_round_trip() -> None:
    """A checkpoint names the log, the campaign, the version and the head hash, and verifies
    with the signer's verifier key parsed from its text."""
    key = signer()
    note = key.sign(Checkpoint("questlog-test", CAMPAIGN, 7, HEAD).body())
    body = f"questlog-test/campaigns/{CAMPAIGN}\n7\n{HEAD}\n"
    assert note.startswith(f"{body}\n\u2014 questlog-test ")
    found, by = open_checkpoint(note, [parse_verifier_key(key.verifier.text)])
    assert found == Checkpoint("questlog-test", CAMPAIGN, 7, HEAD)
    assert by == key.verifier


def test_a_checkpoint_of_one_head_is_always_the_same_bytes() -> None:
    key = signer()
    body = Checkpoint("questlog-test", CAMPAIGN, 7, HEAD).body()
    assert key.sign(body) == key.sign(body)


def test_a_forged_checkpoint_is_a_bad_signature() -> None:
    """A note with the key's name and hash whose signature is another key's is a forgery."""
    real = signer("questlog-test")
    forger = NoteSigner("questlog-test", Ed25519PrivateKey.generate())
    body = Checkpoint("questlog-test", CAMPAIGN, 7, HEAD).body()
    forged_sig = forger.sign(body).rsplit(" ", 1)[1]
    blob = base64.b64decode(forged_sig)
    forged = (
        body
        + "\n\u2014 questlog-test "
        + base64.b64encode(real.verifier.key_hash + blob[4:]).decode()
        + "\n"
    )
    with pytest.raises(BadSignature):
        open_note(forged, [real.verifier])


def test_an_edited_checkpoint_is_a_bad_signature() -> None:
    key = signer()
    note = key.sign(Checkpoint("questlog-test", CAMPAIGN, 7, HEAD).body())
    with pytest.raises(BadSignature):
        open_note(note.replace("\n7\n", "\n8\n"), [key.verifier])


def test_a_note_by_another_key_is_an_unknown_key() -> None:
    note = signer("questlog-test").sign(Checkpoint("questlog-test", CAMPAIGN, 7, HEAD).body())
    with pytest.raises(UnknownKey, match="questlog-test"):
        open_note(note, [signer("questlog-test").verifier])


def test_any_known_key_of_several_may_have_signed() -> None:
    old, new = signer(), signer()
    note = old.sign("a\n")
    assert open_note(note, [new.verifier, old.verifier]).key == old.verifier


@pytest.mark.parametrize(
    "note",
    [
        "",
        "body without a signature\n",
        "body\n\n",
        "body\n\nno em dash signature\n",
        "body\n\n\u2014 name\n",
        "body\n\n\u2014 name not-base64!\n",
        "body\n\n\u2014 name AAAA\n",
        "body\n\n\u2014 name AAAAAAAAAAAA",  # no final newline
        "bo\x07dy\n\n\u2014 name AAAAAAAAAAAA\n",  # a control character
    ],
)
def test_malformed_notes_are_refused(note: str) -> None:
    with pytest.raises(MalformedNote):
        parse_note(note)
    with pytest.raises(MalformedNote):
        open_note(note, [signer().verifier])


def test_a_note_with_no_signature_line_says_so_and_keeps_its_body() -> None:
    """signed-note "Format": a text, a blank line, then one or more signature lines. None at
    all is malformed, said in words, with the body kept for a caller whose rules answer an
    unsigned note their own way (tlog-witness: 403, no signature by a trusted key)."""
    with pytest.raises(UnsignedNote) as unsigned:
        parse_note("origin\n5\nroot\n\n")
    assert str(unsigned.value) == "the note carries no signature line after its blank line"
    assert unsigned.value.body == "origin\n5\nroot\n"
    assert isinstance(unsigned.value, MalformedNote)


@pytest.mark.parametrize(
    "body",
    [
        f"questlog/campaigns/{CAMPAIGN}\n7\n",
        f"questlog/{CAMPAIGN}\n7\n{HEAD}\n",
        f"/campaigns/{CAMPAIGN}\n7\n{HEAD}\n",
        f"questlog/campaigns/not-a-uuid\n7\n{HEAD}\n",
        f"questlog/campaigns/{str(CAMPAIGN).upper()}\n7\n{HEAD}\n",
        f"questlog/campaigns/{CAMPAIGN}\n07\n{HEAD}\n",
        f"questlog/campaigns/{CAMPAIGN}\n0\n{HEAD}\n",
        f"questlog/campaigns/{CAMPAIGN}\n7\n{HEAD.upper()}\n",
        f"questlog/campaigns/{CAMPAIGN}\n7\n{HEAD[:-1]}\n",
    ],
)
def test_malformed_checkpoint_bodies_are_refused(body: str) -> None:
    with pytest.raises(MalformedNote):
        parse_checkpoint(body)


def test_lines_after_the_head_hash_are_ignored() -> None:
    body = f"questlog/campaigns/{CAMPAIGN}\n7\n{HEAD}\nTimestamp: 1700000000\n"
    assert parse_checkpoint(body) == Checkpoint("questlog", CAMPAIGN, 7, HEAD)


def test_a_log_name_with_slashes_is_kept_whole() -> None:
    body = Checkpoint("dice.example.org/questlog", CAMPAIGN, 1, HEAD).body()
    assert parse_checkpoint(body).log_name == "dice.example.org/questlog"


def test_key_names_with_spaces_or_plus_are_refused() -> None:
    for name in ("", "a b", "a+b", "tab\there"):
        with pytest.raises(MalformedNote):
            VerifierKey.of(name, Ed25519PrivateKey.generate().public_key())
