"""Render a report's blocks as Markdown or as one self-contained HTML page.

Every text that can come from a run (model names, predictions, references, file names) is escaped in both:
HTML by ``html.escape``; Markdown by ``mmsoc.core.markdown.md_text`` (backslash escapes, no entities, control
characters dropped), so it renders as the text it holds. The page has inline CSS, figures
as data URIs, no scripts and no external links; contents links jump to the sections' ids."""

from __future__ import annotations

import html

from mmsoc.core.markdown import md_text
from mmsoc.report.blocks import Block, Contents, Details, Figure, Heading, Table, Text, fmt, slug

__all__ = [
    "Block",
    "Contents",
    "Details",
    "Figure",
    "Heading",
    "Table",
    "Text",
    "fmt",
    "slug",
    "to_html",
    "to_markdown",
]


def _md_table(table: Table) -> str:
    lines = [
        f"**{md_text(table.caption)}**",
        "",
        "| " + " | ".join(map(md_text, table.header)) + " |",
        "|" + "---|" * len(table.header),
    ]
    lines += ["| " + " | ".join(map(md_text, row)) + " |" for row in table.rows]
    return "\n".join(lines)


def to_markdown(blocks: list[Block]) -> str:
    """Markdown with the same content as the page: tables as pipe tables; a figure by its title, with its
    numbers as a table where it carries them."""
    out = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append("#" * block.level + " " + md_text(block.text))
        elif isinstance(block, Text):
            out.append(md_text(block.text, paragraph=True))
        elif isinstance(block, Table):
            out.append(_md_table(block))
        elif isinstance(block, Details):
            out.append(
                f"<details><summary>{html.escape(block.summary)}</summary>\n\n{_md_table(block.table)}\n\n</details>"
            )
        elif isinstance(block, Contents):
            out.append(
                "**Contents**\n\n"
                + "\n".join(
                    f"{'  ' * max(0, level - 2)}- [{md_text(text)}](#{anchor})" for level, text, anchor in block.entries
                )
            )
        else:
            out.append(f"*Figure (in report.html): {md_text(block.title)}*")
            if block.data is not None:
                out.append(_md_table(block.data))
    return "\n\n".join(out) + "\n"


_STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;padding:1em 2em;max-width:88em;"
    "line-height:1.45;color:#222}"
    "h1{font-size:1.7em}h2{margin-top:2em;border-bottom:2px solid #dde;padding-bottom:.2em}"
    "h1,h2,h3{scroll-margin-top:.5em}"
    "nav.toc{background:#f6f7fb;border:1px solid #dde;padding:.5em 1.2em;margin:1em 0}"
    "nav.toc ul{columns:18em;margin:.3em 0;padding-left:1.2em}nav.toc li{break-inside:avoid}"
    "table{border-collapse:separate;border-spacing:0;margin:.4em 0 1.4em;max-width:100%}"
    "th,td{border:1px solid #ccc;border-width:0 1px 1px 0;padding:3px 7px;font-size:88%;vertical-align:top;"
    "overflow-wrap:anywhere;font-variant-numeric:tabular-nums}"
    "tr>*:first-child{border-left-width:1px;min-width:7em}thead th{border-top-width:1px}"
    "thead th{position:sticky;top:0;background:#e9ecf5;z-index:1;text-align:left}"
    "tbody tr:nth-child(even){background:#fafafa}"
    "caption{text-align:left;font-weight:600;margin-bottom:4px;caption-side:top}"
    "figure{margin:1em 0}figure img{max-width:100%;height:auto;display:block}"
    "figcaption{font-size:88%;color:#555}details{margin:.3em 0}summary{cursor:pointer;color:#335}"
)


def _html_table(table: Table) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in table.header)
    rows = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    return f"<table><caption>{esc(table.caption)}</caption><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def to_html(blocks: list[Block]) -> str:
    """A self-contained page titled by its first level-1 heading."""
    esc = html.escape
    body = []
    for block in blocks:
        if isinstance(block, Heading):
            anchor = f' id="{esc(block.anchor)}"' if block.anchor else ""
            body.append(f"<h{block.level}{anchor}>{esc(block.text)}</h{block.level}>")
        elif isinstance(block, Text):
            body.append(f"<p>{esc(block.text)}</p>")
        elif isinstance(block, Table):
            body.append(_html_table(block))
        elif isinstance(block, Details):
            body.append(f"<details><summary>{esc(block.summary)}</summary>{_html_table(block.table)}</details>")
        elif isinstance(block, Contents):
            items = "".join(
                f'<li class="level{level}"><a href="#{esc(anchor)}">{esc(text)}</a></li>'
                for level, text, anchor in block.entries
            )
            body.append(f'<nav class="toc" aria-label="Contents"><strong>Contents</strong><ul>{items}</ul></nav>')
        else:
            numbers = (
                f"<details><summary>numbers</summary>{_html_table(block.data)}</details>"
                if block.data is not None
                else ""
            )
            body.append(
                f'<figure><img alt="{esc(block.title)}" src="{esc(block.uri)}"><figcaption>'
                f"{esc(block.title)}</figcaption>{numbers}</figure>"
            )
    title = next((b.text for b in blocks if isinstance(b, Heading) and b.level == 1), "MM-Soc metric report")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
        f'content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
        f"<style>{_STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
