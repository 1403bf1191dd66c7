"""``questlog verify --tlog-proof FILE --policy FILE`` and ``questlog verify --pair A B``: the
verdict in words and the exit codes (0 verified or proven, 1 not, 2 bad input), offline.
(Neither reads a Questlog store when given its keys, so these run on no store.)"""

from __future__ import annotations

import base64
import http.server
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner, Result

from domain.model.signed_note import NoteSigner
from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.merkle import consistency_evidence
from domain.model.tlog.proof import parse_entry
from domain.model.tlog.tiles import TileError, parse_tile_path
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.test_split_view import TREE_TABLES
from tests.conftest import SETUPS, RawStore
from tests.host_rewrite import delete_and_rechain
from tests.live_server import free_port, serving
from tests.tlog_fakes import FakeLog, cosigner, seeded_key
from webapi.cli.main import main

W1, W2, W3 = cosigner("w1.test"), cosigner("w2.test"), cosigner("w3.test")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["verify", *args])


@pytest.fixture
def log() -> FakeLog:
    return FakeLog("questlog.test/log").append(11)


@pytest.fixture
def policy_file(tmp_path: Path, log: FakeLog) -> Path:
    """tlog-policy: the log, three witnesses and a quorum of two of them."""
    path = tmp_path / "policy.txt"
    path.write_text(
        f"log {log.signer.verifier.text}\n"
        f"witness w1 {W1.key.text}\nwitness w2 {W2.key.text}\nwitness w3 {W3.key.text}\n"
        "group witnesses 2 w1 w2 w3\nquorum witnesses\n"
    )
    return path


def proof_file(
    tmp_path: Path, log: FakeLog, index: int, *witnesses: Cosigner, extra: bool = True
) -> Path:
    """A tlog-proof file of entry ``index`` with the witnesses' cosignatures."""
    body = log.head().body()
    note = log.checkpoint() + "".join(w.cosign(body, 1_700_000_000) for w in witnesses)
    path = tmp_path / f"proof-{index}-{len(witnesses)}.tlog-proof"
    path.write_text(log.proof(index, note, extra=extra), newline="")
    return path


def test_a_proof_witnessed_by_two_of_three_verifies(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-proof "Verifying a tlog proof"; the quorum in words: "witnessed by 2 of 3"."""
    proof = proof_file(tmp_path, log, 5, W1, W2)
    result = run("--tlog-proof", str(proof), "--policy", str(policy_file))
    assert result.exit_code == 0, result.output
    assert "witnessed by 2 of 3: w1, w2" in result.output
    assert "not cosigned by w3" in result.output
    entry = parse_entry(log.entries[5])
    assert str(entry.campaign_id) in result.output


def test_the_entry_given_on_the_command_line_must_be_the_proven_one(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-proof step 1: the verifier computes the leaf from what it knows."""
    entry = parse_entry(log.entries[5])
    proof = proof_file(tmp_path, log, 5, W1, W3, extra=False)
    given = ["--campaign", str(entry.campaign_id), "--version", str(entry.version)]
    ok = run(
        "--tlog-proof", str(proof), "--policy", str(policy_file), *given, "--hash", entry.event_hash
    )
    assert ok.exit_code == 0, ok.output
    wrong = run(
        "--tlog-proof", str(proof), "--policy", str(policy_file), *given, "--hash", "0" * 64
    )
    assert wrong.exit_code == 1
    assert "NOT INCLUDED" in wrong.output


def test_a_key_given_must_have_signed_the_checkpoint(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-proof "Verifying a tlog proof": the checkpoint's signature is checked with the
    verifier's log key. A key given with --key is the verifier's own pin: it wins over the
    policy's ``log`` line, so a key that never signed anything cannot give VERIFIED."""
    proof = proof_file(tmp_path, log, 5, W1, W2)
    args = ["--tlog-proof", str(proof), "--policy", str(policy_file)]
    stranger = NoteSigner(log.origin, seeded_key("never signed")).verifier.text
    refused = run(*args, "--key", stranger)
    assert refused.exit_code == 1, refused.output
    assert "VERIFIED" not in refused.output
    assert "the log's signature" in refused.output
    pinned = run(*args, "--key", log.signer.verifier.text)
    assert pinned.exit_code == 0, pinned.output
    either = run(*args, "--key", stranger, "--key", log.signer.verifier.text)
    assert either.exit_code == 0, either.output


def test_an_entry_named_that_is_not_the_proof_s_is_another_event(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-proof step 1: the verifier computes the leaf from what it knows. The proof's own
    entry (its extra data) is shown; an event named on the command line that differs is
    "ANOTHER EVENT" (exit 1), not "not included": this proof says nothing of that event."""
    proven, other = parse_entry(log.entries[5]), parse_entry(log.entries[3])
    proof = proof_file(tmp_path, log, 5, W1, W2)
    args = ["--tlog-proof", str(proof), "--policy", str(policy_file)]
    named = ["--campaign", str(other.campaign_id), "--version", str(other.version)]
    result = run(*args, *named, "--hash", other.event_hash)
    assert result.exit_code == 1, result.output
    assert f"entry: campaign {proven.campaign_id}, version {proven.version}" in result.output
    assert (
        f"ANOTHER EVENT: the proof is of campaign {proven.campaign_id} version 6 "
        f"(hash {proven.event_hash[:8]}), not of the event you named (campaign "
        f"{other.campaign_id} version 4, hash {other.event_hash[:8]})"
    ) in flat(result)
    assert "NOT INCLUDED" not in result.output
    same = ["--campaign", str(proven.campaign_id).upper(), "--version", str(proven.version)]
    upper = run(*args, *same, "--hash", proven.event_hash.upper())
    assert upper.exit_code == 0, upper.output
    alone = run(*args, "--campaign", str(proven.campaign_id))
    assert alone.exit_code == 2
    assert "missing --version, --hash" in alone.output


def test_a_pair_without_key_nor_store_is_bad_input(
    tmp_path: Path, log: FakeLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 1 means "no conflict shown": a pair that cannot be checked at all (no key, no
    store to read the keys from) is bad input, exit 2, saying what to give."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QUESTLOG_DATABASE_URL", raising=False)
    monkeypatch.setenv("QUESTLOG_DB", str(tmp_path / "none.db"))
    a = tmp_path / "a.txt"
    a.write_text(log.checkpoint(), newline="")
    result = run("--pair", str(a), str(a))
    assert result.exit_code == 2, result.output
    assert "give the log's key with --key (or QUESTLOG_DB for a store)" in flat(result)


def test_a_quorum_not_met_exits_1_naming_the_missing_witnesses(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-policy: too few cosignatures; the warning names who did not cosign."""
    proof = proof_file(tmp_path, log, 2, W3)
    result = run("--tlog-proof", str(proof), "--policy", str(policy_file))
    assert result.exit_code == 1
    assert "NOT witnessed: 1 of 3, 2 needed" in result.output
    assert "missing cosignatures from w1, w2" in result.output


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("no policy", "--tlog-proof needs --policy"),
        ("bad policy", "line 1"),
        ("malformed proof", "tlog-proof"),
        ("half entry", "together"),
        ("no extra", "carries no entry"),
        ("bad key", "--key"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, log: FakeLog, policy_file: Path, change: str, words: str
) -> None:
    proof = proof_file(tmp_path, log, 2, W1, W2)
    args = ["--tlog-proof", str(proof), "--policy", str(policy_file)]
    if change == "no policy":
        args = args[:2]
    elif change == "bad policy":
        policy_file.write_text("quorum nobody\n")
    elif change == "malformed proof":
        proof.write_text("not a proof\n")
    elif change == "half entry":
        args += ["--version", "3"]
    elif change == "no extra":
        proof = proof_file(tmp_path, log, 2, W1, W2, extra=False)
    elif change == "bad key":
        args += ["--key", "not-a-key"]
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_a_pair_with_two_roots_of_one_size_proves_misbehaviour(tmp_path: Path) -> None:
    """tlog-checkpoint "Signatures": two checkpoints of one size with two roots."""
    honest = FakeLog("questlog.test/log").append(8)
    forked = FakeLog(honest.origin, honest.signer).append(8, salt="forked")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(honest.checkpoint(), newline="")
    b.write_text(forked.checkpoint(), newline="")
    key = honest.signer.verifier.text
    result = run("--pair", str(a), str(b), "--key", key)
    assert result.exit_code == 0, result.output
    assert "misbehaviour proven" in result.output
    b.write_text(honest.checkpoint(5), newline="")
    result = run("--pair", str(a), str(b), "--key", key)
    assert result.exit_code == 1
    assert "no conflict shown" in result.output
    b.write_text("garbage\n")
    result = run("--pair", str(a), str(b), "--key", key)
    assert result.exit_code == 2
    assert "B:" in result.output


def test_the_new_options_do_not_mix_with_an_audit(tmp_path: Path, log: FakeLog) -> None:
    a = tmp_path / "a.txt"
    a.write_text(log.checkpoint(), newline="")
    result = run("00000000-0000-0000-0000-000000000001", "--pair", str(a), str(a))
    assert result.exit_code == 2
    assert run("--policy", str(a)).exit_code == 2


@pytest.mark.parametrize("extra", [b"\xff\xfe", b"not an entry", b""])
def test_an_extra_that_is_no_entry_is_bad_input_not_a_crash(
    tmp_path: Path, log: FakeLog, policy_file: Path, extra: bytes
) -> None:
    """tlog-proof "Format": applications MUST NOT implicitly trust the extra data. A proof file
    whose extra line is not a Questlog entry is bad input (exit 2, in words), never a
    traceback nor a "not verified" exit 1."""
    import base64

    proof = proof_file(tmp_path, log, 2, W1, W2)
    text = proof.read_text()
    line = text.split("\n")[1]
    proof.write_text(text.replace(line, "extra " + base64.b64encode(extra).decode()), newline="")
    result = run("--tlog-proof", str(proof), "--policy", str(policy_file))
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "entry" in result.output


# Two tree heads of two sizes: a consistency proof (RFC 9162 section 2.1.4) from a file or
# from the log's hash tiles (C2SP tlog-tiles).


def pair_files(tmp_path: Path, old: int = 5, new: int = 7) -> tuple[FakeLog, FakeLog, Path, Path]:
    """Player A's checkpoint of the honest tree at ``old``; player B's of a forged tree at
    ``new``, signed by the same key."""
    honest = FakeLog("questlog.test/log").append(new)
    forged = FakeLog(honest.origin, honest.signer).append(new, salt="forked")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(honest.checkpoint(old), newline="")
    b.write_text(forged.checkpoint(new), newline="")
    return honest, forged, a, b


def hashes_file(tmp_path: Path, hashes: list[bytes]) -> Path:
    path = tmp_path / "consistency.txt"
    path.write_text("".join(base64.b64encode(h).decode() + "\n" for h in hashes))
    return path


@pytest.mark.parametrize(("old", "new"), [(5, 7), (4, 9), (1, 2), (255, 300)])
def test_a_consistency_file_proves_a_pair_of_two_sizes(tmp_path: Path, old: int, new: int) -> None:
    """RFC 9162 2.1.4.2: B's proof reproduces B's root and gives another root at A's size."""
    honest, forged, a, b = pair_files(tmp_path, old, new)
    key = honest.signer.verifier.text
    alone = run("--pair", str(a), str(b), "--key", key)
    assert alone.exit_code == 1
    assert "--tiles URL builds it" in alone.output
    proof = hashes_file(tmp_path, consistency_evidence(old, new, forged.read))
    result = run("--pair", str(a), str(b), "--key", key, "--consistency", str(proof))
    assert result.exit_code == 0, result.output
    assert "misbehaviour proven" in result.output
    proof = hashes_file(tmp_path, consistency_evidence(old, new, honest.read))
    b.write_text(honest.checkpoint(new), newline="")
    result = run("--pair", str(a), str(b), "--key", key, "--consistency", str(proof))
    assert result.exit_code == 1, result.output
    assert "no conflict" in result.output


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("not base64\n", "line 1"),
        ("AAAA\n", "32-byte"),
        ("", "empty"),
        ("honest", "not of B's tree"),
    ],
)
def test_a_bad_consistency_file_exits_2_naming_the_option(
    tmp_path: Path, content: str, words: str
) -> None:
    honest, _, a, b = pair_files(tmp_path)
    path = tmp_path / "proof.txt"
    if content == "honest":
        path = hashes_file(tmp_path, consistency_evidence(5, 7, honest.read))
    else:
        path.write_text(content)
    key = honest.signer.verifier.text
    result = run("--pair", str(a), str(b), "--key", key, "--consistency", str(path))
    assert result.exit_code == 2, result.output
    assert "--consistency:" in result.output and words in " ".join(result.output.split())


@contextmanager
def tiles_served(log: FakeLog) -> Iterator[str]:
    """A plain HTTP server of ``log``'s hash tiles (tlog-tiles paths under /log); its prefix."""

    class Tiles(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            try:
                tile = parse_tile_path(self.path.removeprefix("/log/"))
                body = b"".join(log.nodes[node] for node in tile.nodes())
            except (TileError, KeyError):
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tiles)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/log"
    finally:
        server.shutdown()
        server.server_close()


def test_tiles_of_another_tree_or_none_exit_2_naming_the_option(tmp_path: Path) -> None:
    """The tiles must reproduce the larger checkpoint's signed root, else they are not of
    that tree; a URL that cannot be read says so."""
    honest, forged, a, b = pair_files(tmp_path, 5, 7)
    key = honest.signer.verifier.text
    with tiles_served(forged) as url:
        result = run("--pair", str(a), str(b), "--key", key, "--tiles", url)
        assert result.exit_code == 0, result.output
        assert "misbehaviour proven" in result.output
    with tiles_served(honest) as url:
        result = run("--pair", str(a), str(b), "--key", key, "--tiles", url)
    assert result.exit_code == 2, result.output
    assert "--tiles: the tiles at" in result.output and "not of the tree of size 7" in flat(result)
    with tiles_served(FakeLog("questlog.test/log").append(3)) as url:
        result = run("--pair", str(a), str(b), "--key", key, "--tiles", url)
    assert result.exit_code == 2 and "answered 404" in flat(result)
    result = run(
        "--pair", str(a), str(b), "--key", key, "--tiles", f"http://127.0.0.1:{free_port()}/log"
    )
    assert result.exit_code == 2 and "--tiles: cannot read" in flat(result)
    result = run("--pair", str(a), str(b), "--key", key, "--tiles", "ftp://example/log")
    assert result.exit_code == 2 and "not an http(s) URL" in flat(result)
    proof = hashes_file(tmp_path, [])
    both = run("--pair", str(a), str(b), "--key", key, "--tiles", url, "--consistency", str(proof))
    assert both.exit_code == 2 and "not both" in both.output
    alone = run("--tlog-proof", str(a), "--tiles", url)
    assert alone.exit_code == 2 and "go with --pair" in alone.output


def flat(result: Result) -> str:
    return " ".join(result.output.split())


def copied(source: Path, target: Path) -> None:
    """A copy of a SQLite store, made through SQLite's backup API, with its key ring (the
    file beside it): the same host, the same log key."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()
    keys = Path(f"{source}.keys.json")
    Path(f"{target}.keys.json").write_bytes(keys.read_bytes())


def published(path: Path, rolls: int, campaign: UUID | None = None) -> tuple[UUID, str]:
    """Roll on the store at ``path`` (a new campaign unless given) and publish the log: the
    campaign and the signed checkpoint of the tree."""
    app = Questlog(StoreConfig(sqlite_path=path))
    try:
        if campaign is None:
            setup = SETUPS["quest-calendar"]
            made = app.campaigns.create_campaign(game="quest-calendar", name="Split", setup=setup)
            campaign = made.campaign_id
        for n in range(rolls):
            app.dice.roll(campaign, notation="d20", purpose=f"roll {n}")
        signed = app.transparency.publish(submit=False)
        assert signed is not None
        return campaign, signed.note
    finally:
        app.close()


def test_a_real_server_s_tiles_prove_a_longer_forged_history(tmp_path: Path) -> None:
    """``questlog serve`` publishes the host's tiles (tlog-tiles). Player A holds the honest
    checkpoint of size m; the host rewrites its store (one roll deleted, the chain and the
    Merkle log rebuilt) and shows player B a checkpoint of size n > m under the same key.
    With --tiles at the server of B's tree, the consistency proof from m to n built from its
    tiles reproduces B's root and states another root at m: proven. The honest store's server
    shows A and its own later checkpoint consistent, and its tiles are not of B's tree."""
    host, honest = tmp_path / "host.db", tmp_path / "honest.db"
    campaign, note_a = published(host, 4)
    copied(host, honest)
    _, note_h = published(honest, 2, campaign)
    closed = Questlog(StoreConfig(sqlite_path=host))
    key = closed.key_ring.current().signer.verifier.text
    closed.close()
    delete_and_rechain(closed, campaign, 3)
    for table in TREE_TABLES:
        RawStore(closed)._run(f"DELETE FROM {table}")
    _, note_b = published(host, 3, campaign)
    files = {}
    for name, note in [("a", note_a), ("b", note_b), ("h", note_h)]:
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text(note, newline="")
    sizes = [int(note.split("\n")[1]) for note in (note_a, note_b, note_h)]
    assert sizes[0] < sizes[1] == sizes[2]

    def pair(first: str, second: str, url: str) -> Result:
        return run("--pair", str(files[first]), str(files[second]), "--key", key, "--tiles", url)

    with serving({**os.environ, "QUESTLOG_DB": str(host)}) as port:
        url = f"http://127.0.0.1:{port}/log"
        proven = pair("a", "b", url)
        other = pair("a", "h", url)
    assert proven.exit_code == 0, proven.output
    assert "misbehaviour proven" in flat(proven)
    assert f"signed a tree of size {sizes[1]}" in flat(proven)
    assert other.exit_code == 2 and "not of the tree" in flat(other)
    with serving({**os.environ, "QUESTLOG_DB": str(honest)}) as port:
        consistent = pair("a", "h", f"http://127.0.0.1:{port}/log")
    assert consistent.exit_code == 1, consistent.output
    assert "no conflict: the consistency proof shows" in flat(consistent)
