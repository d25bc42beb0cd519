"""SocKET classification and pair tasks, as the official ``experiments/zeroshot/eval.py`` scores them.

``f1``: scikit-learn macro-F1 (``precision_recall_fscore_support(average='macro')``, so over the classes
present in gold or prediction) of the answers the official reader could read, missing answers dropped
(the script's default); ``hit_rate``: share of answers read. ``f1_penalized``: every missing answer
replaced by a random wrong class first (the script's ``--penalize_missing``, here with a seeded draw).
``*_lenient``: the same with the lenient reader (longest option first, whole emoji).
"""

from __future__ import annotations

from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.metrics.suite_inputs import ChoiceInput

_NONE_READ = "no answer could be read"
_DROPPED = (
    "scikit-learn precision_recall_fscore_support(average='macro') macro-F1 over the answers read, "
    "missing answers dropped, as eval.py's default; computed by mmsoc from per-item confusion cells"
)
_PENALIZED = (
    "macro-F1 with each missing answer replaced by a uniformly drawn wrong class (eval.py "
    "--penalize_missing, whose draw is unseeded; here numpy default_rng seeded per task)"
)


def penalized(true_idx, pred_idx, n_labels: int, seed: int):
    """Predictions with each missing one (-1) replaced by a wrong class drawn uniformly, in item order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = np.array(pred_idx, copy=True)
    for i in np.flatnonzero(out < 0):
        draw = int(rng.integers(n_labels - 1))
        out[i] = draw + (draw >= true_idx[i])
    return out


def compute(data: ChoiceInput) -> GroupResult:
    from mmsoc.metrics.stats import mean_stat
    from mmsoc.metrics.suite_stats import macro_f1_stat

    stats = {}
    for suffix, found in (("", data.official), ("_lenient", data.lenient)):
        read = found >= 0
        stats[f"f1{suffix}"] = macro_f1_stat(data.true_idx, found, data.n_labels, keep=read)
        stats[f"hit_rate{suffix}"] = mean_stat(read)
        stats[f"f1{suffix}_penalized"] = macro_f1_stat(
            data.true_idx, penalized(data.true_idx, found, data.n_labels, data.penalty_seed), data.n_labels
        )
    order = ("f1", "hit_rate", "f1_penalized", "f1_lenient", "hit_rate_lenient", "f1_lenient_penalized")
    return {key: stats[key] for key in order}, {
        "missing_answers": int((data.official < 0).sum()),
        "missing_answers_lenient": int((data.lenient < 0).sum()),
    }


GROUP = MetricGroup(
    "socket_choice",
    ("socket_cls", "socket_pair"),
    (
        Metric("f1", True, _DROPPED + "; official reader", ("scikit-learn",), undefined=_NONE_READ),
        Metric("hit_rate", True, "share of answers the official reader could read (eval.py hit_rate)"),
        Metric("f1_penalized", True, _PENALIZED + "; official reader"),
        Metric(
            "f1_lenient",
            True,
            _DROPPED + "; lenient reader (longest option first, whole emoji)",
            ("emoji",),
            undefined=_NONE_READ,
        ),
        Metric("hit_rate_lenient", True, "share of answers the lenient reader could read"),
        Metric("f1_lenient_penalized", True, _PENALIZED + "; lenient reader"),
    ),
    compute,
    order=70,
)
