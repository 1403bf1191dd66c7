"""What ``questlog demo`` prints: a few lines per campaign, then how to go and look."""

from __future__ import annotations

import shlex

from rich.console import Console
from rich.markup import escape

from webapi.cli.demo.player import Player
from webapi.cli.demo.run import DemoResult, Played

VERIFY_SCRIPT = "docs/dice-verification.md"


def print_demo(result: DemoResult, console: Console, seconds: float) -> None:
    """The story of both campaigns, the views, and the next steps."""
    console.print(f"[bold]Questlog demo[/bold] on {escape(result.store)}  ({seconds:.1f} s)\n")
    print_campaign(console, result.week, week_lines(result.week.player))
    print_campaign(console, result.match, match_lines(result.match.player))
    filled = sum(1 for n in result.view_rows.values() if n)
    console.print(
        f"[bold]Views[/bold] caught up: {filled} of {len(result.view_rows)} tables have rows for "
        f"these campaigns ({', '.join(f'{t} {n}' for t, n in result.view_rows.items())}); "
        f"/analytics/dice counts {result.dice_rolls} server dice.\n"
    )
    print_next_steps(console, result)


def print_campaign(console: Console, played: Played, lines: list[str]) -> None:
    """A campaign's title, its story lines and its audit."""
    console.print(f"[bold]{escape(played.name)}[/bold]  ({played.game}, {played.player.id})")
    for line in lines:
        console.print(f"  {escape(line)}")
    verdict = "[green]OK[/green]" if played.audit_ok else "[red]FAILED[/red]"
    rolls = ", ".join(f"{n} {kind}" for kind, n in played.rolls.items())
    console.print(
        f"  {played.version} events; seed rotated and revealed; audit of every roll "
        f"({escape(rolls)}): {verdict}\n"
    )


def week_lines(week: Player) -> list[str]:
    """The Quest Calendar week in a few lines."""
    checks = week.details("CheckRolled")
    combats = week.details("CombatEnded")
    won = sum(1 for c in combats if c["rounds_won"] == c["rounds_played"])
    debt = week.details("DebtIncurred")[0]
    paid = week.details("DebtPaid")
    lottery = week.details("LotteryPlayed")[0]
    rest = week.details("Rested")[0]
    destroyed = week.details("CompartmentDestroyed")
    return [
        f"The Vanguard plays 7 pages (2027-01-04 to 2027-01-10): {len(checks)} trait checks "
        f"({sum(1 for c in checks if c['success'])} passed), {won} combat(s) won and "
        f"{len(combats) - won} lost, {week.count('Died')} death(s), each ended by a clone "
        f"(outcomes {', '.join(str(c['outcome']) for c in week.details('Cloned'))}).",
        f"A shop (visor sold, {week.count('ItemBought')} ration bought); a docking toll into "
        f"debt (penalty {debt['penalty']}, credits {debt['credits_after']}), paid back in "
        f"{len(paid)} payment(s); {week.count('RationsConsumed')} ration eaten.",
        f"{week.count('DogfightStarted')} dogfight(s): {len(destroyed)} compartment(s) destroyed, "
        f"crew lost: {', '.join(str(c['crew_id']) for c in week.details('CrewDied'))}; a Rest "
        f"({rest['hp_restored']} HP back); the Sunday lottery (d6 {lottery['d6']}, "
        f"{lottery['delta']:+d} credits).",
        "One mistaken command (50 credits of salvage instead of 5) rolled back.",
    ]


def match_lines(match: Player) -> list[str]:
    """The Calendar Board match in a few lines."""
    supply = match.details("SupplySpaceTriggered")
    saves = match.details("HailSaveRolled")
    winds = match.details("WindSet")
    rizz = match.details("RizzAttempted")
    ambush = match.details("AmbushPerformed") + match.details("AmbushMissed")
    climbs: dict[str, list[int]] = {}
    for change in match.details("ExhaustionChanged"):
        climbs.setdefault(change["party"], [change["from"]]).append(change["to"])
    return [
        f"Players A, B and C, {match.count('NightPhaseStarted')} nights: the god piece "
        f"{' and '.join(s['how'] for s in supply) or 'missed'} the supply space; "
        f"{len(saves)} hail saves ({sum(1 for s in saves if not s['success'])} failed); the wind "
        "rolled each night: "
        + ", ".join(f"{w['speed']} {w['direction'] or ''}".strip() for w in winds)
        + ".",
        f"{len(rizz)} rizz ({sum(1 for r in rizz if r['success'])} won a partner), "
        f"{len(ambush)} ambush ({'performed' if match.count('AmbushPerformed') else 'missed'}), "
        f"{match.count('SleptDuringDay')} day sleep; exhaustion "
        + ", ".join(f"{p} {'→'.join(map(str, track))}" for p, track in sorted(climbs.items()))
        + ".",
    ]


def print_next_steps(console: Console, result: DemoResult) -> None:
    """The server command, the share links and one roll to check by hand."""
    env = result.serve_env
    console.print("[bold]Look at it[/bold]")
    console.print(f"  {escape(env)} questlog serve    # then open a link below")
    for played in (result.week, result.match):
        console.print(f"  {escape(played.share_url)}")
    console.print("  (viewer links: read-only, this campaign only)")
    console.print(
        "  The demo store holds only these viewer tokens, so `questlog serve` makes no admin "
        f"token on it; for one: {escape(env)} questlog token create --name me --admin"
    )
    roll = result.disputed
    proof = roll["proof"]
    faces = ",".join(str(d["face"]) for d in roll["dice"])
    sides = ",".join(str(d["sides"]) for d in roll["dice"])
    cid = result.week.player.id
    console.print(
        f"\n[bold]A disputed roll[/bold]: {escape(str(roll['purpose']))} {roll['notation']} "
        f"= {roll['total']} (roll {roll['roll_id']}), the last roll before the hero's first death."
    )
    console.print(f"  {escape(env)} questlog verify {cid}")
    viewer = result.week.share_url.rsplit("#token=", 1)[1]
    console.print(
        f"  curl http://127.0.0.1:8000/campaigns/{cid}/rolls/{roll['roll_id']} "
        f'-H "Authorization: Bearer {viewer}"    # the week\'s viewer token'
    )
    arguments = [
        proof["server_seed"],
        proof["commitment"],
        proof["client_seed"],
        str(proof["nonce"]),
        sides,
        faces,
        *([str(proof["entropy"])] if proof.get("entropy") else []),
    ]
    console.print(f"  python verify_roll.py {shlex.join(arguments)}")
    console.print(f"  (verify_roll.py: the standard-library script in {VERIFY_SCRIPT})")
