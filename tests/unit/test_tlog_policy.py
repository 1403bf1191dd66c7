"""Trust policies in the C2SP tlog-policy format: syntax, the rules on names and keys, the
quorum, and the words the page and the CLI show."""

from __future__ import annotations

import pytest

from domain.model.signed_note import VerifierKey
from domain.model.tlog.policy import NONE, PolicyError, parse_policy
from tests.tlog_fakes import FakeLog, cosigner

LOG = FakeLog("questlog.test/log")
X1, X2, X3, Y1, Y2, Y3 = (cosigner(n) for n in ("x1", "x2", "x3", "y1", "y2", "y3"))


def example() -> str:
    """tlog-policy's "Example policy", with real keys, comments and tabs."""
    return f"""# the example policy of tlog-policy
log {LOG.signer.verifier.text} https://questlog.test/

witness X1 {X1.key.text}
witness X2 {X2.key.text} https://x2.test/
\twitness\tX3\t{X3.key.text}
group X-witnesses 2 X1 X2 X3
    # a comment after spaces

witness Y1 {Y1.key.text}
witness Y2 {Y2.key.text}
witness Y3 {Y3.key.text}
group Y-witnesses any Y1 Y2 Y3

group X-and-Y all X-witnesses Y-witnesses
quorum X-and-Y
"""


def test_the_spec_example_parses() -> None:
    """tlog-policy "Example policy" and "Structure": comments, empty lines, tabs, URLs."""
    policy = parse_policy(example())
    assert [log.key.name for log in policy.logs] == ["questlog.test/log"]
    assert policy.logs[0].url == "https://questlog.test/"
    assert list(policy.witnesses) == ["X1", "X2", "X3", "Y1", "Y2", "Y3"]
    assert policy.witnesses["X2"].url == "https://x2.test/"
    assert policy.witnesses["X1"].url is None
    assert policy.groups["X-witnesses"].threshold == 2
    assert policy.groups["Y-witnesses"].threshold == 1
    assert policy.groups["X-and-Y"].threshold == 2
    assert policy.quorum == "X-and-Y"


@pytest.mark.parametrize(
    ("cosigned", "met"),
    [
        ({"X1", "X2", "Y3"}, True),
        ({"X1", "X2", "X3"}, False),
        ({"X1", "Y1", "Y2", "Y3"}, False),
        ({"X2", "X3", "Y1"}, True),
        (set(), False),
    ],
)
def test_the_quorum_needs_two_x_and_one_y(cosigned: set[str], met: bool) -> None:
    """tlog-policy "Example policy": at least two X-witnesses and one Y-witness."""
    assert parse_policy(example()).quorum_met(cosigned) is met


def two_of_three() -> str:
    return (
        f"log {LOG.signer.verifier.text}\n"
        f"witness w1 {X1.key.text}\nwitness w2 {X2.key.text}\nwitness w3 {X3.key.text}\n"
        "group witnesses 2 w1 w2 w3\nquorum witnesses\n"
    )


def test_describe_says_witnessed_by_2_of_3_and_who() -> None:
    """The words of the issue: "witnessed by 2 of 3", naming who did not cosign."""
    policy = parse_policy(two_of_three())
    assert policy.describe({"w1", "w3"}) == "witnessed by 2 of 3: w1, w3 (not cosigned by w2)"
    assert policy.describe({"w1", "w2", "w3"}) == "witnessed by 3 of 3: w1, w2, w3"


def test_describe_warns_naming_the_missing_witnesses() -> None:
    report = parse_policy(two_of_three()).report({"w2"})
    assert not report.met
    assert (report.witnessed, report.members, report.threshold) == (1, 3, 2)
    assert report.missing == ("w1", "w3")
    assert report.words == (
        "NOT witnessed: 1 of 3, 2 needed (cosigned by w2); missing cosignatures from w1, w3"
    )


def test_quorum_none_needs_no_witness() -> None:
    """tlog-policy "Defining the quorum": ``quorum none`` asks no cosignature."""
    policy = parse_policy(f"log {LOG.signer.verifier.text}\nquorum none\n")
    assert policy.quorum == NONE
    assert policy.quorum_met(set())
    assert policy.describe(set()) == "no witness required (quorum none)"


def test_a_single_witness_quorum() -> None:
    """tlog-policy: the quorum may name a single witness."""
    policy = parse_policy(f"witness w1 {X1.key.text}\nquorum w1\n")
    assert policy.quorum_met({"w1"}) and not policy.quorum_met(set())
    assert policy.describe({"w1"}) == "witnessed by 1 of 1: w1"


def test_the_cosigners_are_found_by_key_under_their_policy_names() -> None:
    """tlog-policy: witnesses are identified by their keys; names are the policy's own."""
    policy = parse_policy(two_of_three())
    log = FakeLog("questlog.test/log").append(3)
    body = log.head().body()
    note = log.checkpoint() + X1.cosign(body, 10) + Y1.cosign(body, 11)
    assert policy.cosigners(note) == {"w1": 10}


W1 = f"witness w1 {X1.key.text}\n"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("quorum w1\n", 1, "no earlier line defines"),
        (f"group g any w1\n{W1}quorum g\n", 1, "no earlier line defines"),
        (f"{W1}group g 2 w1\nquorum g\n", 2, "from 1 to 1"),
        (f"{W1}group g 0 w1\nquorum g\n", 2, "from 1 to 1"),
        (f"{W1}group g 01 w1\nquorum g\n", 2, "not '01'"),
        (f"{W1}group g any w1 w1\nquorum g\n", 2, "more than once"),
        (f"{W1}group g any\nquorum g\n", 2, "a group line is"),
        (f"{W1}group g any none\nquorum g\n", 2, "'none' cannot be a member"),
        (f"{W1}witness w1 {X2.key.text}\nquorum w1\n", 2, "already defined"),
        (f"{W1}witness w2 {X1.key.text}\nquorum w1\n", 2, "public key of witness 'w1'"),
        (f"witness none {X1.key.text}\nquorum none\n", 1, "predefined"),
        (f"{W1}quorum w1\nquorum w1\n", 3, "exactly one quorum"),
        (f"{W1}quorum w1 w1\n", 2, "a quorum line is"),
        (f"{W1}witnesses w2 x\n", 2, "is not log, witness, group or quorum"),
        (f"witness w1 {LOG.signer.verifier.text}\nquorum none\n", 1, "type 0x04"),
        (f"log {X1.key.text}\nquorum none\n", 1, "not an Ed25519 key"),
        (f"log {LOG.signer.verifier.text}\nlog {LOG.signer.verifier.text}\n", 2, "repeats"),
        (f"{W1}\rquorum w1\n", 2, "control character"),
        (f"witness w1 {X1.key.text} https://x/ extra\nquorum w1\n", 1, "a witness line is"),
    ],
)
def test_an_error_names_the_line_and_what_is_wrong(text: str, line: int, words: str) -> None:
    """tlog-policy "Structure", "Defining a witness group", "Defining the quorum",
    "Public key representation" (duplicates), "Character set"."""
    with pytest.raises(PolicyError, match=f"^line {line}: .*{words}"):
        parse_policy(text)


def test_a_policy_without_a_quorum_line_is_refused() -> None:
    """tlog-policy: "A policy file must include exactly one quorum line"."""
    with pytest.raises(PolicyError, match="no quorum line"):
        parse_policy(W1)


def test_duplicate_logs_differ_only_by_name_are_refused() -> None:
    """tlog-policy "Public key representation": vkeys wrapping the same public key are
    duplicates even under another name."""
    renamed = VerifierKey.of("other.test/log", LOG.signer.private_key.public_key())
    with pytest.raises(PolicyError, match=r"line 2: .*repeats"):
        parse_policy(f"log {LOG.signer.verifier.text}\nlog {renamed.text}\nquorum none\n")
