"""An evening (``projections.evening``) as a file the table keeps: Markdown or HTML.

Both say the same things in the same order: the title (campaign, game, range), each command with
its events in words and its rolls, a table of every roll, and the verification (the head hash at
the range's end, the chain check, a signed checkpoint, the links and how to re-derive server
dice). Every recorded text (a campaign's name, a reason, a purpose) is escaped: in Markdown by a
backslash before each punctuation character Markdown reads, in HTML as entities; the HTML page
is self-contained (its style inline, no script, nothing fetched) and reads when printed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any

from projections.evening import CommandBlock, Evening, EventLine, RollLine

FORMATS = {
    "markdown": ("text/markdown; charset=utf-8", "md"),
    "html": ("text/html; charset=utf-8", "html"),
}
"""Each format's Content-Type and file extension."""
DICE_DOC = "docs/dice-verification.md"
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&])")
"""What Markdown reads inside a line: emphasis, code, links, HTML, tables, strike-through and
entities (``-``, ``+`` and ``.`` only at a line's start, where no recorded text stands)."""


def filename(evening: Evening, fmt: str) -> str:
    """The attachment's file name: ``questlog-<id>-<range>.md``."""
    return f"questlog-{evening.campaign_id}-{evening.span.slug}.{FORMATS[fmt][1]}"


def render(evening: Evening, fmt: str, base: str = "") -> str:
    """The evening in ``fmt`` (markdown or html); ``base`` prefixes the links (a server's root)."""
    return markdown(evening, base) if fmt == "markdown" else page(evening, base)


def links(evening: Evening, base: str) -> dict[str, str]:
    """The verification links: the page at the range's end, the bundle and the audit."""
    cid = evening.campaign_id
    return {
        "page": f"{base}/app/campaigns/{cid}?version={evening.span.last}",
        "bundle": f"{base}/campaigns/{cid}/bundle",
        "audit": f"{base}/campaigns/{cid}/audit",
    }


# -- words shared by both formats ---------------------------------------------------------------


def title(evening: Evening) -> str:
    return f"{evening.name} — {evening.game_name}"


def range_line(evening: Evening) -> str:
    span = evening.span
    versions = f"ersions {span.first} to {span.last} of {evening.head}"
    if span.label.startswith("versions"):
        return f"V{versions}"
    return f"{span.label[0].upper()}{span.label[1:]}: v{versions}"


def faces(roll: RollLine) -> str:
    """The dice as rolled, in draw order; a die not kept says so."""
    shown = [f"{d.get('face')}" + ("" if d.get("kept", True) else " (dropped)") for d in roll.faces]
    return ", ".join(shown) or "none"


def modifier(roll: RollLine) -> str:
    return f"{roll.modifier:+d}" if roll.modifier else "0"


def dice_total(roll: RollLine) -> str:
    """A roll's total as its line says it: with the dice modifier when there is one; without one,
    the total of the dice alone, since the event's result above may add more (a trait, a
    booster) than the dice modifier."""
    if roll.modifier:
        return f"modifier {roll.modifier:+d}, total {roll.total}"
    return f"dice total {roll.total}"


def source(roll: RollLine) -> str:
    """Where the faces came from, with what proves a server roll."""
    if roll.source != "server":
        return "rolled by hand (faces reported)"
    verdict = {
        True: "checked against the revealed seed",
        False: "does NOT match the revealed seed",
        None: "seed not revealed yet",
    }[roll.verdict]
    entropy = f", the player's entropy {roll.entropy}" if roll.entropy else ""
    return f"server dice, commitment {roll.commitment}, nonce {roll.nonce}{entropy} ({verdict})"


def undone(line: EventLine) -> str:
    return f"undone by the rollback at version {line.undone_by}" if line.undone_by else ""


def header(block: CommandBlock) -> str:
    versions = (
        f"Version {block.first}"
        if block.first == block.last
        else f"Versions {block.first} to {block.last}"
    )
    answer = "; answers the decision asked above" if block.answers_decision else ""
    return f"{versions} · {block.game_date} · {block.what} · by {block.who}{answer}"


def chain_words(evening: Evening) -> str:
    count = evening.span.last - evening.span.first + 1
    if not evening.chain_problems:
        return (
            f"intact: the {count} event(s) of this range were hashed again and each links to "
            "the one before it"
        )
    return "BROKEN: " + "; ".join(evening.chain_problems)


DICE_SENTENCE = (
    "Each server roll's faces follow from the server seed its commitment names (revealed when "
    "the seed is rotated), the client seed, the nonce and the player's entropy if any: anyone "
    f'can derive them again from the bundle alone, as {DICE_DOC} ("The algorithm") shows.'
)


def roll_rows(evening: Evening) -> list[tuple[EventLine, RollLine]]:
    return [(e, r) for c in evening.commands for e in c.events for r in e.rolls]


# -- Markdown -----------------------------------------------------------------------------------


def md(value: Any) -> str:
    """A recorded text escaped for Markdown: on one line, each punctuation character Markdown
    reads behind a backslash (so ``<script>`` stays text and ``*`` no emphasis)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


def markdown(evening: Evening, base: str) -> str:
    """The evening as Markdown."""
    out = [
        f"# {md(title(evening))}",
        "",
        f"**{md(range_line(evening))}**  ",
        f"Campaign {evening.campaign_id}, exported {evening.exported_at}; "
        f"{len(evening.commands)} command(s), {evening.rolls} roll(s).",
        "",
        "## What was played",
        "",
    ]
    for block in evening.commands:
        out += [f"### {md(header(block))}", ""]
        for line in block.events:
            out.append(md_event(line))
            out += [f"  - Roll: {md_roll(roll)}" for roll in line.rolls]
        out.append("")
    out += md_rolls(evening)
    out += md_verification(evening, base)
    return "\n".join(out) + "\n"


def md_event(line: EventLine) -> str:
    text = md(line.summary)
    if line.decision:
        text = f"**Decision asked:** {text}"
    if line.rolled_back:
        text = f"**Undo:** {text}"
    if line.undone_by:
        text = f"~~{text}~~ *({undone(line)})*"
    return f"- v{line.version}: {text}"


def md_roll(roll: RollLine) -> str:
    return (
        f"{md(roll.purpose)}: dice {md(faces(roll))}, formula {md(roll.notation)}, "
        f"{md(dice_total(roll))}; {md(source(roll))}; "
        f"{md(roll.game_date)}"
    )


def md_rolls(evening: Evening) -> list[str]:
    rows = roll_rows(evening)
    if not rows:
        return ["## Rolls", "", "No dice were rolled in this range.", ""]
    out = [
        "## Rolls",
        "",
        "| " + " | ".join(ROLL_COLUMNS) + " |",
        "|" + "---|" * len(ROLL_COLUMNS),
    ]
    for line, roll in rows:
        out.append("| " + " | ".join(md(c) for c in roll_cells(line, roll)) + " |")
    return [*out, ""]


ROLL_COLUMNS = (
    "Version",
    "Game date",
    "Purpose",
    "Formula",
    "Dice",
    "Modifier",
    "Total",
    "Result",
    "Source",
)
"""The columns of the rolls table, in both formats."""


def roll_cells(line: EventLine, roll: RollLine) -> list[Any]:
    """One roll's cells in the rolls table (ROLL_COLUMNS), its version marked when undone."""
    mark = f" ({undone(line)})" if line.undone_by else ""
    return [
        f"{line.version}{mark}",
        roll.game_date,
        roll.purpose,
        roll.notation,
        faces(roll),
        modifier(roll),
        roll.total,
        roll.result,
        source(roll),
    ]


def md_link(target: str) -> str:
    """A link: an autolink for an address, a path (no server named) as code."""
    return f"<{target}>" if target.startswith(("http://", "https://")) else f"`{target}`"


def md_verification(evening: Evening, base: str) -> list[str]:
    found = {key: md_link(target) for key, target in links(evening, base).items()}
    return [
        "## Verification",
        "",
        f"- Head at the end of this range: version {evening.span.last}, hash `{evening.head_hash}`",
        f"- Chain: {md(chain_words(evening))}",
        f"- The page at this version: {found['page']}",
        f"- The bundle, everything needed to verify offline: {found['bundle']}",
        f"- The audit of the whole log: {found['audit']}",
        f"- Server dice: {md(DICE_SENTENCE)}",
        "",
        "The host's signed checkpoint of this version and hash (docs/trust.md):",
        "",
        "```",
        evening.checkpoint.rstrip("\n"),
        "```",
    ]


# -- HTML ---------------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
  color: #1b1b1b; background: #fff; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { margin-top: 2rem; border-bottom: 1px solid #999; }
h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; }
ul { margin: .2rem 0; padding-left: 1.4rem; } .roll { color: #333; }
.undone { color: #666; } .undone .text { text-decoration: line-through; }
.tag { font-weight: 600; } table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border: 1px solid #999; padding: .2rem .4rem; text-align: left; vertical-align: top; }
code, pre { font: .85rem ui-monospace, monospace; word-break: break-all; white-space: pre-wrap; }
section.command { break-inside: avoid; }
@media print { body { margin: 0; max-width: none; } a { color: inherit; }
  a::after { content: " (" attr(href) ")"; font-size: .8rem; } h2 { break-after: avoid; } }
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'"


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def page(evening: Evening, base: str) -> str:
    """The evening as one self-contained HTML page."""
    body: list[str] = [
        f"<h1>{esc(title(evening))}</h1>",
        f"<p><strong>{esc(range_line(evening))}</strong><br>Campaign "
        f"{esc(evening.campaign_id)}, exported {esc(evening.exported_at)}; "
        f"{len(evening.commands)} command(s), {evening.rolls} roll(s).</p>",
        "<h2>What was played</h2>",
    ]
    body += [html_block(block) for block in evening.commands]
    body += html_rolls(evening)
    body += html_verification(evening, base)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title(evening))} — {esc(evening.span.label)}</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def html_block(block: CommandBlock) -> str:
    items = "".join(html_event(line) for line in block.events)
    return f'<section class="command"><h3>{esc(header(block))}</h3><ul>{items}</ul></section>'


def html_event(line: EventLine) -> str:
    tag = ""
    if line.decision:
        tag = '<span class="tag">Decision asked:</span> '
    if line.rolled_back:
        tag = '<span class="tag">Undo:</span> '
    mark = f" <em>({esc(undone(line))})</em>" if line.undone_by else ""
    rolls = "".join(f'<li class="roll">Roll: {esc(html_roll(r))}</li>' for r in line.rolls)
    nested = f"<ul>{rolls}</ul>" if rolls else ""
    classes = ' class="undone"' if line.undone_by else ""
    return (
        f'<li{classes}>v{line.version}: {tag}<span class="text">{esc(line.summary)}</span>'
        f"{mark}{nested}</li>"
    )


def html_roll(roll: RollLine) -> str:
    return (
        f"{roll.purpose}: dice {faces(roll)}, formula {roll.notation}, {dice_total(roll)}; "
        f"{source(roll)}; {roll.game_date}"
    )


def html_rolls(evening: Evening) -> list[str]:
    rows = roll_rows(evening)
    if not rows:
        return ["<h2>Rolls</h2>", "<p>No dice were rolled in this range.</p>"]
    head = "".join(f'<th scope="col">{h}</th>' for h in ROLL_COLUMNS)
    body = []
    for line, roll in rows:
        cells = roll_cells(line, roll)
        classes = ' class="undone"' if line.undone_by else ""
        body.append(f"<tr{classes}>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    return [
        "<h2>Rolls</h2>",
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>",
    ]


def html_verification(evening: Evening, base: str) -> list[str]:
    found = links(evening, base)
    link: Callable[[str], str] = lambda key: f'<a href="{esc(found[key])}">{esc(found[key])}</a>'  # noqa: E731
    items: Mapping[str, str] = {
        "Head at the end of this range": f"version {evening.span.last}, hash "
        f"<code>{esc(evening.head_hash)}</code>",
        "Chain": esc(chain_words(evening)),
        "The page at this version": link("page"),
        "The bundle, everything needed to verify offline": link("bundle"),
        "The audit of the whole log": link("audit"),
        "Server dice": esc(DICE_SENTENCE),
    }
    listed = "".join(f"<li>{name}: {value}</li>" for name, value in items.items())
    return [
        "<h2>Verification</h2>",
        f"<ul>{listed}</ul>",
        "<p>The host's signed checkpoint of this version and hash (docs/trust.md):</p>",
        f"<pre>{esc(evening.checkpoint)}</pre>",
    ]
