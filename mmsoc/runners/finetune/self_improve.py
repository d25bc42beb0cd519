"""Self-improvement (paper 4.1): the model answers, then answers again given its previous answer.

RUN_DIR is a run folder (``mmsoc.core.runfolder``): every response goes to ``predictions.jsonl`` as
soon as its batch finishes (a rerun resumes; rows are keyed by task, id, seed and round, and
``mmsoc report`` shows each round as a run of its own); ``metrics.json`` holds the similarity of
adjacent rounds and of each round to the reference (BERTScore, sentence-embedding cosine, and the
paper's bigram similarity: Kondrak's character-bigram similarity, ``mmsoc.metrics.kondrak``) and
``similarity.png`` plots them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, replace

import numpy as np

from mmsoc.core.io import atomic_open
from mmsoc.core.jsonl_log import JsonlAppender
from mmsoc.core.progress import steps
from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolder
from mmsoc.metrics.embedding import bertscore, embedding_similarity
from mmsoc.metrics.kondrak import ngram_similarity
from mmsoc.models.base import GenerationSettings, Model, Request
from mmsoc.runners.finetune.data import answer_text, request_for
from mmsoc.tasks import parse_response

SELF_IMPROVE_VERSION = "self-improve-v1"
REVISE_TEMPLATE = (
    'Your previous answer to this question was: "{previous}"\nConsidering it, answer the question again.\n{instruction}'
)
"""Prompt of rounds 2 and later (versioned by SELF_IMPROVE_VERSION)."""

KEY = ("task", "id", "seed", "round")
METRICS = ("bertscore", "sentence_cosine", "bigram")


def round_prompt(instruction: str, previous: str | None) -> str:
    """Round 1: the task instruction; later rounds: the instruction with the previous answer."""
    return instruction if previous is None else REVISE_TEMPLATE.format(previous=previous, instruction=instruction)


def run_self_improve(
    backend: Model,
    examples: Sequence[Example],
    instruction: str,
    prompt_version: str,
    out_dir: str | os.PathLike,
    rounds: int = 6,
    settings: GenerationSettings = GenerationSettings(),
    seed: int = 0,
    batch_size: int = 8,
    text_encoder: str | None = None,
    meta: dict | None = None,
    progress: bool = False,
    problems: Sequence[dict[str, str]] = (),
) -> dict:
    """Run ``rounds`` rounds over labelled ``examples`` of one task into the run folder ``out_dir``.

    Rows are keyed by (task, id, seed, round); ``config.json`` is the run's identity (a different
    configuration on the same folder is refused), unlabelled items go to ``problems.jsonl`` (with
    ``problems`` given by the caller). Returns the metrics also written to ``metrics.json``.
    """
    folder = RunFolder(out_dir, key_fields=KEY)
    labelled = [e for e in examples if e.label is not None]
    problems = [
        *problems,
        *({"task": e.task, "id": e.id, "problem": "no gold label"} for e in examples if e.label is None),
    ]
    if not labelled or rounds < 1:
        raise ValueError("self-improvement needs labelled examples and at least one round")
    task = labelled[0].task
    config = json.loads(
        json.dumps(
            {
                "task": task,
                "rounds": rounds,
                "seed": seed,
                "generation": asdict(settings),
                "prompt_version": prompt_version,
                "revise_version": SELF_IMPROVE_VERSION,
                **(meta or {}),
            }
        )
    )
    references = {e.id: answer_text(task, e.label) for e in labelled}
    with folder.lock():
        folder.check(config)
        folder.repair()
        answers = {(row["round"], row["id"]): row["raw"] for row in folder.rows()}
        folder.claim(config)
        shown = steps(f"self-improvement, {rounds} rounds", rounds * len(labelled), progress)
        with JsonlAppender(folder.own_log(0, 1)) as log, shown as bar:
            for number in range(1, rounds + 1):
                todo = [e for e in labelled if (number, e.id) not in answers]
                bar.advance(len(labelled) - len(todo), f"self-improvement: round {number} of {rounds}")
                for start in range(0, len(todo), batch_size):
                    batch = todo[start : start + batch_size]
                    requests = [
                        _request(
                            e, instruction, answers.get((number - 1, e.id)), number, None if settings.greedy else seed
                        )
                        for e in batch
                    ]
                    for example, request, raw in zip(batch, requests, backend.generate(requests, settings)):
                        log.append(_row(example, request, raw, seed, number, prompt_version, references[example.id]))
                        answers[(number, example.id)] = raw
                    bar.advance(len(batch))
        folder.merge([(task, e.id, seed, number) for number in range(1, rounds + 1) for e in labelled])
        folder.write_problems(problems)
        ids = [e.id for e in labelled]
        per_round = [[answers[(r, i)] for i in ids] for r in range(1, rounds + 1)]
        metrics = {
            **similarity_table(per_round, [references[i] for i in ids], text_encoder),
            "success_rate": [sum(parse_response(task, a).ok for a in answers_r) / len(ids) for answers_r in per_round],
            "task": task,
            "items": len(ids),
            "rounds": rounds,
        }
        folder.write_metrics(metrics)
        plot_similarity(metrics, folder.path / "similarity.png")
    return metrics


def _row(
    example: Example, request: Request, raw: str, seed: int, number: int, prompt_version: str, reference_text: str
) -> dict[str, object]:
    """A prediction row as ``mmsoc eval`` writes it (so ``mmsoc report`` scores each round), plus the round,
    the prompt and the reference answer text the similarities compare against."""
    lenient = parse_response(example.task, raw, mode="lenient")
    strict = parse_response(example.task, raw, mode="strict")
    label = example.label
    return {
        "task": example.task,
        "id": example.id,
        "seed": seed,
        "round": number,
        "prompt": request.prompt,
        "prompt_version": prompt_version,
        "raw": raw,
        "parsed": _jsonable(lenient.label),
        "valid": lenient.ok,
        "strict_valid": strict.ok,
        "reference": _jsonable(label),
        "reference_text": reference_text,
    }


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, (tuple, set, frozenset)) else value


def _request(example: Example, instruction: str, previous: str | None, number: int, seed: int | None) -> Request:
    """Each round draws its own randomness: the request id carries the round."""
    return replace(request_for(example, round_prompt(instruction, previous), seed), id=f"{example.id}#round{number}")


def similarity_table(
    per_round: Sequence[Sequence[str]], references: Sequence[str], text_encoder: str | None = None
) -> dict:
    """``adjacent``: round r-1 vs r for r >= 2; ``reference``: round r vs the reference, per metric."""

    described: dict[str, str] = {}

    def scores(predictions: Sequence[str], targets: Sequence[str]) -> dict[str, float]:
        stat, described["bertscore"] = bertscore(predictions, targets, text_encoder)
        return {
            "bertscore": stat.value(),
            "sentence_cosine": embedding_similarity(predictions, targets, text_encoder).value(),
            "bigram": float(np.mean(ngram_similarity(predictions, targets))) if predictions else 0.0,
        }

    adjacent = [{"from": r, "to": r + 1, **scores(per_round[r - 1], per_round[r])} for r in range(1, len(per_round))]
    reference = [{"round": r, **scores(answers, references)} for r, answers in enumerate(per_round, start=1)]
    return {"adjacent": adjacent, "reference": reference, "bertscore_model": described.get("bertscore", "")}


def plot_similarity(metrics: dict, path: str | os.PathLike) -> None:
    """Two panels like the paper's Figure 4: adjacent rounds (left), each round vs the reference (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
    for metric in METRICS:
        left.plot(
            [f"{row['from']}-{row['to']}" for row in metrics["adjacent"]],
            [row[metric] for row in metrics["adjacent"]],
            marker="o",
            label=metric,
        )
        right.plot(
            [row["round"] for row in metrics["reference"]],
            [row[metric] for row in metrics["reference"]],
            marker="o",
            label=metric,
        )
    left.set(title="Adjacent rounds", xlabel="rounds", ylabel="similarity")
    right.set(title="Round vs reference", xlabel="round")
    right.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120, metadata={"Software": None})
    plt.close(fig)
