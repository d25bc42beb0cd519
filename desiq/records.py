"""The multiple-choice question record of Social-IQ-style video QA, and the kinds of its options."""

from __future__ import annotations

from dataclasses import dataclass, replace

CORRECT_KINDS = frozenset({"corr", "rawi", "rawa"})
"""Option kinds that mark the slot counted as correct (original or substituted)."""

ORIGINAL_KINDS = frozenset({"corr", "rewrite", "matched"})
"""Option kinds of the Social-IQ 2.0 release."""


@dataclass(frozen=True)
class MCQAItem:
    """One multiple-choice question about a video.

    ``answer_idx`` is None for unlabeled (test) items. ``option_kinds`` says where each option
    came from: Social-IQ 2.0 kinds (``corr``, ``rewrite``, ``matched``) or the name of the
    perturbation / split that put it there (``riwi``, ``riwa``, ``rawi``, ``rawa``, ``desiq_d``,
    ``desiq_s``).
    """

    qid: str
    video: str
    question: str
    options: tuple[str, ...]
    answer_idx: int | None
    option_kinds: tuple[str, ...] = ()
    ts: str = ""

    @property
    def labelled(self) -> bool:
        return self.answer_idx is not None

    @property
    def answer(self) -> str | None:
        return None if self.answer_idx is None else self.options[self.answer_idx]

    @property
    def incorrect_idx(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.options)) if i != self.answer_idx)

    def with_options(self, options: list[str] | tuple[str, ...], kinds: list[str] | tuple[str, ...]) -> "MCQAItem":
        return replace(self, options=tuple(options), option_kinds=tuple(kinds))
