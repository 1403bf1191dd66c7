"""The rolls of an audit: each server roll's nonce checked in log order, and its faces derived
again from its revealed seed once the whole log is read (a seed is revealed after its rolls).

``roll_verdict`` is the one roll verifier (the audit, the roll routes and the views come here);
an audit keeps of each server roll only what its verdict reads, as a ``PlainRoll`` where the roll
is as the server writes it (else as a small dict), and judges them all at its end, working out
each revealed seed's key and commitment once (``draw.SeedVerifier``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from domain.model.dice.draw import SeedVerifier, verify_faces
from domain.service.timeline import Timeline


class Tally(Protocol):
    """What the rolls write in an audit's report (``stored.AuditReport``)."""

    problems: list[dict[str, Any]]
    rolls: dict[str, int]
    failed_rolls: list[str]
    nonce_gaps: list[dict[str, Any]]


def roll_verdict(record: Mapping[str, Any], revealed: Mapping[str, str]) -> bool | None:
    """True if a server roll re-derives from its revealed seed, False if not, None if secret."""
    proof = record.get("proof")
    if record.get("source") != "server" or not isinstance(proof, Mapping):
        return None
    commitment = proof.get("commitment", "")
    # (every revealed commitment is text: anything else, even a list, is not revealed)
    seed = revealed.get(commitment) if isinstance(commitment, str) else None
    if seed is None:
        return None
    try:
        sides = [int(d["sides"]) for d in record["dice"]]
        faces = [int(d["face"]) for d in record["dice"]]
    except (KeyError, TypeError, ValueError):
        return False
    return verify_faces(seed, proof, sides, faces)


def with_verdict(
    record: dict[str, Any], revealed: dict[str, str], timeline: Timeline | None = None
) -> dict[str, Any]:
    """A roll record with ``verified``, ``proof.server_seed`` once revealed, and ``undone``."""
    result = dict(record)
    if timeline is not None:
        result["undone_by"] = timeline.undone_by(int(record["version"]))
        result["undone"] = result["undone_by"] is not None
    if isinstance(record.get("proof"), Mapping):  # (a tampered one is shown as it is)
        proof = dict(record["proof"])
        commitment = proof.get("commitment")
        seed = revealed.get(commitment) if isinstance(commitment, str) else None
        if seed is not None:
            proof["server_seed"] = seed
        result["proof"] = proof
    result["verified"] = roll_verdict(record, revealed)
    return result


class PlainRoll(NamedTuple):
    """What the verdict reads of a server roll as the server writes it: text commitment and
    client seed, a whole nonce, entropy text or none, dice of whole sides and faces."""

    roll_id: object
    commitment: str
    client_seed: str
    nonce: int
    entropy: str | None
    sides: tuple[int, ...]
    faces: tuple[int, ...]


class ServerRolls:
    """An audit's rolls: counted as they come, each server roll's nonce checked (``Nonces``),
    and what its verdict reads kept to the audit's end, when every seed the log reveals is known.
    """

    def __init__(self, report: Tally, nonces: Nonces) -> None:
        self.report = report
        self.nonces = nonces
        self.pending: list[tuple[int, PlainRoll | dict[str, Any]]] = []
        self._texts: dict[str, str] = {}
        """One copy of each commitment and client seed the kept rolls name (not one a roll)."""

    def add(self, version: int, records: Sequence[Mapping[str, Any]]) -> None:
        """Count an event's rolls; keep its server rolls whose nonces are in order."""
        counts = self.report.rolls
        for record in records:
            if record.get("source") == "reported":
                counts["reported"] += 1
                continue
            counts["server"] += 1
            proof = record.get("proof")
            if isinstance(proof, dict) and proof.get("entropy") is not None:
                counts["with_entropy"] += 1
            if self.nonces.reused(version, record):
                counts["failed"] += 1
                self.report.failed_rolls.append(str(record.get("roll_id")))
                continue
            self.pending.append((version, self._plain(record) or _for_verdict(record)))

    def _plain(self, record: Mapping[str, Any]) -> PlainRoll | None:
        """The roll as a ``PlainRoll``, or None if it is not as the server writes it (it is then
        judged by ``roll_verdict``, which gives the same verdict either way)."""
        proof, dice = record.get("proof"), record.get("dice")
        if record.get("source") != "server" or type(proof) is not dict or type(dice) is not list:
            return None
        commitment, client_seed = proof.get("commitment"), proof.get("client_seed")
        nonce, entropy = proof.get("nonce"), proof.get("entropy")
        if not (
            type(commitment) is str
            and type(client_seed) is str
            and type(nonce) is int
            and (entropy is None or type(entropy) is str)
        ):
            return None
        sides, faces = [], []
        for die in dice:
            if type(die) is not dict:
                return None
            n, face = die.get("sides"), die.get("face")
            if type(n) is not int or type(face) is not int:
                return None
            sides.append(n)
            faces.append(face)
        texts = self._texts
        # (tuple.__new__: a named tuple's own constructor is a Python call, a tenth of the time)
        return tuple.__new__(
            PlainRoll,
            (
                record.get("roll_id"),
                texts.setdefault(commitment, commitment),
                texts.setdefault(client_seed, client_seed),
                nonce,
                entropy,
                tuple(sides),
                tuple(faces),
            ),
        )

    def judge(self, revealed: Mapping[str, str]) -> None:
        """Re-derive each kept roll from its revealed seed (or count it as awaiting its reveal),
        in log order."""
        report, verifier = self.report, SeedVerifier()
        counts = report.rolls
        for version, roll in self.pending:
            if isinstance(roll, PlainRoll):
                seed = revealed.get(roll.commitment)
                verdict = None if seed is None else verifier.verify(seed, *roll[1:])
                roll_id = roll.roll_id
            else:
                verdict = roll_verdict(roll, revealed)
                roll_id = roll.get("roll_id")
            if verdict is None:
                counts["awaiting_reveal"] += 1
            elif verdict:
                counts["verified"] += 1
            else:
                counts["failed"] += 1
                report.failed_rolls.append(str(roll_id))
                report.problems.append(
                    {"version": version, "problem": f"roll {roll_id} does not verify"}
                )


def _for_verdict(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the verdict reads of a server roll that is not a ``PlainRoll`` (``roll_verdict``):
    kept until the audit's end, when every seed it will see is revealed."""
    kept = {key: record[key] for key in ("source", "proof", "roll_id", "dice") if key in record}
    dice = kept.get("dice")
    if isinstance(dice, list) and all(isinstance(die, dict) for die in dice):
        kept["dice"] = [{key: die[key] for key in ("sides", "face") if key in die} for die in dice]
    return kept


class Nonces:
    """Checks that the server rolls under each commitment carry nonces 0, 1, 2, ... in log order.

    The server draws every roll under a commitment with the next nonce, and a rollback never
    takes one back, so a log that misses a nonce has lost a roll: a host who deletes a roll's
    event and re-chains the rest passes the chain check, but not this one. (A host who also
    re-derives every later roll from the seed it holds passes it too; a checkpoint a player kept
    catches that: docs/dice-verification.md, "What the nonce check proves".) A gap or a nonce
    out of order is written in the report's ``nonce_gaps`` and ``problems``; a nonce used twice
    is a failed roll.
    """

    def __init__(self, report: Tally) -> None:
        self.report = report
        self.next: dict[str, int] = {}
        self.used: dict[str, set[int]] = {}

    def reused(self, version: int, record: Mapping[str, Any]) -> bool:
        """Take note of a server roll; whether its nonce was used before under its commitment."""
        proof = record.get("proof")
        if type(proof) is dict:  # the usual roll: the next nonce under its commitment
            commitment, nonce = proof.get("commitment"), proof.get("nonce")
            if (
                type(commitment) is str
                and type(nonce) is int
                and nonce >= 0
                and nonce == self.next.get(commitment, 0)
            ):
                # (every nonce used under a commitment is below its next one: not used yet)
                used = self.used.get(commitment)
                if used is None:
                    used = self.used[commitment] = set()
                used.add(nonce)
                self.next[commitment] = nonce + 1
                return False
        proof = proof if isinstance(proof, dict) else {}
        commitment, nonce = str(proof.get("commitment")), proof.get("nonce")
        roll_id = str(record.get("roll_id"))
        if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
            self._gap(version, roll_id, commitment, nonce, f"has no valid nonce ({nonce!r})")
            return True
        used = self.used.setdefault(commitment, set())
        if nonce in used:
            self.report.problems.append(
                {"version": version, "problem": f"nonce {nonce} reused by roll {roll_id}"}
            )
            return True
        used.add(nonce)
        expected = self.next.get(commitment, 0)
        if nonce > expected:
            missing = (
                f"nonce {expected}"
                if nonce == expected + 1
                else (f"nonces {expected} to {nonce - 1}")
            )
            self._gap(
                version,
                roll_id,
                commitment,
                nonce,
                f"carries nonce {nonce}, but {missing} under this commitment "
                f"{'is' if nonce == expected + 1 else 'are'} missing from the log",
                missing=[expected, nonce - 1],
            )
        elif nonce < expected:
            self._gap(
                version,
                roll_id,
                commitment,
                nonce,
                f"carries nonce {nonce} after nonce {expected - 1}: out of order",
            )
        self.next[commitment] = max(expected, nonce + 1)
        return False

    def _gap(
        self,
        version: int,
        roll_id: str,
        commitment: str,
        nonce: object,
        what: str,
        missing: list[int] | None = None,
    ) -> None:
        problem = f"roll {roll_id} {what}"
        self.report.problems.append({"version": version, "problem": problem})
        self.report.nonce_gaps.append(
            {
                "version": version,
                "roll_id": roll_id,
                "commitment": commitment,
                "nonce": nonce,
                "missing": missing,
                "problem": problem,
            }
        )
