"""DeSIQ debiased splits (RIWA on train and dev) and the invariants every split must keep."""

from __future__ import annotations

from collections.abc import Sequence

from desiq.perturb import PerturbResult, Scope, perturb
from desiq.records import MCQAItem

VARIANTS = {"d": Scope.other_video, "s": Scope.same_video}
"""DeSIQ_d draws partner answers from other videos, DeSIQ_s from the same video."""


def build_split(items: Sequence[MCQAItem], variant: str, seed: int = 0) -> PerturbResult:
    """DeSIQ_<variant>: every incorrect option becomes the correct answer of a partner question.

    DeSIQ_s falls back to other videos for the options a video cannot supply (a video with one
    question has no partner); the result counts those fallbacks.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown DeSIQ variant {variant!r}; choose 'd' (other videos) or 's' (same video)")
    result = perturb(items, "RIWA", seed=seed, scope=VARIANTS[variant], marker=f"desiq_{variant}")
    problems = check_split(items, result.items)
    if problems:
        raise AssertionError("DeSIQ split broke its invariants: " + "; ".join(problems[:5]))
    return result


def check_split(original: Sequence[MCQAItem], rebuilt: Sequence[MCQAItem]) -> list[str]:
    """Invariants of a rebuilt split: same questions and correct answers, no item given its own
    correct answer as a distractor, no duplicate options."""
    problems = []
    if len(original) != len(rebuilt):
        return [f"{len(original)} items in, {len(rebuilt)} out"]
    for before, after in zip(original, rebuilt):
        if after.answer != before.answer or after.answer_idx != before.answer_idx:
            problems.append(f"{after.qid}: correct option changed")
        if len(set(after.options)) != len(after.options):
            problems.append(f"{after.qid}: duplicate options")
        if any(after.options[i] == before.answer for i in after.incorrect_idx):
            problems.append(f"{after.qid}: its own correct answer is a distractor")
    return problems
