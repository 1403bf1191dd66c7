"""Trust policies in the C2SP tlog-policy format: which logs and witnesses are known, and the
quorum of witnesses whose cosignatures make a checkpoint trusted.

::

    log <vkey> [<url>]
    witness <name> <vkey> [<url>]
    group <name> all|any|<k> <name>...
    quorum <name>|none

Items are separated by spaces and tabs only; empty lines and lines starting with ``#`` are
ignored; a group or the quorum names only witnesses and groups defined on earlier lines; each
member is listed once per group; no two logs, and no two witnesses, wrap the same public key;
there is exactly one quorum line. Standard library and the note keys only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from domain.model.signed_note import NoteError, VerifierKey, parse_verifier_key, raw_public_key
from domain.model.tlog.cosignature import CosignerKey, parse_cosigner_key, verified_cosignatures

NONE = "none"
"""The predefined name of the quorum that asks no cosignature (never a group member)."""
_SPACE = re.compile(r"[ \t]+")
_THRESHOLD = re.compile(r"[1-9][0-9]{0,5}")
_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


class PolicyError(ValueError):
    """A policy file that does not parse; the message names the line and what is wrong."""


@dataclass(frozen=True)
class PolicyLog:
    """A known log: its key (whose name is the log's origin) and optional URL."""

    key: VerifierKey
    url: str | None = None


@dataclass(frozen=True)
class PolicyWitness:
    """A known witness: its name in the policy, its cosigner key and optional URL."""

    name: str
    key: CosignerKey
    url: str | None = None


@dataclass(frozen=True)
class Group:
    """A group that witnesses a checkpoint when at least ``threshold`` of its members do."""

    name: str
    threshold: int
    members: tuple[str, ...]


@dataclass(frozen=True)
class QuorumReport:
    """How the quorum fared for a set of cosigning witnesses, with the words that say it.

    ``witnessed`` of the quorum's ``members`` (its direct members: witnesses or groups) have
    witnessed, ``threshold`` being needed; ``cosigned`` and ``missing`` are the names of the
    witnesses under the quorum that did and did not cosign."""

    met: bool
    witnessed: int
    members: int
    threshold: int
    cosigned: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def words(self) -> str:
        """ "witnessed by 2 of 3: w1, w2", with a warning naming the witnesses missing."""
        if self.members == 0:
            return "no witness required (quorum none)"
        names = ", ".join(self.cosigned)
        missing = ", ".join(self.missing)
        if self.met:
            said = f"witnessed by {self.witnessed} of {self.members}: {names}"
            return f"{said} (not cosigned by {missing})" if self.missing else said
        said = f"NOT witnessed: {self.witnessed} of {self.members}, {self.threshold} needed"
        if self.cosigned:
            said += f" (cosigned by {names})"
        return f"{said}; missing cosignatures from {missing}"


@dataclass(frozen=True)
class Policy:
    """A parsed tlog-policy: logs, witnesses by name, groups by name and the quorum's name."""

    logs: tuple[PolicyLog, ...]
    witnesses: dict[str, PolicyWitness] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    quorum: str = NONE

    @property
    def log_keys(self) -> list[VerifierKey]:
        """The keys of the known logs."""
        return [log.key for log in self.logs]

    @property
    def witness_keys(self) -> list[CosignerKey]:
        """The keys of the known witnesses."""
        return [witness.key for witness in self.witnesses.values()]

    def cosigners(self, note: str) -> dict[str, int]:
        """Witness name (in this policy) -> timestamp of each valid cosignature of the note.

        A cosignature line of a known witness that fails raises ``BadSignature``."""
        by_key = {w.key.text: name for name, w in self.witnesses.items()}
        found = verified_cosignatures(note, self.witness_keys)
        return {by_key[key.text]: timestamp for key, timestamp in found}

    def witnessed(self, name: str, cosigned: set[str]) -> bool:
        """Whether the witness or group ``name`` witnessed, given the witnesses that cosigned."""
        if name == NONE:
            return True
        group = self.groups.get(name)
        if group is None:
            return name in cosigned
        return sum(self.witnessed(m, cosigned) for m in group.members) >= group.threshold

    def quorum_met(self, names: Iterable[str]) -> bool:
        """Whether the witnesses ``names`` (policy names) that cosigned make the quorum."""
        return self.witnessed(self.quorum, set(names))

    def report(self, names: Iterable[str]) -> QuorumReport:
        """How the quorum fared for the witnesses ``names`` that cosigned."""
        cosigned = set(names)
        under = list(dict.fromkeys(self._leaves(self.quorum)))
        if self.quorum == NONE:
            members: tuple[str, ...] = ()
            threshold = 0
        elif self.quorum in self.groups:
            members = self.groups[self.quorum].members
            threshold = self.groups[self.quorum].threshold
        else:
            members, threshold = (self.quorum,), 1
        return QuorumReport(
            met=self.witnessed(self.quorum, cosigned),
            witnessed=sum(self.witnessed(m, cosigned) for m in members),
            members=len(members),
            threshold=threshold,
            cosigned=tuple(n for n in under if n in cosigned),
            missing=tuple(n for n in under if n not in cosigned),
        )

    def describe(self, names: Iterable[str]) -> str:
        """The words the page and the CLI show: "witnessed by 2 of 3: w1, w2", or a warning
        naming the witnesses whose cosignatures are missing."""
        return self.report(names).words

    def _leaves(self, name: str) -> Iterator[str]:
        if name == NONE:
            return
        group = self.groups.get(name)
        if group is None:
            yield name
            return
        for member in group.members:
            yield from self._leaves(member)


def parse_policy(text: str) -> Policy:
    """Parse a tlog-policy file; a ``PolicyError`` names the line number and what is wrong."""
    parser = _Parser()
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if _FORBIDDEN.search(line):
            raise PolicyError(f"line {number}: a control character other than tab")
        items = [item for item in _SPACE.split(line) if item]
        if not items or items[0].startswith("#"):
            continue
        try:
            parser.line(items)
        except (PolicyError, NoteError) as error:
            raise PolicyError(f"line {number}: {error}") from None
    if parser.quorum is None:
        raise PolicyError("the policy has no quorum line (write 'quorum none' to ask none)")
    return Policy(tuple(parser.logs), parser.witnesses, parser.groups, parser.quorum)


class _Parser:
    """The policy read so far, one line at a time."""

    def __init__(self) -> None:
        self.logs: list[PolicyLog] = []
        self.witnesses: dict[str, PolicyWitness] = {}
        self.groups: dict[str, Group] = {}
        self.quorum: str | None = None

    def line(self, items: list[str]) -> None:
        keyword, args = items[0], items[1:]
        if keyword == "log":
            self.log(args)
        elif keyword == "witness":
            self.witness(args)
        elif keyword == "group":
            self.group(args)
        elif keyword == "quorum":
            self.set_quorum(args)
        else:
            raise PolicyError(f"{keyword!r} is not log, witness, group or quorum")

    def log(self, args: list[str]) -> None:
        if len(args) not in (1, 2):
            raise PolicyError("a log line is 'log <vkey> [<url>]'")
        key = parse_verifier_key(args[0])
        if any(
            raw_public_key(log.key.public_key) == raw_public_key(key.public_key)
            for log in self.logs
        ):
            raise PolicyError(f"the log key {key.name} repeats a log's public key")
        self.logs.append(PolicyLog(key, args[1] if len(args) == 2 else None))

    def witness(self, args: list[str]) -> None:
        if len(args) not in (2, 3):
            raise PolicyError("a witness line is 'witness <name> <vkey> [<url>]'")
        name = args[0]
        self.new_name(name)
        key = parse_cosigner_key(args[1])
        for other in self.witnesses.values():
            if other.key.public_key == key.public_key:
                raise PolicyError(f"witness {name!r} has the public key of witness {other.name!r}")
        self.witnesses[name] = PolicyWitness(name, key, args[2] if len(args) == 3 else None)

    def group(self, args: list[str]) -> None:
        if len(args) < 3:
            raise PolicyError("a group line is 'group <name> all|any|<k> <name>...'")
        name, k, members = args[0], args[1], args[2:]
        self.new_name(name)
        for member in members:
            self.defined(member, f"group {name!r}")
        if len(set(members)) != len(members):
            raise PolicyError(f"group {name!r} lists a member more than once")
        threshold = self.threshold(k, len(members))
        self.groups[name] = Group(name, threshold, tuple(members))

    def set_quorum(self, args: list[str]) -> None:
        if len(args) != 1:
            raise PolicyError("a quorum line is 'quorum <name>'")
        if self.quorum is not None:
            raise PolicyError("a policy has exactly one quorum line; this is a second")
        if args[0] != NONE:
            self.defined(args[0], "the quorum")
        self.quorum = args[0]

    def threshold(self, k: str, n: int) -> int:
        if k == "all":
            return n
        if k == "any":
            return 1
        if not _THRESHOLD.fullmatch(k) or int(k) > n:
            raise PolicyError(
                f"a group's threshold is all, any or a number from 1 to {n}, not {k!r}"
            )
        return int(k)

    def new_name(self, name: str) -> None:
        if name == NONE:
            raise PolicyError("'none' is predefined; it cannot name a witness or a group")
        if name in self.witnesses or name in self.groups:
            raise PolicyError(f"the name {name!r} is already defined")

    def defined(self, name: str, where: str) -> None:
        if name == NONE:
            raise PolicyError(f"'none' cannot be a member of {where}")
        if name not in self.witnesses and name not in self.groups:
            raise PolicyError(f"{where} names {name!r}, which no earlier line defines")
