"""Metric groups over text pairs (:class:`~mmsoc.metrics.inputs.TextInput`) whose statistics are one function of
:mod:`mmsoc.metrics.text`, imported when the group is computed."""

from __future__ import annotations

from collections.abc import Callable

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup

BLEU_ORDERS = (1, 2, 3, 4)
"""The n-gram orders of BLEU-1..4 (here, not in :mod:`mmsoc.metrics.text`, whose imports are heavy)."""


def pairs_compute(function: str, key: str = "") -> Callable[[TextInput], GroupResult]:
    """A group's ``compute``: ``mmsoc.metrics.text.FUNCTION(predictions, references)``, its one statistic
    under ``key`` where it returns one."""

    def compute(data: TextInput) -> GroupResult:
        from mmsoc.metrics import text

        result = getattr(text, function)(data.predictions, data.references)
        return ({key: result} if key else result), {}

    return compute


def bleu_group(function: str, key: str, method: str, package: str, order: int) -> MetricGroup:
    """BLEU-1..4 of OCR and generation from ``function``: keys and methods are ``key`` and ``method`` with
    ``{n}`` the highest n-gram order."""
    metrics = tuple(Metric(key.format(n=n), True, method.format(n=n), (package,)) for n in BLEU_ORDERS)
    return MetricGroup(function, ("ocr", "generation"), metrics, pairs_compute(function), order=order)


def single_group(name: str, kinds: tuple[str, ...], metric: Metric, function: str, order: int) -> MetricGroup:
    """A group of one metric, ``function``'s statistic."""
    return MetricGroup(name, kinds, (metric,), pairs_compute(function, metric.key), order=order)
