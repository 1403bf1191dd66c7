"""The host log's tree head as a C2SP tlog-checkpoint ("Note text"), inside a signed note."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from domain.model.signed_note import BadSignature, MalformedNote, NoteSigner, UnknownKey
from domain.model.tlog.checkpoint import TreeHead, open_tree_head, parse_tree_head
from domain.model.tlog.merkle import EMPTY_ROOT

ROOT = bytes(range(32))
SPEC_EXAMPLE = (
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
)


def test_body_is_origin_size_and_base64_root() -> None:
    """tlog-checkpoint "Note text": origin, decimal size, base64 root, one line each."""
    head = TreeHead("questlog.example/log", 5, ROOT)
    assert head.body() == f"questlog.example/log\n5\n{base64.b64encode(ROOT).decode()}\n"
    assert parse_tree_head(head.body()) == head
    assert TreeHead("o", 0, EMPTY_ROOT).body().split("\n")[1] == "0"


def test_the_spec_example_parses() -> None:
    """tlog-checkpoint: the example checkpoint's body."""
    head = parse_tree_head(SPEC_EXAMPLE)
    assert head.origin == "example.com/behind-the-sofa"
    assert head.size == 20852163
    assert head.body() == SPEC_EXAMPLE


def test_extension_lines_are_kept() -> None:
    """tlog-checkpoint: lines after the third are opaque extension lines, kept byte for byte."""
    body = SPEC_EXAMPLE + "ext one\next two\n"
    head = parse_tree_head(body)
    assert head.extensions == ("ext one", "ext two")
    assert head.body() == body


@given(
    st.text(st.characters(blacklist_characters="\n", blacklist_categories=["Cs"]), min_size=1),
    st.integers(0, 2**63 - 1),
    st.binary(min_size=32, max_size=32),
)
def test_any_tree_head_round_trips(origin: str, size: int, root: bytes) -> None:
    """Any origin line, int64 size and 32-byte root survive body() and parse_tree_head()."""
    head = TreeHead(origin, size, root)
    assert parse_tree_head(head.body()) == head


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("o\n5\n", "at least three lines"),
        ("o\n5\nAAAA", "newline"),
        ("\n5\n" + base64.b64encode(ROOT).decode() + "\n", "origin"),
        ("o\n05\n" + base64.b64encode(ROOT).decode() + "\n", "tree size"),
        ("o\n-1\n" + base64.b64encode(ROOT).decode() + "\n", "tree size"),
        ("o\n+1\n" + base64.b64encode(ROOT).decode() + "\n", "tree size"),
        ("o\n9223372036854775808\n" + base64.b64encode(ROOT).decode() + "\n", "tree size"),
        ("o\n5\n" + base64.b64encode(ROOT[:31]).decode() + "\n", "root hash"),
        ("o\n5\n" + ROOT.hex() + "\n", "root hash"),
        ("o\n5\n" + base64.b64encode(ROOT).decode().rstrip("=") + "\n", "root hash"),
        ("o\n5\n" + base64.b64encode(ROOT).decode() + "\n\n", "extension lines"),
    ],
)
def test_malformed_bodies_are_refused_naming_the_line(body: str, words: str) -> None:
    """tlog-checkpoint: size without leading zeros, base64 root of 32 bytes, non-empty lines."""
    with pytest.raises(MalformedNote, match=words):
        parse_tree_head(body)


def test_a_signed_checkpoint_opens_with_the_log_key() -> None:
    """tlog-checkpoint "Signatures": the log's Ed25519 signature, its key name the origin."""
    signer = NoteSigner("questlog.example/log", Ed25519PrivateKey.generate())
    head = TreeHead("questlog.example/log", 300, ROOT)
    note = signer.sign(head.body())
    assert open_tree_head(note, [signer.verifier]) == (head, signer.verifier)
    other = NoteSigner("questlog.example/log", Ed25519PrivateKey.generate())
    with pytest.raises(UnknownKey):
        open_tree_head(note, [other.verifier])
    forged = note.replace("\n300\n", "\n301\n")
    with pytest.raises(BadSignature):
        open_tree_head(forged, [signer.verifier])


def test_a_signed_note_that_is_not_a_checkpoint_is_malformed() -> None:
    """A valid signature over a body that is not a checkpoint still does not open."""
    signer = NoteSigner("log", Ed25519PrivateKey.generate())
    with pytest.raises(MalformedNote, match="tree size"):
        open_tree_head(signer.sign("log\nten\nAAAA\n"), [signer.verifier])


@pytest.mark.parametrize(
    ("args", "words"),
    [(("", 1, ROOT), "origin"), (("o", -1, ROOT), "tree size"), (("o", 1, b"x"), "root hash")],
)
def test_bad_tree_heads_are_refused(args: tuple[str, int, bytes], words: str) -> None:
    """A tree head that no checkpoint could carry is refused when made."""
    with pytest.raises(MalformedNote, match=words):
        TreeHead(*args)
