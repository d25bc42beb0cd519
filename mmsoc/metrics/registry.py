"""One metric registry: every metric's key, direction, method and the task kinds that report it.

Metrics are declared in groups (``mmsoc/metrics/catalog/<name>.py``, one module each, found by
discovery, and ``GROUP`` in plugin modules): a group's metrics come from one computation over the same
inputs (BLEU-1..4 from one pass of n-gram counts). A group computes per-item statistics
(:class:`~mmsoc.metrics.stats.ItemStat`), so every value has a bootstrap interval; a group of kind ``mcqa``
(``desiq eval``'s questions) may also give a figure with none (chance) under a metric's key. Catalog modules
import nothing heavy at import time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from mmsoc.core.registry import Registry, unknown_message
from mmsoc.metrics.inputs import LabelInput, MCQAInput, TagInput, TextInput
from mmsoc.metrics.stats import ItemStat
from mmsoc.metrics.suite_inputs import ChoiceInput, NumberInput, SpanInput, TagSequenceInput, TopKInput

MetricInput = (
    LabelInput | TagInput | TextInput | MCQAInput | ChoiceInput | NumberInput | SpanInput | TagSequenceInput | TopKInput
)
"""What a task kind hands its metric groups: one record of :mod:`mmsoc.metrics.inputs` or
:mod:`mmsoc.metrics.suite_inputs`."""

GroupResult = tuple[dict[str, ItemStat], dict[str, object]]
"""Per-item statistics by metric key, and notes on how they were computed (e.g. the model used; for ``mcqa``,
the figures written beside the statistics: chance, the counts)."""


@dataclass(frozen=True)
class Metric:
    key: str
    higher_is_better: bool
    method: str
    """Which package computes it and with which settings, as printed in reports."""
    packages: tuple[str, ...] = ()
    """Distributions whose implementation the method names; their installed versions are printed with it."""
    interval: str = ""
    """Where a ``desiq eval`` metrics.json writes its 95% interval over videos (empty: no interval there)."""
    paper: str = ""
    """The paper's name for it where the paper calls it otherwise, shown beside the key in reports."""
    undefined: str = ""
    """When it can have no value, why, in words (``the references hold one class``); printed as ``KEY undefined:
    WHY``, in metrics.json beside its null and in reports (empty: ``no value on these items``)."""

    def label(self) -> str:
        """The key, with the paper's name beside it where the paper calls it otherwise."""
        return f"{self.key} (the paper's {self.paper})" if self.paper else self.key

    def describe(self) -> str:
        """The method followed by the installed version of each package it names."""
        if not self.packages:
            return self.method
        return f"{self.method} [{', '.join(installed(name) for name in self.packages)}]"


@functools.cache
def installed(distribution: str) -> str:
    """``name version`` of an installed distribution, or ``name (not installed)``."""
    try:
        return f"{distribution} {metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return f"{distribution} (not installed)"


@dataclass(frozen=True)
class MetricGroup:
    """Metrics computed together for the task kinds in ``kinds``.

    ``compute`` takes the kind's scoring input (:mod:`mmsoc.metrics.inputs`). Model-based groups
    (BERTScore, embedding similarity) are skipped in fast mode.
    """

    name: str
    kinds: tuple[str, ...]
    metrics: tuple[Metric, ...]
    compute: Callable[[Any], GroupResult]
    order: int = 100
    model_based: bool = False

    def applies_to(self, kind: str) -> bool:
        """Whether the task kind ``kind`` reports this group's metrics."""
        return kind in self.kinds


GROUPS: Registry[MetricGroup] = Registry("metric group")
GROUPS.discover(
    "mmsoc.metrics.catalog", lambda module: [(module.GROUP.name, module.GROUP)] if hasattr(module, "GROUP") else []
)


def groups_for(kind: str, fast: bool = False) -> list[MetricGroup]:
    """The groups a task kind reports, in report order (model-based ones left out when ``fast``)."""
    found = [group for _, group in GROUPS.items() if group.applies_to(kind) and not (fast and group.model_based)]
    return sorted(found, key=lambda group: group.order)


def metrics_for(kind: str) -> list[Metric]:
    return [metric for group in groups_for(kind) for metric in group.metrics]


def metric_keys(kind: str) -> list[str]:
    return [metric.key for metric in metrics_for(kind)]


def find_metric(kind: str, key: str) -> Metric:
    for metric in metrics_for(kind):
        if metric.key == key:
            return metric
    raise KeyError(unknown_message("metric", key, metric_keys(kind), f"of task kind {kind!r}"))


def metric_label(kind: str, key: str) -> str:
    """How a report names the metric ``key`` of task kind ``kind`` (:meth:`Metric.label`; a key the kind does
    not declare, as it is)."""
    return next((metric.label() for metric in metrics_for(kind) if metric.key == key), key)


def why_undefined(kind: str, key: str) -> str:
    """Why the metric ``key`` of task kind ``kind`` has no value, in words (:attr:`Metric.undefined`)."""
    found = next((metric.undefined for metric in metrics_for(kind) if metric.key == key), "")
    return found or "no value on these items"


def all_keys() -> list[str]:
    """Every metric key of every kind, in report order, once."""
    return _keys(GROUPS.values())


def _keys(groups: Iterable[MetricGroup]) -> list[str]:
    ordered = sorted(groups, key=lambda group: group.order)
    return list(dict.fromkeys(metric.key for group in ordered for metric in group.metrics))


def metric_help() -> str:
    """The help of an option naming metrics: every metric key (plugin groups too)."""
    keys = _keys(group for _, group, _ in GROUPS.known())
    return f"Metric keys: {', '.join(keys)} (`mmsoc list metrics` says which task kinds report each)."


def run_groups(kind: str, data: MetricInput, fast: bool = False) -> GroupResult:
    """Every group of ``kind`` on ``data``: merged statistics and notes."""
    stats: dict[str, ItemStat] = {}
    info: dict[str, object] = {}
    for group in groups_for(kind, fast):
        group_stats, group_info = group.compute(data)
        stats.update(group_stats)
        info.update(group_info)
    return stats, info
