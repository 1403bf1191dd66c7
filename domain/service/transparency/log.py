"""The transparency log as a use case: integrate, sign checkpoints, serve tiles and proofs.

``Transparency`` (``app.transparency``) is the host's one log: the integrator appends the store's
events to its tree (``domain.service.transparency.integrator``); ``publish`` signs a C2SP
checkpoint (tlog-checkpoint: origin = the key ring's log name, size, base64 root) with the ring's
current key when the tree grew, and hands it to the witness submitter
(``domain.service.transparency.witnesses``), which submits it in the background; the reads give
the latest checkpoint with the cosignatures collected, the tlog-tiles hash tiles and entry
bundles within the integrated size, and a campaign head's tlog-proof.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from domain import settings
from domain.model.errors import NotFound, NotLoggedYet, QuestlogError
from domain.model.tlog import merkle
from domain.model.tlog.checkpoint import TreeHead
from domain.model.tlog.policy import PolicyError, parse_policy
from domain.model.tlog.proof import TlogProof
from domain.model.tlog.tiles import TILE_HEIGHT, Tile, TileError, encode_bundle, parse_tile_path
from domain.service.commands_service import CommandService
from domain.service.transparency.integrator import Integrator
from domain.service.transparency.retry import RetryBackoff
from domain.service.transparency.witnesses import WitnessSubmitter
from domain.storage.tlog_conflicts import LeafConflict
from domain.storage.tlog_tables import StoredCheckpoint, TlogTables


class BeyondTree(NotFound):
    """A tile or entry bundle the integrated tree does not hold (yet)."""


class BadTilePath(QuestlogError):
    """A tile path not spelt as tlog-tiles says; the message names the part that is wrong."""


class Transparency:
    """The host's transparency log: its integrator, its checkpoints, its tiles and proofs."""

    def __init__(self, app: CommandService) -> None:
        self.app = app
        self.tables: TlogTables = app.side_tables
        self.integrator = Integrator(app.recorder, app.mapper)
        chosen = settings.read()
        retry = RetryBackoff(chosen.checkpoint_seconds)
        self.witnesses = WitnessSubmitter(self.tables, self.consistency_proof, retry=retry)
        self.checkpoint_seconds = chosen.checkpoint_seconds
        if chosen.witness_policy is not None:
            self.witnesses.use_policy(read_policy(chosen.witness_policy), chosen.witness_timeout)

    # -- writing: integrate and sign ---------------------------------------------------------

    def integrate(self) -> int:
        """Append every event readable now to the tree; how many this call appended."""
        return self.integrator.integrate()

    def publish(self, *, when_grown: bool = False, submit: bool = True) -> StoredCheckpoint | None:
        """Integrate, sign a checkpoint of the tree as it stands (unless the latest already has
        its size) and, with ``submit``, submit it to the witnesses in the background.
        ``when_grown``: sign only if the tree grew since the latest checkpoint (the empty tree
        is never signed then); None when nothing was signed and there is no checkpoint."""
        self.integrate()
        state = self.tables.tlog_state()
        latest = self.tables.tlog_checkpoint()
        if latest is not None and latest.size >= state.size:
            if submit:
                self.witnesses.submit(latest)  # (to the witnesses still behind, if any)
            return latest
        if when_grown and state.size == 0:
            return latest
        ring = self.app.key_ring.current()
        note = ring.signer.sign(TreeHead(ring.log_name, state.size, state.root).body())
        created = datetime.now(UTC).isoformat()
        signed = self.tables.add_tlog_checkpoint(
            StoredCheckpoint(state.size, state.root, note, created)
        )
        if submit:
            self.witnesses.submit(signed)
        return signed

    def consistency_proof(self, old_size: int, new_size: int) -> list[bytes]:
        """The consistency proof between two sizes of the integrated tree (one read)."""
        return merkle.consistency_proof(old_size, new_size, self.tables.tlog_nodes)

    def conflicts(self) -> list[LeafConflict]:
        """The events found rewritten under the log (each in the tree with another hash than
        the store's now), by campaign and version: never appended again."""
        return self.tables.tlog_conflicts()

    def close(self) -> None:
        """Stop submitting to the witnesses."""
        self.witnesses.close()

    # -- reading -----------------------------------------------------------------------------

    def policy(self) -> str:
        """The host's witness policy (tlog-policy text); ``NotFound`` when it has none."""
        if self.witnesses.policy_text is None:
            raise NotFound("This host submits its checkpoints to no witness (no policy).")
        return self.witnesses.policy_text

    def latest_checkpoint(self) -> str:
        """The latest signed checkpoint, with the cosignatures collected on it appended;
        ``NotFound`` if none is signed yet."""
        latest = self.tables.tlog_checkpoint()
        if latest is None:
            raise NotFound("The log has signed no checkpoint yet.")
        return self.cosigned(latest)

    def cosigned(self, checkpoint: StoredCheckpoint) -> str:
        """A checkpoint's note with each cosignature collected on it (tlog-cosignature: the
        witnesses' signature lines after the log's)."""
        lines = "".join(found.line for found in self.tables.cosignatures(checkpoint.size))
        return checkpoint.note + lines

    def tile(self, path: str) -> bytes:
        """The hash tile or entry bundle at ``path`` (``tile/<L>/<N>[.p/<W>]`` or
        ``tile/entries/<N>[.p/<W>]``, tlog-tiles): ``BadTilePath`` naming the part that is wrong,
        ``BeyondTree`` for one the integrated tree does not hold."""
        try:
            tile = parse_tile_path(path)
        except TileError as error:
            raise BadTilePath(str(error)) from None
        size = self.tables.tlog_state().size
        if not tile.in_tree(size):
            raise BeyondTree(f"The tree holds {size} entries: {tile.path()} is beyond it.")
        if tile.entries:
            return self.entry_bundle(tile)
        first = tile.nodes()[0][1]
        hashes = self.tables.tlog_node_range(TILE_HEIGHT * tile.level, first, first + tile.width)
        return b"".join(hashes)

    def entry_bundle(self, tile: Tile) -> bytes:
        """An entry bundle's bytes: each leaf's entry behind its big-endian uint16 length."""
        leaves = self.tables.tlog_leaves(tile.leaves().start, tile.leaves().stop)
        return encode_bundle(
            [merkle.entry(UUID(leaf.campaign_id), leaf.version, leaf.event_hash) for leaf in leaves]
        )

    def tlog_proof(self, campaign_id: UUID) -> str:
        """The tlog-proof of the campaign's last event in the latest checkpoint (with the
        cosignatures collected so far); ``NotLoggedYet`` if no checkpoint holds one yet."""
        found = self.proof_parts(campaign_id)
        if found is None:
            raise NotLoggedYet(
                f"No signed checkpoint of the host's log holds an event of campaign "
                f"{campaign_id} yet: it waits for the next checkpoint.",
                math.ceil(self.checkpoint_seconds),
            )
        return found[0]

    def proof_parts(self, campaign_id: UUID) -> tuple[str, int, StoredCheckpoint] | None:
        """The campaign's tlog-proof text, the version it proves and the checkpoint it is in: two
        round trips (the checkpoint, its cosignatures and the campaign's leaf in one statement;
        the proof's nodes in the other)."""
        found = self.tables.tlog_latest_with_leaf(str(campaign_id))
        if found is None:
            return None
        latest, cosignatures, leaf = found
        if leaf is None:
            return None
        hashes = merkle.inclusion_proof(leaf.index, latest.size, self.tables.tlog_nodes)
        entry = merkle.entry(campaign_id, leaf.version, leaf.event_hash)
        note = latest.note + "".join(cosignature.line for cosignature in cosignatures)
        text = TlogProof(leaf.index, tuple(hashes), note, entry).text()
        return text, leaf.version, latest

    def witnessing(self, campaign_id: UUID) -> dict[str, Any]:
        """Where a campaign's head stands with the witnesses: its version, the version the
        latest checkpoint holds, whether the head waits for a checkpoint, its proof and each
        witness's state."""
        head = self.app.campaign(campaign_id).version
        parts = self.proof_parts(campaign_id)
        proved = None if parts is None else parts[1]
        checkpoint = None if parts is None else parts[2]
        if checkpoint is None:
            checkpoint = self.tables.tlog_checkpoint()
        size = None if checkpoint is None else checkpoint.size
        witnesses = self.witnesses.report(size)
        quorum = self.witnesses.quorum_met(size)
        return {
            "head_version": head,
            "witnessed_version": proved if quorum else None,
            "pending": proved != head,
            "proof": None if parts is None else parts[0],
            "checkpoint_size": size,
            "witnesses": witnesses,
        }


def read_policy(path: Path) -> str:
    """The tlog-policy file ``QUESTLOG_WITNESS_POLICY`` names, checked; ``SettingError`` naming
    the variable and what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
        parse_policy(text)
    except (OSError, UnicodeDecodeError, PolicyError) as error:
        raise settings.SettingError(f"QUESTLOG_WITNESS_POLICY ({path}): {error}") from None
    return text
