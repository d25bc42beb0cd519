"""``desiq fusion eval``: score every option of a QA file with a saved fusion model, in a run folder.

RUN_DIR/config.json holds the run's identity (model, data, split, perturbation); a different one on
the same folder is refused. Predictions are appended and flushed as they are made, keyed by
(item id, perturbation), so a rerun scores only what is missing, and a killed run resumes to the
metrics an uninterrupted one gives. Under ``accelerate launch`` process r scores items r, r+world, ...
into its own log; the main process merges them in item order.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from desiq.data import QAData
from desiq.fusion.runner import (
    CONFIG_FILE,
    HEAD_FILE,
    FusionScorer,
    accuracy,
    chance,
    fusion_accelerator,
    scored_configs,
)
from desiq.inputs import MEDIA
from desiq.perturbation_schemes import perturb as apply
from desiq.records import MCQAItem
from mmsoc.core.io import InputError
from mmsoc.core.jsonl_log import JsonlAppender
from mmsoc.core.paths import file_sha256
from mmsoc.core.runfolder import RunFolder
from mmsoc.media import FeatureCache

ORIGINAL = "original"
KEY_FIELDS = ("id", "perturbation")


def metrics_from_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """AK (the top of the K options is the correct one: A4 for Social-IQ), A2 (the correct option outscores
    each incorrect one), their chance, n and masked media per modality, from the prediction rows alone."""
    missing = {m: sum(m in r["masked"] for r in rows) for m in MEDIA}
    scores = [r["scores"] for r in rows]
    return {
        **accuracy([r["answer_idx"] for r in rows], scores),
        "chance": chance(scored_configs(scores)),
        "n": len(rows),
        "missing": missing,
    }


def _saved_inputs(model: Path) -> str:
    """The input setting a saved model was trained with, read without loading its weights."""
    path = model / CONFIG_FILE
    try:
        inputs = json.loads(path.read_text(encoding="utf-8"))["inputs"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise InputError(
            path, f"not a model folder written by 'desiq fusion train' ({type(err).__name__}: {err})"
        ) from None
    return str(inputs)


def _row(item: MCQAItem, perturbation: str, scores: np.ndarray, masked: list[str]) -> dict[str, Any]:
    pred = int(np.argmax(scores))
    return {
        "id": item.id,
        "qid": item.qid,
        "perturbation": perturbation,
        "vid_name": item.video,
        "scores": [float(x) for x in scores],
        "pred": pred,
        "answer_idx": item.answer_idx,
        "correct": pred == item.answer_idx,
        "masked": masked,
    }


def evaluate_run(
    model: Path,
    data: QAData,
    out: Path,
    perturbation: str | None = None,
    seed: int = 0,
    batch_size: int = 16,
    cache: FeatureCache | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run (or resume) an evaluation into ``out``; the main process returns metrics.json (others {}).
    ``progress``: the main process shows its scoring batches on stderr."""
    from accelerate.utils import gather_object

    from mmsoc.core.progress import track

    items = data.items()
    if perturbation is not None:
        items = apply(items, perturbation, seed=seed).items
    accelerator = fusion_accelerator()
    name = perturbation or ORIGINAL
    identity = {
        "model": str(model.resolve()),
        "model_sha256": file_sha256(model / CONFIG_FILE, model / HEAD_FILE),
        "data": str(data.qa.resolve()),
        "data_sha256": file_sha256(data.qa),
        "media_root": str(data.media_root.resolve()) if data.media_root else None,
        "split": data.split,
        "perturb": perturbation,
        "seed": seed if perturbation else None,
        "inputs": _saved_inputs(model),
        **({"fields": data.mapping.describe()} if data.mapping else {}),
        **({"format": data.format} if data.format != "auto" else {}),
    }
    folder = RunFolder(out, KEY_FIELDS)
    keys = [(item.id, name) for item in items]
    with ExitStack() as stack:
        if accelerator.is_main_process:
            stack.enter_context(folder.lock())
            folder.check(identity)  # a different run is refused before any weights are loaded
        scorer = FusionScorer.load(model, accelerator.device)  # a model that fails to load leaves RUN_DIR unclaimed
        data.require_media(scorer.setting)
        if accelerator.is_main_process:
            folder.repair()
        accelerator.wait_for_everyone()
        done = folder.done()
        mine = [
            items[k]
            for k in range(accelerator.process_index, len(items), accelerator.num_processes)
            if keys[k] not in done
        ]
        if accelerator.is_main_process:
            folder.claim(identity)
        accelerator.wait_for_everyone()
        if mine:
            features = scorer.features(mine, data.media_root, cache)
            with JsonlAppender(folder.own_log(accelerator.process_index, accelerator.num_processes)) as log:
                starts = range(0, len(mine), batch_size)
                shown = progress and accelerator.is_main_process
                for start in track(starts, f"fusion evaluate: scoring {len(mine)} questions ({name})", enabled=shown):
                    chunk = mine[start : start + batch_size]
                    for item, scores in zip(chunk, scorer.score(chunk, features, batch_size)):
                        log.append(_row(item, name, scores, features.masked(item)))
                    log.sync()
        counts = gather_object([len(mine)]) if accelerator.num_processes > 1 else [len(mine)]
        accelerator.wait_for_everyone()
        if not accelerator.is_main_process:
            return {}
        rows = folder.merge(keys)
        metrics = {
            **metrics_from_rows(rows),
            "inputs": scorer.config.inputs,
            "split": data.split,
            "perturb": perturbation,
            "processes": accelerator.num_processes,
        }
        folder.write_runtime({"processes": accelerator.num_processes, "predicted": counts})
        folder.write_metrics(metrics)
        return metrics
