"""Two tables of a report's task section: two runs' paired difference, and predictions beside references."""

from __future__ import annotations

from mmsoc.report.blocks import Table, fmt


def comparison_table(task: str, comp: dict) -> Table:
    """The paired difference of two runs on their common items, per metric, with its verdict."""
    return Table(
        f"{task}: {comp['a']} vs {comp['b']}, paired difference a \u2212 b on {comp['n_common']} "
        f"common items ({comp['only_in_a']} only in a, {comp['only_in_b']} only in b)",
        ["metric", "a", "b", "difference", "95% interval", "verdict"],
        [
            [
                k,
                fmt(v["a"]),
                fmt(v["b"]),
                fmt(v["difference"]),
                "\u2014" if v["low"] is None and v["high"] is None else f"[{fmt(v['low'])}, {fmt(v['high'])}]",
                v["verdict"],
            ]
            for k, v in comp["metrics"].items()
        ],
    )


def examples_table(task: str, examples: list[dict]) -> Table:
    """The first items every run answered: each run's prediction beside the reference."""
    names = list(examples[0]["predictions"])
    return Table(
        f"{task}: predictions beside the references (the first {len(examples)} items every run answered; first seed)",
        ["item", "reference", *names],
        [
            [
                e["id"],
                str(e["reference"]),
                *("(no valid answer)" if e["predictions"][n] is None else str(e["predictions"][n]) for n in names),
            ]
            for e in examples
        ],
    )
