"""The shortcut battery: answer-only rules that pick an option without the video, one record per rule.

Each rule gives one score per option (the highest is its pick; a tie among t options counts 1/t of a hit,
``desiq.probes.ties``), or None where it does not apply to the question. ``reads`` is what of a question
the rule looks at, as the letters of an input setting (``desiq.inputs``): ``a`` the options (and their
order), ``q+a`` the question too; a rule runs only under inputs that show what it reads.

- ``longest`` / ``shortest``: the option with the most / fewest characters.
- ``longest_words`` / ``shortest_words``: the option with the most / fewest words.
- ``question_overlap``: the option sharing the most words with the question.
- ``odd_one_out``: the option least like the others (mean word Jaccard to them); three options or more.
- ``most_central``: the option most like the others (mean word Jaccard to them); three options or more.
- ``position_prior``: the position that holds the correct option most often in the training questions
  (all options only: A2 pairs alternate the correct option's slot by construction).
- ``rewrite_nearest`` (Social-IQ 2.0): the option nearest to the option that ``idx_types`` names
  ``rewrite``, by word Jaccard. The rewrite is a reworded (wrong) version of the correct answer, so its
  nearest neighbour is often the correct one. Only items whose ``idx_types`` name a rewrite are scored,
  with all options only.

Words are the lower-cased runs of letters, digits and apostrophes. A rule learnt from training questions
(``position_prior``) is fitted on the training file; with one file only, it is cross-fitted: each fold of
groups (videos) is scored by the rule learnt on the other folds (``cross_fitted``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from desiq.inputs import InputSetting
from desiq.records import PAIRS, MCQAItem

WORD = re.compile(r"[\w']+")
REWRITE = "rewrite"
FOLDS = 5
"""Folds of groups a learnt rule is cross-fitted on, with a single file."""

Score = Callable[[MCQAItem], "np.ndarray | None"]
"""One score per option of a question, or None where the rule does not apply to it."""


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, len(a | b))


def longest(item: MCQAItem) -> np.ndarray:
    return np.array([len(option) for option in item.options], dtype=float)


def shortest(item: MCQAItem) -> np.ndarray:
    return -longest(item)


def longest_words(item: MCQAItem) -> np.ndarray:
    return np.array([len(WORD.findall(option)) for option in item.options], dtype=float)


def shortest_words(item: MCQAItem) -> np.ndarray:
    return -longest_words(item)


def question_overlap(item: MCQAItem) -> np.ndarray | None:
    question = words(item.question)
    if not question:
        return None
    return np.array([len(question & words(option)) for option in item.options], dtype=float)


def likeness(item: MCQAItem) -> np.ndarray:
    """Each option's mean word Jaccard to the other options."""
    sets = [words(option) for option in item.options]
    return np.array([np.mean([jaccard(a, b) for j, b in enumerate(sets) if j != i]) for i, a in enumerate(sets)])


def odd_one_out(item: MCQAItem) -> np.ndarray:
    return -likeness(item)


def rewrite_nearest(item: MCQAItem) -> np.ndarray | None:
    if REWRITE not in item.option_markers:
        return None
    r = item.option_markers.index(REWRITE)
    rewrite = words(item.options[r])
    scores = [jaccard(rewrite, words(o)) for o in item.options]
    scores[r] = -np.inf  # the rewrite itself is never the pick
    return np.array(scores)


def position_prior(train: Sequence[MCQAItem]) -> Score:
    """Scores each position by how often it holds the correct option in ``train``: the most frequent wins,
    equally frequent positions tie."""
    gold = [item.answer_idx for item in train if item.answer_idx is not None]
    k = max((len(item.options) for item in train), default=0)
    counts = np.bincount(np.asarray(gold, dtype=int), minlength=k).astype(float)

    def score(item: MCQAItem) -> np.ndarray | None:
        return counts[: len(item.options)] if gold and len(item.options) <= len(counts) else None

    return score


@dataclass(frozen=True)
class Shortcut:
    """One rule of the battery. ``fit`` turns labelled training questions into the rule's scores; a rule
    that learns nothing ignores them (``learns`` False)."""

    name: str
    summary: str
    """A few words for listings and tables."""
    fit: Callable[[Sequence[MCQAItem]], Score]
    reads: str = "a"
    """The input setting it needs at least: ``a`` (the options) or ``q+a``."""
    learns: bool = False
    """Whether it learns from training questions (then cross-fitted on a single file)."""
    pairs: bool = True
    """Whether it is scored on A2 pairs (a rule that compares three options or more is not)."""

    def readable(self, inputs: str) -> bool:
        """Whether inputs ``inputs`` show what the rule reads."""
        return not InputSetting.parse(self.reads).question or InputSetting.parse(inputs).question


def fixed(rule: Score) -> Callable[[Sequence[MCQAItem]], Score]:
    """A rule that learns nothing: the same scores whatever the training questions."""
    return lambda train: rule


SHORTCUTS = (
    Shortcut("longest", "most characters", fixed(longest)),
    Shortcut("shortest", "fewest characters", fixed(shortest)),
    Shortcut("longest_words", "most words", fixed(longest_words)),
    Shortcut("shortest_words", "fewest words", fixed(shortest_words)),
    Shortcut("question_overlap", "most words shared with the question", fixed(question_overlap), reads="q+a"),
    Shortcut("odd_one_out", "least like the other options, by word Jaccard", fixed(odd_one_out), pairs=False),
    Shortcut("most_central", "most like the other options, by word Jaccard", fixed(likeness), pairs=False),
    Shortcut(
        "position_prior", "the training file's most frequent correct position", position_prior, learns=True, pairs=False
    ),
    Shortcut("rewrite_nearest", "nearest to the rewrite option, by word Jaccard", fixed(rewrite_nearest), pairs=False),
)


def applicable(inputs: str, config: str) -> list[Shortcut]:
    """The rules that read only what ``inputs`` show and are scored in ``config``."""
    return [s for s in SHORTCUTS if s.readable(inputs) and (s.pairs or config != PAIRS)]


def cross_fitted(shortcut: Shortcut, items: Sequence[MCQAItem]) -> list[np.ndarray | None]:
    """Per item, the rule's scores learnt without the item's group: fitted on the other folds of groups
    (``sklearn.model_selection.GroupKFold``); None for every item when there are fewer than two groups."""
    from sklearn.model_selection import GroupKFold

    groups = [item.video for item in items]
    n_groups = len(set(groups))
    if n_groups < 2:
        return [None] * len(items)
    scores: list[np.ndarray | None] = [None] * len(items)
    splitter = GroupKFold(n_splits=min(FOLDS, n_groups))
    for fitted, held in splitter.split(np.zeros((len(items), 1)), groups=groups):
        rule = shortcut.fit([items[i] for i in fitted])
        for i in held:
            scores[i] = rule(items[i])
    return scores
