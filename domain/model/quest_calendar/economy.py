"""Credits and goods: pickpocketing, debt, theft, meal rations, the Sunday lottery.

Rules QC-38, QC-39, QC-60..QC-63 and QC-65..QC-68; shops and equipment (QC-57..QC-59, QC-64) are in
``domain.model.quest_calendar.shops``, registered from the bottom of this module.

Every change of credits is recorded as a ``CreditsChanged`` ledger entry with ``from``, ``to``,
``delta`` and ``cause`` (D.3), emitted right after the event saying what happened
(``ItemBought``, ``PaymentMade``, ``LotteryPlayed``...), so a read model can build the debt ledger
from that one event type. A gain that raises a negative balance is followed by ``DebtPaid`` (QC-61).
"""

from __future__ import annotations

from typing import Any

from domain.model import decisions
from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import death, hero_events, page_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import State, answers, needs
from domain.model.quest_calendar.command_fields import DEATH
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import flag, integer, text

rules = RULES[QUEST_CALENDAR]
rules.declare(
    page_events.PickpocketRolled,
    page_events.Pickpocketed,
    page_events.DebtPaid,
    page_events.PaymentMade,
    page_events.DebtIncurred,
    page_events.CreditsStolen,
    page_events.RationsConsumed,
    page_events.LotteryPlayed,
)

LOTTERY = {1: -2, 2: -1, 3: 1, 4: 2, 5: 3, 6: 4}
PICKPOCKET_OPTIONS = ["accept", "refuse"]


def record_credits(ctx: Context, movement: dict[str, Any], **context: Any) -> None:
    """Emit the ``CreditsChanged`` entry of a movement, then ``DebtPaid`` if it cut a debt."""
    if movement["delta"] == 0:
        return
    ledger = {key: movement[key] for key in ("from_", "to", "delta", "cause")}
    ctx.emit(hero_events.CreditsChanged(**ledger, **context))
    if movement["from_"] < 0 and movement["delta"] > 0:
        ctx.emit(
            page_events.DebtPaid(
                amount=min(movement["delta"], -movement["from_"]),
                credits_after=movement["to"],
                cleared=movement["to"] >= 0,
                cause=movement["cause"],
            )
        )


def smuggler_bonus(ctx: Context) -> int:
    """The Smuggler's pickpocket bonus when the hero has an ability with that effect (G-QC-11)."""
    abilities = qc.hero(ctx)["abilities"].values()
    if any(ability["effect"].get("kind") == "smuggler" for ability in abilities):
        bonus: int = ctx.house["qc.pickpocket.smugglerBonus"]
        return bonus
    return 0


# -- pickpocketing -------------------------------------------------------------------------------


def _pickpocket(state: State) -> Refusal | None:
    """QC-38: any icon not used yet may be rolled (the body names it)."""
    return None


def _lottery(state: State) -> Refusal | None:
    """QC-66: after the prologue, on a Sunday, once."""
    page = state["page"]
    if not state["calendar"].get("prologue_complete"):
        return ("QC-66", "prologue: the lottery opens only after the prologue")
    if page.get("weekday") != "Sunday":
        return (
            "QC-66",
            f"the lottery is played on Sundays; {page['date']} is a {page.get('weekday')}",
        )
    if page.get("lottery_played"):
        return ("QC-66", "the lottery was already played on this Sunday")
    return None


@rules.command(
    "pickpocket",
    summary="Roll d4 for a pickpocket icon and gain that many credits; on a 4 the player may "
    "refuse them to keep their virtue.",
    example={"type": "pickpocket", "icon_id": "2027-01-05-alley", "accept_four": True},
    schema=takes(
        "d4.",
        icon_id=text("The id of the pickpocket icon on the page.", required=True, max_length=80),
        accept_four=flag("Decide a 4 in advance: true accepts, false refuses (default: ask)."),
    ),
    available=needs(_pickpocket),
    rules=("QC-38", "QC-39"),
)
def pickpocket(ctx: Context, args: Values) -> None:
    """QC-38/QC-39: a 4 without ``accept_four`` stops at the ``pickpocket_four`` decision."""
    icon_id = args["icon_id"]
    accept_four = args["accept_four"]
    hero = qc.hero(ctx)
    qc.page(ctx)
    icons = hero.setdefault("pickpocketed_icons", [])
    if ctx.house["qc.pickpocket.oncePerIcon"] and icon_id in icons:
        ctx.refuse("QC-38", f"pickpocket icon {icon_id!r} was already used (G-QC-11)")
    d4 = ctx.roll("1d4", "pickpocket")["total"]
    bonus = smuggler_bonus(ctx)
    if icon_id not in icons:
        icons.append(icon_id)
    if d4 == 4 and accept_four is None:
        # No DecisionRequested: PickpocketRolled (pending=True) records the question.
        decisions.ask(
            ctx,
            decision="pickpocket_four",
            who=qc.PLAYER,
            rule="QC-39",
            commands=["decide_pickpocket"],
            options=PICKPOCKET_OPTIONS,
            context={"icon_id": icon_id, "d4": d4, "smuggler_bonus": bonus},
            announce=(),
        )
        ctx.emit(
            page_events.PickpocketRolled(icon_id=icon_id, d4=d4, smuggler_bonus=bonus, pending=True)
        )
        return
    settle_pickpocket(ctx, icon_id, d4, bonus, declined=d4 == 4 and not accept_four)


@rules.command(
    "decide_pickpocket",
    summary="Decide a pickpocket roll of 4: accept the credits and lose 1 virtue, or refuse them.",
    example={"type": "decide_pickpocket", "choice": "refuse"},
    schema=takes(
        None,
        choice=text(
            "Accept the credits (and lose 1 virtue) or refuse them.",
            required=True,
            choices=PICKPOCKET_OPTIONS,
        ),
    ),
    available=answers("QC-39", "pickpocket_four"),
    rules=("QC-39",),
    resolves=("pickpocket_four",),
)
def decide_pickpocket(ctx: Context, args: Values) -> None:
    """QC-39: the player's answer to the ``pickpocket_four`` decision."""
    choice = args["choice"]
    pending = ctx.state.get("pending") or {}
    if pending.get("decision") != "pickpocket_four":
        ctx.refuse("QC-39", "no pickpocket roll of 4 is waiting for a decision")
    decided = qc.clear_pending(ctx)["context"]
    settle_pickpocket(
        ctx,
        decided["icon_id"],
        decided["d4"],
        decided["smuggler_bonus"],
        declined=choice == "refuse",
    )


def settle_pickpocket(ctx: Context, icon_id: str, d4: int, bonus: int, *, declined: bool) -> None:
    """Gain the d4 (plus the Smuggler bonus), or nothing if refused; an accepted 4 costs virtue."""
    gained = 0 if declined else d4 + bonus
    virtue_lost = d4 == 4 and not declined
    movement = qc.change_credits(ctx, gained, "pickpocket")
    ctx.emit(
        page_events.Pickpocketed(
            icon_id=icon_id,
            d4=d4,
            smuggler_bonus=bonus,
            credits_gained=gained,
            declined=declined,
            virtue_lost=virtue_lost,
            credits_after=movement["to"],
        )
    )
    record_credits(ctx, movement, icon_id=icon_id)
    if virtue_lost:
        ctx.emit(page_events.VirtueChanged(**qc.change_virtue(ctx, -1, "pickpocket")))


# -- payments, debt and theft ------------------------------------------------------------------


@rules.command(
    "pay",
    summary="Pay for something on the page: a required payment may go into debt (with the "
    "penalty), an optional one needs the credits.",
    example={"type": "pay", "purpose": "city toll", "cost": 5, "required": True},
    schema=takes(
        None,
        purpose=text("What is paid for.", required=True, free_text=True),
        cost=integer("The price in credits.", required=True, minimum=0, maximum=1_000_000),
        required=flag("Whether the page requires it (it may then go into debt).", required=True),
    ),
    available=needs(),
    rules=("QC-60", "QC-62"),
)
def pay(ctx: Context, args: Values) -> None:
    """QC-60 required payments can create debt (G-QC-19); QC-62 optional ones cannot."""
    purpose = args["purpose"]
    cost = args["cost"]
    required = args["required"]
    hero = qc.hero(ctx)
    qc.page(ctx)
    before = hero["credits"]
    covered = cost == 0 or before >= cost
    if not required and not covered:
        reason = "the hero is in debt" if before < 0 else f"the hero has only {before} credits"
        ctx.refuse("QC-62", f"an optional payment of {cost} cannot create debt; {reason}")
    payment = qc.change_credits(ctx, -cost, "payment")
    ctx.emit(
        page_events.PaymentMade(
            purpose=purpose,
            cost=cost,
            mandatory=required,
            credits_before=before,
            credits_after=payment["to"],
        )
    )
    record_credits(ctx, payment, purpose=purpose)
    if covered:
        return
    already_in_debt = before < 0
    penalty = 0
    if not already_in_debt or ctx.house["qc.debt.penaltyWhenAlreadyInDebt"]:
        penalty = ctx.house["qc.debt.penalty"]
    charge = qc.change_credits(ctx, -penalty, "debtPenalty")
    ctx.emit(
        page_events.DebtIncurred(
            purpose=purpose,
            shortfall=cost - max(before, 0),
            penalty=penalty,
            already_in_debt=already_in_debt,
            credits_after=charge["to"],
        )
    )
    record_credits(ctx, charge, purpose=purpose)


@rules.command(
    "gain_credits",
    summary="Gain credits (a reward, a find); a negative balance is paid back first.",
    example={"type": "gain_credits", "amount": 6, "cause": "reward"},
    schema=takes(
        None,
        amount=integer("Credits gained.", required=True, minimum=1, maximum=1_000_000),
        cause=text("Why (a reward, a find).", default="reward"),
    ),
    available=needs(),
    rules=("QC-61",),
)
def gain_credits(ctx: Context, args: Values) -> None:
    """QC-61: gains are added to a negative balance until the debt is paid back."""
    amount = args["amount"]
    cause = args["cause"]
    qc.hero(ctx)
    qc.page(ctx)
    record_credits(ctx, qc.change_credits(ctx, amount, cause))


@rules.command(
    "theft",
    summary="Someone steals credits: the balance never drops below 0 (or the house floor).",
    example={"type": "theft", "amount": 5},
    schema=takes(
        None,
        amount=integer("Credits stolen.", required=True, minimum=1, maximum=1_000_000),
    ),
    available=needs(),
    rules=("QC-63",),
)
def theft(ctx: Context, args: Values) -> None:
    """QC-63 / G-QC-20: a theft takes at most what the hero has above the floor."""
    amount = args["amount"]
    qc.hero(ctx)
    qc.page(ctx)
    movement = qc.lose_credits_without_debt(ctx, amount, "theft")
    ctx.emit(
        page_events.CreditsStolen(
            requested=amount, taken=movement["taken"], credits_after=movement["to"]
        )
    )
    record_credits(ctx, movement)


# -- meal rations ------------------------------------------------------------------------------


@rules.command(
    "eat_rations",
    summary="Eat the Meal Rations the page asks for; each missing ration costs 1 HP.",
    example={"type": "eat_rations", "count": 2},
    schema=takes(
        "None, unless a missing ration costs the last HP." + DEATH,
        count=integer("Meal Rations the page asks for.", required=True, minimum=1, maximum=1000),
    ),
    available=needs(),
    rules=("QC-65",),
)
def eat_rations(ctx: Context, args: Values) -> None:
    """QC-65 / G-QC-29: eat what there is and lose 1 HP per missing ration."""
    count = args["count"]
    hero = qc.hero(ctx)
    qc.page(ctx)
    available = hero["rations"]
    if available >= count:
        consumed = count
    elif ctx.house["qc.rations.consumePartial"]:
        consumed = available
    else:
        # Without partial eating a short hero eats nothing and goes hungry for every ration.
        consumed = 0
    hp_lost = count - consumed
    hero["rations"] = available - consumed
    ctx.emit(
        page_events.RationsConsumed(
            required=count,
            available=available,
            consumed=consumed,
            missing=max(0, count - available),
            hp_lost=hp_lost,
        )
    )
    if hp_lost:
        death.damage(ctx, hp_lost, "starvation")


# -- the Sunday lottery ------------------------------------------------------------------------


@rules.command(
    "play_lottery",
    summary="Play the Sunday lottery once (after the prologue): d6 gives -2..+4 credits; a loss "
    "never creates debt.",
    example={"type": "play_lottery"},
    schema=takes("d6."),
    available=needs(_lottery),
    rules=("QC-66", "QC-67", "QC-68"),
)
def play_lottery(ctx: Context, args: Values) -> None:
    """QC-66..QC-68: once per Sunday page after the prologue, never into debt."""
    qc.hero(ctx)
    page = qc.page(ctx)
    if not ctx.state["calendar"]["prologue_complete"]:
        ctx.refuse("QC-66", "prologue: the lottery opens only after the prologue")
    if page["weekday"] != "Sunday":
        ctx.refuse(
            "QC-66", f"the lottery is played on Sundays; {page['date']} is a {page['weekday']}"
        )
    if page.get("lottery_played"):
        ctx.refuse("QC-66", "the lottery was already played on this Sunday")
    d6 = ctx.roll("1d6", "Sunday lottery")["total"]
    delta = LOTTERY[d6]
    if delta < 0:
        movement = qc.lose_credits_without_debt(ctx, -delta, "lottery")
    else:
        movement = qc.change_credits(ctx, delta, "lottery")
    page["lottery_played"] = True
    ctx.emit(
        page_events.LotteryPlayed(
            page_date=page["date"],
            d6=d6,
            delta=delta,
            applied=movement["delta"],
            credits_after=movement["to"],
        )
    )
    record_credits(ctx, movement)
