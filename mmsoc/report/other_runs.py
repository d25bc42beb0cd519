"""Report sections for runs other than MM-Soc evaluations: desiq-eval runs (the condition table and the
position-bias chart) and arena ratings (the interval plot and the leaderboard)."""

from __future__ import annotations

from mmsoc.report.blocks import Block, Heading, Table, Text, fmt
from mmsoc.report.figures import color, dot_rows, position_bars


def desiq_blocks(runs: list[dict], colours: dict[str, str]) -> list[Block]:
    if not runs:
        return []
    keys = list(dict.fromkeys((r["condition"], r["config"]) for run in runs for r in run["results"]))
    by_run = {run["name"]: {(r["condition"], r["config"]): r for r in run["results"]} for run in runs}
    chance = [next((by_run[name][key]["chance"] for name in by_run if key in by_run[name]), None) for key in keys]
    series = {
        name: [None if key not in rows else (rows[key]["accuracy"], *rows[key]["ci95"]) for key in keys]
        for name, rows in by_run.items()
    }
    blocks: list[Block] = [
        Heading(2, "Social-IQ runs (desiq eval)"),
        Text(
            "Accuracy per condition with the run's 95% bootstrap interval (resampled by video) and chance; a "
            "verdict says where the interval lies against chance. Position bias: the share of answers at each "
            "option position against the share of gold answers there, with Pearson's chi-square test."
        ),
        dot_rows(
            "Accuracy per condition (95% interval; dotted: chance)",
            [f"{c} {k}" for c, k in keys],
            series,
            colours,
            "accuracy",
            chance=chance,
        ),
        position_bars(
            "Position bias: chosen against gold answer positions",
            {run["name"]: run["position"] for run in runs},
            colours,
        ),
    ]
    for run in runs:
        blocks.append(
            Table(
                f"{run['name']}: conditions (inputs {run['inputs']}, answer {run['answer']})",
                ["condition", "config", "accuracy", "95% interval", "chance", "n", "success rate", "verdict"],
                [
                    [
                        r["condition"],
                        r["config"],
                        fmt(r["accuracy"]),
                        f"[{fmt(r['ci95'][0])}, {fmt(r['ci95'][1])}]",
                        fmt(r["chance"]),
                        str(r["n"]),
                        fmt(r["success_rate"]),
                        r["verdict"],
                    ]
                    for r in run["results"]
                ],
            )
        )
    width = max(len(run["position"]["chosen"]) for run in runs)
    letters = [chr(ord("A") + k) for k in range(width)]
    blocks.append(
        Table(
            "Answer positions: chosen and gold counts",
            ["run", *(f"chosen {x}" for x in letters), *(f"gold {x}" for x in letters), "chi-square", "p", "verdict"],
            [
                [
                    run["name"],
                    *map(str, run["position"]["chosen"]),
                    *map(str, run["position"]["gold"]),
                    fmt(run["position"]["chi2"]),
                    fmt(run["position"]["p"]),
                    run["position"]["verdict"],
                ]
                for run in runs
            ],
        )
    )
    return blocks


def arena_blocks(folders: list[dict]) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Arena ratings")] if folders else []
    for entry in folders:
        models = entry["models"]
        title = f"{entry['name']}: {entry['method'] or 'bt'} ratings with 95% bootstrap intervals"
        blocks.append(
            dot_rows(
                title,
                [m["model"] for m in models],
                {entry["name"]: [(m["rating"], m["lower"], m["upper"]) for m in models]},
                {entry["name"]: color(0)},
                "rating (Elo scale)",
                unit_range=False,
            )
        )
        blocks.append(
            Table(
                f"{entry['name']}: leaderboard ({fmt(entry['dropped'])} battles dropped)",
                ["rank", "model", "rating", "lower", "upper", "online Elo", "battles"],
                [
                    [
                        fmt(m["rank"]),
                        m["model"],
                        fmt(m["rating"]),
                        fmt(m["lower"]),
                        fmt(m["upper"]),
                        fmt(entry["elo"].get(m["model"])),
                        fmt(m["battles"]),
                    ]
                    for m in models
                ],
            )
        )
    return blocks
