"""Rolling dice: server rolls with proofs, reported rolls, the seed lifecycle, If-Match, idempotency
and concurrent writers, on SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError

from domain.model.campaign import Campaign
from domain.model.dice.notation import parse
from domain.model.errors import ConcurrencyConflict, InvalidInput, RuleViolation, StaleVersion
from domain.service.command_results import Idempotency
from domain.service.questlog import Questlog

NewCampaign = Callable[..., UUID]


def stored_mark(app: Questlog) -> int:
    """The id of the last stored event: unchanged means nothing was stored."""
    return app.recorder.max_notification_id() or 0


def roll(app: Questlog, campaign_id: UUID, notation: str = "d20", **kwargs: Any) -> dict[str, Any]:
    """Roll and return the roll record."""
    kwargs.setdefault("purpose", "a test roll")
    record: dict[str, Any] = app.dice.roll(campaign_id, notation=notation, **kwargs).value
    return record


def facts(outcome: Any) -> tuple[Any, ...]:
    """What a command result says, apart from whether it is a replay."""
    return (
        outcome.campaign_id,
        outcome.first_version,
        outcome.version,
        outcome.head_hash,
        outcome.value,
    )


# -- server rolls -----------------------------------------------------------------------------


def test_a_server_roll_records_every_field_with_its_proof(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    campaign = app.campaign(campaign_id)

    result = roll(app, campaign_id, "2d6+d4-1", purpose="investigate the room")

    assert result["roll_id"]
    assert result["version"] == 2
    assert result["purpose"] == "investigate the room"
    assert [d["sides"] for d in result["dice"]] == [6, 6, 4]
    assert all(set(d) == {"sides", "face", "kept"} for d in result["dice"])
    assert all(1 <= d["face"] <= d["sides"] and d["kept"] is True for d in result["dice"])
    assert result["modifier"] == -1
    assert result["total"] == sum(d["face"] for d in result["dice"]) - 1
    assert result["source"] == "server"
    assert result["proof"] == {
        "commitment": campaign.dice["commitment"],
        "client_seed": campaign.dice["client_seed"],
        "nonce": 0,
    }
    rolled = app.campaign_events(campaign_id)[-1]
    assert isinstance(rolled, Campaign.DiceRolled)
    assert rolled.originator_version == 2
    assert rolled.purpose == "investigate the room"
    assert rolled.rolls == [result]


def test_server_nonces_count_up_from_zero_one_per_roll(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()

    results = [roll(app, campaign_id, notation) for notation in ["d20", "3d6", "d100", "2d20kh1"]]

    assert [r["proof"]["nonce"] for r in results] == [0, 1, 2, 3]
    assert [r["version"] for r in results] == [2, 3, 4, 5]
    assert len({r["roll_id"] for r in results}) == 4
    assert app.campaign(campaign_id).dice["nonce"] == 4


@pytest.mark.parametrize(("notation", "keep_max"), [("4d20kh1", True), ("4d20kl2", False)])
def test_keep_highest_and_lowest_mark_the_kept_dice(
    app: Questlog, new_campaign: NewCampaign, notation: str, keep_max: bool
) -> None:
    campaign_id = new_campaign()

    result = roll(app, campaign_id, notation)

    faces = [d["face"] for d in result["dice"]]
    kept = [d["face"] for d in result["dice"] if d["kept"]]
    expected = sorted(faces, reverse=keep_max)[: len(kept)]
    assert len(kept) == (1 if keep_max else 2)
    assert sorted(kept) == sorted(expected)
    assert result["total"] == sum(kept)


# -- reported rolls ----------------------------------------------------------------------------


def test_a_reported_roll_records_the_faces_without_a_proof(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()

    result = roll(app, campaign_id, "2d6+3", purpose="by hand", faces=[2, 6])

    assert result["source"] == "reported"
    assert "proof" not in result
    assert result["dice"] == [
        {"sides": 6, "face": 2, "kept": True},
        {"sides": 6, "face": 6, "kept": True},
    ]
    assert (result["modifier"], result["total"]) == (3, 11)
    assert app.campaign_events(campaign_id)[-1].rolls == [result]
    assert app.campaign(campaign_id).dice["nonce"] == 0


def test_qc08_a_d10_showing_0_reads_10(app: Questlog, new_campaign: NewCampaign) -> None:
    campaign_id = new_campaign()

    result = roll(app, campaign_id, "d10", faces=[0])

    # The reading is 10; what the player saw (0) is kept beside it.
    assert result["dice"] == [{"sides": 10, "face": 10, "raw": 0, "kept": True}]
    assert result["total"] == 10


@pytest.mark.parametrize(
    ("pair", "reads"),
    [
        ({"tens": 0, "units": 0}, 100),
        ({"tens": 0, "units": 7}, 7),
        ({"tens": 40, "units": 2}, 42),
        ({"tens": 90, "units": 0}, 90),
    ],
)
def test_qc09_a_d100_given_as_tens_and_units(
    app: Questlog, new_campaign: NewCampaign, pair: dict[str, int], reads: int
) -> None:
    campaign_id = new_campaign()

    result = roll(app, campaign_id, "d100", faces=[pair])

    assert result["dice"] == [{"sides": 100, "face": reads, "raw": pair, "kept": True}]
    assert result["total"] == reads


def test_qc08_a_zero_on_a_d10_reads_10_before_keep_highest_picks(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()

    result = roll(app, campaign_id, "2d10kh1", faces=[0, 9])

    assert result["dice"] == [
        {"sides": 10, "face": 10, "raw": 0, "kept": True},
        {"sides": 10, "face": 9, "kept": False},
    ]
    assert result["total"] == 10


@pytest.mark.parametrize(
    ("dice_mode", "faces"),
    [("server", [4]), ("reported", None)],
    ids=["server-only-refuses-reported", "reported-only-refuses-server"],
)
def test_the_dice_mode_house_rule_refuses_the_other_source_and_stores_nothing(
    app: Questlog, new_campaign: NewCampaign, dice_mode: str, faces: list[int] | None
) -> None:
    campaign_id = new_campaign(house_rules={"dice_mode": dice_mode})
    before = stored_mark(app)

    with pytest.raises(RuleViolation) as refused:
        app.dice.roll(campaign_id, notation="d6", purpose="", faces=faces)

    assert refused.value.rule_id == "house_rules.dice_mode"
    assert stored_mark(app) == before
    assert app.campaign(campaign_id).dice["nonce"] == 0


@pytest.mark.parametrize(
    "notation",
    [
        *["d7", "0d6", "1000d20", "d20++3", "", "   ", "d", "2d20kh3", "d20 3", "hello", "d20+"],
        *["101d4", "60d6+41d4", "d20+1001", "2d20kh0", "d20*2", "d20/2", "-", "3"],
    ],
)
def test_bad_notation_is_invalid_input_and_stores_nothing(
    app: Questlog, new_campaign: NewCampaign, notation: str
) -> None:
    campaign_id = new_campaign()
    before = stored_mark(app)

    with pytest.raises(InvalidInput) as refused:
        app.dice.roll(campaign_id, notation=notation, purpose="")

    assert "dice" in refused.value.errors
    assert stored_mark(app) == before
    assert app.campaign(campaign_id).version == 1


@pytest.mark.parametrize(
    ("notation", "faces"),
    [
        ("d20", [0]),
        ("d20", [21]),
        ("d20", [-3]),
        ("d20", ["7"]),
        ("d20", [True]),
        ("d20", [7.0]),
        ("2d20", [7]),
        ("d20", [7, 8]),
        ("d6", [{"tens": 0, "units": 1}]),
        ("d100", [{"tens": 5, "units": 0}]),
        ("d100", [{"tens": 0, "units": 10}]),
        ("d100", [101]),
    ],
)
def test_bad_reported_faces_are_invalid_input_and_store_nothing(
    app: Questlog, new_campaign: NewCampaign, notation: str, faces: list[object]
) -> None:
    campaign_id = new_campaign()
    before = stored_mark(app)

    with pytest.raises(InvalidInput) as refused:
        app.dice.roll(campaign_id, notation=notation, purpose="", faces=faces)

    assert "faces" in refused.value.errors
    assert stored_mark(app) == before


# -- the seed lifecycle ------------------------------------------------------------------------


def test_a_new_client_seed_is_used_by_the_rolls_that_follow(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    first = roll(app, campaign_id)

    app.dice.set_client_seed(campaign_id, "table-seed-42")
    second = roll(app, campaign_id)

    assert first["proof"]["client_seed"] != "table-seed-42"
    assert second["proof"]["client_seed"] == "table-seed-42"
    assert second["proof"]["commitment"] == first["proof"]["commitment"]
    assert second["proof"]["nonce"] == 1  # the nonce belongs to the server seed, not the client's
    changed = app.campaign_events(campaign_id)[2]
    assert isinstance(changed, Campaign.ClientSeedChanged)
    assert changed.client_seed == "table-seed-42"


@pytest.mark.parametrize("client_seed", ["", "  ", "x" * 129])
def test_a_bad_client_seed_is_refused_and_stores_nothing(
    app: Questlog, new_campaign: NewCampaign, client_seed: str
) -> None:
    campaign_id = new_campaign()

    with pytest.raises(InvalidInput):
        app.dice.set_client_seed(campaign_id, client_seed)

    assert app.campaign(campaign_id).version == 1


def test_rotation_reveals_the_old_seed_commits_to_a_new_one_and_restarts_the_nonce(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    old_commitment = app.campaign(campaign_id).dice["commitment"]
    before = [roll(app, campaign_id) for _ in range(3)]

    app.dice.rotate_seed(campaign_id)
    after = [roll(app, campaign_id) for _ in range(3)]

    rotated = app.campaign_events(campaign_id)[4]
    assert isinstance(rotated, Campaign.SeedRotated)
    assert rotated.revealed_commitment == old_commitment
    assert hashlib.sha256(bytes.fromhex(rotated.revealed_seed)).hexdigest() == old_commitment
    assert rotated.commitment != old_commitment
    assert app.campaign(campaign_id).dice["commitment"] == rotated.commitment
    assert [r["proof"]["nonce"] for r in before] == [0, 1, 2]
    assert [r["proof"]["nonce"] for r in after] == [0, 1, 2]
    assert {r["proof"]["commitment"] for r in after} == {rotated.commitment}


def test_a_revealed_seed_is_never_used_again(app: Questlog, new_campaign: NewCampaign) -> None:
    campaign_id = new_campaign()
    for _ in range(4):
        roll(app, campaign_id)
        app.dice.rotate_seed(campaign_id)
    roll(app, campaign_id)

    events = app.campaign_events(campaign_id)
    revealed = [e.revealed_seed for e in events if isinstance(e, Campaign.SeedRotated)]
    revealed_commitments = [
        e.revealed_commitment for e in events if isinstance(e, Campaign.SeedRotated)
    ]
    committed = [events[0].commitment] + [
        e.commitment for e in events if isinstance(e, Campaign.SeedRotated)
    ]
    proofs = [r["proof"] for e in events if isinstance(e, Campaign.DiceRolled) for r in e.rolls]

    assert len(set(revealed)) == 4
    assert len(set(committed)) == 5
    assert revealed_commitments == committed[:4]
    assert [p["commitment"] for p in proofs] == committed
    current = app.campaign(campaign_id).dice["commitment"]
    assert current == committed[-1]
    assert current not in revealed_commitments
    assert app.dice.secret_seed(current) not in revealed


def test_the_seed_survives_a_restart_and_is_revealed_correctly(
    app: Questlog, make_app: Callable[[], Questlog], new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    commitment = app.campaign(campaign_id).dice["commitment"]
    roll(app, campaign_id)
    app.close()

    reopened = make_app()
    later = roll(reopened, campaign_id)
    reopened.dice.rotate_seed(campaign_id)

    assert (later["proof"]["commitment"], later["proof"]["nonce"]) == (commitment, 1)
    rotated = reopened.campaign_events(campaign_id)[-1]
    assert hashlib.sha256(bytes.fromhex(rotated.revealed_seed)).hexdigest() == commitment
    assert reopened.reading.audit(campaign_id).rolls["verified"] == 2


# -- If-Match ----------------------------------------------------------------------------------


def test_an_expected_version_that_matches_lets_the_command_through(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()

    roll(app, campaign_id, expected_version=1)
    app.dice.set_client_seed(campaign_id, "abc", expected_version=2)
    app.dice.rotate_seed(campaign_id, expected_version=3)

    assert app.campaign(campaign_id).version == 4


@pytest.mark.parametrize("command", ["roll", "set_client_seed", "rotate_seed"])
def test_a_stale_expected_version_is_refused_and_stores_nothing(
    app: Questlog, new_campaign: NewCampaign, command: str
) -> None:
    campaign_id = new_campaign()
    roll(app, campaign_id)
    before = stored_mark(app)
    commands: dict[str, Callable[[], object]] = {
        "roll": lambda: app.dice.roll(campaign_id, notation="d20", purpose="", expected_version=1),
        "set_client_seed": lambda: app.dice.set_client_seed(campaign_id, "x", expected_version=1),
        "rotate_seed": lambda: app.dice.rotate_seed(campaign_id, expected_version=1),
    }

    with pytest.raises(StaleVersion) as refused:
        commands[command]()

    assert (refused.value.expected, refused.value.actual) == (1, 2)
    assert stored_mark(app) == before
    assert app.campaign(campaign_id).version == 2


# -- idempotency -------------------------------------------------------------------------------


def test_a_repeated_idempotency_key_replays_the_first_roll_and_appends_nothing(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    key = Idempotency(scope=f"rolls:{campaign_id}", key="k-1", fingerprint="sha-of-body")

    first = app.dice.roll(campaign_id, notation="d20", purpose="", idempotency=key)
    again = app.dice.roll(campaign_id, notation="d20", purpose="", idempotency=key)

    assert first.replayed is False
    assert again.replayed is True
    assert facts(again) == facts(first)
    assert app.campaign(campaign_id).version == 2
    assert app.campaign(campaign_id).dice["nonce"] == 1


def test_a_repeated_idempotency_key_replays_a_campaign_creation(app: Questlog) -> None:
    key = Idempotency(scope="campaigns", key="create-1", fingerprint="f")

    def create() -> Any:
        return app.campaigns.create_campaign(
            game="quest-calendar",
            name="Once",
            idempotency=key,
        )

    first, again = create(), create()

    assert (first.replayed, again.replayed) == (False, True)
    assert facts(again) == facts(first)
    assert len(app.reading.list_campaigns()[0]) == 1


def test_an_idempotency_key_reused_with_another_body_is_invalid_input(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    scope = f"rolls:{campaign_id}"
    app.dice.roll(
        campaign_id, notation="d20", purpose="", idempotency=Idempotency(scope, "k", "one")
    )
    before = stored_mark(app)

    with pytest.raises(InvalidInput) as refused:
        app.dice.roll(
            campaign_id, notation="d6", purpose="", idempotency=Idempotency(scope, "k", "two")
        )

    assert "Idempotency-Key" in refused.value.errors
    assert stored_mark(app) == before


def test_idempotency_keys_are_scoped(app: Questlog, new_campaign: NewCampaign) -> None:
    campaign_id = new_campaign()

    one = app.dice.roll(
        campaign_id, notation="d20", purpose="", idempotency=Idempotency("a", "k", "f")
    )
    two = app.dice.roll(
        campaign_id, notation="d20", purpose="", idempotency=Idempotency("b", "k", "f")
    )

    assert (one.replayed, two.replayed) == (False, False)
    assert app.campaign(campaign_id).version == 3


def test_a_refused_command_does_not_use_up_its_idempotency_key(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    key = Idempotency(f"rolls:{campaign_id}", "k", "f")

    with pytest.raises(StaleVersion):
        app.dice.roll(campaign_id, notation="d20", purpose="", expected_version=7, idempotency=key)
    later = app.dice.roll(campaign_id, notation="d20", purpose="", idempotency=key)

    assert later.replayed is False
    assert app.campaign(campaign_id).version == 2


def run_together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls from threads that all start at once; return results, raising any error."""
    start = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            start.wait()
            results[index] = calls[index]()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    return results


def test_one_idempotency_key_sent_at_once_through_several_apps_creates_one_campaign(
    app: Questlog, make_app: Callable[[], Questlog]
) -> None:
    key = Idempotency(scope="campaigns", key="double-click", fingerprint="f")
    writers = [make_app() for _ in range(4)]

    outcomes = run_together(
        [
            lambda w=w: w.campaigns.create_campaign(
                game="quest-calendar",
                name="Once",
                idempotency=key,
            )
            for w in writers
        ]
    )

    assert sorted(o.replayed for o in outcomes) == [False, True, True, True]
    assert len({o.campaign_id for o in outcomes}) == 1
    assert len(app.reading.list_campaigns()[0]) == 1


def test_one_idempotency_key_sent_at_once_through_several_apps_rolls_once(
    app: Questlog, make_app: Callable[[], Questlog], new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    key = Idempotency(scope=f"rolls:{campaign_id}", key="double-click", fingerprint="f")
    writers = [make_app() for _ in range(4)]

    outcomes = run_together(
        [
            lambda w=w: w.dice.roll(campaign_id, notation="d20", purpose="", idempotency=key)
            for w in writers
        ]
    )

    assert sorted(o.replayed for o in outcomes) == [False, True, True, True]
    assert all(facts(o) == facts(outcomes[0]) for o in outcomes)
    assert app.campaign(campaign_id).version == 2


# -- concurrent writers ------------------------------------------------------------------------

THREADS = 4
ROLLS_PER_THREAD = 25


def roll_concurrently(apps: list[Questlog], campaign_id: UUID) -> list[BaseException]:
    """Each app rolls ROLLS_PER_THREAD times from its own thread, all starting together."""
    start = threading.Barrier(len(apps))
    errors: list[BaseException] = []

    def work(app: Questlog) -> None:
        try:
            start.wait()
            done = 0
            while done < ROLLS_PER_THREAD:
                try:
                    app.dice.roll(campaign_id, notation="d20", purpose="race")
                except ConcurrencyConflict:
                    continue  # reported, not swallowed: the caller may send it again
                done += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(app,)) for app in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a writer hung"
    return errors


def assert_every_roll_landed_once(app: Questlog, campaign_id: UUID) -> None:
    """Exactly one event per roll, no version gaps, each nonce used once, the chain intact."""
    total = THREADS * ROLLS_PER_THREAD
    events = app.campaign_events(campaign_id)
    rolled = [e for e in events if isinstance(e, Campaign.DiceRolled)]
    assert len(rolled) == total
    assert [e.originator_version for e in events] == list(range(1, total + 2))
    nonces = sorted(r["proof"]["nonce"] for e in rolled for r in e.rolls)
    assert nonces == list(range(total))
    app.dice.rotate_seed(campaign_id)
    report = app.reading.audit(campaign_id)
    assert report.chain_ok, report.problems
    assert report.rolls["verified"] == total


def test_concurrent_writers_on_separate_apps_never_lose_or_duplicate_a_roll(
    app: Questlog, make_app: Callable[[], Questlog], new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    writers = [make_app() for _ in range(THREADS)]

    errors = roll_concurrently(writers, campaign_id)

    assert errors == []
    assert_every_roll_landed_once(app, campaign_id)


def test_concurrent_writers_sharing_one_app_never_lose_or_duplicate_a_roll(
    app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()

    errors = roll_concurrently([app] * THREADS, campaign_id)

    assert errors == []
    assert_every_roll_landed_once(app, campaign_id)


def test_a_cached_campaign_moved_on_by_another_process_is_reloaded_before_any_refusal(
    make_app: Callable[[], Questlog],
) -> None:
    first, second = make_app(), make_app()
    created = first.campaigns.create_campaign(game="quest-calendar", name="two processes")
    campaign_id = created.campaign_id
    first.dice.roll(campaign_id, notation="d20", purpose="warm the cache")
    for _ in range(3):
        second.dice.roll(campaign_id, notation="d20", purpose="elsewhere")
    # first's cache is at version 2; the store is at 5. Its next command must neither be refused
    # on the stale copy nor lose an event: the stale save conflicts and is retried from the store.
    outcome = first.dice.roll(
        campaign_id,
        notation="d20",
        purpose="after",
    )
    assert outcome.version == 6
    assert (
        first.dice.roll(
            campaign_id,
            notation="d6",
            purpose="if-match",
            expected_version=6,
        ).version
        == 7
    )
    nonces = [e.rolls[0]["proof"]["nonce"] for e in first.campaign_events(campaign_id)[1:]]
    assert nonces == list(range(6))


def test_repeated_conflicts_between_two_processes_never_break_later_writes(
    make_app: Callable[[], Questlog],
) -> None:
    # Each stale first attempt fails inside the store's pipelined insert; on PostgreSQL that once
    # left psycopg believing in a prepared statement the failed pipeline had dropped.
    first, second = make_app(), make_app()
    created = first.campaigns.create_campaign(game="quest-calendar", name="ping-pong")
    campaign_id = created.campaign_id
    for _ in range(12):
        first.dice.roll(campaign_id, notation="d6", purpose="first")
        second.dice.roll(campaign_id, notation="d6", purpose="second")
    assert first.campaign(campaign_id).version == 25
    assert first.reading.audit(campaign_id).chain_ok is True


def test_a_stale_write_is_refused_as_a_version_conflict_at_its_first_try(
    make_app: Callable[[], Questlog],
) -> None:
    # Side rows (actors, attempts) once went before the events, so on
    # PostgreSQL a stale write failed as "pipeline aborted", which eventsourcing retried ten times
    # 0.2 s apart before the command loop ever saw a conflict.
    first, second = make_app(), make_app()
    created = first.campaigns.create_campaign(game="quest-calendar", name="stale")
    campaign_id = created.campaign_id
    stale = first.campaign(campaign_id)
    second.dice.roll(campaign_id, notation="d20", purpose="elsewhere")
    stale.roll(parse("d20"), "stale", first.dice.server_dice(stale))
    inserts = []
    insert = first.recorder.insert_events

    def counted(*args: Any, **kwargs: Any) -> Any:
        inserts.append(1)
        return insert(*args, **kwargs)

    first.recorder.insert_events = counted  # type: ignore[method-assign]
    with pytest.raises(IntegrityError):
        first.save(stale, actor="system", attempt="stale-attempt")
    assert len(inserts) == 1
    assert first.side_tables.attempt_stored("stale-attempt") is False
    assert first.campaign(campaign_id).version == 2
