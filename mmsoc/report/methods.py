"""How each number of a report was computed: the methods table, with package versions."""

from __future__ import annotations

from mmsoc.metrics.registry import all_keys, metrics_for
from mmsoc.tasks import get_task

SUCCESS_METHODS = {
    "success_rate": "share of responses in the requested format (the paper's success rate), by the task kind's "
    "strict parser: classification the label or answer word alone (case and punctuation aside), "
    "tagging every comma-separated part a known topic, OCR text in double quotes, generation any "
    "text; pooled over seeds; empty when the prediction log does not record strict validity",
    "success_rate_lenient": "share of responses the lenient parser could read (classification: one label stated in "
    "the opening words; tagging: at least one known topic; OCR: the response without quotes); "
    "these answers are what the metrics score",
}


def metric_order(key: str) -> int:
    keys = all_keys()
    return keys.index(key) if key in keys else len(keys)


def methods(tasks: list[str], keys: list[str]) -> dict[str, str]:
    """How each metric was computed, with the installed version of each package it names; a key whose
    meaning differs by task kind names each kind's method."""
    found: dict[str, dict[str, str]] = {}
    for kind in dict.fromkeys(get_task(task).kind for task in tasks):
        for metric in metrics_for(kind):
            found.setdefault(metric.key, {})[kind] = metric.describe()
    out = {"n": "number of items scored", **SUCCESS_METHODS}
    keys = list(SUCCESS_METHODS) + keys
    for key in keys:
        if key in found:
            methods = found[key]
            out[key] = (
                next(iter(methods.values()))
                if len(set(methods.values())) == 1
                else "; ".join(f"{kind}: {method}" for kind, method in methods.items())
            )
    return {key: out[key] for key in keys if key in out}
