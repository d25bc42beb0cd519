"""MM-Soc metrics as Hugging Face ``evaluate`` modules, shipped inside the package and loaded offline:

    import evaluate
    from mmsoc.metrics import evaluate_modules

    ocr = evaluate.load(evaluate_modules.path("mmsoc_ocr"))
    ocr.compute(predictions=['"hello world"'], references=["hello world"], ids=["memotion/1.jpg"])

Each module (``mmsoc_ocr``, ``mmsoc_tagging``, ``mmsoc_classification``, ``mmsoc_generation``) is a
folder holding a script of the same name; its ``compute`` returns exactly the metrics.json that
``mmsoc score`` writes for the same predictions, references and ids (:func:`score`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

NAMES = ("mmsoc_classification", "mmsoc_tagging", "mmsoc_ocr", "mmsoc_generation")


def path(name: str) -> str:
    """Absolute folder of the ``evaluate`` module ``name``, for ``evaluate.load`` (a relative name would be
    looked up on the hub)."""
    if name not in NAMES:
        raise ValueError(f"unknown evaluate module {name!r}; expected one of {', '.join(NAMES)}")
    return str(Path(__file__).resolve().parent / name)


def score(
    task: str,
    kinds: Sequence[str],
    predictions: Sequence[object],
    references: Sequence[object],
    ids: Sequence[str] | None = None,
    text_encoder: str | None = None,
    fast: bool = False,
) -> dict[str, float | int | None]:
    """What the modules compute, as ``mmsoc score`` writes it to metrics.json (undefined values None):
    :func:`mmsoc.tasks.score_task_averaged` of ``task``, whose kind must be one of ``kinds``; ``ids``
    (``dataset/item``) let a task that pools datasets score each one."""
    from mmsoc.report import json_safe
    from mmsoc.tasks import get_task, score_task_averaged
    from mmsoc.tasks.kinds import require_kind

    require_kind(get_task(task), kinds, "this module")
    if ids is not None and len(ids) != len(predictions):
        raise ValueError(f"{len(ids)} ids for {len(predictions)} predictions")
    metrics, _ = score_task_averaged(task, predictions, references, ids, text_encoder=text_encoder, fast=fast)
    return cast(dict[str, float | int | None], json_safe(metrics))
