"""The conditions a multimodal LLM is asked under, and the questions each one asks.

- ``original``: the questions as released;
- ``NCAQ``: the paper's meaning, the options only (no question, no transcript, no media);
- ``RIWI``, ``RIWA``, ``RAWI``, ``RAWA``: the paper's perturbations, ``SHUF``: the options in a seeded order,
  and those of plugin modules (``desiq.perturbations``);
- ``desiq_d``, ``desiq_s``: the DeSIQ splits (``desiq.splits``);
- ``circular``: every question under each rotation of its options; correct only when correct under
  all of them (VLMEvalKit's CircularEval).

Each is asked as AK (the question with all its K options: A4 for Social-IQ) and A2 (every
correct-incorrect pair as a two-option question, ``desiq.records.to_a2``; perturbations are applied to the pairs as
``desiq perturb --choices A2`` does). Perturbations and splits are built from all the questions
(partners are drawn from the whole file), then ``limit`` keeps the first questions, so a limited run
asks a prefix of what the full run asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desiq.perturbation_schemes import perturb, reorder
from desiq.perturbations import PERTURBATIONS
from desiq.records import MCQAItem, configs, in_config
from mmsoc.core.registry import nearest

ORIGINAL, NCAQ, CIRCULAR = "original", "NCAQ", "circular"
SPLIT_CONDITIONS = {"desiq_d": "d", "desiq_s": "s"}
CONDITIONS = (ORIGINAL, NCAQ, *(n for n, _, _ in PERTURBATIONS.known() if n != NCAQ), *SPLIT_CONDITIONS, CIRCULAR)
UNLABELLED_CONDITIONS = (ORIGINAL, NCAQ, CIRCULAR)
"""Conditions that need no answer key (they can be asked of the unlabelled test split)."""


@dataclass(frozen=True)
class Asked:
    """One question as a model is asked it: under ``condition``, as ``config``, with its options rotated
    ``rotation`` places (``item`` holds the options and gold index as asked)."""

    condition: str
    config: str
    rotation: int
    item: MCQAItem
    source: str
    """The id of the released question it comes from."""

    @property
    def blind(self) -> bool:
        """NCAQ: the options only, whatever the run's input setting."""
        return self.condition == NCAQ

    @property
    def key(self) -> tuple[str, str, int]:
        return self.item.id, self.condition, self.rotation


def parse_conditions(text: str | None, labelled: bool) -> tuple[str, ...]:
    """Conditions in the canonical order; default: all (all that need no answer key, for unlabelled data)."""
    if text is None:
        return CONDITIONS if labelled else UNLABELLED_CONDITIONS
    names = [n.strip() for n in text.split(",") if n.strip()]
    lookup = {c.lower(): c for c in CONDITIONS}
    if not names:
        raise ValueError(f"--condition {text!r}: choose from {', '.join(CONDITIONS)} (comma-separated)")
    for name in names:
        if name.lower() not in lookup:
            close = nearest(name, CONDITIONS)
            hint = f"; nearest: {', '.join(close)}" if close else ""
            raise ValueError(f"--condition {name!r}: unknown condition{hint}; known: {', '.join(CONDITIONS)}")
    chosen = {lookup[n.lower()] for n in names}
    if not labelled and chosen - set(UNLABELLED_CONDITIONS):
        raise ValueError(
            f"conditions {', '.join(sorted(chosen - set(UNLABELLED_CONDITIONS)))} need answer keys; "
            f"unlabelled questions (the test split) take only {', '.join(UNLABELLED_CONDITIONS)}"
        )
    return tuple(c for c in CONDITIONS if c in chosen)


def rotate(item: MCQAItem, r: int) -> MCQAItem:
    """The item with option k moved to slot (k - r) mod n (so rotation r asks option r first)."""
    n = len(item.options)
    return reorder(item, [(i + r) % n for i in range(n)])


def _source(item: MCQAItem) -> str:
    return item.id.split("#", 1)[0]


def condition_items(items: Sequence[MCQAItem], condition: str, config: str, seed: int) -> list[MCQAItem]:
    """The questions of one condition in one configuration (before rotations), from all ``items``."""
    from desiq.splits import build_split

    base = in_config(items, config)
    if condition in (ORIGINAL, CIRCULAR):
        return base
    if condition in SPLIT_CONDITIONS:
        rebuilt = build_split(items, SPLIT_CONDITIONS[condition], seed=seed).items
        return in_config(rebuilt, config)
    return perturb(base, condition, seed=seed).items


def ask(items: Sequence[MCQAItem], conditions: Sequence[str], seed: int = 0, limit: int | None = None) -> list[Asked]:
    """Every question to ask, in the canonical order: condition, configuration, question, rotation.

    Unlabelled items are asked with all their options only (A2 pairs need the answer key)."""
    labelled = all(item.labelled for item in items)
    keep = {item.id for item in items[:limit]} if limit is not None else None
    out: list[Asked] = []
    for condition in conditions:
        for config in configs(items) if labelled else configs(items)[:1]:
            for item in condition_items(items, condition, config, seed):
                source = _source(item)
                if keep is not None and source not in keep:
                    continue
                rotations = range(len(item.options)) if condition == CIRCULAR else range(1)
                out += [Asked(condition, config, r, rotate(item, r) if r else item, source) for r in rotations]
    return out
