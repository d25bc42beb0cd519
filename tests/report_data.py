"""Run folders for the report tests: MM-Soc eval runs made on the embedded sample (noisy copies of the
references), a desiq-eval run written from its metrics.json contract, and an arena ratings folder written from
the ratings.json contract."""

from __future__ import annotations

import json
import random
from pathlib import Path

from mmsoc.tasks.data import load_examples
from mmsoc.tasks.registry import TASKS

TASKS_USED = ("misinfo_politifact", "tagging", "hate", "sentiment", "ocr", "image_description")


def predict(task: str, reference: object, rng: random.Random, skill: float) -> object:
    """A noisy copy of the reference: right with probability ``skill``, otherwise wrong or unparseable."""
    kind = TASKS[task].kind
    if rng.random() < 0.1:
        return None
    if kind == "classification":
        return reference if rng.random() < skill else rng.choice(TASKS[task].labels)
    if kind == "multilabel":
        kept = [t for t in reference if rng.random() < skill]
        return kept + ([rng.choice(TASKS[task].labels)] if rng.random() > skill else [])
    words = str(reference).split()
    return " ".join(w for w in words if rng.random() < skill)


def write_run(
    path: Path,
    model: str,
    seeds: list[int],
    skill: float,
    drop: dict[str, int],
    extra_tasks=(),
    strict: bool = True,
    tasks=TASKS_USED,
    prefix: dict[str, str] | None = None,
) -> Path:
    """An MM-Soc run folder; ``strict``: rows record strict validity (every third valid response fails it);
    ``prefix``: text put before every generation prediction of a task (hostile text for the escaping tests)."""
    path.mkdir(parents=True)
    config = {
        "model": model,
        "tasks": list(tasks) + list(extra_tasks),
        "seeds": seeds,
        "greedy": False,
        "prompt_version": "mmsoc-v1",
        "data": "sample",
        "split": "test",
    }
    (path / "config.json").write_text(json.dumps(config))
    lines = []
    for task in tasks:
        examples = load_examples(task, "sample", "test").examples
        examples = examples[: len(examples) - drop.get(task, 0)]
        for seed in seeds:
            rng = random.Random(f"{model}-{task}-{seed}")
            for ex in examples:
                parsed = predict(task, ex.label, rng, skill)
                if parsed is not None and prefix and task in prefix:
                    parsed = prefix[task] + parsed
                row = {
                    "task": task,
                    "id": ex.id,
                    "seed": seed,
                    "prompt_version": "mmsoc-v1",
                    "raw": str(parsed),
                    "parsed": parsed,
                    "valid": parsed is not None,
                    "reference": ex.label,
                }
                if strict:
                    row["strict_valid"] = parsed is not None and len(lines) % 3 != 0
                lines.append(json.dumps(row))
    (path / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    return path


DESIQ_CONDITIONS = (("original", 0.62), ("NCAQ", 0.41), ("RIWI", 0.30), ("RAWA", 0.18), ("circular", 0.35))


def write_desiq_run(path: Path, model: str, shift: float = 0.0, position=((52, 31, 22, 15), (30, 30, 30, 30))) -> Path:
    """A desiq-eval run folder as its contract has it: metrics.json (the report reads nothing else)."""
    path.mkdir(parents=True)
    results = []
    for condition, a4 in DESIQ_CONDITIONS:
        for config, accuracy, chance in (("A4", a4 + shift, 0.25), ("A2", min(0.95, a4 + 0.2 + shift), 0.5)):
            results.append(
                {
                    "condition": condition,
                    "config": config,
                    "accuracy": accuracy,
                    "chance": chance,
                    "n": 120,
                    "videos": 40,
                    "ci95": [accuracy - 0.08, accuracy + 0.07],
                    "success_rate": None,
                }
            )
    metrics = {
        "model": model,
        "inputs": "q+a+t+v",
        "answer": "loglik",
        "results": results,
        "position": {"chosen": list(position[0]), "gold": list(position[1])},
    }
    (path / "metrics.json").write_text(json.dumps(metrics))
    return path


ARENA_MODELS = (("model-a", 1041.5, 1012.0, 1070.2, 40), ("model-b", 958.5, 930.1, 990.0, 40))


def write_ratings(path: Path) -> Path:
    """An arena ratings folder as ``mmsoc arena rate`` writes it (ratings.json, the command contract)."""
    path.mkdir(parents=True)
    models = [
        {"model": m, "rating": r, "lower": lo, "upper": hi, "rank": 1, "battles": n} for m, r, lo, hi, n in ARENA_MODELS
    ]
    ratings = {
        "method": "bt",
        "models": models,
        "elo": {m: r - 1.5 for m, r, *_ in ARENA_MODELS},
        "agreement": {},
        "dropped": 3,
    }
    (path / "ratings.json").write_text(json.dumps(ratings))
    return path


HOSTILE_NAMES = (
    "<script>alert(1)</script><img src=x onerror=alert(2)> [click](javascript:alert(3))",
    '<b onmouseover="x()">model</b> ![i](//x/y.png) <https://evil.example>',
    "`code` *em* _em_ ~~gone~~ a|b [ref]: //x",
    "p &gt;= 0.05 &amp; &#60;iframe&#62; \\<escaped\\>",
    "llava[/ft] blip[bold]2 dq<img src=x onerror=alert(4)>",
    "bell\x07 esc\x1b[31m nul\x00 del\x7f cr\rline\nbreak\u202eevil",
    "# heading",
    "- item",
    "1. item",
)
"""Names and texts a run can carry: markup of HTML, Markdown and rich, entities, control characters."""


def visible(text: str) -> str:
    """What a reader should see of ``text``: whitespace as single spaces, control characters dropped."""
    import unicodedata

    kept = " ".join(text.split())
    return "".join(ch for ch in kept if unicodedata.category(ch) != "Cc" and ch != "\u202e")


def rendered(markdown: str) -> tuple[list[tuple[str, dict]], str]:
    """``markdown`` rendered by markdown-it-py (CommonMark with GFM tables, strikethrough and linkify off):
    the elements it made and its text, whitespace collapsed."""
    from html.parser import HTMLParser

    from markdown_it import MarkdownIt

    class Collect(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.tags: list[tuple[str, dict]] = []
            self.text: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.tags.append((tag, dict(attrs)))

        def handle_data(self, data):
            self.text.append(data)

    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    parser = Collect()
    parser.feed(html)
    return parser.tags, " ".join("".join(parser.text).split())


MARKDOWN_TAGS = {"h1", "h2", "h3", "p", "strong", "em", "ul", "li", "a", "table", "thead", "tbody", "tr", "th", "td"}
"""The elements our Markdown writers make themselves (links only to the page's own anchors)."""


def check_markdown(markdown: str, texts=HOSTILE_NAMES) -> None:
    """Each of ``texts`` renders as its visible text; nothing renders as an element we did not write, a
    link leaves the page, or an HTML entity or a control character is written."""
    import re

    tags, text = rendered(markdown)
    for value in texts:
        assert visible(value) in text, value
    assert {tag for tag, _ in tags} <= MARKDOWN_TAGS, {tag for tag, _ in tags} - MARKDOWN_TAGS
    assert all(attrs.get("href", "#").startswith("#") for tag, attrs in tags if tag == "a"), tags
    assert not re.search(r"(?<!\\)&(#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);", markdown)  # no entity of ours
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202e]", markdown)
