"""The multiple-choice question record of Social-IQ-style video QA, and its A2 (binary) view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

CORRECT = "corr"
"""The marker of the correct option as a dataset releases it (``idx_types`` in Social-IQ 2.0)."""


def position_id(qid: str, position: int) -> str:
    """The id of the question at ``position`` (0-based) of its file. Social-IQ repeats qids, so an
    item is never identified by its qid alone."""
    return f"{qid}@{position}"


@dataclass(frozen=True)
class MCQAItem:
    """One multiple-choice question about a video (or another group: a passage, a scenario).

    ``id`` is unique within the file the item came from (see ``position_id``); ``qid`` is the
    dataset's own question id, which may repeat. ``video`` is the group partners and intervals
    cluster on: Social-IQ's ``vid_name``, or a generic file's group column.
    ``answer_idx`` is None for unlabelled (test) items.
    ``option_markers`` holds each option's marker, where it came from: the markers of its release (``corr``,
    ``rewrite``, ``matched``, ...: Social-IQ 2.0's ``idx_types``) or the marker of the perturbation or split
    that put it there (``desiq.perturbations``).
    """

    id: str
    qid: str
    video: str
    question: str
    options: tuple[str, ...]
    answer_idx: int | None
    option_markers: tuple[str, ...] = ()
    ts: str = ""
    source: str = ""
    context: str = ""
    """Text shown as the transcript (a generic MCQA file's context column); empty for Social-IQ."""
    media: str = ""
    """A media file of this item, relative to the media folder (a generic MCQA file's media column)."""

    @property
    def question_key(self) -> str:
        """The question this item asks: its own id, or for an A2 pair the id of its A4 question."""
        return self.source or self.id

    @property
    def labelled(self) -> bool:
        return self.answer_idx is not None

    @property
    def answer(self) -> str | None:
        return None if self.answer_idx is None else self.options[self.answer_idx]

    @property
    def incorrect_idx(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.options)) if i != self.answer_idx)

    def with_options(self, options: list[str] | tuple[str, ...], markers: list[str] | tuple[str, ...]) -> MCQAItem:
        return replace(self, options=tuple(options), option_markers=tuple(markers))


PAIRS = "A2"
"""The configuration of correct-incorrect pairs (two options each)."""


def all_options(k: int) -> str:
    """The configuration that asks all ``k`` options: ``A4`` for Social-IQ, ``A3`` or ``A5`` for other files."""
    return f"A{k}"


def option_count(items: Sequence[MCQAItem]) -> int:
    """The one number of options the items share (4 for Social-IQ); a ValueError when they differ."""
    counts = sorted({len(item.options) for item in items})
    if len(counts) != 1:
        raise ValueError(f"items have {' and '.join(map(str, counts)) or 'no'} options; one count per file is needed")
    return counts[0]


def configs(items: Sequence[MCQAItem]) -> tuple[str, ...]:
    """The configurations the items are asked in: all options (``AK``), then correct-incorrect pairs
    (``A2``); two-option items have only ``A2``."""
    return configs_for(option_count(items))


def configs_for(k: int) -> tuple[str, ...]:
    """The configurations of ``k``-option questions (``configs``)."""
    return (PAIRS,) if k == 2 else (all_options(k), PAIRS)


def in_config(items: Sequence[MCQAItem], config: str) -> list[MCQAItem]:
    """The items as ``config`` sees them: themselves (``AK``) or their A2 pairs."""
    if config not in configs(items):
        raise ValueError(f"config must be one of {', '.join(configs(items))} for these items, not {config!r}")
    return to_a2(items) if config == PAIRS and len(items[0].options) > 2 else list(items)


def to_a2(items: Sequence[MCQAItem]) -> list[MCQAItem]:
    """Binary items: the correct option against each incorrect one, in a fixed order.

    The correct option's slot alternates from pair to pair so that "always pick the first"
    scores chance, not 100%. A pair's qid is ``<qid>#<j>`` and its id ``<id>#<j>`` (j: the
    incorrect option's index).
    """
    pairs: list[MCQAItem] = []
    for item in items:
        gold = item.answer_idx
        if gold is None:
            raise ValueError(f"A2 needs labelled items; {item.id} has no answer")
        correct, marker = item.options[gold], item.option_markers[gold]
        for j in item.incorrect_idx:
            first = len(pairs) % 2 == 0
            opts = (correct, item.options[j]) if first else (item.options[j], correct)
            markers = (marker, item.option_markers[j]) if first else (item.option_markers[j], marker)
            pairs.append(
                MCQAItem(
                    f"{item.id}#{j}",
                    f"{item.qid}#{j}",
                    item.video,
                    item.question,
                    opts,
                    0 if first else 1,
                    markers,
                    item.ts,
                    item.question_key,
                    item.context,
                    item.media,
                )
            )
    return pairs
