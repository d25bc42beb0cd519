"""DeSIQ debiased splits (RIWA on train and dev, records in ``desiq.perturbations.SPLITS``) and the
invariants every split must keep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from desiq.perturbation_schemes import PerturbResult, perturb, same_text
from desiq.perturbations import SPLITS
from desiq.records import MCQAItem


def build_split(items: Sequence[MCQAItem], variant: str, seed: int = 0, source: str = "the questions") -> PerturbResult:
    """DeSIQ_<variant>: every incorrect option becomes the correct answer of a partner question.

    DeSIQ_s falls back to other videos for the options a video cannot supply (a video with one
    question has no partner); the result counts those fallbacks. ``source`` names the items in errors.
    """
    require_labels(items, source)
    result = perturb(items, SPLITS[variant], seed=seed)
    problems = check_split(items, result.items)
    if problems:
        raise AssertionError("DeSIQ split broke its invariants: " + "; ".join(problems[:5]))
    return result


def require_labels(items: Sequence[MCQAItem], source: str = "the questions") -> None:
    """A ValueError unless every item is labelled: a split is rebuilt around each question's correct
    option, so unlabelled (test) questions cannot be rebuilt."""
    unlabelled = [item for item in items if not item.labelled]
    if unlabelled:
        raise ValueError(
            f"{source}: building a DeSIQ split needs labelled questions (answer_idx, ans_corr and "
            f"idx_types: the correct option is kept and every other one replaced), but "
            f"{len(unlabelled)} of {len(items)} have no label (first: qid {unlabelled[0].qid!r}); "
            "build from the train or val file"
        )


def check_split(original: Sequence[MCQAItem], rebuilt: Sequence[MCQAItem]) -> list[str]:
    """Invariants of a rebuilt split: same questions and correct answers, no item given its own
    correct answer as a distractor, no replacement that duplicates an option (texts compared as
    ``same_text``; an item left as it was because the pool ran dry keeps the release's options)."""
    problems = []
    if len(original) != len(rebuilt):
        return [f"{len(original)} items in, {len(rebuilt)} out"]
    for before, after in zip(original, rebuilt):
        if after.answer != before.answer or after.answer_idx != before.answer_idx:
            problems.append(f"{after.id}: correct option changed")
        texts = [same_text(option) for option in after.options]
        replaced = [i for i, marker in enumerate(after.option_markers) if marker != before.option_markers[i]]
        if any(texts.count(texts[i]) > 1 for i in replaced):
            problems.append(f"{after.id}: duplicate options")
        if any(texts[i] == same_text(before.answer or "") for i in replaced):
            problems.append(f"{after.id}: its own correct answer is a distractor")
    return problems


def answer_repeated_as_distractor(items: Iterable[MCQAItem]) -> list[MCQAItem]:
    """Labelled items whose correct answer also appears as an incorrect option (a release defect)."""
    return [item for item in items if item.labelled and any(item.options[i] == item.answer for i in item.incorrect_idx)]
