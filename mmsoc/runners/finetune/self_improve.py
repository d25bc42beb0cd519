"""Self-improvement (paper 4.1): the model answers, then answers again given its previous answer.

Every response goes to ``RUN_DIR/predictions.jsonl`` as soon as its batch finishes (a rerun
resumes); ``metrics.json`` holds the similarity of adjacent rounds and of each round to the
reference (BERTScore, sentence-embedding cosine, bigram Jaccard) and ``similarity.png`` plots them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from tqdm.auto import tqdm

from mmsoc.models.base import GenerationSettings, Model, Request
from mmsoc.runners.finetune.data import answer_text, request_for
from mmsoc.core.io import InputError, JsonlAppender, atomic_open, read_jsonl, write_json
from mmsoc.metrics.embedding import bertscore, embedding_similarity
from mmsoc.metrics.text import word_bigram_jaccard
from mmsoc.core.records import Example
from mmsoc.tasks import parse_response

SELF_IMPROVE_VERSION = "self-improve-v1"
REVISE_TEMPLATE = ('Your previous answer to this question was: "{previous}"\n'
                   "Considering it, answer the question again.\n{instruction}")
"""Prompt of rounds 2 and later (versioned by SELF_IMPROVE_VERSION)."""

PREDICTIONS = "predictions.jsonl"
METRICS = ("bertscore", "sentence_cosine", "bigram")


def round_prompt(instruction: str, previous: str | None) -> str:
    """Round 1: the task instruction; later rounds: the instruction with the previous answer."""
    return instruction if previous is None else REVISE_TEMPLATE.format(previous=previous, instruction=instruction)


def run_self_improve(backend: Model, examples: Sequence[Example], instruction: str, prompt_version: str,
                     out_dir: str | os.PathLike, rounds: int = 6, settings: GenerationSettings = GenerationSettings(),
                     seed: int = 0, batch_size: int = 8, text_encoder: str | None = None,
                     meta: dict | None = None, progress: bool = False) -> dict:
    """Run ``rounds`` rounds over labelled ``examples`` of one task; write the log, metrics and plot."""
    out_dir = Path(out_dir)
    examples = [e for e in examples if e.label is not None]
    if not examples or rounds < 1:
        raise ValueError("self-improvement needs labelled examples and at least one round")
    task = examples[0].task
    config = {"task": task, "rounds": rounds, "seed": seed, "generation": asdict(settings),
              "prompt_version": prompt_version, "revise_version": SELF_IMPROVE_VERSION, **(meta or {})}
    _check_config(out_dir / "config.json", config)
    write_json(out_dir / "config.json", config)
    references = {e.id: answer_text(task, e.label) for e in examples}
    answers: dict[tuple[int, str], str] = {}
    with JsonlAppender(out_dir / PREDICTIONS) as log:
        for _, row in read_jsonl(log.path):
            answers[(row["round"], row["id"])] = row["raw"]
        bar = tqdm(total=rounds * len(examples), desc="self-improvement", disable=not progress)
        for number in range(1, rounds + 1):
            todo = [e for e in examples if (number, e.id) not in answers]
            bar.update(len(examples) - len(todo))
            for start in range(0, len(todo), batch_size):
                batch = todo[start:start + batch_size]
                requests = [_request(e, instruction, answers.get((number - 1, e.id)), number,
                                     None if settings.greedy else seed) for e in batch]
                for example, request, raw in zip(batch, requests, backend.generate(requests, settings)):
                    parsed = parse_response(task, raw)
                    log.append({"task": task, "id": example.id, "seed": seed, "round": number,
                                "prompt": request.prompt, "prompt_version": prompt_version, "raw": raw,
                                "parsed": parsed.label, "valid": parsed.ok, "reference": references[example.id]})
                    answers[(number, example.id)] = raw
                bar.update(len(batch))
        bar.close()
    ids = [e.id for e in examples]
    per_round = [[answers[(r, i)] for i in ids] for r in range(1, rounds + 1)]
    metrics = {**similarity_table(per_round, [references[i] for i in ids], text_encoder),
               "success_rate": [sum(parse_response(task, a).ok for a in answers_r) / len(ids) for answers_r in per_round],
               "task": task, "items": len(ids), "rounds": rounds}
    write_json(out_dir / "metrics.json", metrics)
    plot_similarity(metrics, out_dir / "similarity.png")
    return metrics


def _request(example: Example, instruction: str, previous: str | None, number: int, seed: int | None) -> Request:
    """Each round draws its own randomness: the request id carries the round."""
    return replace(request_for(example, round_prompt(instruction, previous), seed), id=f"{example.id}#round{number}")


def _check_config(path: Path, config: dict) -> None:
    if path.exists() and json.loads(path.read_text()) != json.loads(json.dumps(config)):
        raise InputError(path, "this run folder holds a different self-improvement run; choose a new --out")


def similarity_table(per_round: Sequence[Sequence[str]], references: Sequence[str],
                     text_encoder: str | None = None) -> dict:
    """``adjacent``: round r-1 vs r for r >= 2; ``reference``: round r vs the reference, per metric."""

    described: dict[str, str] = {}

    def scores(predictions: Sequence[str], targets: Sequence[str]) -> dict[str, float]:
        stat, described["bertscore"] = bertscore(predictions, targets, text_encoder)
        return {"bertscore": stat.value(),
                "sentence_cosine": embedding_similarity(predictions, targets, text_encoder).value(),
                "bigram": word_bigram_jaccard(predictions, targets).value()}

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
        left.plot([f"{row['from']}-{row['to']}" for row in metrics["adjacent"]],
                  [row[metric] for row in metrics["adjacent"]], marker="o", label=metric)
        right.plot([row["round"] for row in metrics["reference"]], [row[metric] for row in metrics["reference"]],
                   marker="o", label=metric)
    left.set(title="Adjacent rounds", xlabel="rounds", ylabel="similarity")
    right.set(title="Round vs reference", xlabel="round")
    right.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120, metadata={"Software": None})
    plt.close(fig)
