"""``mmsoc arena rate``: votes to ratings.json, analysis.json, leaderboard.md and a self-contained report.html.

``ratings.json`` keeps the command contract's schema (method, models, elo, agreement, dropped);
``analysis.json`` holds the settings, the notes on method, battle counts, the win-rate and battle-count
matrices and the bias checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mmsoc.arena import analysis, ratings
from mmsoc.arena.aggregate import Aggregated, aggregate, agreement
from mmsoc.arena.records import Battle, read_battles
from mmsoc.core.io import UsageError, write_json, write_text
from mmsoc.core.names import shown

NOTES = (
    "The SocialArena paper ranks models by Elo but leaves the K-factor, the treatment of ties and the "
    "intervals unstated; they follow FastChat's Chatbot Arena (lm-sys/FastChat, "
    "fastchat/serve/monitor/rating_systems.py and elo_analysis.py).",
    "Online Elo: k=4, base 10, scale 400, initial rating 1000, battles in the order of their first vote's time, "
    "then file order; tie and both_bad score 0.5.",
    "Bradley-Terry: maximum likelihood with ties (tie and both_bad) as half a win and half a loss, no "
    "regularisation, on the Elo scale (400 x strength + 1000); no anchor model, so ratings average 1000.",
    "Intervals: 2.5% and 97.5% quantiles of a seeded bootstrap over battles; rank = 1 + the number of models "
    "whose lower bound is above this model's upper bound.",
    "Aggregation as in SocialArena: the majority label of battles with at least N annotators; battles whose "
    "annotators all disagree (or tie for the most votes) are dropped and counted.",
)


@dataclass(frozen=True)
class RateSettings:
    bootstrap: int = 100
    seed: int = 0
    min_annotators: int = 3


def rate(votes: Path, out: Path, settings: RateSettings, judges: Sequence[Path] = ()) -> tuple[dict, dict]:
    """Aggregate ``votes``, rate the models and write the outputs into ``out``; returns the contents of
    ratings.json and analysis.json."""
    battles = read_battles(votes)
    agg = aggregate(battles, settings.min_annotators)
    if not agg.outcomes:
        raise UsageError(
            f"{votes}: no battle has a majority label from at least {settings.min_annotators} "
            f"annotators ({agg.too_few} with fewer votes, {agg.dropped} without a majority); "
            "a judge's votes file has one vote a battle: pass --min-annotators 1"
        )
    m = ratings.Matchups.of([(o.battle.model_a, o.battle.model_b, o.label) for o in agg.outcomes])
    elo = ratings.online_elo(m)
    bt = ratings.bradley_terry(m)
    lower, upper = ratings.intervals(ratings.bootstrap_bt(m, settings.bootstrap, settings.seed))
    rank = ratings.ci_ranks(lower, upper)
    counts = ratings.battle_counts(m)
    order = sorted(range(len(m.models)), key=lambda k: (-bt[k], m.models[k]))
    rounds, seed = settings.bootstrap, settings.seed
    reference = {o.battle.id: (o.battle, o.label) for o in agg.outcomes}
    judged, silent = _judges(judges, reference, rounds, seed)
    result = {
        "method": "bt",
        "models": [
            {
                "model": m.models[k],
                "rating": float(bt[k]),
                "lower": float(lower[k]),
                "upper": float(upper[k]),
                "rank": int(rank[k]),
                "battles": int(counts[k]),
            }
            for k in order
        ],
        "elo": {m.models[k]: float(elo[k]) for k in order},
        "agreement": {
            "annotators": agreement(battles, settings.min_annotators, rounds, seed),
            "judges": judged,
            "human_baseline": analysis.human_baseline(battles, rounds, seed),
        },
        "dropped": agg.dropped,
    }
    extra = _analysis(m, order, battles, agg, settings, silent + _warnings(ratings.beat_groups(m)))
    _write_outputs(out, result, extra)
    return result, extra


def _judges(
    judges: Sequence[Path], reference: dict[str, tuple[Battle, str]], rounds: int, seed: int
) -> tuple[dict[str, dict], list[str]]:
    """Each judge's agreement entry by name (a judge in two files is refused), and the lines of files with
    nothing to compare."""
    judged: dict[str, dict] = {}
    silent: list[str] = []
    for path in judges:
        entries, silence = _judge(path, reference, rounds, seed)
        silent += silence
        for name, entry in entries.items():
            if name in judged:
                raise UsageError(f"{path}: judge {shown(name)} also votes in another --judge file")
            judged[name] = entry
    return judged, silent


def _warnings(groups: list[list[str]]) -> list[str]:
    """A warning when the models fall into groups that never lost to one another (no finite ratings)."""
    if len(groups) == 1:
        return []
    return [
        "The Bradley-Terry ratings have no finite maximum-likelihood value: some models never lost a point to "
        f"the others (groups: {'; '.join(', '.join(sorted(g)) for g in groups)}). The ratings and intervals are "
        "where FastChat's optimiser stops (100 iterations), not estimates; rate more battles between the groups."
    ]


def _analysis(
    m: ratings.Matchups,
    order: list[int],
    battles: list[Battle],
    agg: Aggregated,
    settings: RateSettings,
    warnings: list[str],
) -> dict:
    """The contents of analysis.json: warnings, settings, battle counts, win rates and the biases."""
    rounds, seed = settings.bootstrap, settings.seed
    return {
        "warnings": warnings,
        "settings": {
            "bootstrap": rounds,
            "seed": seed,
            "min_annotators": settings.min_annotators,
            "k": ratings.K,
            "base": ratings.BASE,
            "scale": ratings.SCALE,
            "initial": ratings.INIT,
        },
        "notes": list(NOTES),
        "battles": {
            "in_file": len(battles),
            "rated": len(agg.outcomes),
            "too_few_votes": agg.too_few,
            "all_disagree": agg.all_disagree,
            "no_majority": agg.no_majority,
        },
        "models": [m.models[k] for k in order],
        "win_rate": _matrix(ratings.win_rates(m), order),
        "battle_counts": _matrix(ratings.pair_counts(m), order),
        "bias": {
            "length": analysis.length_bias(agg.outcomes, rounds, seed),
            "position": analysis.position_bias(battles, rounds, seed),
        },
    }


def _write_outputs(out: Path, result: dict, extra: dict) -> None:
    """ratings.json, analysis.json, leaderboard.md and report.html into ``out``."""
    from mmsoc.report.render import to_html, to_markdown

    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "ratings.json", _finite(result))
    write_json(out / "analysis.json", _finite(extra))
    blocks = _blocks(result, extra)
    write_text(out / "leaderboard.md", to_markdown(blocks))
    page = to_html(blocks).replace("<title>MM-Soc metric report</title>", "<title>Arena ratings</title>", 1)
    write_text(out / "report.html", page)


def _judge(path: Path, reference: dict, rounds: int, seed: int) -> tuple[dict[str, dict], list[str]]:
    """A judge file's agreement entries, and a line saying so when it has none to compare: the judge cast no
    vote at all, or none on a battle the reference votes rate."""
    judged = read_battles(path, allow_empty=True)
    entries = analysis.judge_agreement(judged, path, reference, rounds, seed)
    if entries:
        return entries, []
    names = sorted({vote.annotator for battle in judged for vote in battle.votes})
    cast = sum(len(battle.votes) for battle in judged)
    if not cast:
        return {}, [f"judge file {path}: the judge cast no votes ({len(judged)} battles in the file); not compared"]
    return {}, [
        f"judge file {path}: judge {', '.join(names)} cast {cast} votes, none on a battle rated from the votes "
        "file (same id, enough annotators, a majority); not compared"
    ]


def _matrix(values: np.ndarray, order: list[int]) -> list[list[float | None]]:
    picked = values[np.ix_(order, order)]
    return [[None if np.isnan(v) else float(v) for v in row] for row in picked.astype(float)]


def _finite(obj: Any) -> Any:
    from mmsoc.report import json_safe

    return json_safe(obj)


def _fmt(value: object, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "\u2014"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _pct(value: float | None) -> str:
    return "\u2014" if value is None else f"{100 * value:.2f}%"


def _interval(entry: dict, low: str = "lower", high: str = "upper") -> str:
    return f"[{_pct(entry.get(low))}, {_pct(entry.get(high))}]"


def _blocks(result: dict, extra: dict) -> list:
    from mmsoc.report.render import Heading, Table, Text

    b = extra["battles"]
    blocks: list = [
        Heading(1, "Arena ratings"),
        Text(
            f"{b['in_file']} battles in the votes file; {b['rated']} rated; {result['dropped']} dropped "
            f"({b['all_disagree']} where all annotators disagree, {b['no_majority']} with no majority); "
            f"{b['too_few_votes']} with fewer than {extra['settings']['min_annotators']} votes left out."
        ),
        *[Text(f"Warning: {warning}") for warning in extra["warnings"]],
        Table(
            "Leaderboard: Bradley-Terry ratings with 95% bootstrap intervals "
            f"({extra['settings']['bootstrap']} rounds, seed {extra['settings']['seed']})",
            ["rank", "model", "rating", "lower", "upper", "online Elo", "battles"],
            [
                [
                    str(e["rank"]),
                    e["model"],
                    _fmt(e["rating"]),
                    _fmt(e["lower"]),
                    _fmt(e["upper"]),
                    _fmt(result["elo"][e["model"]]),
                    str(e["battles"]),
                ]
                for e in result["models"]
            ],
        ),
        _interval_figure(result["models"]),
        Heading(2, "Method"),
        *[Text(note) for note in extra["notes"]],
        Heading(2, "Agreement"),
        *_agreement_blocks(result["agreement"]),
        Heading(2, "Bias checks"),
        *_bias_blocks(extra["bias"]),
        Heading(2, "Pairs"),
    ]
    names = extra["models"]
    blocks.append(
        Table(
            "Win rate of the row model against the column model (decisive battles; ties left out)",
            ["model", *names],
            [[n, *(_pct(v) for v in row)] for n, row in zip(names, extra["win_rate"])],
        )
    )
    blocks.append(
        Table(
            "Battles between each pair (every outcome)",
            ["model", *names],
            [
                [n, *("\u2014" if i == j else str(int(v)) for j, v in enumerate(row))]
                for i, (n, row) in enumerate(zip(names, extra["battle_counts"]))
            ],
        )
    )
    return blocks


def _agreement_blocks(agreement_data: dict) -> list:
    from mmsoc.report.render import Table, Text

    ann = agreement_data["annotators"]
    blocks: list = []
    if ann.get("battles"):
        sizes = ", ".join(f"{v} with {k}" for k, v in ann["annotators_per_battle"].items())
        blocks.append(
            Table(
                f"Annotator agreement over {ann['battles']} battles ({sizes} annotators); chance = "
                f"uniform random labels over {ann['labels']}",
                ["measure", "observed", "95% interval", "chance", "verdict"],
                [
                    [
                        name.replace("_", " "),
                        _pct(ann[name]["share"]),
                        _interval(ann[name]),
                        _pct(ann[name]["chance"]),
                        ann[name]["verdict"],
                    ]
                    for name in ("full_agreement", "full_disagreement")
                ],
            )
        )
    else:
        blocks.append(Text("Annotator agreement: no battle has two or more votes."))
    rows = [
        [
            name,
            str(e["votes"]),
            _pct(e["label_accuracy"]),
            _interval(e),
            str(e["critiques_compared"]),
            _pct(e["critique_consistency"]),
        ]
        for name, e in [
            *agreement_data["judges"].items(),
            ("one annotator vs the others", agreement_data["human_baseline"]),
        ]
    ]
    blocks.append(
        Table(
            "Judge agreement with the reference majority labels (critique consistency: token F1 "
            ">= 0.5 against a reference critique)",
            ["judge", "votes", "label accuracy", "95% interval", "critiques compared", "critique consistency"],
            rows,
        )
    )
    return blocks


def _bias_blocks(bias: dict) -> list:
    from mmsoc.report.render import Table

    length, position = bias["length"], bias["position"]
    return [
        Table(
            "Bias checks",
            ["check", "value", "95% interval", "verdict", "detail"],
            [
                [
                    "winner is longer (decisive battles, unequal lengths)",
                    _pct(length["winner_longer_share"]),
                    _interval(length),
                    length["verdict"],
                    f"winner minus loser: mean {_fmt(length['mean_difference_words'])}, median "
                    f"{_fmt(length['median_difference_words'])} words; {length['equal_length']} of "
                    f"{length['decisive_battles']} of equal length",
                ],
                [
                    "B chosen among A-or-B votes",
                    _pct(position["b_share_of_a_or_b"]),
                    _interval(position),
                    position["verdict"],
                    ", ".join(f"{k} {_pct(v)}" for k, v in position["shares"].items())
                    + f" of {position['votes']} votes",
                ],
            ],
        )
    ]


def _interval_figure(models: list[dict]) -> Any:
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mmsoc.report.figures import Figure

    names = [e["model"] for e in models][::-1]
    rating = np.array([e["rating"] for e in models][::-1])
    low = np.array([e["lower"] for e in models][::-1])
    high = np.array([e["upper"] for e in models][::-1])
    fig, ax = plt.subplots(figsize=(6, 0.5 * len(names) + 1.2))
    spread = np.vstack([np.maximum(rating - low, 0), np.maximum(high - rating, 0)])
    ax.errorbar(rating, np.arange(len(names)), xerr=spread, fmt="o", capsize=4)
    ax.set_yticks(np.arange(len(names)), names)
    ax.set_xlabel("Bradley-Terry rating (Elo scale)")
    ax.set_title("Ratings with 95% bootstrap intervals")
    ax.grid(axis="x", alpha=0.3)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    title = "Bradley-Terry ratings with 95% bootstrap intervals"
    return Figure(title, "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"))
