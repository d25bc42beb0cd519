"""An example mmsoc plugin: one module declaring the constants a built-in module declares.

- ``MODEL``: ``--model echo:TEXT`` answers TEXT to every request (bare ``echo`` answers the prompt itself)
  and scores each option by how many of its words the prompt holds;
- ``GROUP``: ``first_label_share``, the share of classification items answered with the first label;
- ``FORMAT``: ``echo-jsonl``, JSON Lines rows ``{"ask", "picks", "right", "clip", "tags"}``, read and written;
- ``PERTURBATION``: ``RIWA_SAME``, RIWA with partners from the same video.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from desiq.formats import MCQAFormat, first_json_row, require_field
from desiq.perturbations import Direction, Pool, Scope, Target, from_partner
from desiq.records import CORRECT, MCQAItem, position_id
from mmsoc.core.io import InputError, read_jsonl, write_jsonl
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.models.base import GenerationSettings, OptionScores, Request
from mmsoc.models.registry import ModelEntry, ModelOptions

WRONG = "wrong"


class EchoModel:
    name = "echo"
    modalities = frozenset({"text", "image"})

    def __init__(self, answer: str):
        self.answer = answer

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        return [self.answer or request.prompt for request in requests]

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        scores = []
        for request, opts in zip(requests, options):
            words = set(request.prompt.lower().split())
            shared = tuple(float(sum(w in words for w in o.lower().split())) for o in opts)
            scores.append(OptionScores(shared, tuple(len(o) for o in opts)))
        return scores


def build(arg: str, options: ModelOptions) -> EchoModel:
    return EchoModel(arg)


MODEL = ModelEntry("echo", build, frozenset({"text", "image"}), "answers TEXT, or the prompt", usage="echo:TEXT")


def first_label_share(data: Any) -> GroupResult:
    from mmsoc.metrics.stats import mean_stat

    return {"first_label_share": mean_stat(data.pred_idx == 0)}, {}


GROUP = MetricGroup(
    "echo_first_label",
    ("classification",),
    (Metric("first_label_share", True, "share of items answered with the task's first label"),),
    first_label_share,
    order=200,
)


def _item(row: dict[str, Any], position: int, path: str, line: int) -> MCQAItem:
    question = require_field(row, "ask", str, path, line)
    picks = tuple(require_field(row, "picks", list, path, line))
    right = require_field(row, "right", int, path, line) if "right" in row else None
    default = [CORRECT if k == right else WRONG for k in range(len(picks))] if right is not None else []
    tags = tuple(row.get("tags", default))
    return MCQAItem(
        position_id(str(position), position), str(position), str(row.get("clip", "")), question, picks, right, tags
    )


def read(path: Path) -> list[MCQAItem]:
    items = [_item(row, k, str(path), line) for k, (line, row) in enumerate(read_jsonl(path))]
    if not items:
        raise InputError(path, "no questions in file")
    return items


def write(path: Path, items: Iterable[MCQAItem], reading: object) -> None:
    rows = [
        {
            "ask": i.question,
            "picks": list(i.options),
            "right": i.answer_idx,
            "clip": i.video,
            "tags": list(i.option_markers),
        }
        for i in items
    ]
    write_jsonl(path, rows)


def detect(path: Path) -> bool:
    row = first_json_row(path)
    return row is not None and "ask" in row and "picks" in row


FORMAT = MCQAFormat(
    "echo-jsonl",
    "JSON Lines rows of ask, picks, right, clip and tags",
    frozenset({CORRECT, WRONG}),
    detect,
    read,
    write,
    suffixes=(".jsonl",),
)

PERTURBATION = from_partner(
    "RIWA_SAME",
    Target.incorrect,
    Pool.partner_answer,
    "riwa_same",
    Direction.chance,
    Direction.original,
    scope=Scope.same_video,
)
