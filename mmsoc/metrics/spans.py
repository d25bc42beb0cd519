"""Character-offset span scoring as SocKET's ``experiments/zeroshot/eval.py`` does it: candidate spans snapped to
the input text, every occurrence of a span marked by character offset, the Dice coefficient of offset sets."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

MIN_SPAN = 3
"""Snapped spans shorter than this are dropped (eval.py)."""


def longest_common_substring(text: str, span: str) -> str:
    """The longest substring of ``text`` that also occurs in ``span`` (the earliest in ``text``), stripped."""
    from difflib import SequenceMatcher

    match = SequenceMatcher(None, text, span, autojunk=False).find_longest_match(0, len(text), 0, len(span))
    return text[match.a : match.a + match.size].strip()


def snapped_spans(text: str, candidates: Sequence[str]) -> list[str]:
    """Each candidate snapped to the input text, the ones of at least ``MIN_SPAN`` characters kept."""
    return [span for span in (longest_common_substring(text, c) for c in candidates) if len(span) >= MIN_SPAN]


def char_offsets(text: str, spans: Iterable[str]) -> set[int]:
    """Character offsets of every non-overlapping occurrence of each span in ``text`` (eval.py's
    ``find_substring_indices``; an empty span marks nothing, where eval.py would loop forever)."""
    offsets: set[int] = set()
    for span in spans:
        start = text.find(span) if span else -1
        while start != -1:
            offsets.update(range(start, start + len(span)))
            start = text.find(span, start + len(span))
    return offsets


def dice(predicted: set[int], gold: set[int]) -> float:
    """Character-offset F1 (Dice); with no gold offsets, 1 when nothing is predicted, else 0."""
    if not gold:
        return 1.0 if not predicted else 0.0
    return 2 * len(predicted & gold) / (len(predicted) + len(gold))
