"""The dice service: server dice from the campaign's secret seed, hand-rolled faces, seed changes.

A campaign's server seed stays secret (in the seeds table, never in an event) until a rotation
reveals it and commits to a new one; every server roll is derived from the seed, the client seed
and the nonce, so that anyone can re-derive it once the seed is out
(``domain.service.audit.stored``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from domain.model.campaign import Campaign
from domain.model.dice import draw as dicelib
from domain.model.dice.notation import DiceExpression, parse
from domain.model.errors import InvalidInput, NotHeld
from domain.model.text import check_text
from domain.service.command_results import Idempotency, Outcome
from domain.service.commands_service import CommandService, Decided, Decision
from domain.storage.side_tables import SeedRecord

MAX_PURPOSE_LENGTH = 500
MAX_CLIENT_SEED_LENGTH = 128


class ReportedDice:
    """Faces the player rolled by hand, used in draw order across a command's rolls (QC-08/09).

    Which dice the faces must fit is the body's own for a free roll (its notation: a misfit is
    a 422), and the campaign's for a game command (the hero's damage dice, the night's rolls:
    ``drawn_by_state``, a misfit is the state's answer, 409 not-held naming ``faces``); faces
    sent to a command that never rolls dice are refused before, as the document states it."""

    def __init__(self, faces: Sequence[object], *, drawn_by_state: bool = False) -> None:
        if not isinstance(faces, list):
            raise InvalidInput.field("faces", "must be a list of faces")
        self.faces = list(faces)
        self.used = 0
        self.drawn: list[str] = []
        self.drawn_by_state = drawn_by_state
        self.refused = NotHeld if drawn_by_state else InvalidInput.field

    def draw(self, sides: Sequence[int]) -> dicelib.Draw:
        """Read the next reported faces for these dice."""
        wanted = list(sides)
        remaining = self.faces[self.used :]
        if len(remaining) < len(wanted):
            dice = "+".join(f"d{n}" for n in wanted)
            raise self.refused(
                "faces",
                f"not enough faces: the next roll needs {len(wanted)} ({dice}), "
                f"{len(remaining)} left after the {self.used} already used"
                + self._so_far([*self.drawn, *(f"d{n}" for n in wanted)]),
            )
        shown = remaining[: len(wanted)]
        try:
            read = dicelib.read_reported_faces(wanted, shown)
        except InvalidInput as misfit:
            if not self.drawn_by_state:
                raise
            said = "; ".join(m for ms in misfit.errors.values() for m in ms)
            raise NotHeld("faces", said) from misfit
        self.used += len(wanted)
        self.drawn.extend(f"d{n}" for n in wanted)
        return dicelib.Draw(
            faces=read, source="reported", proof=None, raw=dicelib.shown_faces(shown)
        )

    def check_all_used(self) -> None:
        """Refuse faces the command never needed."""
        extra = len(self.faces) - self.used
        if extra:
            raise self.refused(
                "faces",
                f"{extra} face(s) left over: this command used {self.used}"
                + self._so_far(self.drawn),
            )

    @staticmethod
    def _so_far(dice: list[str]) -> str:
        """The dice the command has asked for, in draw order."""
        return f"; the dice in draw order: {', '.join(dice)}" if dice else ""


class DiceService:
    """Rolls, client seeds and seed rotations; keeps the secret server seeds."""

    def __init__(self, app: CommandService) -> None:
        self.app = app
        self._seeds: dict[str, str] = {}

    def roll(
        self,
        campaign_id: UUID,
        *,
        notation: str,
        purpose: str,
        faces: Sequence[object] | None = None,
        entropy: str | None = None,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Roll dice on the server (with the player's ``entropy`` mixed in, if given), or record
        faces the player rolled by hand."""
        expression = parse(notation)
        check_text("purpose", purpose, MAX_PURPOSE_LENGTH, allow_empty=True, free_text=True)
        check_entropy_with(entropy, faces)
        if faces is not None:  # the notation in the body says which dice: a 422 before If-Match
            trial = ReportedDice(faces)
            trial.draw(expression.sides)
            trial.check_all_used()
        decision = Roll(expression, purpose, self.source(faces, entropy))
        return self.app.execute(campaign_id, decision, expected_version, idempotency)

    def set_client_seed(
        self,
        campaign_id: UUID,
        client_seed: str,
        *,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Set the client seed used by the server rolls that follow."""
        check_text("client_seed", client_seed, MAX_CLIENT_SEED_LENGTH)
        decision = ClientSeedChange(client_seed)
        return self.app.execute(campaign_id, decision, expected_version, idempotency)

    def rotate_seed(
        self,
        campaign_id: UUID,
        *,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Reveal the current server seed and commit to a new one (nonce back to 0)."""
        return self.app.execute(campaign_id, SeedRotation(self), expected_version, idempotency)

    def source(
        self, faces: Sequence[object] | None, entropy: str | None, *, drawn_by_state: bool = False
    ) -> DiceChoice:
        """The dice a command rolls: the server's (with the player's entropy), or the faces
        the player rolled by hand."""
        if faces is None:
            return ServerDraw(self, entropy)
        return HandRolled(faces, drawn_by_state)

    def secret_seed(self, commitment: str) -> str:
        """The server seed behind a commitment (kept out of every event until revealed)."""
        seed = self._seeds.get(commitment)
        if seed is None:
            seed = self.app.side_tables.seed_for(commitment)
            if seed is None:
                raise LookupError(f"no stored server seed for commitment {commitment}")
            self._seeds[commitment] = seed
        return seed

    def server_dice(self, campaign: Campaign, entropy: str | None = None) -> dicelib.ServerDice:
        """The verifiable dice at the campaign's current seed, client seed and nonce, with the
        player's entropy if given."""
        return dicelib.ServerDice(
            self.secret_seed(campaign.dice["commitment"]),
            campaign.dice["client_seed"],
            campaign.dice["nonce"],
            entropy,
        )


@dataclass(frozen=True)
class ServerDraw:
    """The server's dice, drawn at the nonce of the campaign each attempt decides on (the same
    faces for the same stored nonce: a retry never rerolls nor reuses a published nonce)."""

    service: DiceService
    entropy: str | None

    def dice(self, campaign: Campaign) -> dicelib.DiceSource:
        """New server dice at the campaign's seed, client seed and nonce."""
        return self.service.server_dice(campaign, self.entropy)

    def check_all_used(self, dice: dicelib.DiceSource) -> None:
        """Server dice draw what the rules ask: nothing is left over."""


@dataclass(frozen=True)
class HandRolled:
    """Faces the player rolled by hand, read afresh in draw order by each attempt."""

    faces: Sequence[object]
    drawn_by_state: bool

    def dice(self, campaign: Campaign) -> ReportedDice:
        """The reported faces, none of them used yet."""
        return ReportedDice(self.faces, drawn_by_state=self.drawn_by_state)

    def check_all_used(self, dice: dicelib.DiceSource) -> None:
        """Refuse faces the command never needed."""
        assert isinstance(dice, ReportedDice)
        dice.check_all_used()


DiceChoice = ServerDraw | HandRolled
"""The dice a command rolls: made anew from the campaign each attempt decides on."""


@dataclass(frozen=True)
class Roll(Decision):
    """A free roll: the notation's dice for a purpose (``Campaign.roll``)."""

    expression: DiceExpression
    purpose: str
    source: DiceChoice

    def decide(self, campaign: Campaign) -> Decided:
        dice = self.source.dice(campaign)
        record = campaign.roll(self.expression, self.purpose, dice)
        self.source.check_all_used(dice)
        return Decided(record)


@dataclass(frozen=True)
class ClientSeedChange(Decision):
    """A new client seed for the server rolls that follow."""

    client_seed: str

    def decide(self, campaign: Campaign) -> Decided:
        campaign.set_client_seed(self.client_seed)
        return Decided({"dice": campaign.view()["dice"]})


@dataclass(frozen=True)
class SeedRotation(Decision):
    """The current server seed revealed and a new one committed to, stored with the event (a
    new seed each attempt: one never stored is never used)."""

    service: DiceService

    def decide(self, campaign: Campaign) -> Decided:
        old_commitment = campaign.dice["commitment"]
        old_seed = self.service.secret_seed(old_commitment)
        new_seed = dicelib.new_server_seed()
        commitment = dicelib.commitment_of(new_seed)
        campaign.rotate_seed(revealed_seed=old_seed, new_commitment=commitment)
        facts = {
            "dice": campaign.view()["dice"],
            "revealed_seed": old_seed,
            "revealed_commitment": old_commitment,
        }
        return Decided(facts, SeedRecord(str(campaign.id), commitment, new_seed))


def check_entropy_with(entropy: object, faces: object) -> None:
    """Refuse entropy that is not 1 to 64 of ``[A-Za-z0-9_-]``, or that comes with hand-rolled
    faces (it only ever goes into the server's dice)."""
    if entropy is None:
        return
    dicelib.check_entropy(entropy)
    if faces is not None:
        raise InvalidInput.field(
            "entropy",
            "goes into the server's dice; faces rolled by hand carry none (send one or the other)",
        )
